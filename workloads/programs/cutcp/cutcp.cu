// Cutoff Coulombic potential on a lattice (Parboil's cutcp; Rodrigues et al., CF'08). Atoms are
// hashed on the host into cubic bins of BIN_DEPTH slots (x, y, z, charge; charge 0 = empty). A
// CTA owns an 8x8x8 region of lattice points, one bin wide; its 8x2x8 threads compute four points
// each (y, y+2, y+4, y+6). The bins near enough to matter are a fixed list of offsets in
// constant memory; the CTA stages BINS_PER_LOAD of them at a time in shared memory and every
// thread adds q * (1 - r^2/c^2)^2 / r for the atoms within the cutoff c.
#define BIN_DEPTH 8
#define BINS_PER_LOAD 16
#define REGION 8
#define POINTS_PER_THREAD 4
#define MAX_NEIGHBOURS 1024

__constant__ int c_neighbours[MAX_NEIGHBOURS];      // linear offsets in the padded bin grid

extern "C" __global__ void cutoff_potential(float* lattice, const float4* __restrict__ bins,
                                            int n_neighbours, int bins_x, int bins_y, int pad,
                                            float spacing, float cutoff2, int nx, int ny) {
    __shared__ float4 atoms[BINS_PER_LOAD * BIN_DEPTH];
    const int t = threadIdx.x + REGION * (threadIdx.y + 2 * threadIdx.z);
    const int home = ((blockIdx.z + pad) * bins_y + blockIdx.y + pad) * bins_x + blockIdx.x + pad;
    const int ix = blockIdx.x * REGION + threadIdx.x, iz = blockIdx.z * REGION + threadIdx.z;
    const int iy = blockIdx.y * REGION + threadIdx.y;
    const float px = ix * spacing, py = iy * spacing, pz = iz * spacing;
    const float inv_cutoff2 = 1.0f / cutoff2;
    float e[POINTS_PER_THREAD] = {0.0f, 0.0f, 0.0f, 0.0f};

    for (int first = 0; first < n_neighbours; first += BINS_PER_LOAD) {
        __syncthreads();                                   // the previous bins have been used
        const int nb = first + t / BIN_DEPTH;
        atoms[t] = nb < n_neighbours ? bins[(home + c_neighbours[nb]) * BIN_DEPTH + t % BIN_DEPTH]
                                     : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        for (int a = 0; a < BINS_PER_LOAD * BIN_DEPTH; ++a) {
            const float4 at = atoms[a];
            if (at.w == 0.0f) continue;                    // an empty slot
            const float dx = at.x - px, dz = at.z - pz;
            const float dxz2 = dx * dx + dz * dz;
            if (dxz2 >= cutoff2) continue;
            const float dy = at.y - py;
#pragma unroll
            for (int k = 0; k < POINTS_PER_THREAD; ++k) {
                const float d = dy - 2 * k * spacing;
                const float r2 = dxz2 + d * d;
                if (r2 < cutoff2) {
                    const float s = 1.0f - r2 * inv_cutoff2;
                    e[k] += at.w * rsqrtf(r2) * s * s;
                }
            }
        }
    }
#pragma unroll
    for (int k = 0; k < POINTS_PER_THREAD; ++k)
        lattice[((long)iz * ny + iy + 2 * k) * nx + ix] = e[k];
}
