#pragma once
/// @file The fused passes and element-wise updates of a GPU rank's BiCGStab and QMR
/// (slab_base.cuh): the element work of slab entry i and, for a pass, its Q terms, in the
/// canonical arithmetic of core/krylov/krylov.cpp, element for element. Internal linkage: each
/// including file gets its own copy.
#include <cuda_runtime.h>

#include "core/base/canonical.hpp"

namespace heptane::gpu::detail {
namespace {

using namespace heptane::canonical;

// ---- the passes: element work of slab entry i and its Q terms ----------------------------

struct DotPass {  // (u, v)
    const double* u;
    const double* v;
    __device__ void operator()(long long i, double (&t)[1]) const { t[0] = mul(u[i], v[i]); }
};

struct ResidualPass {  // r = b - (A x in r); ||r||^2
    const double* b;
    double* r;
    __device__ void operator()(long long i, double (&t)[1]) const {
        const double ri = sub(b[i], mul(1.0, r[i]));
        r[i] = ri;
        t[0] = mul(ri, ri);
    }
};

struct SPass {  // s = r - alpha v; ||s||^2
    const double* r;
    const double* v;
    double* s;
    double alpha;
    __device__ void operator()(long long i, double (&t)[1]) const {
        s[i] = sub(r[i], mul(alpha, v[i]));
        t[0] = mul(s[i], s[i]);
    }
};

struct TPass {  // (t, t), (t, s)
    const double* tv;
    const double* s;
    __device__ void operator()(long long i, double (&t)[2]) const {
        t[0] = mul(tv[i], tv[i]);
        t[1] = mul(tv[i], s[i]);
    }
};

struct XrPass {  // x += alpha p^ + omega s^; r = s - omega t; ||r||^2, (r_hat, r)
    double* x;
    double* r;
    const double *p, *sp, *s, *tv, *r_hat;
    double alpha, omega;
    __device__ void operator()(long long i, double (&t)[2]) const {
        x[i] = add(x[i], mul_add(omega, sp[i], mul(alpha, p[i])));
        r[i] = sub(s[i], mul(omega, tv[i]));
        t[0] = mul(r[i], r[i]);
        t[1] = mul(r_hat[i], r[i]);
    }
};

// ---- element work without sums -------------------------------------------------------------

struct CopyOp {
    const double* from;
    double* to;
    __device__ void operator()(long long i) const { to[i] = from[i]; }
};

struct PUpdateOp {  // p^ = r^ + beta (p^ - omega v^)
    const double* rp;
    double* p;
    const double* vp;
    double beta, omega;
    __device__ void operator()(long long i) const {
        p[i] = mul_add(beta, sub(p[i], mul(omega, vp[i])), rp[i]);
    }
};

struct AxpyOp {  // y = a x + y
    double a;
    const double* x;
    double* y;
    __device__ void operator()(long long i) const { y[i] = mul_add(a, x[i], y[i]); }
};

struct XpbyOp {  // y = x + b y (vec::xpby)
    const double* x;
    double b;
    double* y;
    __device__ void operator()(long long i) const { y[i] = mul_add(b, y[i], x[i]); }
};

// ---- QMR's fused passes (core/krylov/krylov.cpp's qmr(), element for element) --------------

struct QmrScalePass {  // v = v / rho;  w = w / xi;  z = z / xi (z null: z is w);  z^T v
    double* v;
    double* w;
    double* z;
    double v_scale, w_scale;
    __device__ void operator()(long long i, double (&t)[1]) const {
        v[i] = mul(v_scale, v[i]);
        w[i] = mul(w_scale, w[i]);
        double zi = w[i];
        if (z != nullptr) {
            z[i] = mul(w_scale, z[i]);
            zi = z[i];
        }
        t[0] = mul(zi, v[i]);
    }
};

struct QmrVPass {  // v = a - beta v;  ||v||^2 (v~ from p~, and w~ from A^T q)
    double* v;
    const double* a;
    double beta;
    __device__ void operator()(long long i, double (&t)[1]) const {
        v[i] = mul_add(-beta, v[i], a[i]);
        t[0] = mul(v[i], v[i]);
    }
};

struct QmrUpdatePass {  // d = eta p + c d;  s = eta p~ + c s;  x += d;  r -= s;  ||r||^2
    double *d, *s, *x, *r;
    const double *p, *pt;
    double eta, c;
    __device__ void operator()(long long i, double (&t)[1]) const {
        d[i] = mul_add(c, d[i], mul(eta, p[i]));
        s[i] = mul_add(c, s[i], mul(eta, pt[i]));
        x[i] = mul_add(1.0, d[i], x[i]);
        r[i] = mul_add(-1.0, s[i], r[i]);
        t[0] = mul(r[i], r[i]);
    }
};

struct XmayOp {  // z = x - a y
    const double* x;
    double a;
    const double* y;
    double* z;
    __device__ void operator()(long long i) const { z[i] = sub(x[i], mul(a, y[i])); }
};

}  // namespace
}  // namespace heptane::gpu::detail
