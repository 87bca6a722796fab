// Non-local-means image denoising with per-block weights (Buades, Coll & Morel, CVPR 2005; the
// "NLM2" variant of the CUDA SDK's imageDenoising that ERCBench uses), written for this project.
// A CTA of 8x8 threads denoises an 8x8 block of pixels. First, 49 threads each compare the
// 7x7 patch around the block's centre with the patch displaced by one of the 7x7 window
// offsets and store the weight exp(-distance / h²) in shared memory; then every thread filters
// its pixel with those weights: the weighted mean of the displaced pixels. Pixels are RGBA
// bytes; the host pads the image by APRON pixels replicating its edge, which stands for the
// SDK's clamped texture reads.

#define BLOCK 8
#define WINDOW_RADIUS 3
#define PATCH_RADIUS 3
#define WINDOW (2 * WINDOW_RADIUS + 1)
#define PATCH_AREA ((2 * PATCH_RADIUS + 1) * (2 * PATCH_RADIUS + 1))
#define APRON (WINDOW_RADIUS + PATCH_RADIUS)

// Pixel (x, y) of the image (coordinates of the unpadded image) as floats in [0, 1].
__device__ __forceinline__ float3 texel(const uchar4* padded, int pitch, int x, int y) {
    uchar4 p = padded[(y + APRON) * pitch + x + APRON];
    return make_float3(p.x * (1.0f / 255.0f), p.y * (1.0f / 255.0f), p.z * (1.0f / 255.0f));
}

extern "C" __global__ void nlm2(const uchar4* padded, uchar4* out, int w, float inv_h2) {
    int pitch = w + 2 * APRON;
    __shared__ float weights[WINDOW * WINDOW];
    int t = threadIdx.y * BLOCK + threadIdx.x;
    int cx = blockIdx.x * BLOCK + BLOCK / 2, cy = blockIdx.y * BLOCK + BLOCK / 2;
    if (t < WINDOW * WINDOW) {
        int dx = t % WINDOW - WINDOW_RADIUS, dy = t / WINDOW - WINDOW_RADIUS;
        float dist = 0.0f;
        for (int py = -PATCH_RADIUS; py <= PATCH_RADIUS; ++py)
            for (int px = -PATCH_RADIUS; px <= PATCH_RADIUS; ++px) {
                float3 a = texel(padded, pitch, cx + px, cy + py);
                float3 b = texel(padded, pitch, cx + dx + px, cy + dy + py);
                float rx = a.x - b.x, gy = a.y - b.y, bz = a.z - b.z;
                dist += rx * rx + gy * gy + bz * bz;
            }
        weights[t] = __expf(-dist * (1.0f / (3 * PATCH_AREA)) * inv_h2);
    }
    __syncthreads();
    int x = blockIdx.x * BLOCK + threadIdx.x, y = blockIdx.y * BLOCK + threadIdx.y;
    float sum = 0.0f;
    float3 acc = make_float3(0.0f, 0.0f, 0.0f);
    for (int k = 0; k < WINDOW * WINDOW; ++k) {
        float wk = weights[k];
        float3 p = texel(padded, pitch, x + k % WINDOW - WINDOW_RADIUS, y + k / WINDOW - WINDOW_RADIUS);
        acc.x += wk * p.x;
        acc.y += wk * p.y;
        acc.z += wk * p.z;
        sum += wk;
    }
    float norm = 1.0f / sum;
    out[y * w + x] = make_uchar4((unsigned char)(255.0f * fminf(acc.x * norm, 1.0f) + 0.5f),
                                 (unsigned char)(255.0f * fminf(acc.y * norm, 1.0f) + 0.5f),
                                 (unsigned char)(255.0f * fminf(acc.z * norm, 1.0f) + 0.5f), 255);
}
