// Nearest neighbours of a query point among n records (Rodinia's nn: hurricane track points):
// the GPU computes every record's Euclidean distance in (latitude, longitude) to the query, one
// thread per record; the host then picks the k smallest. Written for this project.

struct LatLong {
    float lat, lng;
};

extern "C" __global__ void nn_distance(const LatLong* records, float* distances, int n, float lat,
                                       float lng) {
    int i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    LatLong r = records[i];
    float dlat = lat - r.lat, dlng = lng - r.lng;
    distances[i] = sqrtf(dlat * dlat + dlng * dlng);
}
