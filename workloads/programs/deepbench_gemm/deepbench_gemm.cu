// Dense GEMM as a deep-learning library runs it (DeepBench's gemm): C (M x N) = A (M x K) * B (K x N),
// A stored column-major and B row-major, so both are read K-slice by K-slice. A CTA owns a BM x BN
// tile of C; each thread a TM x TN block of it in registers. Per K-tile of BK, the CTA keeps two
// shared-memory buffers: while it multiplies out of one (an unrolled run of 16-byte shared loads
// and FFMAs), its threads fetch the next tile from global memory into registers and then store it
// into the other buffer, so one barrier per tile suffices. Sizes are multiples of the tiles (the
// host pads). Two instances: a square tile for training shapes, a tall one for inference batches.
template <int BM, int BN, int BK, int TM, int TN>
__device__ __forceinline__ void gemm_tile(const float* __restrict__ A, const float* __restrict__ B,
                                          float* C, int M, int N, int K) {
    constexpr int THREADS = (BM / TM) * (BN / TN);
    constexpr int A_PER = BM * BK / THREADS, B_PER = BN * BK / THREADS;
    constexpr int A_ROWS = THREADS / BM, B_ROWS = THREADS / BN;     // K-rows one pass covers
    __shared__ __align__(16) float As[2][BK][BM];
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int tid = threadIdx.x;
    const int tm = (tid % (BM / TM)) * TM, tn = (tid / (BM / TM)) * TN;
    const int ar = tid / BM, ac = tid % BM, br = tid / BN, bc = tid % BN;
    const float* a = A + (long)ar * M + blockIdx.x * BM + ac;       // this thread's loads
    const float* b = B + (long)br * N + blockIdx.y * BN + bc;
    const long a_step = (long)BK * M, b_step = (long)BK * N;
    float acc[TM][TN] = {};
    float ra[A_PER], rb[B_PER];

#pragma unroll
    for (int i = 0; i < A_PER; ++i) As[0][ar + i * A_ROWS][ac] = a[(long)i * A_ROWS * M];
#pragma unroll
    for (int i = 0; i < B_PER; ++i) Bs[0][br + i * B_ROWS][bc] = b[(long)i * B_ROWS * N];
    __syncthreads();

    const int tiles = K / BK;
    for (int t = 0; t < tiles; ++t) {
        const int cur = t & 1;
        if (t + 1 < tiles) {                    // the next tile (the last one is fetched again)
            a += a_step;
            b += b_step;
        }
#pragma unroll
        for (int i = 0; i < A_PER; ++i) ra[i] = a[(long)i * A_ROWS * M];
#pragma unroll
        for (int i = 0; i < B_PER; ++i) rb[i] = b[(long)i * B_ROWS * N];
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float av[TM], bv[TN];
#pragma unroll
            for (int i = 0; i < TM; i += 4) {
                const float4 v = *reinterpret_cast<const float4*>(&As[cur][k][tm + i]);
                av[i] = v.x; av[i + 1] = v.y; av[i + 2] = v.z; av[i + 3] = v.w;
            }
            if (TN % 4 == 0) {
#pragma unroll
                for (int j = 0; j < TN; j += 4) {
                    const float4 v = *reinterpret_cast<const float4*>(&Bs[cur][k][tn + j]);
                    bv[j] = v.x; bv[j + 1] = v.y; bv[j + 2] = v.z; bv[j + 3] = v.w;
                }
            } else {
#pragma unroll
                for (int j = 0; j < TN; j += 2) {
                    const float2 v = *reinterpret_cast<const float2*>(&Bs[cur][k][tn + j]);
                    bv[j] = v.x; bv[j + 1] = v.y;
                }
            }
#pragma unroll
            for (int i = 0; i < TM; ++i) {
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += av[i] * bv[j];
            }
        }
        // The other buffer was last read before the previous barrier, so it can be refilled now.
#pragma unroll
        for (int i = 0; i < A_PER; ++i) As[cur ^ 1][ar + i * A_ROWS][ac] = ra[i];
#pragma unroll
        for (int i = 0; i < B_PER; ++i) Bs[cur ^ 1][br + i * B_ROWS][bc] = rb[i];
        __syncthreads();
    }
    float* c = C + (long)(blockIdx.y * BN + tn) * M + blockIdx.x * BM + tm;   // C column-major
#pragma unroll
    for (int j = 0; j < TN; ++j) {
#pragma unroll
        for (int i = 0; i < TM; ++i) c[(long)j * M + i] = acc[i][j];
    }
}

// Training shapes: 64x64 tiles, 256 threads of 4x4 outputs, K-tiles of 16.
extern "C" __global__ void gemm_train(const float* A, const float* B, float* C, int M, int N, int K) {
    gemm_tile<64, 64, 16, 4, 4>(A, B, C, M, N, K);
}

// Inference shapes (a batch of a few columns): 64x16 tiles, 128 threads of 4x2, K-tiles of 16.
extern "C" __global__ void gemm_infer(const float* A, const float* B, float* C, int M, int N, int K) {
    gemm_tile<64, 16, 16, 4, 2>(A, B, C, M, N, K);
}
