// Sparse matrix-vector product y = A x. Two formats:
// JDS (jagged diagonal storage, Parboil's SPMV): rows sorted by length, longest first; the k-th
// nonzero of every row long enough is stored contiguously ("jagged diagonal" k), so one thread per
// row reads diagonal after diagonal with coalesced loads. perm maps a sorted row to its original.
// CSR scalar, the baseline JDS improves on: one thread per row in the original order, so a warp's
// loads are as far apart as its rows' nonzeros and its loop runs as long as its longest row.
extern "C" __global__ void spmv_jds(const float* __restrict__ data, const int* __restrict__ cols,
                                    const int* __restrict__ jd_ptr, const int* __restrict__ row_len,
                                    const int* __restrict__ perm, const float* __restrict__ x,
                                    float* y, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sum = 0.0f;
    const int len = row_len[i];
    for (int d = 0; d < len; ++d) {
        const int k = jd_ptr[d] + i;
        sum += data[k] * x[cols[k]];
    }
    y[perm[i]] = sum;
}

extern "C" __global__ void spmv_csr_scalar(const int* __restrict__ row_start,
                                           const int* __restrict__ cols,
                                           const float* __restrict__ vals,
                                           const float* __restrict__ x, float* y, int n) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float sum = 0.0f;
    for (int k = row_start[row]; k < row_start[row + 1]; ++k) sum += vals[k] * x[cols[k]];
    y[row] = sum;
}
