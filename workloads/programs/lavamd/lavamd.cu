// lavaMD as the Rodinia documentation describes it: the particle space is divided into boxes
// whose side is the cutoff radius, so a particle interacts only with the particles of its own
// (home) box and of the up to 26 boxes around it. One 128-thread CTA per home box: the home
// box's particles stay in shared memory, each neighbour box's particles are staged in shared
// memory in turn, and each of the first 100 threads accumulates the potential and force of one
// home particle. Written for this project.

#define PER_BOX 100                        // particles per box
#define THREADS 128

struct Box {
    int neighbours;                        // boxes around this one (3 .. 26)
    int neighbour[26];                     // their indices
};

// rv[i] = (|r|^2, x, y, z) of particle i, qv[i] its charge; fv[i] = (potential, fx, fy, fz).
extern "C" __global__ void lavamd(float a2, const Box* boxes, const float4* rv, const float* qv,
                                  float4* fv) {
    __shared__ float4 home[PER_BOX];
    __shared__ float4 other[PER_BOX];
    __shared__ float charge[PER_BOX];
    int box = blockIdx.x, t = threadIdx.x;
    if (t < PER_BOX) home[t] = rv[box * PER_BOX + t];
    int count = boxes[box].neighbours;
    float pot = 0.0f, fx = 0.0f, fy = 0.0f, fz = 0.0f;
    for (int k = 0; k <= count; ++k) {
        int src = k == 0 ? box : boxes[box].neighbour[k - 1];
        __syncthreads();
        if (t < PER_BOX) {
            other[t] = rv[src * PER_BOX + t];
            charge[t] = qv[src * PER_BOX + t];
        }
        __syncthreads();
        if (t < PER_BOX) {
            float4 a = home[t];
            for (int j = 0; j < PER_BOX; ++j) {
                float4 b = other[j];
                float r2 = a.x + b.x - 2.0f * (a.y * b.y + a.z * b.z + a.w * b.w);
                float vij = expf(-a2 * r2);
                float fs = 2.0f * vij;
                float q = charge[j];
                pot += q * vij;
                fx += q * fs * (a.y - b.y);
                fy += q * fs * (a.z - b.z);
                fz += q * fs * (a.w - b.w);
            }
        }
    }
    if (t < PER_BOX) fv[box * PER_BOX + t] = make_float4(pot, fx, fy, fz);
}
