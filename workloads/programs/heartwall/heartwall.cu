// Heart-wall tracking in an ultrasound video by template matching, in the form of Rodinia's
// heartwall as its paper describes it (Szafaryn, Skadron and Saucerman, "Experiences
// accelerating MATLAB systems biology applications", 2009): one large kernel per frame, one CTA
// per sample point on the inner (endocardial) and outer (epicardial) wall; the CTA stages the
// search area around its point in shared memory, correlates it with the point's template from
// the first frame at every displacement, builds cumulative-sum tables for the local sums that
// normalise the correlation, and moves the point to the best normalised score. Written for this
// project. Pixels are integers, so the sums are exact and the score is a fixed sequence of IEEE
// operations the host reference repeats bit for bit.

#define T 10                               // template half-size: 21 x 21
#define D 7                                // search half-range: 15 x 15 displacements
#define TS (2 * T + 1)
#define CS (2 * D + 1)
#define SS (TS + 2 * D)                    // search-area side: 35
#define THREADS 256

__device__ __forceinline__ int pixel(const unsigned char* frame, int width, int height, int y,
                                     int x) {
    y = min(max(y, 0), height - 1);
    x = min(max(x, 0), width - 1);
    return frame[y * width + x];
}

// frame_no 0: every CTA cuts its point's template and the template's sums. Later frames: track.
// track_x/track_y: this frame's row of the (frames x points) result.
extern "C" __global__ void heartwall(const unsigned char* frame, int width, int height,
                                     int frame_no, int* pos_x, int* pos_y, int* templ,
                                     long long* templ_sums, int* track_x, int* track_y) {
    __shared__ int area[SS][SS];
    __shared__ int tpl[TS][TS];
    __shared__ __align__(8) int integ[SS + 1][SS + 1];   // summed-area table of the area
    __shared__ __align__(8) int integ2[SS + 1][SS + 1];  // ... of its squares
    __shared__ float score[THREADS];
    __shared__ int best[THREADS];
    int p = blockIdx.x, tid = threadIdx.x;
    int px = pos_x[p], py = pos_y[p];
    int* my_templ = templ + p * TS * TS;

    if (frame_no == 0) {                              // template and its sums (tree reduction)
        long long* red0 = (long long*)&integ[0][0];  // the tables are free in this frame
        long long* red1 = (long long*)&integ2[0][0];
        long long s = 0, s2 = 0;
        for (int i = tid; i < TS * TS; i += THREADS) {
            int v = pixel(frame, width, height, py - T + i / TS, px - T + i % TS);
            my_templ[i] = v;
            s += v;
            s2 += v * v;
        }
        red0[tid] = s;
        red1[tid] = s2;
        for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            if (tid < stride) {
                red0[tid] += red0[tid + stride];
                red1[tid] += red1[tid + stride];
            }
        }
        if (tid == 0) {
            templ_sums[2 * p] = red0[0];
            templ_sums[2 * p + 1] = red1[0];
            track_x[p] = px;
            track_y[p] = py;
        }
        return;
    }

    // search area (clamped at the frame's edges), template, zero borders of the tables
    for (int i = tid; i < SS * SS; i += THREADS)
        area[i / SS][i % SS] =
            pixel(frame, width, height, py - T - D + i / SS, px - T - D + i % SS);
    for (int i = tid; i < TS * TS; i += THREADS) tpl[i / TS][i % TS] = my_templ[i];
    for (int i = tid; i <= SS; i += THREADS) {
        integ[0][i] = integ[i][0] = 0;
        integ2[0][i] = integ2[i][0] = 0;
    }
    __syncthreads();
    // vertical running sums, one thread per column (values, then squares)
    if (tid < 2 * SS) {
        int x = tid % SS, run = 0;
        bool sq = tid >= SS;
        for (int y = 0; y < SS; ++y) {
            int v = area[y][x];
            run += sq ? v * v : v;
            if (sq) integ2[y + 1][x + 1] = run; else integ[y + 1][x + 1] = run;
        }
    }
    __syncthreads();
    // horizontal running sums, one thread per row
    if (tid < 2 * SS) {
        int y = tid % SS + 1, run = 0;
        bool sq = tid >= SS;
        for (int x = 1; x <= SS; ++x) {
            if (sq) { run += integ2[y][x]; integ2[y][x] = run; }
            else { run += integ[y][x]; integ[y][x] = run; }
        }
    }
    __syncthreads();

    // one displacement per thread: correlation, local sums, normalised score
    float s = -INFINITY;
    if (tid < CS * CS) {
        int dy = tid / CS, dx = tid % CS;
        int corr = 0;
        for (int y = 0; y < TS; ++y)
            for (int x = 0; x < TS; ++x) corr += area[dy + y][dx + x] * tpl[y][x];
        int sw = integ[dy + TS][dx + TS] - integ[dy][dx + TS] - integ[dy + TS][dx] + integ[dy][dx];
        int sw2 = integ2[dy + TS][dx + TS] - integ2[dy][dx + TS] - integ2[dy + TS][dx]
                  + integ2[dy][dx];
        long long n = TS * TS;
        long long num = n * corr - (long long)sw * templ_sums[2 * p];
        long long den = n * sw2 - (long long)sw * sw;
        if (den > 0) s = __fdiv_rn((float)num, __fsqrt_rn((float)den));
    }
    score[tid] = s;
    best[tid] = tid;
    // the best score (ties: the smallest displacement index)
    for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        if (tid < stride) {
            float o = score[tid + stride];
            if (o > score[tid] || (o == score[tid] && best[tid + stride] < best[tid])) {
                score[tid] = o;
                best[tid] = best[tid + stride];
            }
        }
    }
    __syncthreads();
    if (tid == 0) {
        int nx = px + best[0] % CS - D, ny = py + best[0] / CS - D;
        pos_x[p] = nx;
        pos_y[p] = ny;
        track_x[p] = nx;
        track_y[p] = ny;
    }
}
