// Many dot products (the CUDA SDK's scalarProd): CTAs take vector pairs in turn (grid-stride over
// the pairs). For one pair, ACCUM_N partial sums in shared memory each add every ACCUM_N-th
// product (consecutive threads read consecutive elements), then a tree reduction halves them.
#define ACCUM_N 1024

extern "C" __global__ void scalar_prod(float* result, const float* a, const float* b, int pairs,
                                       int length) {
    __shared__ float accum[ACCUM_N];
    for (int pair = blockIdx.x; pair < pairs; pair += gridDim.x) {
        const float* va = a + (long)pair * length;
        const float* vb = b + (long)pair * length;
        for (int slot = threadIdx.x; slot < ACCUM_N; slot += blockDim.x) {
            float sum = 0.0f;
            for (int i = slot; i < length; i += ACCUM_N) sum += va[i] * vb[i];
            accum[slot] = sum;
        }
        for (int stride = ACCUM_N / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            for (int slot = threadIdx.x; slot < stride; slot += blockDim.x)
                accum[slot] += accum[slot + stride];
        }
        if (threadIdx.x == 0) result[pair] = accum[0];
        __syncthreads();                       // accum is reused by the next pair
    }
}
