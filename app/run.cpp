#include "app/run.hpp"

#include <omp.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <ostream>

#include "app/deck.hpp"
#include "app/output.hpp"
#include "app/report.hpp"
#include "core/block_smoothers.hpp"
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

/// K of a grid deck's system, known before it is generated (two_phase: p_o, S_w).
int block_size_of(const Deck& deck) {
    if (deck.system.present) return deck.system.block_size;
    return deck.model.model == wells::FluidModel::synthetic ? deck.model.synthetic.components : 2;
}

/// Where and how the solve runs.
struct Plan {
    bool gpu = false;
    GpuKernel kernel = GpuKernel::in_kernel;
    std::string backend, kernel_name, note;
    /// backend auto with a GPU present that cannot take the deck's combination: why the
    /// CPU runs it instead (empty otherwise).
    std::string fallback;
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

/// The GPU solver options of the deck (a matrix deck's spmv is ksparse: deck.cpp).
gpu::GpuSolveOptions gpu_solve_options(const Deck& deck, const SolveOptions& options) {
    const SolverSettings& s = deck.solver;
    gpu::GpuSolveOptions gopt;
    gopt.solve = options;
    gopt.library_spmv = library_spmv(s.library_format);
    gopt.spmv = deck.system.present ? SpmvKind::ksparse : s.spmv;
    gopt.ksparse = s.ksparse;
    gopt.preconditioner = s.preconditioner;
    gopt.block_shape = s.block_shape;
    gopt.omega = s.omega;
    return gopt;
}

/// The reason the GPU solver of the deck cannot take its preconditioner (check_preconditioner's
/// NotSupported), or empty when it can.
std::string gpu_refusal(const Deck& deck) {
    try {
        gpu::check_preconditioner(deck.solver.method, deck.solver.gpu_kernel,
                                  gpu_solve_options(deck, SolveOptions{}), block_size_of(deck));
    } catch (const NotSupported& e) {
        return e.what();
    }
    return {};
}

/// cpu, or the GPU with the requested kernel. `auto` takes the GPU when one is present and
/// the method runs there with the deck's preconditioner, else the CPU (plan.fallback says
/// why). An explicit GPU request for a combination the GPU solvers lack is an input error at
/// solver.preconditioner (exit 2, on any machine); one this build or machine cannot serve is a
/// runtime error (exit 3). Checked before any work.
Plan plan_backend(const Deck& deck) {
    const SolverSettings& s = deck.solver;
    Plan plan;
    plan.backend = "cpu";
    plan.kernel_name = "reference";
    if (s.backend == Backend::gpu) {
        const std::string refusal = gpu_refusal(deck);
        if (!refusal.empty()) deck.rethrow_located(InputError("solver.preconditioner", refusal));
    }
    const bool gpu_ready = gpu::compiled_with_cuda() && gpu::device_count() > 0;
    if (s.backend == Backend::cpu || (s.backend == Backend::automatic && !gpu_ready)) return plan;
    if (s.backend == Backend::automatic) {
        plan.fallback = gpu_refusal(deck);
        if (!plan.fallback.empty()) return plan;
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
    // The smoothers have one GPU implementation; gpu::solve ignores the kernel for them.
    plan.kernel_name = is_smoother(s.method) ? "block_smoother" : kernel_name(plan.kernel);
    return plan;
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
    run.method = to_string(deck.solver.method);
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

/// The CPU reference solve of a Krylov method (bicgstab or qmr) with right preconditioner M
/// (null: none).
SolveResult cpu_solve(Method method, const LinearOperator& op, const std::vector<double>& b,
                      std::vector<double>& x, const SolveOptions& options,
                      const Preconditioner* M = nullptr) {
    return method == Method::qmr ? qmr(op, b.data(), x.data(), options, M)
                                 : bicgstab(op, b.data(), x.data(), options, M);
}

/// The CPU reference solve, timed, into the run record.
void run_cpu_solve(RunRecord& run, Method method, const LinearOperator& op,
                   const std::vector<double>& b, std::vector<double>& x,
                   const SolveOptions& options, const Preconditioner* M = nullptr) {
    const auto t_solve = Clock::now();
    run.result = cpu_solve(method, op, b, x, options, M);
    run.solve_seconds = seconds_since(t_solve);
}

/// The CPU reference solve of a grid deck: the block smoothers on their spatial blocks, or
/// BiCGStab / QMR with the deck's preconditioner. Factoring counts as setup; a block that
/// cannot be factored (singular) is an input error located at its deck key (exit 2, nothing
/// written).
void run_cpu_grid_solve(RunRecord& run, const Deck& deck, const GHMatrix& A,
                        const LinearOperator& op, const std::vector<double>& b,
                        std::vector<double>& x, const SolveOptions& options) {
    const SolverSettings& s = deck.solver;
    const auto t_setup = Clock::now();
    try {
        if (is_smoother(s.method)) {
            const SpatialBlockFactors F = factor_spatial_blocks(A, s.block_shape);
            run.setup_seconds += seconds_since(t_setup);
            const auto t_solve = Clock::now();
            run.result = block_smoother_solve(s.method, A, F, b.data(), x.data(), options, s.omega);
            run.solve_seconds = seconds_since(t_solve);
            return;
        }
        const std::unique_ptr<Preconditioner> M = make_preconditioner(A, s);
        run.setup_seconds += seconds_since(t_setup);
        run_cpu_solve(run, s.method, op, b, x, options, M.get());
    } catch (const DeckError&) {
        throw;
    } catch (const InputError& e) {
        deck.rethrow_located(e);
    }
}

/// A GPU solve's device times into the run record (its setup adds to the host's).
void add_gpu_times(RunRecord& run, const gpu::GpuSolveTimes& times) {
    run.setup_seconds += times.setup_seconds;
    run.solve_seconds = times.solve_seconds;
}

/// The bytes one iteration moves, for the effective bandwidth (decision 15): the products and
/// vector passes of `cost`, and for a Krylov method one preconditioner application per product
/// (BiCGStab: M^-1 twice; QMR: M^-1 and M^-T). A smoother sweep as implemented
/// (core/block_smoothers.cpp) is two products (the sweep's residual and the convergence
/// check's true residual), one application of the spatial blocks' inverses and x updated.
double bytes_per_iteration(const Deck& deck, const GHMatrix& A, const LinearOperator& op,
                           const IterationCost& cost) {
    const SolverSettings& s = deck.solver;
    const double n = static_cast<double>(A.rows());
    if (is_smoother(s.method)) {
        return 2.0 * op.minimal_bytes() +
               preconditioner_bytes(A, PreconditionerKind::block_jacobi, s.block_shape) +
               2.0 * 8.0 * n;
    }
    double bytes = cost.products * op.minimal_bytes() + cost.vector_passes * 8.0 * n;
    if (s.preconditioner != PreconditionerKind::none) {
        bytes += cost.products * preconditioner_bytes(A, s.preconditioner, s.block_shape);
    }
    return bytes;
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
        out << run.kernel << plan.note << ", " << (devices.empty() ? "?" : devices[0].name);
    } else {
        out << "reference, " << omp_get_max_threads() << " OpenMP threads";
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
            const gpu::GpuSolveOptions gopt = gpu_solve_options(deck, options);
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
    const std::string output = args.output.empty() ? deck.output.file : args.output;
    check_output_folder(output, args.output.empty() ? "output.file" : "-o", deck);
    if (deck.system.present) return run_matrix_deck(deck, args, output, out, err, terminal);
    const Plan plan = plan_backend(deck);
    if (!plan.fallback.empty()) {
        err << "heptane: backend auto: solving on the CPU, the GPU solver cannot take this "
               "deck: "
            << plan.fallback << '\n';
    }

    const auto t_setup = Clock::now();
    const wells::Model model = build_model(deck);
    const double setup_seconds = seconds_since(t_setup);
    const GHSystem& sys = model.system;
    const GHMatrix& A = sys.matrix;
    const Method method = deck.solver.method;

    RunRecord run = start_record(deck, args, plan, setup_seconds);
    run.model = &model;
    std::vector<double> x(sys.rhs.size(), 0.0);
    SolveOptions options = solve_options(deck);
    const GHOperator op(A);
    IterationCost cost = method == Method::qmr ? qmr_cost() : bicgstab_cost();
    {
        Progress progress(err, terminal);
        options.progress = [&progress](int it, double r) { progress(it, r); };
        if (plan.gpu) {
            const gpu::GpuSolveOptions gopt = gpu_solve_options(deck, options);
            gpu::GpuSolveTimes times;
            gpu::InKernelPlan launch;
            try {  // the factors come from core: a singular block is an input error
                run.result = gpu::solve(method, plan.kernel, A, sys.rhs, x, gopt, &times, &launch);
            } catch (const DeckError&) {
                throw;
            } catch (const InputError& e) {
                deck.rethrow_located(e);
            }
            if (!is_smoother(method)) {
                cost = gpu::cost(method, plan.kernel);
                if (plan.kernel == GpuKernel::in_kernel) {
                    run.kernel += " (" + std::to_string(launch.grid) + " blocks x " +
                                  std::to_string(launch.threads) + ", " +
                                  (launch.shared_ranges ? "shared" : "global") + " ranges)";
                } else if (plan.kernel == GpuKernel::library) {
                    run.kernel += std::string("/") + gpu::to_string(gopt.library_spmv);
                } else if (gopt.spmv == SpmvKind::ksparse) {
                    run.kernel += "/ksparse";
                }
            }
            add_gpu_times(run, times);
        } else {
            run_cpu_grid_solve(run, deck, A, op, sys.rhs, x, options);
        }
    }
    run.x = &x;
    const SolveResult& r = run.result;

    // Report.
    out << "heptane: " << deck.path << (deck.title.empty() ? "" : " (" + deck.title + ")") << '\n';
    out << "  system      " << model.grid.nx << " x " << model.grid.ny << " x " << model.grid.nz
        << " cells, K = " << A.block_size() << ", " << A.num_wells()
        << " wells: " << with_commas(A.rows()) << " unknowns, " << with_commas(A.nonzeros())
        << " nonzeros\n";
    report_solve(out, run, plan, options, bytes_per_iteration(deck, A, op, cost));

    write_run_output(output, run);
    out << "  output      " << output << ", " << xdmf_path(output) << '\n';
    return finish(r, options, err);
}

}  // namespace heptane::app
