// Directed kernels for the PTX front end's tests (tests/ptx), written for this project.
#include <cuda_fp16.h>
#include <cstdint>

__constant__ float coeffs[8];
__device__ int device_counter;
__device__ float device_table[4] = {1.5f, -2.0f, 3.25f, 8.0f};

// A device function kept out of line: PTX .func with .param arguments and a return value.
__device__ __noinline__ float poly(float x, int k) {
    float acc = 0.0f;
    for (int i = 0; i < k; ++i) acc = acc * x + coeffs[i];
    if (x < 0.0f) return -acc;
    return acc;
}

extern "C" __global__ void call_poly(const float* x, float* y, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = poly(x[i], k) + device_table[i & 3];
}

// Nested if/else, a loop with a lane-dependent trip count and a break, an early return.
extern "C" __global__ void control(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i], r = 0;
    if (v & 1) {
        if (v & 2) r = 1; else r = 2;
    } else {
        if (v & 4) { r = 3; } else { r = 4; if (v & 8) { out[i] = -1; return; } }
    }
    for (int k = 0; k < (v & 15); ++k) {
        r += k;
        if (r > 40) break;
    }
    out[i] = r;
}

// Every atomic operation on global and shared memory, 32 and 64 bit, float and double add.
extern "C" __global__ void atomics(const int* in, int* g32, unsigned long long* g64, float* gf,
                                   double* gd, int* shared_out) {
    __shared__ int s[8];
    int t = threadIdx.x;
    if (t < 8) s[t] = (t == 2) ? 1000000 : 0;
    __syncthreads();
    int v = in[blockIdx.x * blockDim.x + t];
    atomicAdd(&g32[0], v);
    atomicMin(&g32[1], v);
    atomicMax(&g32[2], v);
    atomicAnd(&g32[3], v | 0xFFFF0000);
    atomicOr(&g32[4], v & 0xFF);
    atomicXor(&g32[5], v);
    atomicInc((unsigned*)&g32[6], 17u);
    atomicDec((unsigned*)&g32[7], 13u);
    atomicCAS(&g32[8], t, t + 1);
    atomicExch(&g32[9], t);
    atomicAdd(&g64[0], (unsigned long long)(v & 0xFFFF) << 20);
    atomicMax(&g64[1], (unsigned long long)v * 3ull);
    atomicAdd(gf, (float)(v & 255) * 0.25f);
    atomicAdd(gd, (double)v * 0.5);
    atomicAdd(&s[0], 1);
    atomicMax(&s[1], v);
    atomicMin(&s[2], v);
    atomicXor(&s[3], v);
    __syncthreads();
    if (t < 4) shared_out[blockIdx.x * 4 + t] = s[t];
}

// Warp intrinsics: shuffles of every mode, votes, match, activemask; half precision math.
extern "C" __global__ void warp_ops(const int* in, int* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    int lane = threadIdx.x & 31;
    out[t * 8 + 0] = __shfl_up_sync(0xffffffffu, v, 3);
    out[t * 8 + 1] = __shfl_xor_sync(0xffffffffu, v, 5);
    out[t * 8 + 2] = __shfl_sync(0xffffffffu, v, (lane * 7) & 31, 16);
    out[t * 8 + 3] = __any_sync(0xffffffffu, v > 90) + 2 * __all_sync(0xffffffffu, v >= 0);
    out[t * 8 + 4] = __match_any_sync(0xffffffffu, v & 3);
    unsigned active = 0;
    if (v & 1) active = __activemask();
    out[t * 8 + 5] = active;
    __half h = __float2half((float)v * 0.125f);
    __half h2 = __hadd(h, __float2half(1.5f));
    out[t * 8 + 6] = (int)(__half2float(__hmul(h2, h)) * 8.0f);
    out[t * 8 + 7] = __ballot_sync(0xffffffffu, lane < (v & 31));
}

// Dynamic shared memory, local arrays indexed by data, vector loads/stores, 64-bit math.
extern "C" __global__ void memory_mix(const float4* in, float4* out, long long* wide, int n) {
    extern __shared__ float4 tile[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = in[i];
    __syncthreads();
    float4 a = tile[(t + 1) % blockDim.x];
    out[i] = make_float4(a.w, a.z, a.y, a.x);
    long long x = (long long)i * 0x12345679LL - 77;
    wide[i] = (x >> 3) ^ (x * x) + __mul64hi(x, 0x7FFFFFFFFFFFLL);
}

// A barrier only some threads reach: the executor must report a deadlock naming the CTA.
extern "C" __global__ void bad_barrier(int* out) {
    if (threadIdx.x < 16) __syncthreads();
    out[threadIdx.x] = 1;
}

// Reads past the end of its array when n is larger than the allocation.
extern "C" __global__ void reads_past(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}
