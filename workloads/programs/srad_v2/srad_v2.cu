// Speckle-reducing anisotropic diffusion (Yu & Acton, IEEE TIP 2002) in Rodinia's SRAD v2 form:
// two kernels per iteration over 16 x 16 tiles staged in shared memory with a one-pixel halo
// (clamped at the image edge); the host computes the speckle scale q0^2 from a region of
// interest between iterations.
//   srad_tile_coeff:  the four neighbour differences and the diffusion coefficient c
//   srad_tile_update: the divergence of c * grad J (c of the pixel, its south and east
//                     neighbours) and J += lambda/4 * div
// Written for this project from the paper's equations.

#define TILE 16

__device__ int clamp_index(int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

extern "C" __global__ void srad_tile_coeff(const float* image, float* d_n, float* d_s, float* d_w,
                                           float* d_e, float* coeff, int rows, int cols,
                                           float q0sqr) {
    __shared__ float tile[TILE + 2][TILE + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int c = blockIdx.x * TILE + tx, r = blockIdx.y * TILE + ty;
    int i = r * cols + c;
    tile[ty + 1][tx + 1] = image[i];
    if (ty == 0) tile[0][tx + 1] = image[clamp_index(r - 1, rows - 1) * cols + c];
    if (ty == TILE - 1) tile[TILE + 1][tx + 1] = image[clamp_index(r + 1, rows - 1) * cols + c];
    if (tx == 0) tile[ty + 1][0] = image[r * cols + clamp_index(c - 1, cols - 1)];
    if (tx == TILE - 1) tile[ty + 1][TILE + 1] = image[r * cols + clamp_index(c + 1, cols - 1)];
    __syncthreads();
    float centre = tile[ty + 1][tx + 1];
    float dn = tile[ty][tx + 1] - centre;
    float ds = tile[ty + 2][tx + 1] - centre;
    float dw = tile[ty + 1][tx] - centre;
    float de = tile[ty + 1][tx + 2] - centre;
    float g2 = (dn * dn + ds * ds + dw * dw + de * de) / (centre * centre);
    float lap = (dn + ds + dw + de) / centre;
    float num = 0.5f * g2 - 0.0625f * lap * lap;
    float den = 1.0f + 0.25f * lap;
    float qsqr = num / (den * den);
    den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
    float k = 1.0f / (1.0f + den);
    k = k < 0.0f ? 0.0f : (k > 1.0f ? 1.0f : k);
    d_n[i] = dn;
    d_s[i] = ds;
    d_w[i] = dw;
    d_e[i] = de;
    coeff[i] = k;
}

extern "C" __global__ void srad_tile_update(float* image, const float* d_n, const float* d_s,
                                            const float* d_w, const float* d_e,
                                            const float* coeff, int rows, int cols,
                                            float lambda) {
    __shared__ float tile[TILE + 1][TILE + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int c = blockIdx.x * TILE + tx, r = blockIdx.y * TILE + ty;
    int i = r * cols + c;
    tile[ty][tx] = coeff[i];
    if (ty == TILE - 1) tile[TILE][tx] = coeff[clamp_index(r + 1, rows - 1) * cols + c];
    if (tx == TILE - 1) tile[ty][TILE] = coeff[r * cols + clamp_index(c + 1, cols - 1)];
    __syncthreads();
    float here = tile[ty][tx];
    float div = here * d_n[i] + tile[ty + 1][tx] * d_s[i] + here * d_w[i]
              + tile[ty][tx + 1] * d_e[i];
    image[i] += 0.25f * lambda * div;
}
