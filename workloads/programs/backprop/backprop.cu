// One training step of a two-layer perceptron (n inputs -> 16 hidden units -> 1 output) by error
// back-propagation, split as Rodinia's backprop splits it: the GPU does the two big layers'
// work, the host the small ones.
//   bp_layer_forward: CTA (16 x 16) number by takes inputs 16*by+1 .. 16*by+16; thread (tx, ty)
//     multiplies input ty by its weight to hidden unit tx+1 in shared memory, a tree over ty
//     sums the 16 products, and row 0 writes the CTA's partial sum per hidden unit.
//   bp_adjust_weights: each thread moves one input->hidden weight by the delta rule with momentum.
// Weights are (n + 1) x 17 row-major: row 0 and column 0 are the bias unit.
// Written for this project from the algorithm (Rumelhart, Hinton & Williams 1986).

#define WIDTH 16
#define HIDDEN 16
#define ETA 0.3f
#define MOMENTUM 0.3f

extern "C" __global__ void bp_layer_forward(const float* input, const float* weights,
                                            float* partial) {
    __shared__ float in_tile[WIDTH];
    __shared__ float product[WIDTH][WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = WIDTH * blockIdx.y + ty + 1;                  // the input unit of this thread
    if (tx == 0) in_tile[ty] = input[row];
    __syncthreads();
    product[ty][tx] = weights[row * (HIDDEN + 1) + tx + 1] * in_tile[ty];
    __syncthreads();
    for (int stride = 1; stride < WIDTH; stride *= 2) {
        if (ty % (2 * stride) == 0) product[ty][tx] += product[ty + stride][tx];
        __syncthreads();
    }
    if (ty == 0) partial[blockIdx.y * HIDDEN + tx] = product[0][tx];
}

extern "C" __global__ void bp_adjust_weights(const float* delta, const float* input,
                                             float* weights, float* previous) {
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = WIDTH * blockIdx.y + ty + 1;
    int i = row * (HIDDEN + 1) + tx + 1;
    float step = ETA * delta[tx + 1] * input[row] + MOMENTUM * previous[i];
    weights[i] += step;
    previous[i] = step;
    if (blockIdx.y == 0 && ty == 0) {                       // the bias row (its input is 1)
        float bias_step = ETA * delta[tx + 1] + MOMENTUM * previous[tx + 1];
        weights[tx + 1] += bias_step;
        previous[tx + 1] = bias_step;
    }
}
