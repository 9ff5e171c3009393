// `heptane bench smoother` (seed 003): the smoothers' convergence study and the block
// preconditioners' and smoothers' throughput. Split from app/bench.cpp by concern.
#include <omp.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <optional>
#include <ostream>

#include "app/atomic_file.hpp"
#include "app/bench.hpp"
#include "app/bench_common.hpp"
#include "app/deck.hpp"
#include "app/report.hpp"
#include "core/base/errors.hpp"
#include "core/base/random.hpp"
#include "core/base/vector_ops.hpp"
#include "core/krylov/krylov.hpp"
#include "core/krylov/names.hpp"
#include "core/matrix/linear_operator.hpp"
#include "core/matrix/matrix_market.hpp"
#include "core/precond/block_smoothers.hpp"
#include "core/spmv/spmv.hpp"
#include "gpu/bench.hpp"
#include "gpu/device.hpp"
#include "gpu/solvers.hpp"
#include "heptane_version.hpp"
#include "wells/generator.hpp"

namespace heptane::app {

using Clock = std::chrono::steady_clock;

// ---- bench smoother ----------------------------------------------------------------------

namespace {

std::string shape_name(const std::array<int, 3>& s) {
    return std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
}

/// Cells of the largest block of shape s on a g^3 grid (a shape is clipped to the grid).
int shape_cells(const std::array<int, 3>& s, int g) {
    return std::min(s[0], g) * std::min(s[1], g) * std::min(s[2], g);
}

double smoother_omega(const SmootherStudyOptions& o, Method m) {
    return m == Method::block_jacobi ? o.jacobi_omega : 1.0;
}

/// history[s] (the relative error after s sweeps), or the last entry of a run that stopped
/// at the floor before s sweeps.
double error_after(const std::vector<double>& history, int sweeps) {
    if (history.empty()) return std::nan("");
    return history[std::min(static_cast<std::size_t>(sweeps), history.size() - 1)];
}

}  // namespace

void set_window_factor(SmootherConvergenceRow& row, int window) {
    const std::vector<double>& h = row.history;
    const int n = static_cast<int>(h.size());
    // The last sweep of the run whose residual (and every one before it) is finite and above
    // the floor: past it the factor measures rounding and underflow, not the smoother.
    int last = 0;
    while (last + 1 < n && std::isfinite(h[last + 1]) && h[last + 1] >= kSmootherResidualFloor) {
        ++last;
    }
    if (last == 0) {
        // The first sweep already solved to the floor (an exact solve: factor 0), or there is
        // no finite sweep at all.
        row.factor = n > 1 && std::isfinite(h[1]) ? 0.0 : std::nan("");
        row.window_first = row.window_last = 0;
        return;
    }
    const int first = std::max(0, last - std::max(window, 1));
    row.factor = std::pow(h[last] / h[first], 1.0 / (last - first));
    row.window_first = first;
    row.window_last = last;
}

std::vector<double> smoother_initial_guess(std::size_t n, unsigned long long seed) {
    Rng rng(seed);
    std::vector<double> x(n);
    for (double& v : x) v = rng.uniform(-1.0, 1.0);
    return x;
}

std::vector<SmootherConvergenceRow> smoother_convergence_cpu(const SmootherStudyOptions& options,
                                                             const SmootherRowCallback& on_row) {
    const int g = options.grid;
    const GHMatrix A = poisson_matrix(g, g, g);
    const index_t n = A.rows();
    const std::vector<double> x0 =
        smoother_initial_guess(static_cast<std::size_t>(n), options.seed);
    const std::vector<double> b(static_cast<std::size_t>(n), 0.0);  // f = 0
    std::vector<double> ax(static_cast<std::size_t>(n)), work(static_cast<std::size_t>(n));
    // ||r_k|| = ||b - A x_k|| = ||A x_k||.
    auto residual = [&](const std::vector<double>& x) {
        spmv(A, x.data(), ax.data());
        return vec::norm2(ax.data(), n);
    };
    const double r0 = residual(x0);
    const int total = std::max(options.sweeps, options.asymptotic_sweeps);
    std::vector<SmootherConvergenceRow> rows;
    for (const std::array<int, 3>& shape : options.shapes) {
        const auto t0 = Clock::now();
        const SpatialBlockFactors F = factor_spatial_blocks(A, shape);
        const double setup = std::chrono::duration<double>(Clock::now() - t0).count();
        for (Method method : {Method::block_jacobi, Method::block_gs}) {
            SmootherConvergenceRow row;
            row.backend = "cpu";
            row.method = method;
            row.shape = shape;
            row.omega = smoother_omega(options, method);
            row.setup_seconds = setup;
            row.history.reserve(static_cast<std::size_t>(total) + 1);
            row.history.push_back(1.0);
            std::vector<double> x = x0;
            const auto t1 = Clock::now();
            for (int k = 1; k <= total; ++k) {
                if (method == Method::block_jacobi) {
                    block_jacobi_sweep(A, F, b.data(), x.data(), row.omega, work.data());
                } else {
                    block_gs_sweep(A, F, b.data(), x.data(), row.omega);
                }
                const double rel = residual(x) / r0;
                row.history.push_back(rel);
                // Below the floor (or diverged past double range): nothing more to measure.
                if (!(rel >= kSmootherResidualFloor) || !std::isfinite(rel)) break;
            }
            row.seconds = std::chrono::duration<double>(Clock::now() - t1).count();
            row.sweeps_run = static_cast<int>(row.history.size()) - 1;
            row.relative_error = error_after(row.history, options.sweeps);
            set_window_factor(row, options.window);
            if (on_row) on_row(row);
            rows.push_back(std::move(row));
        }
    }
    return rows;
}

std::vector<SmootherConvergenceRow> smoother_convergence_gpu(const SmootherStudyOptions& options,
                                                             const SmootherRowCallback& on_row) {
    const int g = options.grid;
    const GHMatrix A = poisson_matrix(g, g, g);
    const std::size_t n = static_cast<std::size_t>(A.rows());
    const std::vector<double> x0 = smoother_initial_guess(n, options.seed);
    const std::vector<double> b(n, 0.0);  // f = 0: the history is relative to ||r_0||
    const int total = std::max(options.sweeps, options.asymptotic_sweeps);
    std::vector<SmootherConvergenceRow> rows;
    for (const std::array<int, 3>& shape : options.shapes) {
        for (Method method : {Method::block_jacobi, Method::block_gs}) {
            SmootherConvergenceRow row;
            row.backend = "gpu";
            row.method = method;
            row.shape = shape;
            row.omega = smoother_omega(options, method);
            gpu::GpuSolveOptions o;
            o.block_shape = shape;
            o.omega = row.omega;
            o.solve.tolerance = 0.0;  // exactly `total` sweeps
            o.solve.max_iterations = total;
            std::vector<double> x = x0;
            gpu::GpuSolveTimes t;
            const SolveResult r = gpu::block_smoother(method, A, b, x, o, &t);
            row.history = r.history;
            // Relative to ||r_0|| whatever the scale the solver reports it in.
            if (!row.history.empty() && row.history[0] > 0.0 && row.history[0] != 1.0) {
                const double h0 = row.history[0];
                for (double& h : row.history) h /= h0;
            }
            row.setup_seconds = t.setup_seconds;
            row.seconds = t.solve_seconds;
            row.sweeps_run = std::max(0, static_cast<int>(row.history.size()) - 1);
            if (row.sweeps_run < total && !row.history.empty() &&
                row.history.back() >= kSmootherResidualFloor) {
                row.note = "the device solver stopped after " + std::to_string(row.sweeps_run) +
                           " sweeps: " + to_string(r.status) +
                           (r.detail.empty() ? "" : " (" + r.detail + ")");
            }
            row.relative_error = error_after(row.history, options.sweeps);
            set_window_factor(row, options.window);
            if (on_row) on_row(row);
            rows.push_back(std::move(row));
        }
    }
    return rows;
}

std::vector<std::array<int, 3>> parse_shapes(const std::vector<std::string>& items) {
    std::vector<std::array<int, 3>> shapes;
    for (const std::string& item : items) {
        auto bad = [&]() {
            return InputError("--shapes", "'" + item +
                                              "' is not a block shape BXxBYxBZ (e.g. 4x4x8) "
                                              "with entries in 1..1024");
        };
        std::array<int, 3> s{0, 0, 0};
        std::size_t pos = 0;
        for (int axis = 0; axis < 3; ++axis) {
            const std::size_t end = axis < 2 ? item.find('x', pos) : item.size();
            if (end == std::string::npos || end == pos) throw bad();
            const std::string text = item.substr(pos, end - pos);
            if (text.find_first_not_of("0123456789") != std::string::npos || text.size() > 4) {
                throw bad();
            }
            s[axis] = std::stoi(text);
            if (s[axis] < 1 || s[axis] > 1024) throw bad();
            pos = end + 1;
        }
        shapes.push_back(s);
    }
    if (shapes.empty()) throw InputError("--shapes", "no block shape given");
    return shapes;
}

namespace {

/// One throughput measurement: a preconditioner application or one smoother sweep.
struct SmootherTiming {
    std::string backend, kernel, shape;  ///< shape "-" for the shape-independent kinds
    double seconds = 0.0;                ///< median
    double bytes = 0.0;                  ///< minimal bytes of one application or sweep
    int repeats = 0;                     ///< 0: skipped (note)
    std::string note;
};

/// The N of "...bytes=<N>..." in a gpu::Timing's params, 0 if absent.
double params_bytes(const std::string& params) {
    const std::size_t at = params.find("bytes=");
    if (at == std::string::npos) return 0.0;
    try {
        return std::stod(params.substr(at + 6));
    } catch (const std::exception&) {
        return 0.0;
    }
}

/// Minimal bytes of one block smoother sweep on the CPU: the block inverses, GH (8 per
/// structural nonzero) and 3 vectors (b and x read, x written). preconditioner_bytes counts
/// the inverses and 2 vectors (r read, z written), so a sweep adds GH and one vector.
double sweep_bytes(const GHMatrix& A, const std::array<int, 3>& shape) {
    return preconditioner_bytes(A, PreconditionerKind::block_jacobi, shape) +
           8.0 * static_cast<double>(A.nonzeros()) + 8.0 * static_cast<double>(A.rows());
}

/// The CPU reference's throughput: each preconditioner's apply and one sweep of each smoother,
/// median of `repeats` steady-clock runs after one warm-up. A kind whose blocks cannot be
/// factored (singular, or too large) is a skipped row with the reason.
std::vector<SmootherTiming> cpu_smoother_timings(const GHMatrix& A, const std::vector<double>& b,
                                                 const std::vector<std::array<int, 3>>& shapes,
                                                 double omega, int repeats) {
    const std::size_t n = static_cast<std::size_t>(A.rows());
    std::vector<double> r(n, 1.0), z(n), x(n, 0.0), work(n);
    std::vector<SmootherTiming> out;
    auto time_row = [&](const std::string& kernel, const std::string& shape, double bytes,
                        const std::function<void()>& run) {
        SmootherTiming t{"cpu", kernel, shape, 0.0, bytes, repeats, ""};
        t.seconds = host_median(repeats, run);
        out.push_back(t);
    };
    auto skipped = [&](const std::string& kernel, const std::string& shape, const Error& e) {
        out.push_back({"cpu", kernel, shape, 0.0, 0.0, 0, e.what()});
    };
    const std::pair<const char*, PreconditionerKind> kinds[] = {
        {"precond_point_block", PreconditionerKind::point_block_jacobi},
        {"precond_line", PreconditionerKind::line_jacobi}};
    for (const auto& [kernel, kind] : kinds) {
        try {
            SolverSettings settings;
            settings.preconditioner = kind;
            const auto M = make_preconditioner(A, settings);
            time_row(kernel, "-", preconditioner_bytes(A, kind, {1, 1, 1}),
                     [&] { M->apply(r.data(), z.data()); });
        } catch (const InputError& e) {
            skipped(kernel, "-", e);
        }
    }
    for (const std::array<int, 3>& shape : shapes) {
        const std::string name = shape_name(shape);
        try {
            const SpatialBlockJacobi M(A, shape);
            const SpatialBlockFactors& F = M.factors();
            time_row("precond_block", name,
                     preconditioner_bytes(A, PreconditionerKind::block_jacobi, shape),
                     [&] { M.apply(r.data(), z.data()); });
            std::fill(x.begin(), x.end(), 0.0);
            time_row("sweep_block_jacobi", name, sweep_bytes(A, shape),
                     [&] { block_jacobi_sweep(A, F, b.data(), x.data(), omega, work.data()); });
            std::fill(x.begin(), x.end(), 0.0);
            time_row("sweep_block_gs", name, sweep_bytes(A, shape),
                     [&] { block_gs_sweep(A, F, b.data(), x.data(), 1.0); });
        } catch (const InputError& e) {
            skipped("precond_block", name, e);
        }
    }
    return out;
}

/// The device's throughput (gpu::time_smoothers) for each shape; the shape-independent
/// kinds (point-block and line Jacobi) are kept from the first shape only.
std::vector<SmootherTiming> gpu_smoother_timings(const GHMatrix& A,
                                                 const std::vector<std::array<int, 3>>& shapes,
                                                 double omega, int repeats) {
    std::vector<SmootherTiming> out;
    bool first = true;
    for (const std::array<int, 3>& shape : shapes) {
        std::vector<gpu::Timing> timings;
        try {
            timings = gpu::time_smoothers(A, shape, omega, repeats);
        } catch (const InputError& e) {  // blocks too large or singular for this shape
            out.push_back({"gpu", "precond_block", shape_name(shape), 0.0, 0.0, 0, e.what()});
            continue;
        } catch (const NotSupported& e) {
            out.push_back({"gpu", "precond_block", shape_name(shape), 0.0, 0.0, 0, e.what()});
            continue;
        }
        for (const gpu::Timing& t : timings) {
            const bool shaped = t.name != "precond_point_block" && t.name != "precond_line";
            if (!shaped && !first) continue;
            out.push_back({"gpu", t.name, shaped ? shape_name(shape) : "-", t.median_seconds,
                           params_bytes(t.params), t.repeats, t.note});
        }
        first = false;
    }
    return out;
}

}  // namespace

int cmd_bench_smoother(const BenchArgs& args, std::ostream& out) {
    const SmootherStudyOptions& study = args.study;
    const BenchDevice dev = measure_device(args, out);
    const std::string backend =
        args.backend == "auto" ? (dev.gpu ? std::string("gpu") : std::string("cpu")) : args.backend;
    const bool cpu_study = backend == "cpu" || backend == "both";
    const bool want_gpu = backend == "gpu" || backend == "both";
    const bool gpu_parts = want_gpu && dev.gpu;
    const bool cpu_throughput = args.cpu || !want_gpu;
    if (want_gpu && !dev.gpu) {
        out << "note: no CUDA device (or a CPU-only build): the GPU convergence study and "
               "throughput are skipped"
            << (cpu_study ? "" : "; --backend cpu runs the CPU reference") << '\n';
    }
    SmootherStudyOptions cpu_options = study, gpu_options = study;
    cpu_options.asymptotic_sweeps = args.asymptotic_sweeps > 0 ? args.asymptotic_sweeps : 300;
    gpu_options.asymptotic_sweeps = args.asymptotic_sweeps > 0 ? args.asymptotic_sweeps : 2000;

    YAML::Emitter y;
    begin_report(y, dev, "smoother", args.command);
    const int g = study.grid;

    // ---- 1. convergence study (seed 003 section 3, Fig. 4) ----
    std::vector<SmootherConvergenceRow> rows;
    if (cpu_study || gpu_parts) {
        out << "\nconvergence: Poisson " << grid_name(g) << " (f = 0, x_0 uniform in [-1, 1), seed "
            << study.seed << "); error = ||r_" << study.sweeps
            << "|| / ||r_0||; factor = (||r_i|| / ||r_{i-k}||)^(1/k) over the "
            << "last window of k = " << study.window << " sweeps\n";
        if (gpu_parts) {
            out << "  gpu: " << gpu_options.asymptotic_sweeps
                << " sweeps; Gauss-Seidel chaotic (blocks update x in place in any order)\n";
        }
        if (cpu_study) {
            out << "  cpu: " << cpu_options.asymptotic_sweeps << " sweeps"
                << (args.asymptotic_sweeps > 0
                        ? ""
                        : " (fewer than the GPU's 2000: one 8x8x8 sweep of 64^3 is ~134 M "
                          "multiply-adds; raise it with --asymptotic-sweeps: at g >= 32 block "
                          "Jacobi's factor after 300 sweeps is still pre-asymptotic)")
                << "; Gauss-Seidel lexicographic over the blocks (deterministic)\n";
        }
        char line[256];
        const std::string error_head = "||r_" + std::to_string(study.sweeps) + "||/||r_0||";
        std::snprintf(line, sizeof line, "%-7s %-13s %-9s %6s %5s %15s %10s %11s %7s %9s %9s\n",
                      "backend", "method", "shape", "cells", "omega", error_head.c_str(), "factor",
                      "window", "sweeps", "setup [s]", "run [s]");
        out << line;
        bool floored = false;
        auto print_row = [&](const SmootherConvergenceRow& r) {
            const bool stopped = r.window_last < r.sweeps_run || r.sweeps_run < cpu_options.sweeps;
            floored = floored || stopped;
            const std::string window =
                std::to_string(r.window_first) + "-" + std::to_string(r.window_last);
            std::snprintf(
                line, sizeof line, "%-7s %-13s %-9s %6d %5.2f %15.4e %10s %11s %7d %9.2f %9.2f%s\n",
                r.backend.c_str(), to_string(r.method), shape_name(r.shape).c_str(),
                shape_cells(r.shape, g), r.omega, r.relative_error,
                (r.factor >= 1e-3 || r.factor == 0.0 ? fixed(r.factor, 6) : sci(r.factor, 3))
                    .c_str(),
                window.c_str(), r.sweeps_run, r.setup_seconds, r.seconds, stopped ? " *" : "");
            out << line << std::flush;
            if (!r.note.empty()) out << "  note: " << r.note << '\n';
        };
        if (cpu_study) {
            for (auto& r : smoother_convergence_cpu(cpu_options, print_row)) rows.push_back(r);
        }
        if (gpu_parts) {
            for (auto& r : smoother_convergence_gpu(gpu_options, print_row)) rows.push_back(r);
        }
        if (floored) {
            out << "  * the residual fell below " << sci(kSmootherResidualFloor, 0)
                << " ||r_0|| (an exact or nearly exact block solve; with f = 0 the iterates "
                   "shrink to the subnormal range): factor over the last window above it\n";
        }
    }
    y << YAML::Key << "convergence" << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "problem" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
      << "matrix" << YAML::Value << "poisson_matrix" << YAML::Key << "grid" << YAML::Value << g
      << YAML::Key << "f" << YAML::Value << 0 << YAML::Key << "initial_guess" << YAML::Value
      << "uniform [-1, 1)" << YAML::Key << "seed" << YAML::Value << study.seed << YAML::EndMap;
    y << YAML::Key << "sweeps" << YAML::Value << study.sweeps;
    y << YAML::Key << "window" << YAML::Value << study.window;
    y << YAML::Key << "residual_floor" << YAML::Value << kSmootherResidualFloor;
    y << YAML::Key << "results" << YAML::Value << YAML::BeginSeq;
    for (const SmootherConvergenceRow& r : rows) {
        y << YAML::BeginMap << YAML::Key << "backend" << YAML::Value << r.backend << YAML::Key
          << "method" << YAML::Value << to_string(r.method) << YAML::Key << "gauss_seidel"
          << YAML::Value
          << (r.method == Method::block_gs ? (r.backend == "gpu" ? "chaotic" : "lexicographic")
                                           : "-")
          << YAML::Key << "shape" << YAML::Value << YAML::Flow << YAML::BeginSeq << r.shape[0]
          << r.shape[1] << r.shape[2] << YAML::EndSeq << YAML::Key << "cells_per_block"
          << YAML::Value << shape_cells(r.shape, g) << YAML::Key << "omega" << YAML::Value
          << r.omega << YAML::Key << "relative_error" << YAML::Value << r.relative_error
          << YAML::Key << "convergence_factor" << YAML::Value << r.factor << YAML::Key << "window"
          << YAML::Value << YAML::Flow << YAML::BeginSeq << r.window_first << r.window_last
          << YAML::EndSeq << YAML::Key << "asymptotic_sweeps" << YAML::Value
          << (r.backend == "gpu" ? gpu_options : cpu_options).asymptotic_sweeps << YAML::Key
          << "sweeps_run" << YAML::Value << r.sweeps_run << YAML::Key << "setup_seconds"
          << YAML::Value << r.setup_seconds << YAML::Key << "seconds" << YAML::Value << r.seconds
          << YAML::Key << "residual_history" << YAML::Value << YAML::Flow << r.history;
        if (!r.note.empty()) y << YAML::Key << "note" << YAML::Value << r.note;
        y << YAML::EndMap;
    }
    y << YAML::EndSeq << YAML::EndMap;

    // ---- 2. throughput (seed 003 section 4.2) ----
    std::vector<SmootherTiming> timings;
    double cpu_triad_bytes = dev.gpu ? 0.0 : dev.triad;
    std::string system_name = "poisson_matrix " + grid_name(g);
    if (gpu_parts || cpu_throughput) {
        std::optional<wells::Model> model;
        std::optional<GHMatrix> poisson;
        if (!args.deck.empty()) {
            model.emplace(build_model(load_deck(args.deck)));
            system_name = args.deck;
        } else {
            poisson.emplace(poisson_matrix(g, g, g));
        }
        const GHMatrix& A = model ? model->system.matrix : *poisson;
        const std::vector<double> b =
            model ? model->system.rhs
                  : std::vector<double>(static_cast<std::size_t>(A.rows()), 1.0);
        out << "\nthroughput: " << system_name << " (" << with_commas(A.num_cells())
            << " cells, K = " << A.block_size() << ", " << A.num_wells() << " wells); median of "
            << args.repeats << "; one application (precond_*) or one sweep (sweep_*)\n";
        if (gpu_parts) {
            timings = gpu_smoother_timings(A, study.shapes, study.jacobi_omega, args.repeats);
        }
        if (cpu_throughput) {
            if (cpu_triad_bytes == 0.0) {
                cpu_triad_bytes = cpu_triad(std::size_t{1} << 25, std::max(args.repeats, 5));
                out << "CPU (" << omp_get_max_threads() << " OpenMP threads): triad "
                    << fixed(cpu_triad_bytes / 1e9, 1) << " GB/s (measured now)\n";
            }
            for (const SmootherTiming& t :
                 cpu_smoother_timings(A, b, study.shapes, study.jacobi_omega, args.repeats)) {
                timings.push_back(t);
            }
        }
        char line[256];
        std::snprintf(line, sizeof line, "%-7s %-20s %-9s %12s %12s %9s %8s\n", "backend", "kernel",
                      "shape", "time [us]", "Mcells/s", "GB/s", "x triad");
        out << line;
        y << YAML::Key << "throughput" << YAML::Value << YAML::BeginMap;
        y << YAML::Key << "system" << YAML::Value << system_name << YAML::Key << "cells"
          << YAML::Value << A.num_cells() << YAML::Key << "K" << YAML::Value << A.block_size()
          << YAML::Key << "rows" << YAML::Value << A.rows() << YAML::Key << "nonzeros"
          << YAML::Value << A.nonzeros() << YAML::Key << "omega" << YAML::Value
          << study.jacobi_omega;
        y << YAML::Key << "results" << YAML::Value << YAML::BeginSeq;
        const double cells = static_cast<double>(A.num_cells());
        for (const SmootherTiming& t : timings) {
            y << YAML::BeginMap << YAML::Key << "backend" << YAML::Value << t.backend << YAML::Key
              << "kernel" << YAML::Value << t.kernel << YAML::Key << "shape" << YAML::Value
              << t.shape;
            if (t.repeats == 0 || t.seconds <= 0.0) {
                y << YAML::Key << "skipped" << YAML::Value << t.note << YAML::EndMap;
                out << t.backend << " " << t.kernel << " " << t.shape << ": skipped (" << t.note
                    << ")\n";
                continue;
            }
            const double triad = t.backend == "gpu" ? dev.triad : cpu_triad_bytes;
            const double gbs = t.bytes / t.seconds / 1e9;
            const double ratio = triad > 0.0 ? t.bytes / t.seconds / triad : 0.0;
            y << YAML::Key << "median_us" << YAML::Value << 1e6 * t.seconds << YAML::Key
              << "repeats" << YAML::Value << t.repeats << YAML::Key << "bytes" << YAML::Value
              << t.bytes << YAML::Key << "cells_per_second" << YAML::Value << cells / t.seconds
              << YAML::Key << "effective_gb_s" << YAML::Value << gbs << YAML::Key
              << "ratio_to_triad" << YAML::Value << ratio << YAML::EndMap;
            std::snprintf(line, sizeof line, "%-7s %-20s %-9s %12.1f %12.1f %9.1f %8.3f\n",
                          t.backend.c_str(), t.kernel.c_str(), t.shape.c_str(), 1e6 * t.seconds,
                          cells / t.seconds / 1e6, gbs, ratio);
            out << line;
        }
        y << YAML::EndSeq;
        y << YAML::Key << "bytes_counted" << YAML::Value
          << "gpu: the bytes in gpu::time_smoothers' params; cpu: precond_* core "
             "preconditioner_bytes (the factors, r and z once; the line solve also reads "
             "Bdia's diagonals 2 and 4), sweep_* the block inverses + 8 per structural "
             "nonzero of GH + 3 x 8 per row (b and x read, x written)";
        y << YAML::EndMap;
    }
    if (cpu_triad_bytes > 0.0 && dev.gpu) {
        y << YAML::Key << "cpu_triad_gb_s" << YAML::Value << cpu_triad_bytes / 1e9;
    }
    write_report(args.report, y, out);
    return 0;
}

}  // namespace heptane::app
