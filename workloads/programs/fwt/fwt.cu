// Fast Walsh-Hadamard transform (natural order, unnormalised) and dyadic convolution, with the
// kernel split of the CUDA SDK's fastWalshTransform sample as its whitepaper (Podlozhnyuk, "Fast
// Walsh Transform", 2007) describes it: the butterfly stages of large stride run as radix-4
// passes over global memory, one launch per pair of stages; the eleven stages of stride < 2048
// run in one launch, each 512-thread CTA transforming a 2048-element stripe in shared memory.
// Written for this project from that description.

#define STRIPE 2048                       // elements per fwt_shared CTA
#define SHARED_THREADS 512                // 4 elements per thread

// Two butterfly stages (strides 2q and q) on the four elements i0, i0+q, i0+2q, i0+3q.
__device__ __forceinline__ void radix4(float& a0, float& a1, float& a2, float& a3) {
    float b0 = a0 + a2, b2 = a0 - a2, b1 = a1 + a3, b3 = a1 - a3;
    a0 = b0 + b1;
    a1 = b0 - b1;
    a2 = b2 + b3;
    a3 = b2 - b3;
}

// Stages of stride 2q and q over the whole array, q >= STRIPE / 2; one thread per 4 elements.
extern "C" __global__ void fwt_global(float* data, int q, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n / 4) return;
    int j = t & (q - 1);
    int i0 = (t - j) * 4 + j;
    float a0 = data[i0], a1 = data[i0 + q], a2 = data[i0 + 2 * q], a3 = data[i0 + 3 * q];
    radix4(a0, a1, a2, a3);
    data[i0] = a0;
    data[i0 + q] = a1;
    data[i0 + 2 * q] = a2;
    data[i0 + 3 * q] = a3;
}

// One stage of stride h over the whole array (when the count of global stages is odd).
extern "C" __global__ void fwt_global_radix2(float* data, int h, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n / 2) return;
    int j = t & (h - 1);
    int i0 = (t - j) * 2 + j;
    float a = data[i0], b = data[i0 + h];
    data[i0] = a + b;
    data[i0 + h] = a - b;
}

// The stages of stride 1024 .. 1 on one 2048-element stripe, in shared memory: five radix-4
// steps (q = 512, 128, 32, 8, 2) and a last radix-2 step of stride 1.
extern "C" __global__ void fwt_shared(float* data) {
    __shared__ float s[STRIPE];
    float* stripe = data + blockIdx.x * STRIPE;
    int t = threadIdx.x;
    for (int i = t; i < STRIPE; i += SHARED_THREADS) s[i] = stripe[i];
    for (int q = STRIPE / 4; q >= 2; q >>= 2) {
        __syncthreads();
        int j = t & (q - 1);
        int i0 = (t - j) * 4 + j;
        float a0 = s[i0], a1 = s[i0 + q], a2 = s[i0 + 2 * q], a3 = s[i0 + 3 * q];
        radix4(a0, a1, a2, a3);
        s[i0] = a0;
        s[i0 + q] = a1;
        s[i0 + 2 * q] = a2;
        s[i0 + 3 * q] = a3;
    }
    __syncthreads();
    for (int p = t; p < STRIPE / 2; p += SHARED_THREADS) {
        float a = s[2 * p], b = s[2 * p + 1];
        s[2 * p] = a + b;
        s[2 * p + 1] = a - b;
    }
    __syncthreads();
    for (int i = t; i < STRIPE; i += SHARED_THREADS) stripe[i] = s[i];
}

// Pointwise product of the two transforms, scaled by 1/n so that the next transform inverts.
extern "C" __global__ void modulate(float* data, const float* kernel, int n) {
    float scale = 1.0f / (float)n;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        data[i] = data[i] * kernel[i] * scale;
}
