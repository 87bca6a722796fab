// K-means clustering (Lloyd's algorithm) as Rodinia's kmeans splits it: the GPU assigns every
// point to its nearest centroid, the host recomputes the centroids and counts the points that
// changed cluster, and repeats until few change. The centroids sit in constant memory (every
// thread of a warp reads the same one); the points are transposed once to feature-major order so
// that a warp's loads of one feature are coalesced. Written for this project.

#define MAX_CENTROID_VALUES 2048          // clusters x features

__constant__ float c_centroids[MAX_CENTROID_VALUES];

// points[p * nfeatures + f] -> by_feature[f * npoints + p], one thread per point.
extern "C" __global__ void kmeans_transpose(const float* points, float* by_feature, int npoints,
                                            int nfeatures) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npoints) return;
    for (int f = 0; f < nfeatures; ++f) by_feature[f * npoints + p] = points[p * nfeatures + f];
}

// membership[p] = the index of the centroid nearest to point p (squared Euclidean distance;
// the first of equal distances wins).
extern "C" __global__ void kmeans_assign(const float* by_feature, int* membership, int npoints,
                                         int nclusters, int nfeatures) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npoints) return;
    int best = 0;
    float best_dist = 3.402823466e+38f;
    for (int c = 0; c < nclusters; ++c) {
        float dist = 0.0f;
        for (int f = 0; f < nfeatures; ++f) {
            float d = by_feature[f * npoints + p] - c_centroids[c * nfeatures + f];
            dist += d * d;
        }
        if (dist < best_dist) {
            best_dist = dist;
            best = c;
        }
    }
    membership[p] = best;
}
