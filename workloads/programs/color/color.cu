// Graph colouring by Jones-Plassmann with random priorities (Jones & Plassmann, SIAM J. Sci.
// Comput. 1993; Pannotia's color_max), written for this project. One thread per vertex. Per
// iteration two kernels: find (an uncoloured vertex whose priority beats every uncoloured
// neighbour's becomes a candidate) and assign (candidates take this iteration's colour; any
// vertex left uncoloured sets the flag that makes the host run another iteration).

extern "C" __global__ void color_find(const int* row_start, const int* cols, const int* priority,
                                      const int* color, int* candidate, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || color[v] >= 0) return;
    int p = priority[v];
    for (int e = row_start[v]; e < row_start[v + 1]; ++e) {
        int u = cols[e];
        if (color[u] < 0 && priority[u] > p) return;
    }
    candidate[v] = 1;
}

extern "C" __global__ void color_assign(int* color, int* candidate, int* remaining, int c, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    if (candidate[v]) {
        color[v] = c;
        candidate[v] = 0;
    } else if (color[v] < 0) {
        *remaining = 1;
    }
}
