// Speckle-reducing anisotropic diffusion (Yu & Acton, IEEE TIP 2002) as Rodinia's SRAD v1 splits
// it into six kernels of one thread per pixel (512-thread CTAs):
//   srad_extract   once: J = exp(I / 255) (the log-compressed image back to intensity)
//   srad_prepare   per iteration: the sums' operands J and J^2
//   srad_reduce    per iteration, launched until one value is left: CTA tree sums in shared
//                  memory of J and J^2 (the host turns them into the speckle scale q0^2)
//   srad_coeff     per iteration: the four neighbour differences and the diffusion coefficient
//   srad_update    per iteration: the divergence of c * grad J, and J += lambda/4 * div
//   srad_compress  once: I = 255 log J
// Neighbour rows/columns come from index arrays the host builds (clamped at the image edge).
// Written for this project from the paper's equations.

#define THREADS 512

extern "C" __global__ void srad_extract(float* image, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) image[i] = expf(image[i] / 255.0f);
}

extern "C" __global__ void srad_prepare(const float* image, float* sums, float* sums2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = image[i];
    sums[i] = v;
    sums2[i] = v * v;
}

// Sums values i * stride (i < count) per CTA of THREADS; the CTA's total goes to its first value.
extern "C" __global__ void srad_reduce(float* sums, float* sums2, int count, int stride) {
    __shared__ float part[THREADS];
    __shared__ float part2[THREADS];
    int t = threadIdx.x;
    int i = blockIdx.x * THREADS + t;
    part[t] = i < count ? sums[i * stride] : 0.0f;
    part2[t] = i < count ? sums2[i * stride] : 0.0f;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half >>= 1) {
        if (t < half) {
            part[t] += part[t + half];
            part2[t] += part2[t + half];
        }
        __syncthreads();
    }
    if (t == 0) {
        sums[blockIdx.x * THREADS * stride] = part[0];
        sums2[blockIdx.x * THREADS * stride] = part2[0];
    }
}

extern "C" __global__ void srad_coeff(const float* image, float* d_n, float* d_s, float* d_w,
                                      float* d_e, float* coeff, const int* north, const int* south,
                                      const int* west, const int* east, int rows, int cols,
                                      float q0sqr) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols) return;
    int r = i / cols, c = i - r * cols;
    float centre = image[i];
    float dn = image[north[r] * cols + c] - centre;
    float ds = image[south[r] * cols + c] - centre;
    float dw = image[r * cols + west[c]] - centre;
    float de = image[r * cols + east[c]] - centre;
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

extern "C" __global__ void srad_update(float* image, const float* d_n, const float* d_s,
                                       const float* d_w, const float* d_e, const float* coeff,
                                       const int* south, const int* east, int rows, int cols,
                                       float lambda) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols) return;
    int r = i / cols, c = i - r * cols;
    float here = coeff[i];
    float div = here * d_n[i] + coeff[south[r] * cols + c] * d_s[i] + here * d_w[i]
              + coeff[r * cols + east[c]] * d_e[i];
    image[i] += 0.25f * lambda * div;
}

extern "C" __global__ void srad_compress(float* image, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) image[i] = logf(image[i]) * 255.0f;
}
