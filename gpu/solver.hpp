#pragma once
/// @file The GPU solver objects (CUDA-free header; core/krylov/linear_solver.hpp's interface).
/// gpu::make_solver sets a solver up once for a matrix - uploads A, factors and uploads the
/// preconditioner, plans the launch (in-kernel) or captures one iteration into a CUDA graph
/// (multi-kernel), creates the cuSPARSE / cuBLAS handles (library) and allocates every
/// vector - so that update_values(A) only copies new values into the buffers it has and
/// re-factors the preconditioner in place, and solve(b, x) only uploads b and x, runs and
/// downloads x. Without CUDA (the stub) make_solver throws NotCompiled.
#include <memory>

#include "core/base/errors.hpp"
#include "core/krylov/linear_solver.hpp"
#include "core/krylov/solver_settings.hpp"
#include "core/matrix/formats.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "gpu/solvers.hpp"

namespace heptane::gpu {

/// A grid system's values already on the device, in GHMatrix's layouts (issue 23: the device
/// Newton loop, gpu/newton.hpp, hands its Jacobian to the solver without the host): Bdia
/// [d][r][c][m] with M cells a plane, the accumulation blocks [r][c][m] (null: none), the
/// wells' W and W^T values and D (WellArrays' layouts).
struct DeviceSystemValues {
    const double* bdia = nullptr;
    const double* accumulation = nullptr;
    const double* w_vals = nullptr;
    const double* wt_vals = nullptr;
    const double* d = nullptr;
    const double* nnc_vals = nullptr;  ///< NncArrays::vals' layout; null without connections
};

/// A GPU solver object: LinearSolver plus what only the GPU has.
class GpuSolver : public LinearSolver {
  public:
    using LinearSolver::update_values;
    /// The in-kernel solvers' launch (all zero for the other kernels).
    virtual InKernelPlan plan() const { return {}; }

    /// Whether the two calls below run: the Bdia solvers (in-kernel, multi-kernel) whose
    /// preconditioner is set up on the device (none, point_block_jacobi, line_jacobi, cpr).
    /// Spatial-block Jacobi factors on the host.
    virtual bool takes_device_values() const { return false; }
    /// update_values(A) from A's values on the device (the structure of the matrix the solver
    /// was made from): the same factors, bit for bit, as from a host copy of them.
    virtual void update_values(const DeviceSystemValues&) {
        throw NotSupported(info().kernel + ": this solver takes its values from the host");
    }
    /// solve(b, x) with b and x on the device (the system's order; x the initial guess in,
    /// the iterate out): only the result's scalars and residual history reach the host.
    virtual SolveResult solve_device(const double*, double*, const SolveOptions&) {
        throw NotSupported(info().kernel + ": this solver takes b and x from the host");
    }
};

/// The GPU solver of (method, kernel) for a grid system: method bicgstab or qmr with
/// `kernel`, or a block smoother (block_jacobi, block_gs: the kernel is not used). The
/// options fix everything but the per-solve SolveOptions: options.solve.max_iterations is
/// the largest max_iterations a later solve may ask for (the residual histories are
/// allocated once). Throws NotSupported for a combination the GPU does not run
/// (core/krylov/capabilities.hpp says which), InputError from factoring a singular block.
std::unique_ptr<GpuSolver> make_solver(Method method, GpuKernel kernel, const GHMatrix& A,
                                       const GpuSolveOptions& options);

/// The multi-kernel solver of `method` (bicgstab or qmr) with the KSPARSE SpMV on a general
/// square BSR matrix (matrix decks; QMR's A^T on an explicit transpose). update_values(GH)
/// is not available (NotSupported): a Bsr has no GH structure.
std::unique_ptr<GpuSolver> make_solver(Method method, GpuKernel kernel, const Bsr& A,
                                       const GpuSolveOptions& options);

/// Device allocations (cudaMalloc, cudaMallocHost, cudaHostAlloc) heptane's GPU backend has
/// made since the process started; 0 without CUDA. Tests read it to show that a solver set
/// up once allocates nothing more in update_values and solve.
long long device_allocations();

}  // namespace heptane::gpu
