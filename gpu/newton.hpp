#pragma once
/// @file The GPU's NewtonSystem (issue 23; CUDA-free header): the state (p, S_w, the time
/// step's old state, p_bh, the controls), R and J live on the device; the assembly, the
/// convergence measures (canonical sums, CNV maxima), -R, the chopped update and the wells'
/// rates are kernels running the host's per-cell code (sim/newton_terms.hpp,
/// grid/two_phase.hpp, wells/two_phase_wells.hpp), so every step gives the host's bits where
/// the linear solver does. Per Newton step the host reads the measures (a few scalars and
/// the wells' rows), the solver's result and the wells' rates and p_bh; the fields come to
/// the host only when state() is asked for (report times).
///
/// The linear stage: the solver object of `make_solver`, made from a host copy of the first
/// Jacobian. A GPU solver that takes device values (gpu::GpuSolver::takes_device_values:
/// no preconditioner, point-block or line Jacobi, or CPR) gets every later Jacobian and each
/// right-hand side on the device; any other solver (spatial-block Jacobi, whose factors are
/// computed on the host, or a CPU solver) gets a host copy of J, b and x each Newton step.
/// Without CUDA (the stub) make_device_newton throws NotCompiled.
#include <memory>

#include "sim/newton_system.hpp"

namespace heptane::gpu {

/// The run starts from `initial` (sim::starting_state, or a checkpoint's).
std::unique_ptr<sim::NewtonSystem> make_device_newton(const wells::TwoPhaseSystem& system,
                                                      const sim::State& initial,
                                                      sim::SolverFactory make_solver,
                                                      SolveOptions linear);

}  // namespace heptane::gpu
