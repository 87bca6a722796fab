// Breadth-first search with a frontier queue (the queue-based GPU BFS of Luo, Wong & Hwu, DAC
// 2010, in its simplest global-queue form), written for this project. One kernel per level: a
// thread per frontier vertex visits its neighbours, claims each unvisited one with atomicCAS on
// its level and appends it to the next frontier with atomicAdd on the queue's tail. The host
// swaps the queues and relaunches while the next frontier is non-empty.

extern "C" __global__ void bfs_expand(const int* row_start, const int* cols, int* level,
                                      const int* frontier, int frontier_size, int* next,
                                      int* next_size, int depth) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= frontier_size) return;
    int v = frontier[t];
    for (int e = row_start[v]; e < row_start[v + 1]; ++e) {
        int u = cols[e];
        if (atomicCAS(&level[u], -1, depth + 1) == -1) next[atomicAdd(next_size, 1)] = u;
    }
}
