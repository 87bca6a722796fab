// Monte-Carlo pricing of European call options, in the form of the CUDA SDK's MonteCarlo sample
// as its whitepaper (Podlozhnyuk and Harris, "Monte Carlo Option Pricing", 2007) describes it:
// several CTAs per option, every thread sums the discounted-free payoffs of its share of the
// paths, a shared-memory tree reduction gives the CTA's partial sums (payoff and payoff squared),
// and the host combines the partials into price and confidence. Written for this project.

#define THREADS 256

struct OptionParams {
    float spot, strike, mu_by_t, v_by_sqrt_t;
};

// Phase 1: the path loop (load a normal sample, exp, payoff, accumulate); phase 2: the tree
// reduction of the two sums. One CTA covers `paths_per_cta` consecutive paths of one option.
extern "C" __global__ void mc_paths(const OptionParams* options, const float* normals,
                                    int ctas_per_option, int paths_per_cta, float2* partial) {
    __shared__ float s_sum[THREADS];
    __shared__ float s_sq[THREADS];
    int option = blockIdx.x / ctas_per_option;
    int first = (blockIdx.x % ctas_per_option) * paths_per_cta;
    OptionParams p = options[option];
    float sum = 0.0f, sq = 0.0f;
    for (int i = threadIdx.x; i < paths_per_cta; i += THREADS) {
        float z = normals[first + i];
        float price = p.spot * expf(p.mu_by_t + p.v_by_sqrt_t * z);
        float payoff = fmaxf(price - p.strike, 0.0f);
        sum += payoff;
        sq += payoff * payoff;
    }
    s_sum[threadIdx.x] = sum;
    s_sq[threadIdx.x] = sq;
    for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        if (threadIdx.x < stride) {
            s_sum[threadIdx.x] += s_sum[threadIdx.x + stride];
            s_sq[threadIdx.x] += s_sq[threadIdx.x + stride];
        }
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = make_float2(s_sum[0], s_sq[0]);
}
