// Exclusive prefix sum of a large array (the CUDA SDK's scanLargeArray; the work-efficient
// algorithm of Harris, Sengupta and Owens, GPU Gems 3 ch. 39). Each CTA of BLOCK threads scans
// 2*BLOCK elements in shared memory: an up-sweep builds partial sums in a balanced tree, the root
// is saved as the block's sum and cleared, a down-sweep distributes the prefixes. Shared indices
// are padded by one word every 32 to avoid bank conflicts. The host scans the block sums with
// the same kernel (recursively) and adds each block's prefix with uniform_add.
#define BLOCK 128
#define LOG_BANKS 5
#define PADDED(i) ((i) + ((i) >> LOG_BANKS))

extern "C" __global__ void prescan(unsigned int* out, const unsigned int* in,
                                   unsigned int* block_sums, int n) {
    __shared__ unsigned int tree[PADDED(2 * BLOCK)];
    const int t = threadIdx.x;
    const long base = (long)blockIdx.x * 2 * BLOCK;
    const int ai = t, bi = t + BLOCK;
    tree[PADDED(ai)] = base + ai < n ? in[base + ai] : 0u;
    tree[PADDED(bi)] = base + bi < n ? in[base + bi] : 0u;
    int offset = 1;
    for (int active = BLOCK; active > 0; active >>= 1) {       // up-sweep
        __syncthreads();
        if (t < active) {
            const int a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
            tree[PADDED(b)] += tree[PADDED(a)];
        }
        offset <<= 1;
    }
    if (t == 0) {
        const int root = PADDED(2 * BLOCK - 1);
        if (block_sums) block_sums[blockIdx.x] = tree[root];
        tree[root] = 0u;
    }
    for (int active = 1; active < 2 * BLOCK; active <<= 1) {   // down-sweep
        offset >>= 1;
        __syncthreads();
        if (t < active) {
            const int a = PADDED(offset * (2 * t + 1) - 1), b = PADDED(offset * (2 * t + 2) - 1);
            const unsigned int left = tree[a];
            tree[a] = tree[b];
            tree[b] += left;
        }
    }
    __syncthreads();
    if (base + ai < n) out[base + ai] = tree[PADDED(ai)];
    if (base + bi < n) out[base + bi] = tree[PADDED(bi)];
}

// Adds the scanned sum of all earlier blocks to every element of block blockIdx.x.
extern "C" __global__ void uniform_add(unsigned int* data, const unsigned int* prefix, int n) {
    __shared__ unsigned int add;
    if (threadIdx.x == 0) add = prefix[blockIdx.x];
    __syncthreads();
    const long base = (long)blockIdx.x * 2 * BLOCK;
    if (base + threadIdx.x < n) data[base + threadIdx.x] += add;
    if (base + threadIdx.x + BLOCK < n) data[base + threadIdx.x + BLOCK] += add;
}
