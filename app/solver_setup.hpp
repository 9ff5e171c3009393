#pragma once
/// @file A deck's solver section as a solver object (core/krylov/linear_solver.hpp): the one place
/// where `heptane run`, `heptane bench update` and (issue 17) the simulator turn the deck's
/// settings into a CPU or GPU solver made once.
#include <memory>
#include <string>

#include "app/deck.hpp"
#include "app/run.hpp"
#include "core/krylov/linear_solver.hpp"
#include "core/matrix/formats.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "gpu/solvers.hpp"

namespace heptane::app {

/// Where and how a deck's linear solves run.
struct Plan {
    bool gpu = false;
    GpuKernel kernel = GpuKernel::in_kernel;
    std::string backend, kernel_name;
    /// backend auto with a GPU present that cannot take the deck's combination: why the
    /// CPU runs it instead (empty otherwise).
    std::string fallback;
};

/// cpu, or the GPU with the requested kernel. `auto` takes the GPU when one is present and
/// the method runs there with the deck's preconditioner, else the CPU (plan.fallback says
/// why). An explicit GPU request for a combination the GPU solvers lack is an input error at
/// solver.preconditioner (exit 2, on any machine); one this build or machine cannot serve is a
/// runtime error (exit 3). Checked before any work.
Plan plan_backend(const Deck& deck);

/// The GPU kernel of a grid deck: solver.gpu_kernel, or by the system's size where the deck
/// does not name one (sized_gpu_kernel; the wells' rows do not move the choice).
GpuKernel deck_gpu_kernel(const Deck& deck);

/// Fails early (exit 2, nothing written) when the output folder does not exist. `key` is the
/// deck key or the option ("-o") that named the path.
void check_output_folder(const std::string& path, const char* key, const Deck& deck);

/// The deck of `run` or `simulate`: loaded with the --set arguments, --backend applied.
Deck load_command_deck(const RunArgs& args);

/// The output of `run` or `simulate`: -o, else the deck's output.file; its folder checked.
std::string command_output(const RunArgs& args, const Deck& deck);

/// plan_backend, and on `err` why the CPU runs the solves when backend auto falls back.
Plan plan_and_report(const Deck& deck, std::ostream& err);

/// The plan for the model built from the deck: `plan`, which every solver can run with the
/// grid's non-neighbour connections (faults' throws, NNC records, PINCH: design decisions 63,
/// 68, 69, 71), except that under mpirun a connection more than one i-plane long is an input
/// error at grid.eclipse (a rank's slab reaches one plane past its own; design decision 64).
/// `err` takes a note where the plan changes (none does now).
Plan plan_for_model(const Deck& deck, Plan plan, const wells::Model& model, std::ostream& err);

/// The per-solve options of the deck: tolerance and max_iterations.
SolveOptions solve_options(const Deck& deck);

/// The GPU solver options of the deck (a matrix deck's spmv is ksparse: deck.cpp), with
/// `options` as the per-solve options.
gpu::GpuSolveOptions gpu_solve_options(const Deck& deck, const SolveOptions& options);

/// The solver object of a grid deck for A: the CPU reference (gpu false) or the GPU solver of
/// `kernel` (the block smoothers ignore it). A singular block met while factoring is
/// rethrown located at its deck key (exit 2).
std::unique_ptr<LinearSolver> make_deck_solver(const Deck& deck, const GHMatrix& A, bool gpu,
                                               GpuKernel kernel);

/// The solver object of a matrix deck: the CPU reference or the multi-kernel solver with the
/// KSPARSE SpMV.
std::unique_ptr<LinearSolver> make_deck_solver(const Deck& deck, const Bsr& A, bool gpu,
                                               GpuKernel kernel);

class MpiSlab;
/// The deck's solver over the MPI ranks on the slab each rank built itself (`heptane run`
/// under mpirun, design decision 52): this rank's local vectors; an input error at the key the
/// ranks do not take.
std::unique_ptr<LinearSolver> make_deck_slab_solver(const Deck& deck, const MpiSlab& slab,
                                                    bool gpu);
/// The same on a slab `slab` of this rank's planes that a simulation assembled itself (design
/// decision 51): the wells `global_wells` of its planes out of `total_wells`.
std::unique_ptr<LinearSolver> make_deck_slab_solver(const Deck& deck, const GHMatrix& slab,
                                                    const std::vector<int>& global_wells,
                                                    long long total_wells, bool gpu);

}  // namespace heptane::app
