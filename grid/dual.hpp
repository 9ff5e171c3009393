#pragma once
/// @file Forward-mode automatic differentiation: a dual number carrying the value and N
/// partial derivatives. The residual code is written once as a template on the scalar type
/// T; T = double evaluates it, T = Dual<N> also yields the Jacobian entries exactly (no
/// finite-difference step to choose). Host and device code (issue 23: the GPU assembles with
/// the same arithmetic; exp and pow are canonical::'s, core/base/canonical_math.hpp).
#include "core/base/canonical_math.hpp"

namespace heptane::grid {

template <int N>
struct Dual {
    double v = 0.0;  ///< value
    double d[N]{};   ///< partial derivatives

    Dual() = default;
    HEPTANE_HD Dual(double value) : v(value) {}  // NOLINT: constants promote implicitly
    /// The independent variable number `i`, with seed derivative `seed` (d x / d u_i).
    HEPTANE_HD static Dual variable(double value, int i, double seed = 1.0) {
        Dual x(value);
        x.d[i] = seed;
        return x;
    }

    HEPTANE_HD Dual& operator+=(const Dual& b) {
        v += b.v;
        for (int i = 0; i < N; ++i) d[i] += b.d[i];
        return *this;
    }
    HEPTANE_HD Dual& operator-=(const Dual& b) {
        v -= b.v;
        for (int i = 0; i < N; ++i) d[i] -= b.d[i];
        return *this;
    }
    HEPTANE_HD Dual& operator*=(const Dual& b) {
        for (int i = 0; i < N; ++i) d[i] = d[i] * b.v + v * b.d[i];
        v *= b.v;
        return *this;
    }
    HEPTANE_HD Dual& operator/=(const Dual& b) {
        const double inv = 1.0 / b.v;
        for (int i = 0; i < N; ++i) d[i] = (d[i] - v * inv * b.d[i]) * inv;
        v *= inv;
        return *this;
    }
};

template <int N>
HEPTANE_HD Dual<N> operator+(Dual<N> a, const Dual<N>& b) {
    return a += b;
}
template <int N>
HEPTANE_HD Dual<N> operator-(Dual<N> a, const Dual<N>& b) {
    return a -= b;
}
template <int N>
HEPTANE_HD Dual<N> operator*(Dual<N> a, const Dual<N>& b) {
    return a *= b;
}
template <int N>
HEPTANE_HD Dual<N> operator/(Dual<N> a, const Dual<N>& b) {
    return a /= b;
}
template <int N>
HEPTANE_HD Dual<N> operator+(Dual<N> a, double b) {
    return a += Dual<N>(b);
}
template <int N>
HEPTANE_HD Dual<N> operator+(double a, Dual<N> b) {
    return b += Dual<N>(a);
}
template <int N>
HEPTANE_HD Dual<N> operator-(Dual<N> a, double b) {
    return a -= Dual<N>(b);
}
template <int N>
HEPTANE_HD Dual<N> operator-(double a, const Dual<N>& b) {
    return Dual<N>(a) -= b;
}
template <int N>
HEPTANE_HD Dual<N> operator*(Dual<N> a, double b) {
    a.v *= b;
    for (int i = 0; i < N; ++i) a.d[i] *= b;
    return a;
}
template <int N>
HEPTANE_HD Dual<N> operator*(double a, Dual<N> b) {
    return b * a;
}
template <int N>
HEPTANE_HD Dual<N> operator/(Dual<N> a, double b) {
    return a * (1.0 / b);
}
template <int N>
HEPTANE_HD Dual<N> operator/(double a, const Dual<N>& b) {
    return Dual<N>(a) /= b;
}
template <int N>
HEPTANE_HD Dual<N> operator-(Dual<N> a) {
    return a * -1.0;
}

template <int N>
HEPTANE_HD Dual<N> exp(const Dual<N>& a) {
    const double e = canonical::exp(a.v);
    Dual<N> r(e);
    for (int i = 0; i < N; ++i) r.d[i] = e * a.d[i];
    return r;
}

/// a^p for a > 0 (or a == 0 with p >= 1).
template <int N>
HEPTANE_HD Dual<N> pow(const Dual<N>& a, double p) {
    const double f = canonical::pow(a.v, p);
    const double df = p == 0.0 ? 0.0 : p * canonical::pow(a.v, p - 1.0);
    Dual<N> r(f);
    for (int i = 0; i < N; ++i) r.d[i] = df * a.d[i];
    return r;
}

/// The value part, for branches (upwinding, clamping) that must not be differentiated.
HEPTANE_HD inline double value(double x) { return x; }
template <int N>
HEPTANE_HD double value(const Dual<N>& x) {
    return x.v;
}

}  // namespace heptane::grid
