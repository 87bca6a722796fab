// Separable 2-D convolution (the CUDA SDK's convolutionSeparable): a row pass, then a column pass,
// each a 1-D convolution with the same 17-tap filter (radius 8) in constant memory. A CTA loads
// its tile plus one halo step on each side into shared memory (zeros outside the image), then
// every thread computes RESULT_STEPS outputs strided by the CTA's width (rows) or height (columns).
#define RADIUS 8
#define ROW_X 16
#define ROW_Y 4
#define ROW_STEPS 8
#define ROW_HALO 1
#define COL_X 16
#define COL_Y 8
#define COL_STEPS 8
#define COL_HALO 1

// 18 entries, one spare: the PTX front end's constant bank must be a multiple of 8 bytes.
__constant__ float c_kernel[2 * RADIUS + 2];

extern "C" __global__ void convolution_rows(float* dst, const float* src, int width, int height) {
    __shared__ float tile[ROW_Y][(ROW_STEPS + 2 * ROW_HALO) * ROW_X];
    const int x0 = (blockIdx.x * ROW_STEPS - ROW_HALO) * ROW_X + threadIdx.x;
    const int y = blockIdx.y * ROW_Y + threadIdx.y;
    const float* in = src + (long)y * width;
#pragma unroll
    for (int s = 0; s < ROW_STEPS + 2 * ROW_HALO; ++s) {
        const int x = x0 + s * ROW_X;
        tile[threadIdx.y][threadIdx.x + s * ROW_X] = (x >= 0 && x < width) ? in[x] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int s = ROW_HALO; s < ROW_HALO + ROW_STEPS; ++s) {
        float sum = 0.0f;
#pragma unroll
        for (int j = -RADIUS; j <= RADIUS; ++j)
            sum += c_kernel[RADIUS - j] * tile[threadIdx.y][threadIdx.x + s * ROW_X + j];
        dst[(long)y * width + x0 + s * ROW_X] = sum;
    }
}

extern "C" __global__ void convolution_columns(float* dst, const float* src, int width, int height) {
    __shared__ float tile[COL_X][(COL_STEPS + 2 * COL_HALO) * COL_Y + 1];   // +1: no bank conflicts
    const int x = blockIdx.x * COL_X + threadIdx.x;
    const int y0 = (blockIdx.y * COL_STEPS - COL_HALO) * COL_Y + threadIdx.y;
#pragma unroll
    for (int s = 0; s < COL_STEPS + 2 * COL_HALO; ++s) {
        const int y = y0 + s * COL_Y;
        tile[threadIdx.x][threadIdx.y + s * COL_Y] = (y >= 0 && y < height) ? src[(long)y * width + x] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int s = COL_HALO; s < COL_HALO + COL_STEPS; ++s) {
        float sum = 0.0f;
#pragma unroll
        for (int j = -RADIUS; j <= RADIUS; ++j)
            sum += c_kernel[RADIUS - j] * tile[threadIdx.x][threadIdx.y + s * COL_Y + j];
        dst[(long)(y0 + s * COL_Y) * width + x] = sum;
    }
}
