// Ten example kernels of different kinds for the PTX front end (docs/ptx.md), written for this
// project. Each has a host function and a numpy check in examples.py.
#include <cstdint>

#define TILE 16

// 1. Tiled matrix multiply C = A * B (n x n, n a multiple of TILE): shared-memory tiles and
//    barriers between the load and the use of a tile.
extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
    __shared__ float a[TILE][TILE];
    __shared__ float b[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        a[ty][tx] = A[row * n + t * TILE + tx];
        b[ty][tx] = B[(t * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += a[ty][k] * b[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

// 2. Sum of an array: a grid-stride loop, a warp tree reduction with shfl, one atomic per warp.
extern "C" __global__ void reduce_shfl(const float* x, float* out, int n) {
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += x[i];
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

// 3. 256-bin histogram of bytes: per-CTA bins in shared memory (shared atomics), then merged.
extern "C" __global__ void histogram256(const unsigned char* data, unsigned int* bins, int n) {
    __shared__ unsigned int local[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}

// 4. One level of breadth-first search on a CSR graph: every vertex of the frontier (level ==
//    depth) visits its neighbours; the host repeats it while *changed is set.
extern "C" __global__ void bfs_level(const int* row_start, const int* cols, int* level, int n,
                                     int depth, int* changed) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || level[v] != depth) return;
    for (int e = row_start[v]; e < row_start[v + 1]; ++e) {
        int u = cols[e];
        if (level[u] < 0) {
            level[u] = depth + 1;
            *changed = 1;
        }
    }
}

// 5. A lane-divergent while loop: Collatz steps of each value (capped).
extern "C" __global__ void collatz_steps(const unsigned int* x, int* steps, int n, int cap) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int v = x[i];
    int s = 0;
    while (v != 1u && s < cap) {
        v = (v & 1u) ? 3u * v + 1u : v >> 1;
        ++s;
    }
    steps[i] = s;
}

// 6. A 5-point 2-D stencil (Jacobi step) with clamped boundaries on a w x h grid.
extern "C" __global__ void stencil5(const float* in, float* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int xl = x > 0 ? x - 1 : x, xr = x < w - 1 ? x + 1 : x;
    int yu = y > 0 ? y - 1 : y, yd = y < h - 1 ? y + 1 : y;
    out[y * w + x] = 0.5f * in[y * w + x]
        + 0.125f * (in[y * w + xl] + in[y * w + xr] + in[yu * w + x] + in[yd * w + x]);
}

// 7. Black-Scholes call and put prices (math-heavy: log, exp, sqrt, the normal CDF by the
//    Abramowitz-Stegun polynomial).
__device__ float normal_cdf(float d) {
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f,
                a5 = 1.330274429f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))));
    float c = 0.3989422804f * expf(-0.5f * d * d) * poly;
    return d > 0.0f ? 1.0f - c : c;
}

extern "C" __global__ void black_scholes(const float* spot, const float* strike, const float* years,
                                         float* call, float* put, float rate, float vol, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = spot[i], k = strike[i], t = years[i];
    float sq = sqrtf(t);
    float d1 = (logf(s / k) + (rate + 0.5f * vol * vol) * t) / (vol * sq);
    float d2 = d1 - vol * sq;
    float disc = expf(-rate * t);
    call[i] = s * normal_cdf(d1) - k * disc * normal_cdf(d2);
    put[i] = k * disc * normal_cdf(-d2) - s * normal_cdf(-d1);
}

// 8. Per-thread local arrays: a 16-entry window per thread, indexed by data (stays in local memory).
extern "C" __global__ void local_window(const int* in, int* out, int n) {
    int window[16];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int k = 0; k < 16; ++k) window[k] = in[(i + k) % n] * (k + 1);
    int s = 0;
    for (int k = 0; k < 16; ++k) s += window[(k * 7 + in[i]) & 15];
    out[i] = s;
}

// 9. 64-bit integer division and remainder (signed quotient, unsigned remainder).
extern "C" __global__ void divide64(const long long* a, const long long* b, long long* q,
                                    unsigned long long* r, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    q[i] = a[i] / b[i];
    r[i] = (unsigned long long)a[i] % (unsigned long long)b[i];
}

// 10. Compaction of positive values with warp votes (ballot + popc) and one atomic per warp.
extern "C" __global__ void compact_positive(const int* in, int* out, int* count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    bool keep = v > 0;
    unsigned int ballot = __ballot_sync(0xffffffffu, keep);
    int lane = threadIdx.x & 31;
    int base = 0;
    if (lane == 0 && ballot) base = atomicAdd(count, __popc(ballot));
    base = __shfl_sync(0xffffffffu, base, 0);
    if (keep) out[base + __popc(ballot & ((1u << lane) - 1u))] = v;
}
