// Recurrent layers step by step (DeepBench's rnn-lstm and rnn-gru): every time step is a sequence
// of small kernels, matrix-vector products for the input and the recurrent weights followed by an
// element-wise gate kernel; training adds the backward pass through time (gate gradients, then the
// transposed recurrent GEMV). Gate order: LSTM i, f, g, o; GRU r, z, n (cuDNN's GRU form:
// n = tanh(Wx_n x + b_xn + r * (Wh_n h + b_hn))).

// y[b][row] = sum_i W[row][i] * x[b][i] for B batch columns: a warp takes ROWS rows of W; its
// lanes stride the rows (coalesced) U loads at a time, so the loop body is one long run of loads
// and FFMAs (cols must be a multiple of 32 U, rows of ROWS); then a reduction in shared memory.
// CTAs have 256 threads.
template <int B, int ROWS, int U>
__device__ __forceinline__ void gemv_rows(const float* __restrict__ W, const float* __restrict__ x,
                                          float* y, int rows, int cols) {
    const int row0 = (blockIdx.x * blockDim.x + threadIdx.x) / 32 * ROWS, lane = threadIdx.x & 31;
    if (row0 >= rows) return;
    const float* w = W + (long)row0 * cols + lane;
    const float* v = x + lane;
    float acc[ROWS][B];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
#pragma unroll
        for (int b = 0; b < B; ++b) acc[r][b] = 0.0f;
    }
    for (int i0 = 0; i0 < cols; i0 += 32 * U) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int i = i0 + 32 * u;
            float xv[B];
#pragma unroll
            for (int b = 0; b < B; ++b) xv[b] = v[b * cols + i];
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                const float wi = w[(long)r * cols + i];
#pragma unroll
                for (int b = 0; b < B; ++b) acc[r][b] += wi * xv[b];
            }
        }
    }
    // Reduce across the warp through shared memory: every lane leaves its partial sums, then
    // lane k (k < ROWS * B) adds up the 32 partials of output k and stores it.
    constexpr int OUT = ROWS * B;
    __shared__ float part[8][OUT][33];                     // 8 warps per CTA; +1 against conflicts
    float (*mine)[33] = part[threadIdx.x / 32];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
#pragma unroll
        for (int b = 0; b < B; ++b) mine[r * B + b][lane] = acc[r][b];
    }
    __syncwarp();
    if (lane < OUT) {
        float s = 0.0f;
#pragma unroll
        for (int k = 0; k < 32; ++k) s += mine[lane][k];
        y[(lane % B) * rows + row0 + lane / B] = s;
    }
}

// Inference (batch 1): eight rows per warp share each load of x; cols a multiple of 256.
extern "C" __global__ void rnn_gemv_b1(const float* W, const float* x, float* y, int rows, int cols) {
    gemv_rows<1, 8, 8>(W, x, y, rows, cols);
}

// Training (batch 16): one row per warp, sixteen FFMAs per load of W; cols a multiple of 128.
extern "C" __global__ void rnn_gemv_b16(const float* W, const float* x, float* y, int rows, int cols) {
    gemv_rows<16, 1, 4>(W, x, y, rows, cols);
}

__device__ __forceinline__ float sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }

// One thread per (batch, unit). px/ph: the input and recurrent products (B x 4H); saved: the
// gate activations for the backward pass.
extern "C" __global__ void lstm_cell_forward(const float* px, const float* ph, const float* bias,
                                             const float* c_prev, float* c_next, float* h_next,
                                             float* saved, int hidden, int batch) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= batch * hidden) return;
    const int b = idx / hidden, j = idx % hidden;
    const long g0 = (long)b * 4 * hidden + j;
    float a[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) a[k] = px[g0 + k * hidden] + ph[g0 + k * hidden] + bias[j + k * hidden];
    const float i = sigmoid(a[0]), f = sigmoid(a[1]), g = tanhf(a[2]), o = sigmoid(a[3]);
    const float c = f * c_prev[idx] + i * g;
    c_next[idx] = c;
    h_next[idx] = o * tanhf(c);
    saved[g0] = i;
    saved[g0 + hidden] = f;
    saved[g0 + 2 * hidden] = g;
    saved[g0 + 3 * hidden] = o;
}

// Backward through one LSTM step: dh = dy + (Wh^T dgates of the later step); dc (in/out) carries
// the cell-state gradient to the earlier step; dgates feeds the transposed recurrent GEMV.
extern "C" __global__ void lstm_cell_backward(const float* dy, const float* dh_rec, float* dc,
                                              const float* saved, const float* c_cur,
                                              const float* c_prev, float* dgates, int hidden,
                                              int batch) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= batch * hidden) return;
    const int b = idx / hidden, j = idx % hidden;
    const long g0 = (long)b * 4 * hidden + j;
    const float i = saved[g0], f = saved[g0 + hidden], g = saved[g0 + 2 * hidden];
    const float o = saved[g0 + 3 * hidden];
    const float dh = dy[idx] + dh_rec[idx];
    const float tc = tanhf(c_cur[idx]);
    const float dcell = dc[idx] + dh * o * (1.0f - tc * tc);
    dgates[g0] = dcell * g * i * (1.0f - i);
    dgates[g0 + hidden] = dcell * c_prev[idx] * f * (1.0f - f);
    dgates[g0 + 2 * hidden] = dcell * i * (1.0f - g * g);
    dgates[g0 + 3 * hidden] = dh * tc * o * (1.0f - o);
    dc[idx] = dcell * f;
}

// GRU step: px/ph are B x 3H; bias holds b_r, b_z, b_xn, b_hn (4H). saved: r, z, n, hn.
extern "C" __global__ void gru_cell_forward(const float* px, const float* ph, const float* bias,
                                            const float* h_prev, float* h_next, float* saved,
                                            int hidden, int batch) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= batch * hidden) return;
    const int b = idx / hidden, j = idx % hidden;
    const long g0 = (long)b * 3 * hidden + j;
    const float r = sigmoid(px[g0] + ph[g0] + bias[j]);
    const float z = sigmoid(px[g0 + hidden] + ph[g0 + hidden] + bias[hidden + j]);
    const float hn = ph[g0 + 2 * hidden] + bias[3 * hidden + j];
    const float n = tanhf(px[g0 + 2 * hidden] + bias[2 * hidden + j] + r * hn);
    h_next[idx] = (1.0f - z) * n + z * h_prev[idx];
    const long s0 = (long)b * 4 * hidden + j;
    saved[s0] = r;
    saved[s0 + hidden] = z;
    saved[s0 + 2 * hidden] = n;
    saved[s0 + 3 * hidden] = hn;
}

// Backward through one GRU step: dh' = dy + (Wh^T dgates of the later step) + carry, where carry
// (in/out) is the direct path z * dh'. dgates (B x 3H) are the gradients of Wh h's three parts.
extern "C" __global__ void gru_cell_backward(const float* dy, const float* dh_rec, float* carry,
                                             const float* saved, const float* h_prev,
                                             float* dgates, int hidden, int batch) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= batch * hidden) return;
    const int b = idx / hidden, j = idx % hidden;
    const long s0 = (long)b * 4 * hidden + j;
    const float r = saved[s0], z = saved[s0 + hidden], n = saved[s0 + 2 * hidden];
    const float hn = saved[s0 + 3 * hidden];
    const float dh = dy[idx] + dh_rec[idx] + carry[idx];
    const float dan = dh * (1.0f - z) * (1.0f - n * n);
    const long g0 = (long)b * 3 * hidden + j;
    dgates[g0] = dan * hn * r * (1.0f - r);
    dgates[g0 + hidden] = dh * (h_prev[idx] - n) * z * (1.0f - z);
    dgates[g0 + 2 * hidden] = dan * r;
    carry[idx] = dh * z;
}
