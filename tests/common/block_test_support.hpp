#pragma once
// What the block-preconditioner tests share (block_smoothers_test.cpp,
// preconditioned_krylov_test.cpp): z = M^-1 r and M^-T r as vectors, norms and residuals.
#include <vector>

#include "core/base/vector_ops.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "core/precond/block_smoothers.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane::test {

using Vec = std::vector<double>;

inline Vec precondition(const Preconditioner& M, const Vec& r) {
    Vec z(r.size());
    M.apply(r.data(), z.data());
    return z;
}

inline Vec precondition_t(const Preconditioner& M, const Vec& r) {
    Vec z(r.size());
    M.apply_transpose(r.data(), z.data());
    return z;
}

inline double norm(const Vec& v) { return vec::norm2(v.data(), static_cast<index_t>(v.size())); }

/// ||b - A x|| for b, x of A.rows() entries.
inline double residual_norm(const GHMatrix& A, const Vec& b, const Vec& x) {
    Vec r = spmv(A, x);
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = b[i] - r[i];
    return norm(r);
}

}  // namespace heptane::test
