// Maximal independent set by Luby's algorithm with fixed random priorities (Luby, SIAM J.
// Comput. 1986; Pannotia's mis), written for this project. One thread per vertex. Per iteration
// three kernels: find (an undecided vertex whose priority is below every undecided neighbour's
// becomes a candidate), select (candidates join the set and rule their neighbours out) and check
// (any undecided vertex left sets the flag that makes the host run another iteration).

#define UNDECIDED 0
#define IN_SET 1
#define OUT 2

extern "C" __global__ void mis_find(const int* row_start, const int* cols, const int* priority,
                                    const int* status, int* candidate, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || status[v] != UNDECIDED) return;
    int p = priority[v];
    for (int e = row_start[v]; e < row_start[v + 1]; ++e) {
        int u = cols[e];
        if (status[u] == UNDECIDED && priority[u] < p) return;
    }
    candidate[v] = 1;
}

extern "C" __global__ void mis_select(const int* row_start, const int* cols, int* status,
                                      int* candidate, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !candidate[v]) return;
    candidate[v] = 0;
    status[v] = IN_SET;
    for (int e = row_start[v]; e < row_start[v + 1]; ++e) status[cols[e]] = OUT;
}

extern "C" __global__ void mis_check(const int* status, int* remaining, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && status[v] == UNDECIDED) *remaining = 1;
}
