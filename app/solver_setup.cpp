#include "app/solver_setup.hpp"

#include "core/base/errors.hpp"
#include "gpu/solver.hpp"

namespace heptane::app {

SolveOptions solve_options(const Deck& deck) {
    SolveOptions options;
    options.tolerance = deck.solver.tolerance;
    options.max_iterations = deck.solver.max_iterations;
    return options;
}

gpu::GpuSolveOptions gpu_solve_options(const Deck& deck, const SolveOptions& options) {
    const SolverSettings& s = deck.solver;
    gpu::GpuSolveOptions gopt;
    gopt.solve = options;
    gopt.library_spmv = s.library_format;
    gopt.spmv = deck.system.present ? SpmvKind::ksparse : s.spmv;
    gopt.ksparse = s.ksparse;
    gopt.preconditioner = s.preconditioner;
    gopt.block_shape = s.block_shape;
    gopt.omega = s.omega;
    return gopt;
}

std::unique_ptr<LinearSolver> make_deck_solver(const Deck& deck, const GHMatrix& A, bool gpu,
                                               GpuKernel kernel) {
    try {  // the factors come from core: a singular block is an input error at its key
        if (!gpu) return make_cpu_solver(deck.solver, A);
        return gpu::make_solver(deck.solver.method, kernel, A,
                                gpu_solve_options(deck, solve_options(deck)));
    } catch (const DeckError&) {
        throw;
    } catch (const InputError& e) {
        deck.rethrow_located(e);
    }
}

std::unique_ptr<LinearSolver> make_deck_solver(const Deck& deck, const Bsr& A, bool gpu,
                                               GpuKernel kernel) {
    if (!gpu) return make_cpu_solver(deck.solver, A);
    return gpu::make_solver(deck.solver.method, kernel, A,
                            gpu_solve_options(deck, solve_options(deck)));
}

}  // namespace heptane::app
