// The pgain step of streaming k-median local search (Guha et al., "Clustering data streams:
// theory and practice", 2003; the PARSEC/Rodinia streamcluster benchmark): for a candidate
// facility x, every point computes its weighted distance to x; a point closer to x than to its
// current centre would switch (its saving is added to x's gain), any other point adds what it
// would pay to move to x to the "lower" sum of its current centre, which tells the host whether
// closing that centre pays. One thread per point, 512 per CTA; x's coordinates are staged in
// shared memory and the CTA's sums are kept there too, then written per CTA for the host.
// Written for this project.
//
// The sums are kept in 64-bit fixed point (FIXED_ONE per unit of cost), so they are exact and
// independent of the order of the atomics; the distance uses explicit round-to-nearest
// intrinsics, so the host's reference repeats it bit for bit.

#define FIXED_ONE 1048576.0f                 // 2^20

// coord: dim x num (point p's coordinate k at k*num + p); slot: the sum slot of each centre.
// Per CTA, work[blockIdx.x * (centres + 1) + s] gets centre s's sum, and slot `centres` the
// savings of the points that switch. x_cost[p] = weight * |p - x|^2; switch_to_x[p] = 1 / 0.
extern "C" __global__ void pgain(int num, int dim, const float* coord, const float* weight,
                                 const float* cost, const int* assign, const int* slot, int x,
                                 int centres, long long* work, float* x_cost,
                                 unsigned char* switch_to_x) {
    extern __shared__ long long smem[];
    long long* sums = smem;                              // centres + 1 entries
    float* cx = (float*)(smem + centres + 1);            // dim entries
    for (int k = threadIdx.x; k < dim; k += blockDim.x) cx[k] = coord[k * num + x];
    for (int s = threadIdx.x; s <= centres; s += blockDim.x) sums[s] = 0;
    __syncthreads();

    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < num) {
        float d = 0.0f;
        for (int k = 0; k < dim; ++k) {
            float t = __fsub_rn(coord[k * num + p], cx[k]);
            d = __fmaf_rn(t, t, d);
        }
        float mine = __fmul_rn(d, weight[p]);
        float current = cost[p];
        x_cost[p] = mine;
        if (mine < current) {
            switch_to_x[p] = 1;
            long long v = __float2ll_rn(__fmul_rn(__fsub_rn(mine, current), FIXED_ONE));
            atomicAdd((unsigned long long*)&sums[centres], (unsigned long long)v);
        } else {
            switch_to_x[p] = 0;
            long long v = __float2ll_rn(__fmul_rn(__fsub_rn(current, mine), FIXED_ONE));
            atomicAdd((unsigned long long*)&sums[slot[assign[p]]], (unsigned long long)v);
        }
    }
    __syncthreads();
    for (int s = threadIdx.x; s <= centres; s += blockDim.x)
        work[blockIdx.x * (centres + 1) + s] = sums[s];
}
