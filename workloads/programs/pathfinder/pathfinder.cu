// Pathfinder: the cheapest path from the top row of a weight grid to each cell of the bottom row,
// moving down one row per step to the same column or a diagonal neighbour (dynamic programming:
// cost[r][c] = wall[r][c] + min(cost[r-1][c-1..c+1])). Rodinia's GPU form: 256-thread CTAs keep
// a row segment in shared memory and advance it `steps` rows per launch (a pyramid: the segment
// loses one cell at each end per row), writing the 256 - 2*border middle cells; the host
// launches once per pyramid and swaps the cost rows. Written for this project.

#define BLOCK 256

extern "C" __global__ void path_rows(int steps, const int* wall, const int* cost_in,
                                     int* cost_out, int cols, int first_row, int border) {
    __shared__ int prev[BLOCK];
    __shared__ int next[BLOCK];
    int tx = threadIdx.x;
    int x0 = (BLOCK - 2 * border) * blockIdx.x - border;     // the segment's first column
    int x = x0 + tx;
    if (x >= 0 && x < cols) prev[tx] = cost_in[x];
    __syncthreads();
    int lo = x0 < 0 ? -x0 : 0, hi = x0 + BLOCK > cols ? cols - 1 - x0 : BLOCK - 1;
    int w = tx - 1 < lo ? lo : tx - 1, e = tx + 1 > hi ? hi : tx + 1;
    bool computed = false;
    for (int i = 0; i < steps; ++i) {
        computed = false;
        if (tx >= i + 1 && tx <= BLOCK - 2 - i && tx >= lo && tx <= hi) {
            int best = prev[tx];
            best = prev[w] < best ? prev[w] : best;
            best = prev[e] < best ? prev[e] : best;
            next[tx] = best + wall[(first_row + i) * cols + x];
            computed = true;
        }
        __syncthreads();
        if (i == steps - 1) break;
        if (computed) prev[tx] = next[tx];
        __syncthreads();
    }
    if (computed && tx >= border && tx < BLOCK - border) cost_out[x] = next[tx];
}
