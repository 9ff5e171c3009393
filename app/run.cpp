#include "app/run.hpp"

#include <omp.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <ostream>

#include "app/deck.hpp"
#include "app/output.hpp"
#include "app/report.hpp"
#include "core/errors.hpp"
#include "core/krylov.hpp"
#include "gpu/device.hpp"
#include "gpu/solvers.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

const char* method_name(Method m) {
    switch (m) {
        case Method::bicgstab:
            return "bicgstab";
        case Method::qmr:
            return "qmr";
        case Method::block_jacobi:
            return "block_jacobi";
        case Method::block_gs:
            return "block_gs";
    }
    return "?";
}

/// Methods and preconditioners of this version; others are input errors at their key.
void check_available(const Deck& deck) {
    const SolverSettings& s = deck.solver;
    if (s.method != Method::bicgstab && s.method != Method::qmr) {
        deck.rethrow_located(InputError(
            "solver.method", std::string(method_name(s.method)) +
                                 " is not available in this version (block smoothers come "
                                 "later); use bicgstab or qmr"));
    }
    if (s.preconditioner != PreconditionerKind::none) {
        deck.rethrow_located(InputError(
            "solver.preconditioner",
            "only none is available in this version (block preconditioners come later)"));
    }
}

/// Where and how the solve runs.
struct Plan {
    bool gpu = false;
    GpuKernel kernel = GpuKernel::in_kernel;
    std::string backend, kernel_name, note;
};

const char* kernel_name(GpuKernel k) {
    switch (k) {
        case GpuKernel::in_kernel:
            return "in_kernel";
        case GpuKernel::multi_kernel:
            return "multi_kernel";
        case GpuKernel::library:
            return "library";
    }
    return "?";
}

/// cpu, or the GPU with the requested kernel. `auto` takes the GPU when one is present and
/// the method runs there. An explicit GPU request this build or machine cannot serve is a
/// runtime error (exit 3); a GPU method or kernel this version lacks is an input error at its
/// key (exit 2). Checked before any work.
Plan plan_backend(const Deck& deck) {
    const SolverSettings& s = deck.solver;
    Plan plan;
    const bool gpu_ready = gpu::compiled_with_cuda() && gpu::device_count() > 0;
    if (s.backend == Backend::cpu || (s.backend == Backend::automatic && !gpu_ready)) {
        plan.backend = "cpu";
        plan.kernel_name = "reference";
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
    plan.kernel = s.gpu_kernel;
    plan.kernel_name = kernel_name(plan.kernel);
    return plan;
}

gpu::LibrarySpmv library_spmv(LibraryFormat f) {
    switch (f) {
        case LibraryFormat::bsr:
            return gpu::LibrarySpmv::bsr;
        case LibraryFormat::bsr_legacy:
            return gpu::LibrarySpmv::bsr_legacy;
        case LibraryFormat::csr:
            return gpu::LibrarySpmv::csr;
    }
    return gpu::LibrarySpmv::bsr;
}

/// Fails early (exit 2, nothing written) when the output folder does not exist.
void check_output_folder(const std::string& path, const char* key, const Deck& deck) {
    const fs::path dir = fs::path(path).parent_path();
    if (dir.empty() || fs::is_directory(dir)) return;
    const InputError e(key,
                       "cannot write '" + path + "': folder '" + dir.string() + "' does not exist");
    if (key[0] == '-') throw e;
    deck.rethrow_located(e);
}

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
    run.method = method_name(deck.solver.method);
    run.backend = plan.backend;
    run.kernel = plan.kernel_name;
    run.tolerance = deck.solver.tolerance;
    run.setup_seconds = setup_seconds;
    return run;
}

SolveOptions solve_options(const Deck& deck) {
    SolveOptions options;
    options.tolerance = deck.solver.tolerance;
    options.max_iterations = deck.solver.max_iterations;
    return options;
}

/// The CPU reference solve of the deck's method (bicgstab or qmr; check_available).
SolveResult cpu_solve(Method method, const LinearOperator& op, const std::vector<double>& b,
                      std::vector<double>& x, const SolveOptions& options) {
    return method == Method::qmr ? qmr(op, b.data(), x.data(), options)
                                 : bicgstab(op, b.data(), x.data(), options);
}

/// The CPU reference solve, timed, into the run record.
void run_cpu_solve(RunRecord& run, Method method, const LinearOperator& op,
                   const std::vector<double>& b, std::vector<double>& x,
                   const SolveOptions& options) {
    const auto t_solve = Clock::now();
    run.result = cpu_solve(method, op, b, x, options);
    run.solve_seconds = seconds_since(t_solve);
}

/// A GPU solve's device times into the run record (its setup adds to the host's).
void add_gpu_times(RunRecord& run, const gpu::GpuSolveTimes& times) {
    run.setup_seconds += times.setup_seconds;
    run.solve_seconds = times.solve_seconds;
}

/// The solver, result, residual and time lines of the run report.
void report_solve(std::ostream& out, const RunRecord& run, const Plan& plan,
                  const SolveOptions& options, double bytes_per_iteration) {
    const SolveResult& r = run.result;
    out << "  solver      " << run.method << " on the " << plan.backend << " (";
    if (plan.gpu) {
        const auto devices = gpu::list_devices();
        out << run.kernel << plan.note << ", " << (devices.empty() ? "?" : devices[0].name);
    } else {
        out << "reference, " << omp_get_max_threads() << " OpenMP threads";
    }
    out << "), tolerance " << sci(options.tolerance, 1) << ", at most " << options.max_iterations
        << " iterations\n";
    out << "  result      " << to_string(r.status) << " after " << r.iterations << " iterations";
    if (r.restarts > 0) {
        out << ", " << r.restarts << " shadow-residual restart" << (r.restarts > 1 ? "s" : "");
    }
    out << (r.detail.empty() ? "" : " (" + r.detail + ")") << '\n';
    out << "  residual    " << sci(r.relative_residual) << " (recurrence), "
        << sci(r.true_relative_residual) << " (true: ||b - A x|| / ||b||)\n";
    out << "  time        setup " << fixed(run.setup_seconds, 3) << " s, solve "
        << fixed(run.solve_seconds, 3) << " s";
    if (r.iterations > 0 && run.solve_seconds > 0.0) {
        const double per_it = run.solve_seconds / r.iterations;
        out << " (" << fixed(1e3 * per_it, 3) << " ms / iteration, "
            << fixed(bytes_per_iteration / per_it / 1e9, 2) << " GB/s effective)";
    }
    out << '\n';
}

/// Exit code of a written run: 0 converged, else 1 with the reason on `err`.
int finish(const SolveResult& r, const SolveOptions& options, std::ostream& err) {
    if (r.status == SolveStatus::converged) return 0;
    err << "heptane: did not converge: " << to_string(r.status) << " after " << r.iterations
        << " iterations, relative residual " << sci(r.relative_residual) << " (tolerance "
        << sci(options.tolerance, 1) << ")" << (r.detail.empty() ? "" : ": " + r.detail) << '\n';
    return 1;
}

/// A matrix deck (`system:`): the CPU reference solvers on the BSR matrix, or on the GPU the
/// multi-kernel solvers with the KSPARSE SpMV (the deck reader has set gpu_kernel and spmv).
int run_matrix_deck(const Deck& deck, const RunArgs& args, const std::string& output,
                    std::ostream& out, std::ostream& err, bool terminal) {
    Plan plan = plan_backend(deck);
    const auto t_setup = Clock::now();
    const MatrixSystem sys = build_matrix_system(deck);
    const BsrOperator op(sys.matrix);
    const double setup_seconds = seconds_since(t_setup);

    RunRecord run = start_record(deck, args, plan, setup_seconds);
    run.matrix_system = &sys;
    std::vector<double> x(sys.rhs.size(), 0.0);
    SolveOptions options = solve_options(deck);
    IterationCost cost = deck.solver.method == Method::qmr ? qmr_cost() : bicgstab_cost();
    {
        Progress progress(err, terminal);
        options.progress = [&progress](int it, double r) { progress(it, r); };
        if (plan.gpu) {
            gpu::GpuSolveOptions gopt;
            gopt.solve = options;
            gopt.spmv = SpmvKind::ksparse;
            gopt.ksparse = deck.solver.ksparse;
            gpu::GpuSolveTimes times;
            run.result =
                gpu::solve(deck.solver.method, plan.kernel, sys.matrix, sys.rhs, x, gopt, &times);
            cost = gpu::cost(deck.solver.method, plan.kernel);
            run.kernel += "/ksparse";
            add_gpu_times(run, times);
        } else {
            run_cpu_solve(run, deck.solver.method, op, sys.rhs, x, options);
        }
    }
    run.x = &x;

    const double n = static_cast<double>(sys.rows());
    const double bytes_per_iteration =
        cost.products * op.minimal_bytes() + cost.vector_passes * 8.0 * n;
    out << "heptane: " << deck.path << (deck.title.empty() ? "" : " (" + deck.title + ")") << '\n';
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
    Deck deck = load_deck(args.deck, args.overrides);
    if (!args.backend.empty()) {
        deck.solver.backend = args.backend == "gpu"   ? Backend::gpu
                              : args.backend == "cpu" ? Backend::cpu
                                                      : Backend::automatic;
    }
    check_available(deck);
    const std::string output = args.output.empty() ? deck.output.file : args.output;
    check_output_folder(output, args.output.empty() ? "output.file" : "-o", deck);
    if (deck.system.present) return run_matrix_deck(deck, args, output, out, err, terminal);
    const Plan plan = plan_backend(deck);

    const auto t_setup = Clock::now();
    const wells::Model model = build_model(deck);
    const double setup_seconds = seconds_since(t_setup);
    const GHSystem& sys = model.system;

    RunRecord run = start_record(deck, args, plan, setup_seconds);
    run.model = &model;
    std::vector<double> x(sys.rhs.size(), 0.0);
    SolveOptions options = solve_options(deck);
    const GHOperator op(sys.matrix);
    IterationCost cost = deck.solver.method == Method::qmr ? qmr_cost() : bicgstab_cost();
    {
        Progress progress(err, terminal);
        options.progress = [&progress](int it, double r) { progress(it, r); };
        if (plan.gpu) {
            gpu::GpuSolveOptions gopt;
            gopt.solve = options;
            gopt.library_spmv = library_spmv(deck.solver.library_format);
            gopt.spmv = deck.solver.spmv;
            gopt.ksparse = deck.solver.ksparse;
            gpu::GpuSolveTimes times;
            gpu::InKernelPlan launch;
            run.result = gpu::solve(deck.solver.method, plan.kernel, sys.matrix, sys.rhs, x, gopt,
                                    &times, &launch);
            cost = gpu::cost(deck.solver.method, plan.kernel);
            if (plan.kernel == GpuKernel::in_kernel) {
                run.kernel += " (" + std::to_string(launch.grid) + " blocks x " +
                              std::to_string(launch.threads) + ", " +
                              (launch.shared_ranges ? "shared" : "global") + " ranges)";
            } else if (plan.kernel == GpuKernel::library) {
                run.kernel += std::string("/") + gpu::to_string(gopt.library_spmv);
            } else if (gopt.spmv == SpmvKind::ksparse) {
                run.kernel += "/ksparse";
            }
            add_gpu_times(run, times);
        } else {
            run_cpu_solve(run, deck.solver.method, op, sys.rhs, x, options);
        }
    }
    run.x = &x;
    const SolveResult& r = run.result;

    // Report.
    const GHMatrix& A = sys.matrix;
    const double bytes_per_iteration = cost.products * op.minimal_bytes() +
                                       cost.vector_passes * 8.0 * static_cast<double>(A.rows());
    out << "heptane: " << deck.path << (deck.title.empty() ? "" : " (" + deck.title + ")") << '\n';
    out << "  system      " << model.grid.nx << " x " << model.grid.ny << " x " << model.grid.nz
        << " cells, K = " << A.block_size() << ", " << A.num_wells()
        << " wells: " << with_commas(A.rows()) << " unknowns, " << with_commas(A.nonzeros())
        << " nonzeros\n";
    report_solve(out, run, plan, options, bytes_per_iteration);

    write_run_output(output, run);
    out << "  output      " << output << ", " << xdmf_path(output) << '\n';
    return finish(r, options, err);
}

}  // namespace heptane::app
