#include "app/solver_setup.hpp"

#include <ostream>

#include "app/atomic_file.hpp"
#include "app/mpi_session.hpp"
#include "core/base/errors.hpp"
#include "core/krylov/capabilities.hpp"
#include "core/krylov/names.hpp"
#include "gpu/device.hpp"
#include "gpu/solver.hpp"

#ifdef HEPTANE_HAVE_MPI
#include <mpi.h>

#include "dist/distributed_solver.hpp"
#endif

namespace heptane::app {
namespace {

/// K of a grid deck's system, known before it is generated (two_phase: p_o, S_w).
int block_size_of(const Deck& deck) {
    if (deck.system.present) return deck.system.block_size;
    return deck.model.model == wells::FluidModel::synthetic ? deck.model.synthetic.components : 2;
}

/// Whether the GPU runs the deck's solver (core/krylov/capabilities.hpp; the rules that hold
/// everywhere were checked when the deck was read).
Support gpu_support(const Deck& deck) {
    return support(deck.solver, block_size_of(deck), Backend::gpu,
                   deck.system.present ? DeckKind::matrix : DeckKind::grid);
}

/// The CPU solver over the MPI ranks' slabs (dist/): the deck's method and preconditioner
/// where they run there, else an input error at their key.
std::unique_ptr<LinearSolver> make_rank_solver(const Deck& deck, const GHMatrix& A) {
#ifdef HEPTANE_HAVE_MPI
    std::string why;
    if (!dist::distributed_supports(deck.solver, &why)) {
        const bool method =
            deck.solver.method != Method::bicgstab && deck.solver.method != Method::qmr;
        deck.rethrow_located(
            InputError(method ? "solver.method" : "solver.preconditioner", why + " (mpirun)"));
    }
    return dist::make_distributed_solver(deck.solver, A, MPI_COMM_WORLD);
#else
    (void)deck;
    (void)A;
    throw Error("this heptane was built without MPI");
#endif
}

}  // namespace

GpuKernel deck_gpu_kernel(const Deck& deck) {
    const int K = block_size_of(deck);
    const long long rows = deck.system.present
                               ? 0  // a matrix deck runs multi_kernel (deck.cpp)
                               : static_cast<long long>(deck.model.grid.num_cells()) * K;
    return sized_gpu_kernel(deck.solver, K, rows);
}

Plan plan_backend(const Deck& deck) {
    const SolverSettings& s = deck.solver;
    Plan plan;
    plan.backend = "cpu";
    plan.kernel_name = "reference";
    if (mpi_ranks() > 1) {  // the CPU solvers over the ranks' slabs (dist/)
        if (s.backend == Backend::gpu) {
            throw Error(
                "backend gpu under mpirun: GPU ranks are not built yet (issue 25); use "
                "--backend cpu");
        }
        if (deck.system.present) {
            deck.rethrow_located(InputError(
                "system", "a matrix deck does not run under mpirun (a grid deck's slabs do)"));
        }
        plan.kernel_name = "reference over " + std::to_string(mpi_ranks()) + " MPI ranks";
        if (s.backend == Backend::automatic) plan.fallback = "under mpirun the CPU solves";
        return plan;
    }
    const Support on_gpu = gpu_support(deck);
    if (s.backend == Backend::gpu && !on_gpu)
        deck.rethrow_located(InputError(on_gpu.key, on_gpu.reason));
    const bool gpu_ready = gpu::compiled_with_cuda() && gpu::device_count() > 0;
    if (s.backend == Backend::cpu || (s.backend == Backend::automatic && !gpu_ready)) return plan;
    if (s.backend == Backend::automatic && !on_gpu) {
        plan.fallback = on_gpu.reason;
        return plan;
    }
    if (s.backend == Backend::gpu && !gpu::compiled_with_cuda()) {
        throw Error(
            "backend gpu: heptane was built without CUDA (HEPTANE_ENABLE_CUDA=OFF or no "
            "nvcc at build time); use --backend cpu");
    }
    if (s.backend == Backend::gpu && gpu::device_count() == 0) {
        throw Error("backend gpu: no CUDA device found; use --backend cpu");
    }
    plan.gpu = true;
    plan.backend = "gpu";
    plan.kernel = deck_gpu_kernel(deck);
    // The smoothers have one GPU implementation; gpu::solve ignores the kernel for them.
    plan.kernel_name = is_smoother(s.method) ? "block_smoother" : to_string(plan.kernel);
    return plan;
}

void check_output_folder(const std::string& path, const char* key, const Deck& deck) {
    try {
        check_output_path(path, key);
    } catch (const InputError& e) {
        if (key[0] == '-') throw;
        deck.rethrow_located(e);
    }
}

Deck load_command_deck(const RunArgs& args) {
    Deck deck = load_deck(args.deck, args.overrides);
    if (!args.backend.empty()) {  // the CLI checked the name
        deck.solver.backend = parse_name<Backend>(args.backend).value_or(Backend::automatic);
    }
    return deck;
}

std::string command_output(const RunArgs& args, const Deck& deck) {
    const std::string output = args.output.empty() ? deck.output.file : args.output;
    check_output_folder(output, args.output.empty() ? "output.file" : "-o", deck);
    return output;
}

Plan plan_and_report(const Deck& deck, std::ostream& err) {
    Plan plan = plan_backend(deck);
    if (!plan.fallback.empty()) {
        err << "heptane: backend auto: solving on the CPU, the GPU solver cannot take this "
               "deck: "
            << plan.fallback << '\n';
    }
    return plan;
}

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
    gopt.cpr = s.cpr;
    return gopt;
}

std::unique_ptr<LinearSolver> make_deck_solver(const Deck& deck, const GHMatrix& A, bool gpu,
                                               GpuKernel kernel) {
    try {  // the factors come from core: a singular block is an input error at its key
        if (!gpu && mpi_ranks() > 1) return make_rank_solver(deck, A);
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
