// Gaussian elimination to upper-triangular form (no pivoting), one column per pair of launches
// as Rodinia's gaussian runs it; the host does the back substitution.
//   gauss_multipliers (1-D, 512 threads): m[i][t] = a[i][t] / a[t][t] for the rows i below t
//   gauss_eliminate   (2-D, 4 x 4 threads; x = row below t, y = column from t on):
//                     a[i][j] -= m[i][t] * a[t][j], and b[i] -= m[i][t] * b[t] by the y = 0 threads
// Written for this project from the textbook algorithm.

extern "C" __global__ void gauss_multipliers(float* m, const float* a, int n, int t) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n - 1 - t) return;
    int row = i + t + 1;
    m[row * n + t] = a[row * n + t] / a[t * n + t];
}

extern "C" __global__ void gauss_eliminate(const float* m, float* a, float* b, int n, int t) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n - 1 - t || y >= n - t) return;
    int row = x + t + 1, col = y + t;
    a[row * n + col] -= m[row * n + t] * a[t * n + col];
    if (y == 0) b[row] -= m[row * n + t] * b[t];
}
