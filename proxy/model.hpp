#pragma once
/// @file The proxy's performance model (issue 18; seed 004's code balance and roofline): the
/// bytes and flops of each kernel of one preconditioned Krylov iteration, counted from the
/// data structures, and the time each should take at the machine's measured STREAM-triad
/// bandwidth. Every kernel of the iteration is memory bound (code balance far above the
/// machine balance), so predicted time = minimal bytes / triad bandwidth.
#include <string>
#include <vector>

#include "core/krylov/krylov.hpp"
#include "core/krylov/solver_settings.hpp"
#include "core/matrix/gh_matrix.hpp"

namespace heptane::proxy {

/// One kernel of the iteration as the model counts it.
struct KernelModel {
    std::string name;       ///< spmv, precond_point_block, dot, axpy
    std::string what;       ///< one line: what it computes and what it reads and writes
    double bytes = 0;       ///< minimal bytes of one call: each array read or written once
    double flops = 0;       ///< floating-point operations of one call
    int per_iteration = 0;  ///< calls in one iteration (the vector kernels: equivalent calls)
    /// flops / bytes; far below the machine balance (peak flops / bandwidth) = memory bound.
    double intensity() const { return bytes > 0 ? flops / bytes : 0.0; }
};

/// The kernels of one iteration of `method` (bicgstab or qmr) right-preconditioned by
/// `preconditioner` (none or point_block_jacobi) on A, with `cost`'s vector passes (8 n bytes
/// each) expressed as dot-equivalents (2 passes: x and y read) for the reductions and
/// axpy-equivalents (3 passes: x, y read, y written) for the updates:
///  - spmv: y = GH x: every structural nonzero once, x read, y written (2 flops a nonzero);
///  - precond_point_block: z = D^{-1} r: the K x K inverses, r read, z written, the wells' 1/D;
///  - dot: two vectors of n read, 2 n flops; axpy: two read and one written, 2 n flops.
/// The sum of bytes x per_iteration equals iteration_bytes() (core/krylov/linear_solver.hpp)
/// for the same method and preconditioner, so the per-kernel and whole-iteration models agree.
std::vector<KernelModel> iteration_kernels(const GHMatrix& A, Method method,
                                           PreconditionerKind preconditioner);

/// Reductions and updates of one iteration as (dot-equivalents, axpy-equivalents): bicgstab
/// 2 x 4 + 3 x 5 = 23 passes (rho, (r_hat, v), ||s||-and-(t,t), (t, s), ||r|| read pairs
/// counted as 4 dots of 2 passes, p, s, x (two), r updates as 5 axpys of 3); qmr's 35 passes
/// as 4 dots and 9 axpys (35 = 8 + 27). Throws std::invalid_argument for other methods.
std::pair<int, int> vector_kernel_calls(Method method);

/// Seconds `bytes` take at `bandwidth` bytes/s.
inline double predicted_seconds(double bytes, double bandwidth) {
    return bandwidth > 0 ? bytes / bandwidth : 0.0;
}

}  // namespace heptane::proxy
