// Blocked right-looking LU decomposition without pivoting (Doolittle: unit lower L and U stored
// in place of A), in the three kernels per block step that Rodinia's lud uses, with 16 x 16
// blocks staged in shared memory. For the step at block offset `k`:
//   lud_diagonal  (1 CTA of 16):   A11 = L11 U11
//   lud_perimeter (one CTA of 32 per block of the panels): threads 0-15 solve the block to the
//                 right, U12 = L11^-1 A12 (one column each); threads 16-31 the block below,
//                 L21 = A21 U11^-1 (one row each)
//   lud_internal  (16 x 16 per trailing block): A22 -= L21 U12
// Written for this project from the textbook algorithm (Golub & Van Loan, §3.2.11).

#define BS 16

extern "C" __global__ void lud_diagonal(float* a, int n, int k) {
    __shared__ float d[BS][BS];
    int t = threadIdx.x;
    for (int r = 0; r < BS; ++r) d[r][t] = a[(k + r) * n + k + t];
    __syncthreads();
    for (int p = 0; p < BS - 1; ++p) {
        if (t > p) d[t][p] /= d[p][p];
        __syncthreads();
        if (t > p)
            for (int c = p + 1; c < BS; ++c) d[t][c] -= d[t][p] * d[p][c];
        __syncthreads();
    }
    for (int r = 0; r < BS; ++r) a[(k + r) * n + k + t] = d[r][t];
}

extern "C" __global__ void lud_perimeter(float* a, int n, int k) {
    __shared__ float d[BS][BS];
    __shared__ float right[BS][BS];
    __shared__ float below[BS][BS];
    int t = threadIdx.x;
    int off = k + (blockIdx.x + 1) * BS;                      // this CTA's panel blocks
    if (t < BS) {
        for (int r = 0; r < BS / 2; ++r) d[r][t] = a[(k + r) * n + k + t];
        for (int r = 0; r < BS; ++r) right[r][t] = a[(k + r) * n + off + t];
    } else {
        int c = t - BS;
        for (int r = BS / 2; r < BS; ++r) d[r][c] = a[(k + r) * n + k + c];
        for (int r = 0; r < BS; ++r) below[r][c] = a[(off + r) * n + k + c];
    }
    __syncthreads();
    if (t < BS) {                                             // column t of U12
        for (int r = 1; r < BS; ++r) {
            float v = right[r][t];
            for (int p = 0; p < r; ++p) v -= d[r][p] * right[p][t];
            right[r][t] = v;
        }
    } else {                                                  // row t - 16 of L21
        int r = t - BS;
        for (int c = 0; c < BS; ++c) {
            float v = below[r][c];
            for (int p = 0; p < c; ++p) v -= below[r][p] * d[p][c];
            below[r][c] = v / d[c][c];
        }
    }
    __syncthreads();
    if (t < BS) {
        for (int r = 0; r < BS; ++r) a[(k + r) * n + off + t] = right[r][t];
    } else {
        int c = t - BS;
        for (int r = 0; r < BS; ++r) a[(off + r) * n + k + c] = below[r][c];
    }
}

extern "C" __global__ void lud_internal(float* a, int n, int k) {
    __shared__ float l[BS][BS];
    __shared__ float u[BS][BS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = k + (blockIdx.y + 1) * BS + ty;
    int col = k + (blockIdx.x + 1) * BS + tx;
    l[ty][tx] = a[row * n + k + tx];
    u[ty][tx] = a[(k + ty) * n + col];
    __syncthreads();
    float sum = 0.0f;
    for (int p = 0; p < BS; ++p) sum += l[ty][p] * u[p][tx];
    a[row * n + col] -= sum;
}
