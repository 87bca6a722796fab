// Weather prediction's column physics: warm-rain microphysics in the style of the Kessler scheme
// (Kessler 1969, as numerical weather models run it; OWL's WP is the GPU port of WRF's
// microphysics), written for this project. One thread per vertical column of a 2-D grid of
// columns, 8x8-thread CTAs; the column's NZ levels of temperature and moisture are held in
// registers (the loops over levels are unrolled), which makes the kernel register-heavy, so few
// warps fit on a core. Per time step: rain falls (flux-form sedimentation, fixed sub-steps),
// cloud water turns into rain (autoconversion, accretion), rain evaporates into subsaturated
// air, and vapour and cloud water are adjusted to saturation (Teten's formula), releasing or
// taking latent heat. Fields are level-major: field[k][j][i], i fastest.

#define NZ 12                           // levels: 12 keeps the column in 166 registers (ptxas, sm_75)
#define SUBSTEPS 4
#define CP 1004.0f
#define LV 2.5e6f
#define RHO0 1.2f

__device__ __forceinline__ float saturation_ratio(float t, float p) {      // kg/kg
    return 380.0f / p * __expf(17.27f * (t - 273.15f) / (t - 35.86f));
}

extern "C" __global__ void wp_microphysics(float* temperature, float* vapour, float* cloud,
                                           float* rain, const float* pressure,
                                           const float* density, const float* dz,
                                           float* surface_rain, int nx, int ny, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    int col = j * nx + i, plane = nx * ny;
    float t[NZ], qv[NZ], qc[NZ], qr[NZ], rho[NZ];
    #pragma unroll
    for (int k = 0; k < NZ; ++k) {
        t[k] = temperature[k * plane + col];
        qv[k] = vapour[k * plane + col];
        qc[k] = cloud[k * plane + col];
        qr[k] = rain[k * plane + col];
        rho[k] = density[k * plane + col];
    }
    // sedimentation: terminal velocity 36.34 (ρ qr / 1000)^0.1364 sqrt(ρ0 / ρ) m/s
    float fallen = 0.0f, h = dt / SUBSTEPS;
    #pragma unroll 1
    for (int s = 0; s < SUBSTEPS; ++s) {
        float above = 0.0f;                       // the flux into level k from level k + 1
        #pragma unroll
        for (int k = NZ - 1; k >= 0; --k) {
            float mass = rho[k] * fmaxf(qr[k], 0.0f);
            float flux = mass * 36.34f * powf(mass * 1e-3f, 0.1364f) * sqrtf(RHO0 / rho[k]);
            qr[k] += h * (above - flux) / (rho[k] * dz[k * plane + col]);
            above = flux;
        }
        fallen += h * above;
    }
    #pragma unroll
    for (int k = 0; k < NZ; ++k) {
        float p = pressure[k * plane + col];
        // autoconversion above 1 g/kg and accretion of cloud by rain
        float auto_conv = fminf(1e-3f * dt * fmaxf(qc[k] - 1e-3f, 0.0f), qc[k]);
        float accretion = fminf(2.2f * dt * qc[k] * powf(fmaxf(qr[k], 0.0f), 0.875f),
                                qc[k] - auto_conv);
        qc[k] -= auto_conv + accretion;
        qr[k] += auto_conv + accretion;
        // rain evaporation into subsaturated air
        float qvs = saturation_ratio(t[k], p);
        float mass = rho[k] * fmaxf(qr[k], 0.0f) * 1e-3f;
        float vent = (1.6f + 124.9f * powf(mass, 0.2046f)) * powf(mass, 0.525f)
                   / (2.55e8f / (p * qvs) + 5.4e5f);
        float evap = fminf(dt * vent * fmaxf(qvs - qv[k], 0.0f) / (rho[k] * qvs), fmaxf(qr[k], 0.0f));
        qr[k] -= evap;
        qv[k] += evap;
        t[k] -= LV / CP * evap;
        // saturation adjustment: condense the excess vapour, or evaporate cloud (at most all)
        qvs = saturation_ratio(t[k], p);
        float denom = t[k] - 35.86f;
        float excess = (qv[k] - qvs) / (1.0f + qvs * (237.3f * 17.27f * LV / CP) / (denom * denom));
        float dq = fmaxf(excess, -qc[k]);
        qv[k] -= dq;
        qc[k] += dq;
        t[k] += LV / CP * dq;
    }
    #pragma unroll
    for (int k = 0; k < NZ; ++k) {
        temperature[k * plane + col] = t[k];
        vapour[k * plane + col] = qv[k];
        cloud[k * plane + col] = qc[k];
        rain[k * plane + col] = qr[k];
    }
    surface_rain[col] += fallen;
}
