// The MapReduce runtime of the Mars-style programs (pvc, pvr, ssc, iix, wordcount), written for
// this project after the structure of Mars (He et al., PACT 2008): map tasks count their output
// first, an exclusive prefix sum gives every task its output offset, the map writes key/value
// pairs there; the group stage sorts the pairs by key with a bitonic sort and marks where each
// key's group starts; reduce tasks run one thread per group. Host side: common/mars.py.
//
// Pairs are two int arrays (keys, vals) ordered lexicographically by (key, val), so the order of
// equal keys is defined. Sorts work on a power-of-two length padded with (INT_MAX, INT_MAX).
#include <climits>

#define MARS_THREADS 256
#define MARS_TILE (2 * MARS_THREADS)     // elements per CTA in the scan and the local sort

// One file-scope pair of tiles serves the scan and the sorts: the PTX front end charges every
// kernel of a module with all of the module's static shared arrays (reported to the lead), so
// sharing them keeps each kernel's charge at what the largest one uses.
__shared__ int mars_tile_keys[MARS_TILE];
__shared__ int mars_tile_vals[MARS_TILE];

// Exclusive prefix sum of one tile of 512 ints per CTA (up-sweep / down-sweep in shared memory);
// each tile's total goes to tile_sums for the next level.
extern "C" __global__ void mars_scan_tiles(const int* in, int* out, int* tile_sums, int n) {
    int* s = mars_tile_keys;
    int t = threadIdx.x, base = blockIdx.x * MARS_TILE;
    s[t] = base + t < n ? in[base + t] : 0;
    s[t + MARS_THREADS] = base + t + MARS_THREADS < n ? in[base + t + MARS_THREADS] : 0;
    int stride = 1;
    for (int d = MARS_TILE >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int a = stride * (2 * t + 1) - 1, b = stride * (2 * t + 2) - 1;
            s[b] += s[a];
        }
        stride <<= 1;
    }
    if (t == 0) {
        tile_sums[blockIdx.x] = s[MARS_TILE - 1];
        s[MARS_TILE - 1] = 0;
    }
    for (int d = 1; d < MARS_TILE; d <<= 1) {
        stride >>= 1;
        __syncthreads();
        if (t < d) {
            int a = stride * (2 * t + 1) - 1, b = stride * (2 * t + 2) - 1;
            int left = s[a];
            s[a] = s[b];
            s[b] += left;
        }
    }
    __syncthreads();
    if (base + t < n) out[base + t] = s[t];
    if (base + t + MARS_THREADS < n) out[base + t + MARS_THREADS] = s[t + MARS_THREADS];
}

// Adds each tile's offset (the scanned tile sums) to its elements.
extern "C" __global__ void mars_scan_add(int* out, const int* tile_offsets, int n) {
    int i = blockIdx.x * MARS_TILE + threadIdx.x;
    int add = tile_offsets[blockIdx.x];
    if (i < n) out[i] += add;
    if (i + MARS_THREADS < n) out[i + MARS_THREADS] += add;
}

__device__ __forceinline__ bool mars_greater(int ka, int va, int kb, int vb) {
    return ka > kb || (ka == kb && va > vb);
}

// One compare-exchange of the bitonic network: elements i and i + j, ascending where (i & k) == 0.
__device__ __forceinline__ void mars_exchange(int* keys, int* vals, int i, int j, int k) {
    int ka = keys[i], kb = keys[i + j], va = vals[i], vb = vals[i + j];
    bool ascending = (i & k) == 0;
    if (mars_greater(ka, va, kb, vb) == ascending) {
        keys[i] = kb; keys[i + j] = ka;
        vals[i] = vb; vals[i + j] = va;
    }
}

// The bitonic network inside one 512-element tile in shared memory: stages k = k_first..k_last
// (k_first == k_last for one merge stage); the direction uses the global index, as the full
// network does.
__device__ void mars_tile_network(int* keys, int* vals, int k_first, int k_last, int j_first) {
    int *sk = mars_tile_keys, *sv = mars_tile_vals;
    int t = threadIdx.x, base = blockIdx.x * MARS_TILE;
    sk[t] = keys[base + t]; sk[t + MARS_THREADS] = keys[base + t + MARS_THREADS];
    sv[t] = vals[base + t]; sv[t + MARS_THREADS] = vals[base + t + MARS_THREADS];
    for (int k = k_first; k <= k_last; k <<= 1) {
        for (int j = (k == k_first ? j_first : k >> 1); j > 0; j >>= 1) {
            __syncthreads();
            int i = 2 * t - (t & (j - 1));
            int ka = sk[i], kb = sk[i + j], va = sv[i], vb = sv[i + j];
            bool ascending = ((base + i) & k) == 0;
            if (mars_greater(ka, va, kb, vb) == ascending) {
                sk[i] = kb; sk[i + j] = ka;
                sv[i] = vb; sv[i + j] = va;
            }
        }
    }
    __syncthreads();
    keys[base + t] = sk[t]; keys[base + t + MARS_THREADS] = sk[t + MARS_THREADS];
    vals[base + t] = sv[t]; vals[base + t + MARS_THREADS] = sv[t + MARS_THREADS];
}

// Sorts every 512-element tile (stages k = 2..min(n, 512)).
extern "C" __global__ void mars_sort_tiles(int* keys, int* vals, int k_last) {
    mars_tile_network(keys, vals, 2, k_last, 1);
}

// The steps j = 256..1 of stage k (> 512) inside each tile.
extern "C" __global__ void mars_sort_merge_tiles(int* keys, int* vals, int k) {
    mars_tile_network(keys, vals, k, k, MARS_THREADS);
}

// One step j (>= 512) of stage k over the whole array: n / 2 threads.
extern "C" __global__ void mars_sort_step(int* keys, int* vals, int j, int k) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    mars_exchange(keys, vals, 2 * t - (t & (j - 1)), j, k);
}

// flags[i] = 1 where a group starts among the first n sorted pairs: the key differs from the
// previous one (or, with by_value, the value does).
extern "C" __global__ void mars_group_flags(const int* keys, const int* vals, int* flags, int n,
                                            int by_value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int start = i == 0 || keys[i] != keys[i - 1] || (by_value && vals[i] != vals[i - 1]);
    flags[i] = start;
}

// starts[g] = the index of group g's first pair (group numbers from the scanned flags);
// starts[n_groups] = n.
extern "C" __global__ void mars_group_starts(const int* flags, const int* group_of, int* starts,
                                             int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (flags[i]) starts[group_of[i]] = i;
    if (i == n - 1) starts[group_of[i] + flags[i]] = n;
}
