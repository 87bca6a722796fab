// A finite-volume Euler solver on an unstructured tetrahedral mesh, cell-centred, in the form
// Corrigan et al. (AIAA 2009) describe and Rodinia's cfd (euler3d) runs: one thread per element,
// arrays structure-of-arrays with a padded stride `nelr`, per iteration a copy of the state, a
// local time step per element, and three Runge-Kutta stages of (flux, time step). The flux of a
// face is the average of the two elements' Euler fluxes plus scalar artificial dissipation;
// wall faces (neighbour -1) carry the pressure only, far-field faces (neighbour -2) meet the
// free stream. Written for this project from the paper's description and the Euler equations.

#define GAMMA 1.4f
#define NVAR 5                      // density, momentum x/y/z, energy density
#define SMOOTHING 0.2f

struct State {
    float rho, mx, my, mz, e;
};

__device__ State load_state(const float* v, int i, int nelr) {
    State s;
    s.rho = v[i];
    s.mx = v[nelr + i];
    s.my = v[2 * nelr + i];
    s.mz = v[3 * nelr + i];
    s.e = v[4 * nelr + i];
    return s;
}

__device__ float pressure(const State& s, float speed_sqd) {
    return (GAMMA - 1.0f) * (s.e - 0.5f * s.rho * speed_sqd);
}

// flux . n of the Euler equations for state s, velocity (u, v, w) and pressure p
__device__ void euler_flux(const State& s, float u, float v, float w, float p, float nx, float ny,
                           float nz, float* f) {
    float un = u * nx + v * ny + w * nz;
    f[0] = s.rho * un;
    f[1] = s.mx * un + p * nx;
    f[2] = s.my * un + p * ny;
    f[3] = s.mz * un + p * nz;
    f[4] = (s.e + p) * un;
}

extern "C" __global__ void cfd_initialize(float* variables, const float* free_stream, int nelr) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nelr) return;
    for (int k = 0; k < NVAR; ++k) variables[k * nelr + i] = free_stream[k];
}

extern "C" __global__ void cfd_copy(float* dst, const float* src, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) dst[i] = src[i];
}

// dt / volume per element: CFL * h / (|u| + c) with h = volume^(1/3)
extern "C" __global__ void cfd_step_factor(const float* variables, const float* volumes,
                                           float* step_factor, int nel, int nelr, float cfl) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nel) return;
    State s = load_state(variables, i, nelr);
    float u = s.mx / s.rho, v = s.my / s.rho, w = s.mz / s.rho;
    float speed_sqd = u * u + v * v + w * w;
    float c = sqrtf(GAMMA * pressure(s, speed_sqd) / s.rho);
    float vol = volumes[i];
    step_factor[i] = cfl * cbrtf(vol) / ((sqrtf(speed_sqd) + c) * vol);
}

// fluxes[k * nelr + i] = the net outflow of variable k through the four faces of element i
extern "C" __global__ void cfd_flux(const float* variables, const int* neighbours,
                                    const float* normals, const float* free_stream,
                                    float* fluxes, int nel, int nelr) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nel) return;
    State a = load_state(variables, i, nelr);
    float ua = a.mx / a.rho, va = a.my / a.rho, wa = a.mz / a.rho;
    float sa = ua * ua + va * va + wa * wa;
    float pa = pressure(a, sa);
    float ca = sqrtf(GAMMA * pa / a.rho);
    float total[NVAR] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (int face = 0; face < 4; ++face) {
        int nb = neighbours[face * nelr + i];
        float nx = normals[(face * 3) * nelr + i];
        float ny = normals[(face * 3 + 1) * nelr + i];
        float nz = normals[(face * 3 + 2) * nelr + i];
        if (nb == -1) {                                   // wall: pressure only
            total[1] += pa * nx;
            total[2] += pa * ny;
            total[3] += pa * nz;
            continue;
        }
        State b;
        if (nb >= 0) {
            b = load_state(variables, nb, nelr);
        } else {                                          // far field
            b.rho = free_stream[0];
            b.mx = free_stream[1];
            b.my = free_stream[2];
            b.mz = free_stream[3];
            b.e = free_stream[4];
        }
        float ub = b.mx / b.rho, vb = b.my / b.rho, wb = b.mz / b.rho;
        float sb = ub * ub + vb * vb + wb * wb;
        float pb = pressure(b, sb);
        float cb = sqrtf(GAMMA * pb / b.rho);
        float fa[NVAR], fb[NVAR];
        euler_flux(a, ua, va, wa, pa, nx, ny, nz, fa);
        euler_flux(b, ub, vb, wb, pb, nx, ny, nz, fb);
        float area = sqrtf(nx * nx + ny * ny + nz * nz);
        float lambda = SMOOTHING * 0.5f * area * (sqrtf(sa) + ca + sqrtf(sb) + cb);
        total[0] += 0.5f * (fa[0] + fb[0]) + lambda * (a.rho - b.rho);
        total[1] += 0.5f * (fa[1] + fb[1]) + lambda * (a.mx - b.mx);
        total[2] += 0.5f * (fa[2] + fb[2]) + lambda * (a.my - b.my);
        total[3] += 0.5f * (fa[3] + fb[3]) + lambda * (a.mz - b.mz);
        total[4] += 0.5f * (fa[4] + fb[4]) + lambda * (a.e - b.e);
    }
    for (int k = 0; k < NVAR; ++k) fluxes[k * nelr + i] = total[k];
}

// Runge-Kutta stage `stage` of `stages`: U = U_old - dt/V / (stages - stage) * net outflow
extern "C" __global__ void cfd_time_step(int stage, int stages, float* variables,
                                         const float* old_variables, const float* step_factor,
                                         const float* fluxes, int nel, int nelr) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nel) return;
    float factor = step_factor[i] / (float)(stages - stage);
    for (int k = 0; k < NVAR; ++k)
        variables[k * nelr + i] = old_variables[k * nelr + i] - factor * fluxes[k * nelr + i];
}
