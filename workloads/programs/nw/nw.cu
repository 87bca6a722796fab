// Needleman-Wunsch global alignment scores (linear gap penalty) by a blocked wavefront, as the
// Rodinia nw benchmark describes it: the (n+1) x (n+1) score matrix is cut into TILE x TILE
// tiles; the host sweeps the anti-diagonals of tiles, launching one CTA per tile of the
// diagonal, first the growing half (nw_upper) and then the shrinking half (nw_lower). A CTA of
// TILE threads stages its tile's substitution scores and the scores above and left of it in
// shared memory and fills the tile by its own anti-diagonals. Written for this project.

#define TILE 8                            // IKRA's NW: 8-thread thread blocks

__device__ __forceinline__ int best3(int a, int b, int c) { return max(a, max(b, c)); }

// Fill tile (bi, bj): cell (y, x) of the tile is score[bi*TILE + y][bj*TILE + x], y, x >= 1.
__device__ void fill_tile(int* score, const int* reference, int cols, int penalty, int bi,
                          int bj) {
    __shared__ int t[TILE + 1][TILE + 1];
    __shared__ int s[TILE][TILE];
    int tx = threadIdx.x;
    int corner = bi * TILE * cols + bj * TILE;
    for (int r = 0; r < TILE; ++r) s[r][tx] = reference[corner + (r + 1) * cols + tx + 1];
    if (tx == 0) t[0][0] = score[corner];
    t[0][tx + 1] = score[corner + tx + 1];
    t[tx + 1][0] = score[corner + (tx + 1) * cols];
    __syncthreads();
    for (int m = 0; m < TILE; ++m) {                 // the tile's growing anti-diagonals
        if (tx <= m) {
            int x = tx + 1, y = m - tx + 1;
            t[y][x] = best3(t[y - 1][x - 1] + s[y - 1][x - 1], t[y][x - 1] - penalty,
                            t[y - 1][x] - penalty);
        }
        __syncthreads();
    }
    for (int m = TILE - 2; m >= 0; --m) {            // ... and its shrinking ones
        if (tx <= m) {
            int x = tx + TILE - m, y = TILE - tx;
            t[y][x] = best3(t[y - 1][x - 1] + s[y - 1][x - 1], t[y][x - 1] - penalty,
                            t[y - 1][x] - penalty);
        }
        __syncthreads();
    }
    for (int r = 0; r < TILE; ++r) score[corner + (r + 1) * cols + tx + 1] = t[r + 1][tx + 1];
}

// Tile diagonal d < tiles: d + 1 CTAs, CTA b takes tile (d - b, b).
extern "C" __global__ void nw_upper(int* score, const int* reference, int cols, int penalty,
                                    int d) {
    fill_tile(score, reference, cols, penalty, d - blockIdx.x, blockIdx.x);
}

// Tile diagonal d >= tiles: 2 * tiles - 1 - d CTAs, CTA b takes tile (tiles-1-b, d-tiles+1+b).
extern "C" __global__ void nw_lower(int* score, const int* reference, int cols, int penalty,
                                    int d, int tiles) {
    fill_tile(score, reference, cols, penalty, tiles - 1 - blockIdx.x, d - tiles + 1 + blockIdx.x);
}
