// Lattice-Boltzmann fluid, D3Q19 with the BGK collision (Parboil's LBM): one time step per launch,
// one thread per cell, a CTA per x-row (grid = ny x nz). Distributions are stored as 19 planes
// (structure of arrays) so consecutive threads touch consecutive words. Each thread reads its
// cell's 19 values, collides them and pushes each to the neighbour it moves to (periodic wrap).
// Obstacle cells bounce what arrives back the way it came; inlet cells are reset to the
// equilibrium of their density with the inflow velocity before streaming.
#define Q 19
#define OMEGA 1.95f
#define FLUID 0
#define OBSTACLE 1
#define INLET 2

// Velocity directions: rest, the 6 faces, the 12 edges; OPP is the reverse direction.
__device__ constexpr int EX[Q] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
__device__ constexpr int EY[Q] = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
__device__ constexpr int EZ[Q] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};
__device__ constexpr int OPP[Q] = {0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15, 18, 17};

__device__ __forceinline__ float weight(int q) {
    return q == 0 ? 1.0f / 3.0f : (q < 7 ? 1.0f / 18.0f : 1.0f / 36.0f);
}

extern "C" __global__ void lbm_stream_collide(const float* __restrict__ src, float* dst,
                                              const unsigned char* __restrict__ flags,
                                              int nx, int ny, int nz, float inflow) {
    const int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
    const long cells = (long)nx * ny * nz;
    const long cell = ((long)z * ny + y) * nx + x;
    const int xs[3] = {x == 0 ? nx - 1 : x - 1, x, x == nx - 1 ? 0 : x + 1};
    const int ys[3] = {y == 0 ? ny - 1 : y - 1, y, y == ny - 1 ? 0 : y + 1};
    const int zs[3] = {z == 0 ? nz - 1 : z - 1, z, z == nz - 1 ? 0 : z + 1};
    float f[Q];
#pragma unroll
    for (int q = 0; q < Q; ++q) f[q] = src[q * cells + cell];
    const int kind = flags[cell];

    if (kind == OBSTACLE) {                                 // bounce back
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const int o = OPP[q];
            dst[o * cells + ((long)zs[1 + EZ[o]] * ny + ys[1 + EY[o]]) * nx + xs[1 + EX[o]]] = f[q];
        }
        return;
    }
    float rho = 0.0f, ux = 0.0f, uy = 0.0f, uz = 0.0f;
#pragma unroll
    for (int q = 0; q < Q; ++q) {
        rho += f[q];
        ux += EX[q] * f[q];
        uy += EY[q] * f[q];
        uz += EZ[q] * f[q];
    }
    ux /= rho;
    uy /= rho;
    uz /= rho;
    if (kind == INLET) {
        ux = 0.0f;
        uy = 0.0f;
        uz = inflow;
    }
    const float usq = 1.5f * (ux * ux + uy * uy + uz * uz);
#pragma unroll
    for (int q = 0; q < Q; ++q) {
        const float eu = EX[q] * ux + EY[q] * uy + EZ[q] * uz;
        const float feq = weight(q) * rho * (1.0f + 3.0f * eu + 4.5f * eu * eu - usq);
        const float out = kind == INLET ? feq : f[q] + OMEGA * (feq - f[q]);
        dst[q * cells + ((long)zs[1 + EZ[q]] * ny + ys[1 + EY[q]]) * nx + xs[1 + EX[q]]] = out;
    }
}
