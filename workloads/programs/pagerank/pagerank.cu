// PageRank by power iteration (Brin & Page 1998; Pannotia's pagerank), written for this project.
// One thread per vertex. Per iteration two kernels: contribute (each vertex's rank shared among
// its links) and gather (each vertex sums its neighbours' shares: rank = (1 - d) / n + d · sum).
// The host runs a fixed number of iterations.

extern "C" __global__ void pagerank_contribute(const int* row_start, const float* rank,
                                               float* share, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    int degree = row_start[v + 1] - row_start[v];
    share[v] = degree > 0 ? rank[v] / degree : 0.0f;
}

extern "C" __global__ void pagerank_gather(const int* row_start, const int* cols,
                                           const float* share, float* rank, float base,
                                           float damping, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    float sum = 0.0f;
    for (int e = row_start[v]; e < row_start[v + 1]; ++e) sum += share[cols[e]];
    rank[v] = base + damping * sum;
}
