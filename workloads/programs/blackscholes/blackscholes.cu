// European call and put prices by the Black-Scholes formula (the CUDA SDK's BlackScholes): a fixed
// grid of CTAs strides over the options; the normal CDF is the Abramowitz-Stegun polynomial
// (26.2.17, |error| < 7.5e-8).
__device__ __forceinline__ float cnd(float d) {
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f,
                a5 = 1.330274429f, rsqrt2pi = 0.39894228040143267794f;
    const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    const float tail = rsqrt2pi * expf(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0.0f ? 1.0f - tail : tail;
}

extern "C" __global__ void black_scholes_gpu(float* call, float* put, const float* spot,
                                             const float* strike, const float* years,
                                             float riskfree, float volatility, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float s = spot[i], x = strike[i], t = years[i];
        const float sqrt_t = sqrtf(t);
        const float d1 = (logf(s / x) + (riskfree + 0.5f * volatility * volatility) * t)
                         / (volatility * sqrt_t);
        const float d2 = d1 - volatility * sqrt_t;
        const float cnd1 = cnd(d1), cnd2 = cnd(d2);
        const float discounted = x * expf(-riskfree * t);
        call[i] = s * cnd1 - discounted * cnd2;
        put[i] = discounted * (1.0f - cnd2) - s * (1.0f - cnd1);
    }
}
