// Whitted-style ray tracing (Whitted, CACM 1980) of spheres over a chequered floor, one primary
// ray per pixel (ERCBench's RayTracing "render": 16x8-thread CTAs), written for this project.
// Each ray bounces off reflective surfaces up to MAX_DEPTH times; every hit casts a shadow ray
// to the point light and is shaded with ambient, Lambert and Blinn-Phong terms. Work per pixel
// therefore depends on what the ray meets (sky: one pass; mirrors: up to four).
//
// Every float operation is an explicitly rounded intrinsic (no FMA contraction), so the numpy
// reference (raytrace.py), doing the same operations in the same order in float32, is exact.

#define SPHERES 8
#define MAX_DEPTH 4
#define EPS 1e-3f
#define FAR 1e30f
#define FLOOR_END 100.0f              // the floor plane ends this far along a ray

struct Scene {
    float sphere[SPHERES][8];         // centre x, y, z, radius², colour r, g, b, reflectivity
    float light[3];
    float ambient;
};

// The scene, in constant memory (the host reads it back from here for its reference).
__constant__ Scene SCENE = {
    {{0.0f, -0.2f, -4.5f, 1.0f, 0.9f, 0.9f, 0.9f, 0.8f},       // a mirror ball
     {-2.0f, -0.5f, -5.5f, 0.25f, 0.9f, 0.2f, 0.2f, 0.3f},
     {2.1f, -0.4f, -5.0f, 0.36f, 0.2f, 0.3f, 0.9f, 0.5f},
     {1.0f, 0.9f, -6.5f, 0.49f, 0.2f, 0.8f, 0.3f, 0.0f},
     {-1.2f, 1.2f, -7.0f, 0.64f, 0.9f, 0.7f, 0.2f, 0.6f},
     {0.8f, -0.75f, -3.0f, 0.0625f, 0.6f, 0.2f, 0.8f, 0.2f},
     {-0.7f, -0.8f, -3.2f, 0.04f, 0.9f, 0.5f, 0.1f, 0.0f},
     {3.5f, 1.5f, -9.0f, 1.44f, 0.9f, 0.9f, 0.9f, 0.7f}},
    {5.0f, 8.0f, 2.0f},
    0.15f};

struct V { float x, y, z; };

__device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float sub(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ V vadd(V a, V b) { return {add(a.x, b.x), add(a.y, b.y), add(a.z, b.z)}; }
__device__ __forceinline__ V vsub(V a, V b) { return {sub(a.x, b.x), sub(a.y, b.y), sub(a.z, b.z)}; }
__device__ __forceinline__ V vscale(V a, float s) { return {mul(a.x, s), mul(a.y, s), mul(a.z, s)}; }
__device__ __forceinline__ float dot(V a, V b) { return add(add(mul(a.x, b.x), mul(a.y, b.y)), mul(a.z, b.z)); }
__device__ __forceinline__ V normalize(V a) { return vscale(a, __fdiv_rn(1.0f, __fsqrt_rn(dot(a, a)))); }

// Distance along the ray (o, d) to sphere s, or FAR on a miss (only hits beyond EPS count).
__device__ __forceinline__ float hit_sphere(const Scene& sc, int s, V o, V d) {
    V oc = vsub(o, {sc.sphere[s][0], sc.sphere[s][1], sc.sphere[s][2]});
    float b = dot(oc, d);
    float disc = sub(mul(b, b), sub(dot(oc, oc), sc.sphere[s][3]));
    if (disc <= 0.0f) return FAR;
    float root = __fsqrt_rn(disc);
    float t = sub(-b, root);
    if (t <= EPS) t = add(-b, root);
    return t > EPS ? t : FAR;
}

// (jitter_x, jitter_y): where in its pixel the ray passes (one stochastic sample per pixel).
extern "C" __global__ void render(int width, int height, float jitter_x, float jitter_y,
                                  uchar4* image) {
    const Scene& scene = SCENE;
    int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height) return;
    float aspect = __fdiv_rn((float)width, (float)height);
    V o = {0.0f, 0.0f, 0.0f};
    V d = normalize({mul(sub(mul(__fdiv_rn(add((float)px, jitter_x), (float)width), 2.0f), 1.0f), aspect),
                     sub(1.0f, mul(__fdiv_rn(add((float)py, jitter_y), (float)height), 2.0f)), -1.5f});
    V colour = {0.0f, 0.0f, 0.0f};
    float weight = 1.0f;
    for (int depth = 0; depth < MAX_DEPTH; ++depth) {
        float t_min = FAR;
        int hit = -1;                                         // sphere index, SPHERES = floor
        #pragma unroll
        for (int s = 0; s < SPHERES; ++s) {
            float t = hit_sphere(scene, s, o, d);
            if (t < t_min) { t_min = t; hit = s; }
        }
        if (d.y < 0.0f) {                                     // the floor plane y = -1
            float t = __fdiv_rn(sub(-1.0f, o.y), d.y);
            if (t > EPS && t < FLOOR_END && t < t_min) { t_min = t; hit = SPHERES; }
        }
        if (hit < 0) {                                        // sky: a vertical gradient
            float g = mul(add(d.y, 1.0f), 0.5f);
            colour = vadd(colour, vscale({sub(1.0f, mul(g, 0.5f)), sub(1.0f, mul(g, 0.3f)), 1.0f}, weight));
            break;
        }
        V p = vadd(o, vscale(d, t_min));
        V n, base;
        float reflect;
        if (hit == SPHERES) {
            n = {0.0f, 1.0f, 0.0f};
            int check = ((int)floorf(p.x) + (int)floorf(p.z)) & 1;
            base = check ? V{0.9f, 0.9f, 0.9f} : V{0.2f, 0.2f, 0.25f};
            reflect = 0.0f;
        } else {
            float c[8];
            #pragma unroll
            for (int s = 0; s < SPHERES; ++s)
                if (s == hit)
                    #pragma unroll
                    for (int k = 0; k < 8; ++k) c[k] = scene.sphere[s][k];
            n = normalize(vsub(p, {c[0], c[1], c[2]}));
            base = {c[4], c[5], c[6]};
            reflect = c[7];
        }
        V to_light = vsub({scene.light[0], scene.light[1], scene.light[2]}, p);
        float light_dist = __fsqrt_rn(dot(to_light, to_light));
        V l = vscale(to_light, __fdiv_rn(1.0f, light_dist));
        V q = vadd(p, vscale(n, EPS));
        bool shadow = false;
        #pragma unroll
        for (int s = 0; s < SPHERES; ++s)
            if (!shadow && hit_sphere(scene, s, q, l) < light_dist) shadow = true;
        float diffuse = shadow ? 0.0f : fmaxf(dot(n, l), 0.0f);
        float spec = shadow ? 0.0f : fmaxf(dot(n, normalize(vsub(l, d))), 0.0f);
        spec = mul(spec, spec); spec = mul(spec, spec); spec = mul(spec, spec); spec = mul(spec, spec);
        float lit = mul(add(scene.ambient, diffuse), sub(1.0f, reflect));
        colour = vadd(colour, vscale(vadd(vscale(base, lit), {spec, spec, spec}), weight));
        if (reflect == 0.0f) break;
        weight = mul(weight, reflect);
        d = vsub(d, vscale(n, mul(2.0f, dot(d, n))));
        o = q;
    }
    image[py * width + px] = make_uchar4((unsigned char)mul(fminf(colour.x, 1.0f), 255.0f),
                                         (unsigned char)mul(fminf(colour.y, 1.0f), 255.0f),
                                         (unsigned char)mul(fminf(colour.z, 1.0f), 255.0f), 255);
}
