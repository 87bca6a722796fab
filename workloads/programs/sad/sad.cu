// Sums of absolute differences for H.264 motion estimation (full search, +-16 pixels): the SADs of
// every 4x4 block of a macroblock at all 33x33 displacements, then combined into the larger
// partitions H.264 allows (8x4, 4x8, 8x8, then 16x8, 8x16, 16x16): 41 SADs per displacement.
// Output layout: sads[mb][partition][position], partitions in this order:
//   0-15 4x4 (raster), 16-23 8x4, 24-31 4x8, 32-35 8x8, 36-37 16x8, 38-39 8x16, 40 16x16.
#define RANGE 16
#define SIDE (2 * RANGE + 1)
#define POSITIONS (SIDE * SIDE)
#define PARTS 41

__device__ __forceinline__ int clampi(int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

// One CTA per 4x4 block of the current frame (grid = width/4 x height/4); the threads share
// the displacements. Reference pixels outside the frame repeat the edge (clamped addressing).
extern "C" __global__ void mb_sad_calc(const unsigned char* __restrict__ cur,
                                       const unsigned char* __restrict__ ref, int width, int height,
                                       unsigned short* sads) {
    __shared__ int block[16];
    const int x0 = blockIdx.x * 4, y0 = blockIdx.y * 4;
    if (threadIdx.x < 16)
        block[threadIdx.x] = cur[(y0 + threadIdx.x / 4) * width + x0 + threadIdx.x % 4];
    __syncthreads();
    const int mb = (blockIdx.y / 4) * (gridDim.x / 4) + blockIdx.x / 4;
    const int part = (blockIdx.y % 4) * 4 + blockIdx.x % 4;
    unsigned short* out = sads + ((long)mb * PARTS + part) * POSITIONS;
    for (int p = threadIdx.x; p < POSITIONS; p += blockDim.x) {
        const int dy = p / SIDE - RANGE, dx = p % SIDE - RANGE;
        int sum = 0;
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            const int y = clampi(y0 + r + dy, height - 1);
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                const int x = clampi(x0 + c + dx, width - 1);
                sum += abs(block[r * 4 + c] - (int)ref[y * width + x]);
            }
        }
        out[p] = (unsigned short)sum;
    }
}

// One CTA per macroblock: the 8x4, 4x8 and 8x8 SADs from the sixteen 4x4 SADs.
extern "C" __global__ void larger_sad_calc_8(unsigned short* sads) {
    unsigned short* s = sads + (long)(blockIdx.y * gridDim.x + blockIdx.x) * PARTS * POSITIONS;
    for (int p = threadIdx.x; p < POSITIONS; p += blockDim.x) {
        int b[16];
#pragma unroll
        for (int i = 0; i < 16; ++i) b[i] = s[i * POSITIONS + p];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const int top = (q / 2) * 8 + (q % 2) * 2;     // upper-left 4x4 of quadrant q
            const int r0 = b[top] + b[top + 1], r1 = b[top + 4] + b[top + 5];   // 8x4 rows
            const int c0 = b[top] + b[top + 4], c1 = b[top + 1] + b[top + 5];   // 4x8 columns
            s[(16 + 2 * q) * POSITIONS + p] = r0;
            s[(17 + 2 * q) * POSITIONS + p] = r1;
            s[(24 + 2 * q) * POSITIONS + p] = c0;
            s[(25 + 2 * q) * POSITIONS + p] = c1;
            s[(32 + q) * POSITIONS + p] = r0 + r1;
        }
    }
}

// One CTA per macroblock: the 16x8, 8x16 and 16x16 SADs from the four 8x8 SADs.
extern "C" __global__ void larger_sad_calc_16(unsigned short* sads) {
    unsigned short* s = sads + (long)(blockIdx.y * gridDim.x + blockIdx.x) * PARTS * POSITIONS;
    for (int p = threadIdx.x; p < POSITIONS; p += blockDim.x) {
        const int q0 = s[32 * POSITIONS + p], q1 = s[33 * POSITIONS + p];
        const int q2 = s[34 * POSITIONS + p], q3 = s[35 * POSITIONS + p];
        s[36 * POSITIONS + p] = q0 + q1;
        s[37 * POSITIONS + p] = q2 + q3;
        s[38 * POSITIONS + p] = q0 + q2;
        s[39 * POSITIONS + p] = q1 + q3;
        s[40 * POSITIONS + p] = q0 + q1 + q2 + q3;
    }
}
