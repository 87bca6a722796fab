// 256-bin byte histogram in the style of the CUDA SDK's histogram256 sample as its whitepaper
// (Podlozhnyuk, "Histogram calculation in CUDA", 2007) describes it: every warp of a 192-thread
// CTA owns a sub-histogram in shared memory, the CTA sums its six sub-histograms into one
// partial histogram in global memory, and a second kernel merges the partial histograms.
// Written for this project from that description.

#define BINS 256
#define WARPS_PER_CTA 6                      // 192 threads
#define MERGE_THREADS 256

// Phase 1 clears the sub-histograms; phase 2 reads 4-byte words (grid-stride, coalesced) and
// counts their bytes with shared-memory atomics into the warp's own sub-histogram; phase 3 sums
// the six sub-histograms of each bin and writes the CTA's partial histogram.
extern "C" __global__ void histogram_partial(const unsigned int* data, int words,
                                             unsigned int* partial) {
    __shared__ unsigned int sub[WARPS_PER_CTA * BINS];
    for (int i = threadIdx.x; i < WARPS_PER_CTA * BINS; i += blockDim.x) sub[i] = 0;
    __syncthreads();

    unsigned int* mine = sub + (threadIdx.x >> 5) * BINS;
    for (int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < words;
         pos += blockDim.x * gridDim.x) {
        unsigned int w = data[pos];
        atomicAdd(mine + (w & 0xFFu), 1u);
        atomicAdd(mine + ((w >> 8) & 0xFFu), 1u);
        atomicAdd(mine + ((w >> 16) & 0xFFu), 1u);
        atomicAdd(mine + (w >> 24), 1u);
    }
    __syncthreads();

    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x) {
        unsigned int sum = 0;
        for (int w = 0; w < WARPS_PER_CTA; ++w) sum += sub[w * BINS + bin];
        partial[blockIdx.x * BINS + bin] = sum;
    }
}

// One CTA per bin: its threads add that bin over all partial histograms (strided reads), then
// a tree reduction in shared memory.
extern "C" __global__ void histogram_merge(const unsigned int* partial, int partials,
                                           unsigned int* histogram) {
    __shared__ unsigned int acc[MERGE_THREADS];
    unsigned int sum = 0;
    for (int i = threadIdx.x; i < partials; i += blockDim.x) sum += partial[i * BINS + blockIdx.x];
    acc[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = MERGE_THREADS / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) acc[threadIdx.x] += acc[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) histogram[blockIdx.x] = acc[0];
}
