#pragma once
/// @file What BiCGStab does with each of its sums on the device, once a reduction has them
/// (SolverState's BicgstabRecurrence, the reference's rules in core/krylov/krylov.cpp): the
/// multi-kernel solver's kernels apply a step in the block that finishes their reduction, a GPU
/// rank's solver in the kernel that joins the ranks' parts (slab_base.cuh, design decision 59).
/// Each step runs in one thread: step(state, the pass's Q sums, the residual history).
#include <cuda_runtime.h>

#include "core/krylov/bicgstab_recurrence.hpp"
#include "gpu/src/base/solver_state.cuh"

namespace heptane::gpu::detail {

/// ||b||.
struct BnormStep {
    __device__ void operator()(SolverState& s, const double (&t)[1], double*) const {
        s.bnorm = sqrt(t[0]);
    }
};

/// ||r_0|| of r = b - A x: iteration 0.
struct StartStep {
    __device__ void operator()(SolverState& s, const double (&t)[1], double* history) const {
        const double r_norm = sqrt(t[0]);
        s.bicg.start(r_norm);
        s.record(0, r_norm, history);
        s.update_gates();
    }
};

/// ||r|| of r = b - A x after a near-breakdown of rho: the restart (r_hat = r, p = r next).
struct RestartStep {
    __device__ void operator()(SolverState& s, const double (&t)[1], double*) const {
        s.bicg.restart(sqrt(t[0]));
        s.restarts = s.bicg.restarts;
        s.restart_pending = 0;
        s.update_gates();
    }
};

/// rho = (r_hat, r); near-breakdown -> restart (or breakdown); beta.
struct RhoStep {
    __device__ void operator()(SolverState& s, const double (&t)[1], double*) const {
        const double rho = t[0];
        switch (s.bicg.check_rho(rho, s.max_restarts)) {
            case kRhoNonFinite:
                return s.fail(rho, kDetailRhoNonFinite, s.iterations + 1);
            case kRhoZero:
                return s.fail(rho, kDetailRhoZero, s.iterations + 1);
            case kRhoRestart:
                s.restart_pending = 1;  // r = b - A x, r_hat = r, p = r
                return s.update_gates();
            default:
                s.bicg.accept_rho(rho);
        }
    }
};

/// sigma = (r_hat, v); alpha = rho / sigma.
struct SigmaStep {
    __device__ void operator()(SolverState& s, const double (&t)[1], double*) const {
        if (!s.bicg.accept_sigma(t[0])) s.fail(t[0], kDetailSigma, s.iterations + 1);
    }
};

/// ||s||; the half step when ||s|| / ||b|| <= tol.
struct HalfStep {
    __device__ void operator()(SolverState& s, const double (&t)[1], double*) const {
        s.s_norm = sqrt(t[0]);
        if (BicgstabRecurrence::half_step(s.s_norm, s.bnorm, s.tolerance)) {
            s.half_step = 1;
            s.update_gates();
        }
    }
};

/// (t, t) and (t, s); omega = (t, s) / (t, t).
struct OmegaStep {
    __device__ void operator()(SolverState& s, const double (&t)[2], double*) const {
        if (!s.bicg.accept_t(t[0], t[1])) s.fail(t[0], kDetailTT, s.iterations + 1);
    }
};

/// ||r|| after x and r are updated: the iteration's record and status (at a half step it has
/// converged with ||s||).
struct IterationStep {
    __device__ void operator()(SolverState& s, const double (&t)[1], double* history) const {
        const int it = s.iterations + 1;
        if (s.half_step) {
            s.record(it, s.s_norm, history);  // converged by construction
            return;
        }
        s.r_norm = sqrt(t[0]);
        if (s.record(it, s.r_norm, history)) return;
        if (!s.bicg.next(s.r_norm)) {  // omega = 0: the next beta would divide by omega
            s.fail(0.0, kDetailOmega, it);
            return;
        }
        if (it >= s.max_iterations) {
            s.status = kMaxIterations;
            s.update_gates();
        }
    }
};

/// ||b - A x|| / ||b|| (the reference's true residual).
struct TrueResidualStep {
    __device__ void operator()(SolverState& s, const double (&t)[1], double*) const {
        s.true_relative_residual = sqrt(t[0]) / s.bnorm;
    }
};

}  // namespace heptane::gpu::detail
