// SGEMM, C = alpha * A * B^T + beta * C (column-major, "NT" as Parboil's sgemm), register-tiled
// after Volkov and Demmel (SC'08): a CTA of 16x8 threads owns a 128x16 tile of C. Each thread
// keeps one row of the tile (16 accumulators) in registers, the CTA stages a 16x16 tile of B in
// shared memory, and every thread streams its row of A from global memory into registers.
#define TILE_N 16                 // columns of C per CTA (= threads in x)
#define TILE_TB_HEIGHT 8          // threads in y
#define TILE_M (TILE_N * TILE_TB_HEIGHT)   // rows of C per CTA = threads per CTA

extern "C" __global__ void sgemm_regtile(const float* A, int lda, const float* B, int ldb,
                                         float* C, int ldc, int k, float alpha, float beta) {
    __shared__ __align__(16) float b_tile[TILE_N][TILE_N];   // [k][n]
    const int tid = threadIdx.y * TILE_N + threadIdx.x;
    const int m = blockIdx.x * TILE_M + tid;          // this thread's row of C
    const int n0 = blockIdx.y * TILE_N;
    float acc[TILE_N];
#pragma unroll
    for (int j = 0; j < TILE_N; ++j) acc[j] = 0.0f;

    for (int k0 = 0; k0 < k; k0 += TILE_N) {
        // B^T is N x K column-major: element (n, kk) at kk * ldb + n; two rows of the tile each.
        b_tile[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * ldb + n0 + threadIdx.x];
        b_tile[threadIdx.y + TILE_TB_HEIGHT][threadIdx.x] =
            B[(k0 + threadIdx.y + TILE_TB_HEIGHT) * ldb + n0 + threadIdx.x];
        float a[TILE_N];                              // this row's 16 values of A, in registers
#pragma unroll
        for (int kk = 0; kk < TILE_N; ++kk) a[kk] = A[(k0 + kk) * lda + m];
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < TILE_N; ++kk) {
#pragma unroll
            for (int j = 0; j < TILE_N; j += 4) {          // one 16-byte shared load, four FMAs
                const float4 b = *reinterpret_cast<const float4*>(&b_tile[kk][j]);
                acc[j] += a[kk] * b.x;
                acc[j + 1] += a[kk] * b.y;
                acc[j + 2] += a[kk] * b.z;
                acc[j + 3] += a[kk] * b.w;
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int j = 0; j < TILE_N; ++j) {
        float* c = &C[(n0 + j) * ldc + m];
        *c = alpha * acc[j] + beta * *c;
    }
}
