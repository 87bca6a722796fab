// Hybrid GPU sort after Sintorn and Assarsson, "Fast parallel GPU-sorting using a hybrid
// algorithm" (JPDC 2008), the algorithm of Rodinia's hybridsort: a bucket sort into 1024 buckets
// of about equal size (pivots from the host), then a vector merge sort inside every bucket on
// float4s: sort each float4, then passes that merge pairs of sorted runs, twice as long each
// pass, and a final pack that drops the padding. Written for this project.

#define BUCKETS 1024
#define COUNT_THREADS 256
#define PER_THREAD 4                         // elements per thread in the bucket kernels

// The bucket of v: the number of pivots <= v (pivots ascending, BUCKETS - 1 of them).
__device__ __forceinline__ int bucket_of(const float* pivots, float v) {
    int lo = 0, hi = BUCKETS - 1;            // answer in [lo, hi]
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (pivots[mid] <= v) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// Phase 1a: every element finds its bucket (binary search over the pivots in shared memory) and
// takes a slot in its CTA's count of that bucket with a shared-memory atomic.
extern "C" __global__ void bucket_count(const float* data, int n, const float* pivots,
                                        int* bucket, int* slot, int* counts) {
    __shared__ float piv[BUCKETS];
    __shared__ int hist[BUCKETS];
    for (int i = threadIdx.x; i < BUCKETS; i += COUNT_THREADS) {
        piv[i] = i < BUCKETS - 1 ? pivots[i] : 0.0f;
        hist[i] = 0;
    }
    __syncthreads();
    int base = blockIdx.x * COUNT_THREADS * PER_THREAD + threadIdx.x;
    for (int k = 0; k < PER_THREAD; ++k) {
        int i = base + k * COUNT_THREADS;
        if (i < n) {
            int b = bucket_of(piv, data[i]);
            bucket[i] = b;
            slot[i] = atomicAdd(&hist[b], 1);
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < BUCKETS; i += COUNT_THREADS)
        counts[blockIdx.x * BUCKETS + i] = hist[i];
}

// Phase 1b: one thread per bucket turns its column of per-CTA counts into offsets (exclusive
// prefix) and writes the bucket's size.
extern "C" __global__ void bucket_prefix(int* counts, int ctas, int* sizes) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= BUCKETS) return;
    int sum = 0;
    for (int c = 0; c < ctas; ++c) {
        int v = counts[c * BUCKETS + b];
        counts[c * BUCKETS + b] = sum;
        sum += v;
    }
    sizes[b] = sum;
}

// Phase 1c: scatter every element to its bucket (start: padded to a multiple of 4 on the host).
extern "C" __global__ void bucket_sort(const float* data, int n, const int* bucket,
                                       const int* slot, const int* counts, const int* start,
                                       float* out) {
    int base = blockIdx.x * COUNT_THREADS * PER_THREAD + threadIdx.x;
    for (int k = 0; k < PER_THREAD; ++k) {
        int i = base + k * COUNT_THREADS;
        if (i < n) {
            int b = bucket[i];
            out[start[b] + counts[blockIdx.x * BUCKETS + b] + slot[i]] = data[i];
        }
    }
}

__device__ __forceinline__ void order(float& a, float& b) {
    float lo = fminf(a, b), hi = fmaxf(a, b);
    a = lo;
    b = hi;
}

__device__ __forceinline__ void sort4(float4& v) {
    order(v.x, v.y); order(v.z, v.w);
    order(v.x, v.z); order(v.y, v.w);
    order(v.y, v.z);
}

// Phase 2a: sort every float4 of the padded array.
extern "C" __global__ void merge_sort_first(float4* data, int quads) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= quads) return;
    float4 v = data[i];
    sort4(v);
    data[i] = v;
}

// Merge two ascending float4s: lo gets the four smallest, hi the four largest, both ascending.
__device__ __forceinline__ void merge8(float4& lo, float4& hi) {
    order(lo.x, hi.w); order(lo.y, hi.z); order(lo.z, hi.y); order(lo.w, hi.x);
    order(lo.x, lo.z); order(lo.y, lo.w); order(lo.x, lo.y); order(lo.z, lo.w);
    order(hi.w, hi.y); order(hi.z, hi.x); order(hi.w, hi.z); order(hi.y, hi.x);
    float t = hi.x; hi.x = hi.w; hi.w = t;     // hi was built descending
    t = hi.y; hi.y = hi.z; hi.z = t;
}

// Phase 2b: one thread per pair of adjacent sorted runs of one bucket: pair = (first quad, quads
// in run A, quads in run B); run B follows run A. Vector merge: keep the four largest seen so
// far, take the next float4 from the run whose next head is smaller, emit the four smallest.
extern "C" __global__ void merge_sort_pass(const float4* in, float4* out, const int4* pairs,
                                           int count) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= count) return;
    int4 d = pairs[p];
    int first = d.x, la = d.y, lb = d.z;
    const float4* a = in + first;
    const float4* b = a + la;
    float4* o = out + first;
    float4 cur = a[0];
    int ia = 1, ib = 0;
    for (int k = 0; k < la + lb - 1; ++k) {
        float4 next;
        if (ib >= lb || (ia < la && a[ia].x <= b[ib].x)) next = a[ia++];
        else next = b[ib++];
        merge8(next, cur);                     // next: the smaller half, cur: the larger
        o[k] = next;
    }
    o[la + lb - 1] = cur;
}

// Phase 2c: drop the padding, one CTA per bucket: its size[b] elements move from the padded
// start[b] to the dense start dense[b].
extern "C" __global__ void merge_pack(const float* padded, const int* start, const int* dense,
                                      const int* size, float* out) {
    int b = blockIdx.x;
    int from = start[b], to = dense[b], count = size[b];
    for (int i = threadIdx.x; i < count; i += blockDim.x) out[to + i] = padded[from + i];
}
