// Particle-filter tracking of an object in a noisy video, with the kernel split of Rodinia's
// particlefilter (float version) as its documentation describes it: per frame, a likelihood
// kernel moves every particle by the motion model (a per-particle random generator on the
// device), scores it against the frame over a disk template and updates its weight (per-CTA
// partial sums of the weights); a one-thread kernel adds the partial sums and builds the
// cumulative distribution of the normalised weights; a kernel normalises the weights; and a
// resampling kernel picks, for every new particle, the first old one whose cumulative weight
// reaches its systematic-resampling point. Written for this project.

#define THREADS 512
#define SIGMA2X2 800.0f                    // 2 sigma^2 of the pixel noise model (sigma 20)

// A 32-bit linear congruential generator per particle; uniform in (0, 1].
__device__ __forceinline__ float randu(unsigned int* seed, int i) {
    unsigned int s = seed[i] * 1664525u + 1013904223u;
    seed[i] = s;
    return (float)((s >> 8) + 1u) * (1.0f / 16777216.0f);
}

__device__ __forceinline__ float randn(unsigned int* seed, int i) {
    float u = randu(seed, i), v = randu(seed, i);
    return sqrtf(-2.0f * logf(u)) * cosf(6.28318531f * v);
}

// Move particle j (x += 1 + 5 N(0,1), y += -2 + 2 N(0,1)), its log-likelihood over the template
// (object brightness 228 against background 100, Gaussian noise), weight *= exp(likelihood).
extern "C" __global__ void likelihood(float* x, float* y, float* weight, const unsigned char* frame,
                                      int width, int height, const int* offsets, int count,
                                      unsigned int* seed, int n, float* partial) {
    __shared__ float s[THREADS];
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    float w = 0.0f;
    if (j < n) {
        float xj = x[j] + 1.0f + 5.0f * randn(seed, j);
        float yj = y[j] - 2.0f + 2.0f * randn(seed, j);
        x[j] = xj;
        y[j] = yj;
        int cx = __float2int_rn(xj), cy = __float2int_rn(yj);
        float sum = 0.0f;
        for (int k = 0; k < count; ++k) {
            int px = min(max(cx + offsets[2 * k], 0), width - 1);
            int py = min(max(cy + offsets[2 * k + 1], 0), height - 1);
            float v = (float)frame[py * width + px];
            sum += (v - 100.0f) * (v - 100.0f) - (v - 228.0f) * (v - 228.0f);
        }
        w = weight[j] * expf(sum / (SIGMA2X2 * (float)count));
        weight[j] = w;
    }
    s[threadIdx.x] = w;
    for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// One thread: the total weight, the cumulative distribution of the normalised weights, and the
// first systematic-resampling point u1 = U(0, 1] / n.
extern "C" __global__ void sum_weights(const float* partial, int blocks, const float* weight,
                                       int n, unsigned int* seed, float* total, float* cdf,
                                       float* u1) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    float sum = 0.0f;
    for (int b = 0; b < blocks; ++b) sum += partial[b];
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) {
        acc += weight[k] / sum;
        cdf[k] = acc;
    }
    total[0] = sum;
    u1[0] = randu(seed, 0) / (float)n;
}

extern "C" __global__ void normalize_weights(float* weight, int n, const float* total) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n) weight[j] = weight[j] / total[0];
}

// New particle j copies the first old particle k with cdf[k] >= u1 + j/n (a linear search, as
// the original), and its weight restarts at 1/n.
extern "C" __global__ void find_index(const float* x, const float* y, const float* cdf,
                                      const float* u1, int n, float* x_new, float* y_new,
                                      float* weight) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    float u = u1[0] + (float)j / (float)n;
    int k = 0;
    while (k < n - 1 && cdf[k] < u) ++k;
    x_new[j] = x[k];
    y_new[j] = y[k];
    weight[j] = 1.0f / (float)n;
}
