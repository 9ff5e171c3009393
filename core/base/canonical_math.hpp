#pragma once
/// @file exp, log and pow written once for the host and the device (issue 23), so a residual
/// and Jacobian assembled on the GPU have the host's bits. The C library's exp and CUDA's
/// differ in the last bits (neither is correctly rounded), so the physics (grid/two_phase.hpp,
/// wells/) calls these instead. They use only +, -, *, / (each rounded: the host is compiled
/// with -ffp-contract=off and a device file that includes this with --fmad=false), floor,
/// frexp and ldexp (exact), so both sides compute the same bits. Accuracy: within 1 ulp of
/// the exact value over the ranges tested (tests/core/canonical_math_test.cpp).
///
/// The algorithms are the classic argument reductions with the polynomial coefficients of
/// Sun's fdlibm (e_exp.c, e_log.c), which are freely usable.
#include <cmath>

#include "core/base/canonical.hpp"

namespace heptane::canonical {

/// e^x: x = k ln 2 + r with |r| <= ln 2 / 2, e^r from a rational form, times 2^k.
HEPTANE_HD inline double exp(double x) {
    constexpr double kLn2Hi = 6.93147180369123816490e-01;  // trailing zeros: k kLn2Hi exact
    constexpr double kLn2Lo = 1.90821492927058770002e-10;
    constexpr double kInvLn2 = 1.44269504088896338700e+00;
    constexpr double kP1 = 1.66666666666666019037e-01, kP2 = -2.77777777770155933842e-03,
                     kP3 = 6.61375632143793436117e-05, kP4 = -1.65339022054652515390e-06,
                     kP5 = 4.13813679705723846039e-08;
    if (!(x == x)) return x;                          // NaN
    if (x > 709.782712893383973096) return HUGE_VAL;  // overflows
    if (x < -745.13321910194110842) return 0.0;       // underflows
    const double k = floor(x * kInvLn2 + 0.5);
    const double hi = x - k * kLn2Hi, lo = k * kLn2Lo, r = hi - lo;
    const double t = r * r;
    const double c = r - t * (kP1 + t * (kP2 + t * (kP3 + t * (kP4 + t * kP5))));
    const double y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
    return ldexp(y, static_cast<int>(k));
}

/// ln x: x = 2^e m with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(f / (2 + f)), f = m - 1.
HEPTANE_HD inline double log(double x) {
    constexpr double kLn2Hi = 6.93147180369123816490e-01;
    constexpr double kLn2Lo = 1.90821492927058770002e-10;
    constexpr double kSqrtHalf = 0.70710678118654752440;
    constexpr double kLg1 = 6.666666666666735130e-01, kLg2 = 3.999999999940941908e-01,
                     kLg3 = 2.857142874366239149e-01, kLg4 = 2.222219843214978396e-01,
                     kLg5 = 1.818357216161805012e-01, kLg6 = 1.531383769920937332e-01,
                     kLg7 = 1.479819860511658591e-01;
    if (!(x == x) || x == HUGE_VAL) return x;  // NaN, +inf
    if (x < 0.0) return NAN;
    if (x == 0.0) return -HUGE_VAL;
    int e = 0;
    double m = frexp(x, &e);  // m in [0.5, 1)
    if (m < kSqrtHalf) {
        m = 2.0 * m;
        e -= 1;
    }
    const double f = m - 1.0;  // exact
    const double s = f / (2.0 + f), z = s * s, w = z * z;
    const double t1 = w * (kLg2 + w * (kLg4 + w * kLg6));
    const double t2 = z * (kLg1 + w * (kLg3 + w * (kLg5 + w * kLg7)));
    const double R = t2 + t1, hfsq = 0.5 * f * f, k = static_cast<double>(e);
    return k * kLn2Hi - ((hfsq - (s * (hfsq + R) + k * kLn2Lo)) - f);
}

/// x^p for x >= 0: repeated squaring for integer p with |p| <= 64 (Corey exponents are
/// mostly 2 or 3: exact as far as the products are), else e^(p ln x).
HEPTANE_HD inline double pow(double x, double p) {
    if (p == floor(p) && p >= -64.0 && p <= 64.0) {
        unsigned n = static_cast<unsigned>(p < 0.0 ? -p : p);
        double result = 1.0, base = x;
        while (n != 0) {
            if (n & 1u) result = result * base;
            n >>= 1;
            if (n != 0) base = base * base;
        }
        return p < 0.0 ? 1.0 / result : result;
    }
    if (x == 0.0) return p > 0.0 ? 0.0 : HUGE_VAL;
    return exp(p * log(x));
}

}  // namespace heptane::canonical
