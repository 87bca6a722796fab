// DXT1 (BC1) colour compression by "cluster fit", the method of Castaño's "High Quality DXT
// Compression using CUDA" (NVIDIA, 2007) that the CUDA SDK's dxtc sample implements: for every
// 4x4 block, order the 16 colours along their principal axis, then try every split of that order
// into four consecutive clusters (969 of them, padded to 1024) with least-squares endpoints, and
// keep the split of smallest error. 64 threads per block, four blocks per 256-thread CTA.
// Written for this project from that description.
//
// The float steps use explicit round-to-nearest intrinsics, so the numpy reference can repeat
// them bit for bit; the cluster sums and the error are exact integers.

#define BLOCKS_PER_CTA 4
#define LANES 64                          // threads per 4x4 block
#define SPLITS_PER_LANE 16                // 64 x 16 = 1024 splits
#define POWER_STEPS 8

struct BlockState {
    int color[16][3];                     // input order
    int sorted[16][3];
    int prefix[17][3];                    // prefix sums of the sorted colours
    float proj[16];
    int position[16];                     // sorted position of input pixel i
    int square[3];                        // sum of squares per channel
    float axis[3];
    int best_error[LANES];
    int best_split[LANES];
};

__device__ __forceinline__ int expand(int q, int bits) {
    return bits == 5 ? (q << 3) | (q >> 2) : (q << 2) | (q >> 4);
}

// Least-squares endpoints of one split for one channel, quantised (5 or 6 bits).
__device__ __forceinline__ void endpoints(int ax, int bx, int a2, int b2, int ab, int sum,
                                          int bits, int& qa, int& qb) {
    int det = a2 * b2 - ab * ab;
    float a, b;
    if (det != 0) {
        float d = (float)det;
        a = __fdiv_rn((float)(3 * (ax * b2 - bx * ab)), d);
        b = __fdiv_rn((float)(3 * (bx * a2 - ax * ab)), d);
    } else {
        a = b = __fdiv_rn((float)sum, 16.0f);
    }
    float scale = bits == 5 ? 31.0f / 255.0f : 63.0f / 255.0f;
    a = fminf(fmaxf(a, 0.0f), 255.0f);
    b = fminf(fmaxf(b, 0.0f), 255.0f);
    qa = (int)__fmaf_rn(a, scale, 0.5f);
    qb = (int)__fmaf_rn(b, scale, 0.5f);
}

// Cluster sizes of a split and its weight sums (weights 3, 2, 1, 0 for endpoint a).
__device__ __forceinline__ void split_sums(unsigned int s, int& e0, int& e1, int& e2, int& a2,
                                           int& b2, int& ab) {
    e0 = s & 0xFF;
    e1 = (s >> 8) & 0xFF;
    e2 = s >> 16;
    int c0 = e0, c1 = e1 - e0, c2 = e2 - e1, c3 = 16 - e2;
    a2 = 9 * c0 + 4 * c1 + c2;
    b2 = c1 + 4 * c2 + 9 * c3;
    ab = 2 * (c1 + c2);
}

// splits: the cluster ends of every split in sorted order, end0 | end1 << 8 | end2 << 16.
extern "C" __global__ void dxt1_compress(const unsigned int* image, int width,
                                         const unsigned int* __restrict__ splits, uint2* out) {
    __shared__ BlockState state[BLOCKS_PER_CTA];
    int lane = threadIdx.x % LANES;
    BlockState& st = state[threadIdx.x / LANES];
    int block = blockIdx.x * BLOCKS_PER_CTA + threadIdx.x / LANES;
    int bx = block % (width / 4), by = block / (width / 4);

    // Phase 1: load the pixels, principal axis, order the colours along it.
    if (lane < 16) {
        unsigned int px = image[(by * 4 + lane / 4) * width + bx * 4 + lane % 4];
        st.color[lane][0] = px & 0xFF;
        st.color[lane][1] = (px >> 8) & 0xFF;
        st.color[lane][2] = (px >> 16) & 0xFF;
    }
    __syncthreads();
    if (lane == 0) {
        int sum[3] = {0, 0, 0}, cross[6] = {0, 0, 0, 0, 0, 0};
        for (int i = 0; i < 16; ++i) {
            int r = st.color[i][0], g = st.color[i][1], b = st.color[i][2];
            sum[0] += r; sum[1] += g; sum[2] += b;
            cross[0] += r * r; cross[1] += r * g; cross[2] += r * b;
            cross[3] += g * g; cross[4] += g * b; cross[5] += b * b;
        }
        st.square[0] = cross[0]; st.square[1] = cross[3]; st.square[2] = cross[5];
        // 16 x covariance, exact in int and in float (|value| < 2^24)
        float c00 = (float)(16 * cross[0] - sum[0] * sum[0]);
        float c01 = (float)(16 * cross[1] - sum[0] * sum[1]);
        float c02 = (float)(16 * cross[2] - sum[0] * sum[2]);
        float c11 = (float)(16 * cross[3] - sum[1] * sum[1]);
        float c12 = (float)(16 * cross[4] - sum[1] * sum[2]);
        float c22 = (float)(16 * cross[5] - sum[2] * sum[2]);
        float v0 = 1.0f, v1 = 1.0f, v2 = 1.0f;
        for (int k = 0; k < POWER_STEPS; ++k) {
            float w0 = __fmaf_rn(c02, v2, __fmaf_rn(c01, v1, __fmul_rn(c00, v0)));
            float w1 = __fmaf_rn(c12, v2, __fmaf_rn(c11, v1, __fmul_rn(c01, v0)));
            float w2 = __fmaf_rn(c22, v2, __fmaf_rn(c12, v1, __fmul_rn(c02, v0)));
            float m = fmaxf(fabsf(w0), fmaxf(fabsf(w1), fabsf(w2)));
            if (m == 0.0f) break;
            v0 = __fdiv_rn(w0, m);
            v1 = __fdiv_rn(w1, m);
            v2 = __fdiv_rn(w2, m);
        }
        st.axis[0] = v0; st.axis[1] = v1; st.axis[2] = v2;
    }
    __syncthreads();
    if (lane < 16)
        st.proj[lane] = __fmaf_rn((float)st.color[lane][2], st.axis[2],
                                  __fmaf_rn((float)st.color[lane][1], st.axis[1],
                                            __fmul_rn((float)st.color[lane][0], st.axis[0])));
    __syncthreads();
    if (lane < 16) {
        float p = st.proj[lane];
        int rank = 0;
        for (int j = 0; j < 16; ++j)
            rank += (st.proj[j] < p) || (st.proj[j] == p && j < lane);
        st.position[lane] = rank;
        for (int c = 0; c < 3; ++c) st.sorted[rank][c] = st.color[lane][c];
    }
    __syncthreads();
    if (lane < 3) {
        int acc = 0;
        st.prefix[0][lane] = 0;
        for (int k = 0; k < 16; ++k) {
            acc += st.sorted[k][lane];
            st.prefix[k + 1][lane] = acc;
        }
    }
    __syncthreads();

    // Phase 2: every lane evaluates 16 splits.
    int best = 0x7FFFFFFF, best_split = 0;
    for (int i = 0; i < SPLITS_PER_LANE; ++i) {
        int split = lane + LANES * i;
        int e0, e1, e2, a2, b2, ab;
        split_sums(splits[split], e0, e1, e2, a2, b2, ab);
        int error = 0;
        for (int c = 0; c < 3; ++c) {
            int p0 = st.prefix[e0][c], p1 = st.prefix[e1][c], p2 = st.prefix[e2][c];
            int p3 = st.prefix[16][c];
            int ax = 3 * p0 + 2 * (p1 - p0) + (p2 - p1);
            int bxs = (p1 - p0) + 2 * (p2 - p1) + 3 * (p3 - p2);
            int bits = c == 1 ? 6 : 5;
            int qa, qb;
            endpoints(ax, bxs, a2, b2, ab, p3, bits, qa, qb);
            int a8 = expand(qa, bits), b8 = expand(qb, bits);
            error += a8 * a8 * a2 + b8 * b8 * b2 + 2 * a8 * b8 * ab - 6 * a8 * ax - 6 * b8 * bxs
                     + 9 * st.square[c];
        }
        if (error < best) {
            best = error;
            best_split = split;
        }
    }
    st.best_error[lane] = best;
    st.best_split[lane] = best_split;

    // Phase 3: the smallest error of the 64 lanes (ties: the lowest split), then the block.
    for (int stride = LANES / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        if (lane < stride) {
            int e = st.best_error[lane + stride], s = st.best_split[lane + stride];
            if (e < st.best_error[lane] || (e == st.best_error[lane] && s < st.best_split[lane])) {
                st.best_error[lane] = e;
                st.best_split[lane] = s;
            }
        }
    }
    __syncthreads();
    if (lane == 0) {
        int e0, e1, e2, a2, b2, ab;
        split_sums(splits[st.best_split[0]], e0, e1, e2, a2, b2, ab);
        int qa[3], qb[3];
        for (int c = 0; c < 3; ++c) {
            int p0 = st.prefix[e0][c], p1 = st.prefix[e1][c], p2 = st.prefix[e2][c];
            int p3 = st.prefix[16][c];
            endpoints(3 * p0 + 2 * (p1 - p0) + (p2 - p1), (p1 - p0) + 2 * (p2 - p1) + 3 * (p3 - p2),
                      a2, b2, ab, p3, c == 1 ? 6 : 5, qa[c], qb[c]);
        }
        unsigned int color0 = (qa[0] << 11) | (qa[1] << 5) | qa[2];
        unsigned int color1 = (qb[0] << 11) | (qb[1] << 5) | qb[2];
        // DXT palette order: 0 = color0, 1 = color1, 2 = 2/3 c0 + 1/3 c1, 3 = 1/3 c0 + 2/3 c1
        unsigned int code[4] = {0u, 2u, 3u, 1u};
        if (color0 < color1) {                // keep the four-colour mode: swap the endpoints
            unsigned int t = color0; color0 = color1; color1 = t;
            code[0] = 1u; code[1] = 3u; code[2] = 2u; code[3] = 0u;
        }
        unsigned int indices = 0;
        if (color0 != color1) {
            for (int i = 0; i < 16; ++i) {
                int k = st.position[i];
                int cluster = (k >= e0) + (k >= e1) + (k >= e2);
                indices |= code[cluster] << (2 * i);
            }
        }
        out[block] = make_uint2(color0 | (color1 << 16), indices);
    }
}
