// 2-D convolution as an implicit GEMM (DeepBench's conv, forward pass; stride 1): output pixels
// (n, p, q) are the GEMM's rows, output channels its columns, (c, r, s) its inner dimension. The
// input (NCHW) is never unfolded: each thread gathers its pixel's im2col values on the fly, zero
// outside the padded image; the filter is stored pre-transposed as [c][r][s][k]. Tiling as in
// DeepBench's GEMM: a BM x BN tile of outputs per CTA, TM x TN per thread, two shared-memory
// buffers per K-tile of BK and one barrier per tile.
struct ConvShape {
    int n, c, h, w, k, p, q, pad;
};

template <int BM, int BN, int BK, int TM, int TN, int R, int S>
__device__ __forceinline__ void conv_tile(const float* __restrict__ in, const float* __restrict__ filt,
                                          float* out, const ConvShape sh) {
    constexpr int THREADS = (BM / TM) * (BN / TN);
    constexpr int A_PER = BM * BK / THREADS, B_PER = BN * BK / THREADS;
    constexpr int A_ROWS = THREADS / BM, B_ROWS = THREADS / BN;
    __shared__ __align__(16) float As[2][BK][BM];
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int tid = threadIdx.x;
    const int tm = (tid % (BM / TM)) * TM, tn = (tid / (BM / TM)) * TN;
    const int ar = tid / BM, ac = tid % BM, br = tid / BN, bc = tid % BN;
    const int pq = sh.p * sh.q, pixels = sh.n * pq, inner = sh.c * R * S;
    // The pixel this thread gathers for: its image and the top-left of its receptive field.
    const int pixel = blockIdx.x * BM + ac;
    const bool live = pixel < pixels;
    const int img = live ? pixel / pq : 0, rest = live ? pixel % pq : 0;
    const int y0 = rest / sh.q - sh.pad, x0 = rest % sh.q - sh.pad;
    const float* base = in + (long)img * sh.c * sh.h * sh.w;
    const float* b = filt + (long)br * sh.k + blockIdx.y * BN + bc;
    float acc[TM][TN] = {};
    float ra[A_PER], rb[B_PER];

    auto gather = [&](int kk) -> float {        // im2col element (kk, pixel)
        const int ch = kk / (R * S), rs = kk % (R * S);
        const int y = y0 + rs / S, x = x0 + rs % S;
        const bool inside = live && kk < inner && y >= 0 && y < sh.h && x >= 0 && x < sh.w;
        return inside ? base[((long)ch * sh.h + y) * sh.w + x] : 0.0f;
    };
#pragma unroll
    for (int i = 0; i < A_PER; ++i) As[0][ar + i * A_ROWS][ac] = gather(ar + i * A_ROWS);
#pragma unroll
    for (int i = 0; i < B_PER; ++i) Bs[0][br + i * B_ROWS][bc] = b[(long)i * B_ROWS * sh.k];
    __syncthreads();

    const int tiles = (inner + BK - 1) / BK;    // the host pads the filter's rows to BK
    for (int t = 0; t < tiles; ++t) {
        const int cur = t & 1;
        const int next = t + 1 < tiles ? t + 1 : t;
        if (next != t) b += (long)BK * sh.k;
#pragma unroll
        for (int i = 0; i < A_PER; ++i) ra[i] = gather(next * BK + ar + i * A_ROWS);
#pragma unroll
        for (int i = 0; i < B_PER; ++i) rb[i] = b[(long)i * B_ROWS * sh.k];
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float av[TM], bv[TN];
#pragma unroll
            for (int i = 0; i < TM; i += 2) {
                const float2 v = *reinterpret_cast<const float2*>(&As[cur][kk][tm + i]);
                av[i] = v.x; av[i + 1] = v.y;
            }
#pragma unroll
            for (int j = 0; j < TN; j += 4) {
                const float4 v = *reinterpret_cast<const float4*>(&Bs[cur][kk][tn + j]);
                bv[j] = v.x; bv[j + 1] = v.y; bv[j + 2] = v.z; bv[j + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < TM; ++i) {
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += av[i] * bv[j];
            }
        }
#pragma unroll
        for (int i = 0; i < A_PER; ++i) As[cur ^ 1][ar + i * A_ROWS][ac] = ra[i];
#pragma unroll
        for (int i = 0; i < B_PER; ++i) Bs[cur ^ 1][br + i * B_ROWS][bc] = rb[i];
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int px = blockIdx.x * BM + tm + i;
        if (px < pixels) {
            float* o = out + ((long)(px / pq) * sh.k + blockIdx.y * BN + tn) * pq + px % pq;
#pragma unroll
            for (int j = 0; j < TN; ++j) o[(long)j * pq] = acc[i][j];
        }
    }
}

// Training layer (3x3 filters, batch 16): 64 pixels x 64 channels per CTA, 256 threads of 2x8.
extern "C" __global__ void conv_train(const float* in, const float* filt, float* out, ConvShape sh) {
    conv_tile<64, 64, 16, 2, 8, 3, 3>(in, filt, out, sh);
}

// Inference layer (3x3 filters, batch 1, 7x7 image): 16 pixels x 64 channels, 128 threads of 2x4.
extern "C" __global__ void conv_infer(const float* in, const float* filt, float* out, ConvShape sh) {
    conv_tile<16, 64, 16, 2, 4, 3, 3>(in, filt, out, sh);
}
