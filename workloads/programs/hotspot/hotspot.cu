// HotSpot thermal simulation (Huang et al., IEEE TVLSI 2006: the chip as an RC grid, one
// explicit Euler step per iteration) in Rodinia's GPU form: 16 x 16 CTAs each load a 16 x 16
// window of temperature and power into shared memory and run `steps` time steps on it without
// leaving the CTA (a pyramid: the ghost zone of width `steps` shrinks by one cell per step, after
// Meng & Skadron, ICS 2009), then write the (16 - 2*border)^2 cells of the window's middle. The
// host launches ceil(iterations / pyramid height) times, swapping the temperature buffers.
// Written for this project.

#define TILE 16
#define AMBIENT 80.0f

extern "C" __global__ void hotspot_step(int steps, const float* power, const float* temp_in,
                                        float* temp_out, int cols, int rows, int border_cols,
                                        int border_rows, float cap, float rx, float ry, float rz,
                                        float step) {
    __shared__ float t_tile[TILE][TILE];
    __shared__ float p_tile[TILE][TILE];
    __shared__ float next[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    float step_div_cap = step / cap;
    float gx = 1.0f / rx, gy = 1.0f / ry, gz = 1.0f / rz;
    // the window's corner in the grid: the CTA writes the window's middle, without the borders
    int x0 = (TILE - 2 * border_cols) * blockIdx.x - border_cols;
    int y0 = (TILE - 2 * border_rows) * blockIdx.y - border_rows;
    int x = x0 + tx, y = y0 + ty;
    bool inside = x >= 0 && x < cols && y >= 0 && y < rows;
    if (inside) {
        t_tile[ty][tx] = temp_in[y * cols + x];
        p_tile[ty][tx] = power[y * cols + x];
    }
    __syncthreads();
    // the part of the window that lies on the grid: neighbours beyond it are clamped to it
    int lo_x = x0 < 0 ? -x0 : 0, hi_x = x0 + TILE > cols ? cols - 1 - x0 : TILE - 1;
    int lo_y = y0 < 0 ? -y0 : 0, hi_y = y0 + TILE > rows ? rows - 1 - y0 : TILE - 1;
    int w = tx - 1 < lo_x ? lo_x : tx - 1, e = tx + 1 > hi_x ? hi_x : tx + 1;
    int n = ty - 1 < lo_y ? lo_y : ty - 1, s = ty + 1 > hi_y ? hi_y : ty + 1;
    bool computed = false;
    for (int i = 0; i < steps; ++i) {
        computed = false;
        if (tx >= i + 1 && tx <= TILE - 2 - i && ty >= i + 1 && ty <= TILE - 2 - i &&
            tx >= lo_x && tx <= hi_x && ty >= lo_y && ty <= hi_y) {
            float t = t_tile[ty][tx];
            next[ty][tx] = t + step_div_cap * (p_tile[ty][tx]
                                               + (t_tile[s][tx] + t_tile[n][tx] - 2.0f * t) * gy
                                               + (t_tile[ty][e] + t_tile[ty][w] - 2.0f * t) * gx
                                               + (AMBIENT - t) * gz);
            computed = true;
        }
        __syncthreads();
        if (i == steps - 1) break;
        if (computed) t_tile[ty][tx] = next[ty][tx];
        __syncthreads();
    }
    if (computed && tx >= border_cols && tx < TILE - border_cols && ty >= border_rows &&
        ty < TILE - border_rows)
        temp_out[y * cols + x] = next[ty][tx];
}
