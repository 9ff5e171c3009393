#include "app/run.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <ostream>

#include "app/deck.hpp"
#include "app/mpi_session.hpp"
#include "app/output.hpp"
#include "app/report.hpp"
#include "app/solver_setup.hpp"
#include "core/base/errors.hpp"
#include "core/krylov/capabilities.hpp"
#include "core/krylov/krylov.hpp"
#include "core/krylov/names.hpp"
#include "core/precond/block_smoothers.hpp"
#include "gpu/device.hpp"
#include "gpu/solvers.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// Progress on a terminal: iteration and residual, at most ten updates a second.
class Progress {
  public:
    Progress(std::ostream& err, bool on) : err_(err), on_(on) {}
    ~Progress() {
        if (shown_) err_ << "\r" << std::string(60, ' ') << "\r" << std::flush;
    }
    void operator()(int it, double residual) {
        if (!on_) return;
        const auto now = Clock::now();
        if (shown_ && now - last_ < std::chrono::milliseconds(100)) return;
        last_ = now;
        shown_ = true;
        err_ << "\r  iteration " << it << "  relative residual " << sci(residual) << std::flush;
    }

  private:
    std::ostream& err_;
    bool on_;
    bool shown_ = false;
    Clock::time_point last_{};
};

/// The record of a run before its solve (what the output and the report need).
RunRecord start_record(const Deck& deck, const RunArgs& args, const Plan& plan,
                       double setup_seconds) {
    RunRecord run;
    run.deck = &deck;
    run.overrides = args.overrides;
    run.method = to_string(deck.solver.method);
    run.backend = plan.backend;
    run.kernel = plan.kernel_name;
    run.tolerance = deck.solver.tolerance;
    run.setup_seconds = setup_seconds;
    return run;
}

/// The preconditioner line of the run report.
void report_preconditioner(std::ostream& out, const SolverSettings& s) {
    const auto shape = [&s]() {
        return std::to_string(s.block_shape[0]) + " x " + std::to_string(s.block_shape[1]) + " x " +
               std::to_string(s.block_shape[2]) + " cells";
    };
    out << "  precond     " << to_string(s.preconditioner);
    if (is_smoother(s.method)) {
        out << " (the " << to_string(s.method) << " sweeps invert blocks of " << shape()
            << ", omega " << s.omega << ")";
    } else if (s.preconditioner == PreconditionerKind::block_jacobi) {
        out << " (right), blocks of " << shape();
    } else if (s.preconditioner != PreconditionerKind::none) {
        out << " (right)";
    }
    out << '\n';
}

/// The solver, preconditioner, result, residual and time lines of the run report.
void report_solve(std::ostream& out, const RunRecord& run, const Plan& plan,
                  const SolveOptions& options, double bytes_per_iteration) {
    const SolveResult& r = run.result;
    out << "  solver      " << run.method << " on the " << plan.backend << " (";
    if (plan.gpu) {
        const auto devices = gpu::list_devices();
        out << run.kernel << ", " << (devices.empty() ? "?" : devices[0].name);
    } else {
        out << plan.kernel_name << ", " << omp_get_max_threads() << " OpenMP threads"
            << (mpi_launched() ? " a rank" : "");
    }
    out << "), tolerance " << sci(options.tolerance, 1) << ", at most " << options.max_iterations
        << " iterations\n";
    report_preconditioner(out, run.deck->solver);
    out << "  result      " << to_string(r.status) << " after " << r.iterations << " iterations";
    if (r.restarts > 0) {
        out << ", " << r.restarts << " shadow-residual restart" << (r.restarts > 1 ? "s" : "");
    }
    out << (r.detail.empty() ? "" : " (" + r.detail + ")") << '\n';
    out << "  residual    " << sci(r.relative_residual) << " (recurrence), "
        << sci(r.true_relative_residual) << " (true: ||b - A x|| / ||b||)\n";
    if (r.returned_iteration >= 0) {
        out << "  returned    iterate " << r.returned_iteration << ", the best one (the last, "
            << r.iterations << ", had " << sci(r.last_relative_residual) << " recurrence, "
            << sci(r.last_true_relative_residual) << " true)\n";
    }
    out << "  time        setup " << fixed(run.setup_seconds, 3) << " s";
    if (run.preconditioner_setup_seconds > 0.0) {
        out << " (the preconditioner's " << fixed(run.preconditioner_setup_seconds, 4) << " s)";
    }
    out << ", solve " << fixed(run.solve_seconds, 3) << " s";
    if (r.iterations > 0 && run.solve_seconds > 0.0) {
        const double per_it = run.solve_seconds / r.iterations;
        out << " (" << fixed(1e3 * per_it, 3) << " ms / iteration, "
            << fixed(bytes_per_iteration / per_it / 1e9, 2) << " GB/s effective)";
    }
    out << '\n';
    if (mpi_launched()) {
        out << "  ranks       " << mpi_ranks() << "; rank 0 spent " << fixed(run.halo_seconds, 4)
            << " s in halo exchanges and " << fixed(run.reduction_seconds, 4)
            << " s joining sums across the ranks; x gathered in " << fixed(run.gather_seconds, 3)
            << " s after the solve\n";
    }
}

/// The first line of the run report: the deck and its title.
void report_title(std::ostream& out, const Deck& deck) {
    out << "heptane: " << deck.path << (deck.title.empty() ? "" : " (" + deck.title + ")") << '\n';
}

/// Exit code of a written run: 0 converged, else 1 with the reason on `err`.
int finish(const SolveResult& r, const SolveOptions& options, std::ostream& err) {
    if (r.status == SolveStatus::converged) return 0;
    err << "heptane: did not converge: " << to_string(r.status) << " after " << r.iterations
        << " iterations, relative residual " << sci(r.relative_residual) << " (tolerance "
        << sci(options.tolerance, 1) << ")" << (r.detail.empty() ? "" : ": " + r.detail) << '\n';
    if (r.returned_iteration >= 0) {
        err << "heptane: the output holds iterate " << r.returned_iteration << " (true residual "
            << sci(r.true_relative_residual) << "), better than the last (true residual "
            << sci(r.last_true_relative_residual) << ")\n";
    }
    return 1;
}

/// The solve with `solver` (the deck's solver object, made once), into the run record: its
/// setup (factors; on the GPU upload, plan and capture) adds to the host's, the kernel and its
/// plan come from the object. Returns the bytes one iteration moves (design decision 15).
double solve_into(RunRecord& run, LinearSolver& solver, const Plan& plan,
                  const std::vector<double>& b, std::vector<double>& x, SolveOptions options,
                  std::ostream& err, bool terminal) {
    Progress progress(err, terminal);
    options.progress = [&progress](int it, double r) { progress(it, r); };
    // The best iterate, not a worse last one (issue 19); the time is the first solve's.
    run.result = solve_keeping_best(solver, b, x, options, &run.solve_seconds);
    const SolverInfo info = solver.info();
    run.setup_seconds += info.setup_seconds;
    run.preconditioner_setup_seconds = info.preconditioner_setup_seconds;
    run.halo_seconds = info.halo_seconds;
    run.reduction_seconds = info.reduction_seconds;
    run.gather_seconds = info.gather_seconds;
    if (plan.gpu) run.kernel = info.kernel;
    return info.bytes_per_iteration;
}

/// solve_into with the deck's solver object for A.
template <class Matrix>
double run_solve(RunRecord& run, const Deck& deck, const Plan& plan, const Matrix& A,
                 const std::vector<double>& b, std::vector<double>& x, const SolveOptions& options,
                 std::ostream& err, bool terminal) {
    const std::unique_ptr<LinearSolver> solver = make_deck_solver(deck, A, plan.gpu, plan.kernel);
    return solve_into(run, *solver, plan, b, x, options, err, terminal);
}

/// The system line of the run report.
void report_system(std::ostream& out, const wells::Model& model, int K, long long wells,
                   long long rows, long long nonzeros) {
    out << "  system      " << model.grid.nx << " x " << model.grid.ny << " x " << model.grid.nz
        << " cells" << cells_note(model) << ", K = " << K << ", " << wells
        << " wells: " << with_commas(rows) << " unknowns, " << with_commas(nonzeros)
        << " nonzeros\n";
}

/// Whether the ranks of a run under mpirun each build only their own slab of the system
/// (design decision 52) instead of the whole system on every rank: two-phase decks (the
/// synthetic model's random streams are not per cell) that do not save the whole matrix
/// (output.save_system); every preconditioner the ranks take (the slabs follow the split of
/// CPR's aggregates and of spatial blocks: decision 56), CPU and GPU ranks alike (the GPU
/// ranks' slab solver copies its slab to the device).
bool ranks_build_slabs(const Deck& deck) {
    return mpi_launched() && deck.model.model == wells::FluidModel::two_phase &&
           !deck.output.save_system;
}

/// `heptane run` under mpirun with ranks_build_slabs: every rank reads the deck's fields
/// (the output's and the report's: a few values a cell) and builds its planes' system
/// (MpiSlab); x is gathered on rank 0, which writes the file of one process.
int run_slabs(const Deck& deck, const RunArgs& args, const Plan& plan, const std::string& output,
              std::ostream& out, std::ostream& err, bool terminal) {
    const auto t_setup = Clock::now();
    wells::Model model = build_model(deck, false, &err);  // notes once, from the whole deck
    plan_for_model(deck, plan, model, err);               // its refusals
    std::unique_ptr<MpiSlab> slab;
    try {
        slab = std::make_unique<MpiSlab>(deck.model, &model, &deck.solver);
    } catch (const InputError& e) {
        deck.rethrow_located(e);
    }
    model.system.component_names = slab->model().system.component_names;
    for (const wells::WellSpec& w : deck.model.wells) model.system.well_names.push_back(w.name);
    const double setup_seconds = seconds_since(t_setup);

    RunRecord run = start_record(deck, args, plan, setup_seconds);
    run.model = &model;
    const std::vector<double> b = slab->local_rhs();
    std::vector<double> x_local(b.size(), 0.0);
    const SolveOptions options = solve_options(deck);
    const std::unique_ptr<LinearSolver> solver = make_deck_slab_solver(deck, *slab, plan.gpu);
    const long long nonzeros = slab->total_nonzeros();  // collective
    slab->take_model();  // the solver holds its own copy of the slab's matrix
    const double bytes_per_iteration =
        solve_into(run, *solver, plan, b, x_local, options, err, terminal);
    const auto t_gather = Clock::now();
    const std::vector<double> x = slab->gather(x_local);  // the whole x on rank 0
    run.gather_seconds = seconds_since(t_gather);
    run.x = &x;
    const int K = static_cast<int>(model.system.component_names.size());
    const auto wells = static_cast<long long>(deck.model.wells.size());

    report_title(out, deck);
    report_system(out, model, K, wells, model.grid.num_cells() * K + wells, nonzeros);
    report_solve(out, run, plan, options, bytes_per_iteration);
    out << "  memory      each rank built only its planes' system (rank 0: "
        << with_commas(b.size()) << " unknowns) and read the whole grid's fields\n";
    if (mpi_rank() == 0) write_run_output(output, run);  // rank 0 writes for every rank
    out << "  output      " << output << ", " << xdmf_path(output) << '\n';
    return finish(run.result, options, err);
}

/// A matrix deck (`system:`): the CPU reference solvers on the BSR matrix, or on the GPU the
/// multi-kernel solvers with the KSPARSE SpMV (the deck reader has set gpu_kernel and spmv).
int run_matrix_deck(const Deck& deck, const RunArgs& args, const std::string& output,
                    std::ostream& out, std::ostream& err, bool terminal) {
    Plan plan = plan_backend(deck);
    const auto t_setup = Clock::now();
    const MatrixSystem sys = build_matrix_system(deck);
    const double setup_seconds = seconds_since(t_setup);
    // Duplicates are summed, as the MatrixMarket format allows; often a writer's mistake.
    if (sys.matrix_duplicates > 0) {
        err << "heptane: warning: " << deck.system.matrix << ": " << sys.matrix_duplicates
            << " duplicate entries summed into earlier ones\n";
    }
    if (sys.rhs_duplicates > 0) {
        err << "heptane: warning: " << deck.system.rhs_file << ": " << sys.rhs_duplicates
            << " duplicate entries summed into earlier ones\n";
    }

    RunRecord run = start_record(deck, args, plan, setup_seconds);
    run.matrix_system = &sys;
    std::vector<double> x(sys.rhs.size(), 0.0);
    const SolveOptions options = solve_options(deck);
    const double bytes_per_iteration =
        run_solve(run, deck, plan, sys.matrix, sys.rhs, x, options, err, terminal);
    run.x = &x;

    report_title(out, deck);
    out << "  system      matrix " << deck.system.matrix << " (" << with_commas(sys.rows()) << " x "
        << with_commas(sys.rows()) << ", bs " << deck.system.block_size << ", "
        << with_commas(sys.nonzeros()) << " nonzeros)\n";
    report_solve(out, run, plan, options, bytes_per_iteration);
    write_run_output(output, run);
    out << "  output      " << output << '\n';
    return finish(run.result, options, err);
}

}  // namespace

int cmd_run(const RunArgs& args, std::ostream& out, std::ostream& err, bool terminal) {
    const Deck deck = load_command_deck(args);
    if (deck.schedule.present) {
        deck.rethrow_located(
            InputError("schedule",
                       "this deck describes a simulation: run it with heptane simulate "
                       "(heptane run solves one linear system)"));
    }
    const std::string output = command_output(args, deck);
    if (deck.system.present) return run_matrix_deck(deck, args, output, out, err, terminal);
    Plan plan = plan_and_report(deck, err);
    if (ranks_build_slabs(deck)) return run_slabs(deck, args, plan, output, out, err, terminal);

    const auto t_setup = Clock::now();
    const wells::Model model = build_model(deck, true, &err);
    plan = plan_for_model(deck, plan, model, err);
    const double setup_seconds = seconds_since(t_setup);
    const GHSystem& sys = model.system;
    const GHMatrix& A = sys.matrix;

    RunRecord run = start_record(deck, args, plan, setup_seconds);
    run.model = &model;
    std::vector<double> x(sys.rhs.size(), 0.0);
    const SolveOptions options = solve_options(deck);
    const double bytes_per_iteration =
        run_solve(run, deck, plan, A, sys.rhs, x, options, err, terminal);
    run.x = &x;
    const SolveResult& r = run.result;

    // Report.
    report_title(out, deck);
    report_system(out, model, A.block_size(), A.num_wells(), A.rows(), A.nonzeros());
    report_solve(out, run, plan, options, bytes_per_iteration);

    if (mpi_rank() == 0) write_run_output(output, run);  // rank 0 writes for every rank
    out << "  output      " << output << ", " << xdmf_path(output) << '\n';
    return finish(r, options, err);
}

}  // namespace heptane::app
