#pragma once
/// @file The GPU solver objects (CUDA-free header; core/krylov/linear_solver.hpp's interface).
/// gpu::make_solver sets a solver up once for a matrix - uploads A, factors and uploads the
/// preconditioner, plans the launch (in-kernel) or captures one iteration into a CUDA graph
/// (multi-kernel), creates the cuSPARSE / cuBLAS handles (library) and allocates every
/// vector - so that update_values(A) only copies new values into the buffers it has and
/// re-factors the preconditioner in place, and solve(b, x) only uploads b and x, runs and
/// downloads x. Without CUDA (the stub) make_solver throws NotCompiled.
#include <memory>

#include "core/krylov/linear_solver.hpp"
#include "core/krylov/solver_settings.hpp"
#include "core/matrix/formats.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "gpu/solvers.hpp"

namespace heptane::gpu {

/// A GPU solver object: LinearSolver plus what only the GPU has.
class GpuSolver : public LinearSolver {
  public:
    /// The in-kernel solvers' launch (all zero for the other kernels).
    virtual InKernelPlan plan() const { return {}; }
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
