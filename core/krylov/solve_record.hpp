#pragma once
/// @file How every Krylov solver records an iteration and a breakdown in its SolveResult (the
/// CPU reference, core/krylov/krylov.cpp, and the GPU ranks' solvers,
/// gpu/src/krylov/slab_solvers.cu): one rule, so their results agree field for field.
#include <cmath>
#include <string>

#include "core/krylov/krylov.hpp"

namespace heptane {

/// The recurrence residual of iteration `it` (relative to bnorm) into the history; true when
/// the solve must stop: converged (status converged) or not finite (status non_finite).
inline bool record_iteration(SolveResult& result, double bnorm, int it, double rnorm,
                             const SolveOptions& opt) {
    result.iterations = it;
    result.relative_residual = rnorm / bnorm;
    result.history.push_back(result.relative_residual);
    if (opt.progress) opt.progress(it, result.relative_residual);
    if (!std::isfinite(result.relative_residual)) {
        result.status = SolveStatus::non_finite;
        result.detail = "the residual is not finite at iteration " + std::to_string(it);
        return true;
    }
    if (result.relative_residual <= opt.tolerance) {
        result.status = SolveStatus::converged;
        return true;
    }
    return false;
}

/// A breakdown at iteration `it` (status non_finite when `value` is not finite).
inline void record_breakdown(SolveResult& result, double value, const std::string& what, int it) {
    result.status = std::isfinite(value) ? SolveStatus::breakdown : SolveStatus::non_finite;
    result.detail = what + " at iteration " + std::to_string(it);
}

}  // namespace heptane
