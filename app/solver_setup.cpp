#include "app/solver_setup.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include "app/atomic_file.hpp"
#include "app/mpi_session.hpp"
#include "core/base/errors.hpp"
#include "core/krylov/capabilities.hpp"
#include "core/krylov/names.hpp"
#include "gpu/device.hpp"
#include "gpu/solver.hpp"
#include "grid/transmissibility.hpp"

#ifdef HEPTANE_HAVE_MPI
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

/// Whether the ranks (GPU ranks with `gpu`) take the deck's solver settings, and why not.
bool rank_settings_ok(const Deck& deck, bool gpu, std::string* why) {
#ifdef HEPTANE_HAVE_MPI
    return dist::distributed_supports(deck.solver, why, gpu);
#else
    (void)deck;
    (void)gpu;
    (void)why;
    return true;
#endif
}

/// An input error at the key (solver.method or solver.preconditioner) the ranks do not take
/// (CPU and GPU ranks run BiCGStab and QMR).
void check_rank_settings(const Deck& deck, bool gpu) {
    std::string why;
    if (!rank_settings_ok(deck, gpu, &why)) {
        const bool method =
            deck.solver.method != Method::bicgstab && deck.solver.method != Method::qmr;
        deck.rethrow_located(
            InputError(method ? "solver.method" : "solver.preconditioner", why + " (mpirun)"));
    }
}

/// The solver over the MPI ranks' slabs (dist/; GPU ranks with `gpu`): the deck's method and
/// preconditioner where they run there, else an input error at their key.
std::unique_ptr<LinearSolver> make_rank_solver(const Deck& deck, const GHMatrix& A, bool gpu) {
    check_rank_settings(deck, gpu);
    return make_mpi_solver(deck.solver, A, gpu);
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
    if (mpi_launched()) {  // the solvers over the ranks' slabs (dist/), even on one rank
        if (deck.system.present) {
            deck.rethrow_located(InputError(
                "system", "a matrix deck does not run under mpirun (a grid deck's slabs do)"));
        }
        const bool gpu_ready = gpu::compiled_with_cuda() && gpu::device_count() > 0;
        if (s.backend == Backend::gpu) {
            if (!gpu_ready) {
                throw Error(
                    gpu::compiled_with_cuda()
                        ? "backend gpu under mpirun: no CUDA device found; use --backend cpu"
                        : "backend gpu under mpirun: heptane was built without CUDA; use "
                          "--backend cpu");
            }
            check_rank_settings(deck, true);
        }
        std::string why;
        const bool gpu =
            s.backend == Backend::gpu ||
            (s.backend == Backend::automatic && gpu_ready && rank_settings_ok(deck, true, &why));
        if (s.backend == Backend::automatic && gpu_ready && !gpu) plan.fallback = why;
        if (!gpu) check_rank_settings(deck, false);
        plan.gpu = gpu;
        plan.backend = gpu ? "gpu" : "cpu";
        plan.kernel = GpuKernel::multi_kernel;
        plan.kernel_name = (gpu ? "multi_kernel/slab over " : "reference over ") +
                           std::to_string(mpi_ranks()) + " MPI ranks";
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

namespace {

/// Under mpirun each rank holds its i-planes and one halo plane a side (design decision 64):
/// a connection may reach the next plane (a fault's always does at most), not further.
void check_connections_fit_slabs(const Deck& deck, const grid::Grid3D& g,
                                 const std::vector<grid::NncTransmissibility>& connections,
                                 const std::string& what) {
    for (const grid::NncTransmissibility& c : connections) {
        const auto a = g.ijk(c.a), b = g.ijk(c.b);
        if (std::abs(a[0] - b[0]) <= 1) continue;
        const auto cell = [](const std::array<int, 3>& v) {
            return "(" + std::to_string(v[0] + 1) + ", " + std::to_string(v[1] + 1) + ", " +
                   std::to_string(v[2] + 1) + ")";
        };
        deck.rethrow_located(InputError(
            "grid.eclipse", what + "; cells " + cell(a) + " and " + cell(b) + " are connected " +
                                std::to_string(std::abs(a[0] - b[0])) +
                                " i-planes apart, and the ranks' slabs reach one plane past "
                                "their own: run the deck in one process"));
    }
}

}  // namespace

Plan plan_for_model(const Deck& deck, Plan plan, const wells::Model& model, std::ostream&) {
    if (deck.model.model != wells::FluidModel::two_phase) return plan;  // the stencil's blocks
    if (!mpi_launched()) return plan;
    // Every solver takes the non-neighbour connections (the GPU's block smoothers since
    // decision 71); under mpirun they must fit the ranks' slabs.
    const std::vector<grid::NncTransmissibility> connections =
        grid::non_neighbour_transmissibilities(model.grid, model.rock);
    if (connections.empty()) return plan;
    const std::string what = "grid.eclipse gives " + std::to_string(connections.size()) +
                             " non-neighbour connections (faults' throws, NNC, PINCH)";
    check_connections_fit_slabs(deck, model.grid, connections, what);
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
        if (mpi_launched()) return make_rank_solver(deck, A, gpu);
        if (!gpu) return make_cpu_solver(deck.solver, A);
        return gpu::make_solver(deck.solver.method, kernel, A,
                                gpu_solve_options(deck, solve_options(deck)));
    } catch (const DeckError&) {
        throw;
    } catch (const InputError& e) {
        deck.rethrow_located(e);
    }
}

std::unique_ptr<LinearSolver> make_deck_slab_solver(const Deck& deck, const MpiSlab& slab,
                                                    bool gpu) {
    check_rank_settings(deck, gpu);
    try {
        return slab.solver(deck.solver, gpu);
    } catch (const DeckError&) {
        throw;
    } catch (const InputError& e) {
        deck.rethrow_located(e);
    }
}

std::unique_ptr<LinearSolver> make_deck_slab_solver(const Deck& deck, const GHMatrix& slab,
                                                    const std::vector<int>& global_wells,
                                                    long long total_wells, bool gpu) {
    check_rank_settings(deck, gpu);
    try {
        return make_mpi_slab_solver(deck.solver, slab, deck.model.grid.nx, global_wells,
                                    total_wells, gpu);
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
