// Batched 1-D complex FFT by the Stockham formulation of Govindaraju et al. (SC'08), as Parboil's
// FFT: one launch per pass, ping-pong between two buffers, one thread per radix-R butterfly.
// Pass with span ns (length of the sub-transforms already done): thread j reads R inputs N/R
// apart, twiddles them by e^(-2 pi i r (j mod ns) / (ns R)), transforms them, and writes them ns
// apart at ((j / ns) * ns * R + j mod ns). Passes: radix 4 while ns * 4 <= N, then one radix 2.
#define PI_F 3.14159265358979f

__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ float2 cadd(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float2 csub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ float2 twiddle(float angle) {
    float s, c;
    __sincosf(angle, &s, &c);
    return make_float2(c, s);
}

extern "C" __global__ void fft_radix4(const float2* in, float2* out, int n, int ns) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int quarter = n / 4;
    if (j >= quarter) return;
    const long signal = (long)blockIdx.y * n;
    const int k = j % ns;
    const float angle = -2.0f * PI_F * k / (ns * 4);
    float2 v[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        v[r] = in[signal + j + r * quarter];
        if (r) v[r] = cmul(v[r], twiddle(r * angle));
    }
    const float2 a0 = cadd(v[0], v[2]), a1 = csub(v[0], v[2]), a2 = cadd(v[1], v[3]);
    const float2 d = csub(v[1], v[3]);
    const float2 a3 = make_float2(d.y, -d.x);                  // (v1 - v3) * -i
    const long dst = signal + (long)(j / ns) * ns * 4 + k;
    out[dst] = cadd(a0, a2);
    out[dst + ns] = cadd(a1, a3);
    out[dst + 2 * ns] = csub(a0, a2);
    out[dst + 3 * ns] = csub(a1, a3);
}

extern "C" __global__ void fft_radix2(const float2* in, float2* out, int n, int ns) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int half = n / 2;
    if (j >= half) return;
    const long signal = (long)blockIdx.y * n;
    const int k = j % ns;
    const float2 v0 = in[signal + j];
    const float2 v1 = cmul(in[signal + j + half], twiddle(-2.0f * PI_F * k / (ns * 2)));
    const long dst = signal + (long)(j / ns) * ns * 2 + k;
    out[dst] = cadd(v0, v1);
    out[dst + ns] = csub(v0, v1);
}
