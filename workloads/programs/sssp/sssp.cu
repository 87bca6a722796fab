// Single-source shortest paths by frontier relaxation (Bellman-Ford over a vertex frontier, the
// GPU formulation of Harish & Narayanan, HiPC 2007, as Pannotia's Dijkstra runs it), written for
// this project. One thread per vertex. Per iteration two kernels: relax (frontier vertices push
// cost + weight to their neighbours with atomicMin) and update (vertices whose tentative cost
// fell take it and form the next frontier); the host repeats while the frontier is non-empty.

// Relax: frontier vertex v leaves the frontier and offers cost[v] + w to every neighbour.
extern "C" __global__ void sssp_relax(const int* row_start, const int* cols, const int* weights,
                                      const int* cost, int* tentative, int* frontier, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !frontier[v]) return;
    frontier[v] = 0;
    int c = cost[v];
    for (int e = row_start[v]; e < row_start[v + 1]; ++e)
        atomicMin(&tentative[cols[e]], c + weights[e]);
}

// Update: a vertex whose tentative cost beats its cost takes it and joins the frontier.
extern "C" __global__ void sssp_update(int* cost, int* tentative, int* frontier, int* changed,
                                       int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    int t = tentative[v];
    if (t < cost[v]) {
        cost[v] = t;
        frontier[v] = 1;
        *changed = 1;
    }
    tentative[v] = cost[v];
}
