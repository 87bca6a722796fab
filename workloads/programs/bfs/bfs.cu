// Breadth-first search, level-synchronous, one thread per vertex (Harish & Narayanan, HiPC 2007;
// the design Rodinia's bfs uses): per level the host launches bfs_expand (each frontier vertex
// labels its unvisited neighbours and marks them for the next level) and then bfs_update (the
// marked vertices become the frontier and are visited); it stops when bfs_update marks nothing.
// Written for this project from the paper's description.

extern "C" __global__ void bfs_expand(const int* row_start, const int* cols, char* frontier,
                                      char* next, const char* visited, int* cost, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !frontier[v]) return;
    frontier[v] = 0;
    int depth = cost[v] + 1;
    for (int e = row_start[v]; e < row_start[v + 1]; ++e) {
        int u = cols[e];
        if (!visited[u]) {
            cost[u] = depth;
            next[u] = 1;
        }
    }
}

extern "C" __global__ void bfs_update(char* frontier, char* next, char* visited, int* again, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !next[v]) return;
    frontier[v] = 1;
    visited[v] = 1;
    next[v] = 0;
    *again = 1;
}
