// 7-point 3-D Jacobi stencil (Parboil's stencil): Anext = c1 * (sum of the six neighbours) - c0 * A0
// on interior points. A CTA of 32x4 threads owns a 64x4 column of the grid (two x-points per
// thread) and marches it through z: the planes below and above stay in registers, the current
// plane (with a one-point halo) is staged in shared memory for the four in-plane neighbours.
#define TX 32
#define TY 4
#define CX 2                            // x-points per thread
#define W (TX * CX)

extern "C" __global__ void stencil7(float c0, float c1, const float* __restrict__ a0, float* anext,
                                    int nx, int ny, int nz) {
    __shared__ float plane[TY + 2][W + 2];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x0 = blockIdx.x * W, y = blockIdx.y * TY + ty;
    const long slab = (long)nx * ny;
    float below[CX], cur[CX], above[CX];
#pragma unroll
    for (int c = 0; c < CX; ++c) {
        const long i = (long)y * nx + x0 + tx + c * TX;
        below[c] = a0[i];
        cur[c] = a0[slab + i];
    }
    for (int z = 1; z < nz - 1; ++z) {
        const long row = z * slab + (long)y * nx;
#pragma unroll
        for (int c = 0; c < CX; ++c) above[c] = a0[row + slab + x0 + tx + c * TX];
        __syncthreads();                                   // the last plane has been read
#pragma unroll
        for (int c = 0; c < CX; ++c) plane[ty + 1][tx + 1 + c * TX] = cur[c];
        if (tx == 0 && x0 > 0) plane[ty + 1][0] = a0[row + x0 - 1];
        if (tx == TX - 1 && x0 + W < nx) plane[ty + 1][W + 1] = a0[row + x0 + W];
        if (ty == 0 && y > 0) {
#pragma unroll
            for (int c = 0; c < CX; ++c) plane[0][tx + 1 + c * TX] = a0[row - nx + x0 + tx + c * TX];
        }
        if (ty == TY - 1 && y + 1 < ny) {
#pragma unroll
            for (int c = 0; c < CX; ++c) plane[TY + 1][tx + 1 + c * TX] = a0[row + nx + x0 + tx + c * TX];
        }
        __syncthreads();
#pragma unroll
        for (int c = 0; c < CX; ++c) {
            const int x = x0 + tx + c * TX, s = tx + 1 + c * TX;
            if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1)
                anext[row + x] = c1 * (below[c] + above[c] + plane[ty][s] + plane[ty + 2][s]
                                       + plane[ty + 1][s - 1] + plane[ty + 1][s + 1]) - c0 * cur[c];
            below[c] = cur[c];
            cur[c] = above[c];
        }
    }
}
