#include "app/bench.hpp"

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

// Median and minimum seconds of `run` over `repeats` host-timed runs after one warm-up.
std::pair<double, double> host_times(int repeats, const std::function<void()>& run) {
    run();
    std::vector<double> t;
    for (int i = 0; i < repeats; ++i) {
        const auto t0 = Clock::now();
        run();
        t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return {t[t.size() / 2], t.front()};
}

double host_median(int repeats, const std::function<void()>& run) {
    return host_times(repeats, run).first;
}

// CPU STREAM triad (OpenMP) on three arrays of n doubles: bytes / median seconds.
double cpu_triad(std::size_t n, int repeats) {
    std::vector<double> a(n), b(n, 1.0), c(n, 2.0);
    const double s = host_median(repeats, [&] {
#pragma omp parallel for schedule(static)
        for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + 3.0 * c[i];
    });
    return 24.0 * static_cast<double>(n) / s;
}

namespace {

/// A synthetic benchmark system: g^3 cells, K components, `wells` vertical wells spread over
/// the grid (full perforation, every other one rate-controlled).
wells::Model bench_system(int g, int K, int wells) {
    wells::ModelSpec spec;
    spec.grid.nx = spec.grid.ny = spec.grid.nz = g;
    spec.model = wells::FluidModel::synthetic;
    spec.synthetic.components = K;
    spec.synthetic.seed = 2024;
    spec.synthetic.diagonal_dominance = 1.5;
    spec.permeability.value = {100.0, 100.0, 10.0};
    spec.porosity.value = {0.2, 0.0, 0.0};
    const int side =
        std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(wells)))));
    for (int w = 0; w < wells; ++w) {
        wells::WellSpec s;
        s.name = "W" + std::to_string(w);
        s.i = std::min(g - 1, (w % side) * g / side + g / (2 * side));
        s.j = std::min(g - 1, (w / side) * g / side + g / (2 * side));
        s.k_first = 0;
        s.k_last = g - 1;
        s.control = w % 2 ? wells::ControlKind::rate : wells::ControlKind::bhp;
        s.target = 1.0;
        spec.wells.push_back(s);
    }
    return wells::generate(spec);
}

/// Bytes of the host system and its largest conversion (CSR), to skip what cannot be built.
double host_bytes(int g, int K, bool csr = true) {
    const double cells = static_cast<double>(g) * g * g;
    return cells * 7.0 * K * K * 8.0 * (csr ? 2.5 : 1.2);  // Bdia (+ CSR, 12 bytes a value)
}

/// bench solve times this GPU solver (--solvers).
bool selects(const BenchArgs& args, const char* solver) {
    return std::find(args.solvers.begin(), args.solvers.end(), solver) != args.solvers.end();
}

std::string grid_name(int g) { return std::to_string(g) + "^3"; }

/// The shortest median among the timings that ran and satisfy `pick` (0 if none).
template <class Pick>
double fastest(const std::vector<gpu::Timing>& timings, Pick pick) {
    double best = 0.0;
    for (const auto& t : timings) {
        if (t.repeats > 0 && pick(t.name)) {
            best = best == 0.0 ? t.median_seconds : std::min(best, t.median_seconds);
        }
    }
    return best;
}

/// The faster of cuSPARSE's BSR SpMVs (generic and legacy bsrmv), 0 if neither ran.
double fastest_cusparse_bsr(const std::vector<gpu::Timing>& timings) {
    return fastest(
        timings, [](const std::string& n) { return n == "cusparse_bsr" || n == "cusparse_bsrmv"; });
}

/// The CPU reference product y = A x (x = 1, n rows), median of `repeats` runs.
template <class Matrix>
gpu::Timing cpu_reference_timing(const Matrix& A, std::size_t n, int repeats) {
    std::vector<double> x(n, 1.0), y(n);
    const auto [median, min] = host_times(repeats, [&] { spmv(A, x.data(), y.data()); });
    return {"cpu_reference", median, min, repeats, ""};
}

struct Device {
    bool gpu = false;
    std::string name;
    double triad = 0.0;  ///< bytes / s
};

Device measure_device(const BenchArgs& args, std::ostream& out) {
    Device d;
    d.gpu = gpu::compiled_with_cuda() && gpu::device_count() > 0;
    if (d.gpu) {
        d.name = gpu::list_devices()[0].name;
        // 3 arrays of 2^27 doubles (3 GiB): far beyond any L2.
        const gpu::Timing t = gpu::measure_triad(std::size_t{1} << 27, std::max(args.repeats, 10));
        d.triad = 24.0 * static_cast<double>(std::size_t{1} << 27) / t.median_seconds;
    } else {
        d.name = "CPU (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)";
        d.triad = cpu_triad(std::size_t{1} << 25, std::max(args.repeats, 5));
    }
    out << "heptane bench on " << d.name << ": triad " << fixed(d.triad / 1e9, 1)
        << " GB/s (measured now)\n";
    return d;
}

YAML::Emitter& begin_report(YAML::Emitter& y, const Device& d, const std::string& what,
                            const std::string& command) {
    y << YAML::BeginMap;
    y << YAML::Key << "benchmark" << YAML::Value << what;
    y << YAML::Key << "heptane_version" << YAML::Value << kVersion;
    y << YAML::Key << "date" << YAML::Value << utc_now();
    y << YAML::Key << "command" << YAML::Value << command;
    y << YAML::Key << "device" << YAML::Value << d.name;
    y << YAML::Key << "triad_gb_s" << YAML::Value << d.triad / 1e9;
    return y;
}

void write_report(const std::string& path, YAML::Emitter& y, std::ostream& out) {
    y << YAML::EndMap;
    AtomicOutput file(path);
    {
        std::ofstream s(file.temp_path());
        if (!s) throw InputError("--report", "cannot write '" + path + "'");
        s << y.c_str() << '\n';
    }
    file.commit();
    out << "report: " << path << '\n';
}

}  // namespace

int cmd_bench_spmv(const BenchArgs& args, std::ostream& out) {
    const Device dev = measure_device(args, out);
    YAML::Emitter y;
    begin_report(y, dev, "spmv", args.command);
    y << YAML::Key << "results" << YAML::Value << YAML::BeginSeq;
    char line[256];
    std::snprintf(line, sizeof line, "%-7s %3s %12s %14s  %-22s %10s %9s %8s %10s\n", "grid", "K",
                  "rows", "nonzeros", "kernel", "time [us]", "GB/s", "x triad", "vs cuSPARSE BSR");
    out << line;
    for (int g : args.grids) {
        for (int K : args.ks) {
            if (host_bytes(g, K) > args.max_host_gb * 1e9) {
                out << grid_name(g) << " K = " << K << ": skipped (host system of ~"
                    << fixed(host_bytes(g, K) / 1e9, 0) << " GB > --max-host-gb)\n";
                continue;
            }
            const wells::Model model = bench_system(g, K, args.wells);
            const GHMatrix& A = model.system.matrix;
            const double bytes =
                8.0 * static_cast<double>(A.nonzeros()) + 16.0 * static_cast<double>(A.rows());
            std::vector<gpu::Timing> timings;
            if (dev.gpu) timings = gpu::time_spmv(A, args.repeats, true);
            if (!dev.gpu || args.cpu) {
                timings.push_back(
                    cpu_reference_timing(A, static_cast<std::size_t>(A.rows()), args.repeats));
            }
            const double best_bsr = fastest_cusparse_bsr(timings);
            for (const auto& t : timings) {
                y << YAML::BeginMap << YAML::Key << "grid" << YAML::Value << g << YAML::Key << "K"
                  << YAML::Value << K << YAML::Key << "rows" << YAML::Value << A.rows() << YAML::Key
                  << "nonzeros" << YAML::Value << A.nonzeros() << YAML::Key << "kernel"
                  << YAML::Value << t.name;
                if (t.repeats == 0) {
                    y << YAML::Key << "skipped" << YAML::Value << t.note << YAML::EndMap;
                    out << grid_name(g) << " K = " << K << " " << t.name << ": skipped (" << t.note
                        << ")\n";
                    continue;
                }
                const double gbs = bytes / t.median_seconds / 1e9;
                const double ratio = bytes / t.median_seconds / dev.triad;
                const double speedup = best_bsr > 0.0 ? best_bsr / t.median_seconds : 0.0;
                y << YAML::Key << "median_us" << YAML::Value << 1e6 * t.median_seconds << YAML::Key
                  << "min_us" << YAML::Value << 1e6 * t.min_seconds << YAML::Key << "repeats"
                  << YAML::Value << t.repeats << YAML::Key << "effective_gb_s" << YAML::Value << gbs
                  << YAML::Key << "ratio_to_triad" << YAML::Value << ratio;
                if (speedup > 0.0)
                    y << YAML::Key << "speedup_vs_cusparse_bsr" << YAML::Value << speedup;
                y << YAML::EndMap;
                std::snprintf(
                    line, sizeof line, "%-7s %3d %12s %14s  %-22s %10.1f %9.1f %8.3f %10s\n",
                    grid_name(g).c_str(), K, with_commas(A.rows()).c_str(),
                    with_commas(A.nonzeros()).c_str(), t.name.c_str(), 1e6 * t.median_seconds, gbs,
                    ratio, speedup > 0.0 ? (fixed(speedup, 2) + "x").c_str() : "-");
                out << line;
            }
        }
    }
    y << YAML::EndSeq;
    y << YAML::Key << "bytes_counted" << YAML::Value
      << "8 per structural nonzero of GH + 8 per row for x + 8 per row for y";
    write_report(args.report, y, out);
    return 0;
}

int cmd_bench_solve(const BenchArgs& args, std::ostream& out) {
    const Device dev = measure_device(args, out);
    if (!dev.gpu && args.preconditioner != "none") {
        out << "note: --preconditioner applies to the GPU solvers; without a GPU the CPU rows "
               "run unpreconditioned\n";
    }
    YAML::Emitter y;
    begin_report(y, dev, "solve", args.command);
    y << YAML::Key << "iterations_fixed" << YAML::Value << args.iterations;
    y << YAML::Key << "results" << YAML::Value << YAML::BeginSeq;
    char line[256];
    std::snprintf(line, sizeof line, "%-7s %3s %12s  %-33s %6s %11s %9s %8s %9s %8s %s\n", "grid",
                  "K", "rows", "solver", "iters", "us / iter", "GB/s", "x triad", "speedup",
                  "x floor", "to 1e-8");
    out << line;
    for (int g : args.grids) {
        for (int K : args.ks) {
            if (host_bytes(g, K, selects(args, "library")) > args.max_host_gb * 1e9) {
                out << grid_name(g) << " K = " << K << ": skipped (host system too large)\n";
                continue;
            }
            const wells::Model model = bench_system(g, K, args.wells);
            const GHSystem& sys = model.system;
            const double n = static_cast<double>(sys.matrix.rows());
            const double spmv_bytes = 8.0 * static_cast<double>(sys.matrix.nonzeros()) + 16.0 * n;
            struct Row {
                Method method;
                std::string name;
                double per_iteration = 0.0;
                int iterations = 0, converged_iterations = 0;
                double converged_seconds = 0.0;
                IterationCost cost;
                gpu::InKernelPlan plan;  ///< in_kernel only
            };
            std::vector<Row> rows;
            for (const std::string& method_name : args.methods) {
                const Method method = parse_name<Method>(method_name).value();  // CLI-checked
                auto run_gpu = [&](const std::string& name, GpuKernel kernel, gpu::LibrarySpmv fmt,
                                   SpmvKind spmv = SpmvKind::bdia) {
                    gpu::GpuSolveOptions o;
                    o.library_spmv = fmt;
                    o.spmv = spmv;
                    o.preconditioner = parse_name<PreconditionerKind>(args.preconditioner).value();
                    try {
                        gpu::check_solver(method, kernel, o, K);
                    } catch (const NotSupported& e) {
                        out << grid_name(g) << " K = " << K << " " << method_name << " " << name
                            << ": skipped (" << e.what() << ")\n";
                        return;
                    }
                    o.solve.tolerance = 0.0;  // exactly `iterations` iterations
                    o.solve.max_iterations = args.iterations;
                    const std::string label =
                        args.preconditioner == "none" ? name : name + " + " + args.preconditioner;
                    Row row{method, method_name + " " + label, 0.0, 0, 0,
                            0.0,    gpu::cost(method, kernel), {}};
                    // One solve from x = 0; its device solve time in *seconds.
                    auto solve = [&](double* seconds) {
                        std::vector<double> x(sys.rhs.size(), 0.0);
                        gpu::GpuSolveTimes t;
                        const SolveResult r =
                            gpu::solve(method, kernel, sys.matrix, sys.rhs, x, o, &t, &row.plan);
                        *seconds = t.solve_seconds;
                        return r.iterations;
                    };
                    std::vector<double> per;
                    for (int rep = 0; rep < std::max(args.repeats / 5, 3); ++rep) {
                        double seconds = 0.0;
                        row.iterations = solve(&seconds);
                        per.push_back(seconds / std::max(row.iterations, 1));
                    }
                    std::sort(per.begin(), per.end());
                    row.per_iteration = per[per.size() / 2];
                    o.solve.tolerance = 1e-8;
                    o.solve.max_iterations = 100000;
                    row.converged_iterations = solve(&row.converged_seconds);
                    rows.push_back(row);
                };
                if (dev.gpu && selects(args, "in_kernel")) {
                    run_gpu("in_kernel", GpuKernel::in_kernel, gpu::LibrarySpmv::bsr);
                }
                if (dev.gpu && selects(args, "multi_kernel")) {
                    run_gpu("multi_kernel (graph)", GpuKernel::multi_kernel, gpu::LibrarySpmv::bsr);
                }
                if (dev.gpu && selects(args, "multi_kernel_ksparse")) {
                    run_gpu("multi_kernel (graph, ksparse)", GpuKernel::multi_kernel,
                            gpu::LibrarySpmv::bsr, SpmvKind::ksparse);
                }
                if (dev.gpu && selects(args, "library")) {
                    if (K > 1) {  // cuSPARSE BSR needs 2 x 2 blocks
                        run_gpu("library (cusparse_bsr)", GpuKernel::library,
                                gpu::LibrarySpmv::bsr);
                        run_gpu("library (cusparse_bsrmv)", GpuKernel::library,
                                gpu::LibrarySpmv::bsr_legacy);
                    }
                    run_gpu("library (cusparse_csr)", GpuKernel::library, gpu::LibrarySpmv::csr);
                }
                if (!dev.gpu || args.cpu) {
                    const GHOperator op(sys.matrix);
                    auto cpu_solve = [&](const SolveOptions& o, std::vector<double>& x) {
                        return method == Method::qmr ? qmr(op, sys.rhs.data(), x.data(), o)
                                                     : bicgstab(op, sys.rhs.data(), x.data(), o);
                    };
                    SolveOptions o;
                    o.tolerance = 0.0;
                    o.max_iterations = args.iterations;
                    Row row{method,
                            method_name + " cpu reference",
                            0.0,
                            0,
                            0,
                            0.0,
                            method == Method::qmr ? qmr_cost() : bicgstab_cost(),
                            {}};
                    std::vector<double> x(sys.rhs.size(), 0.0);
                    const auto t0 = Clock::now();
                    const SolveResult r = cpu_solve(o, x);
                    row.iterations = r.iterations;
                    row.per_iteration = std::chrono::duration<double>(Clock::now() - t0).count() /
                                        std::max(r.iterations, 1);
                    o.tolerance = 1e-8;
                    o.max_iterations = 100000;
                    std::fill(x.begin(), x.end(), 0.0);
                    const auto t1 = Clock::now();
                    const SolveResult c = cpu_solve(o, x);
                    row.converged_iterations = c.iterations;
                    row.converged_seconds =
                        std::chrono::duration<double>(Clock::now() - t1).count();
                    rows.push_back(row);
                }
            }
            // Ratios within a method: its best library row, its multi-kernel, its floor; and
            // each row against the in-kernel BiCGStab (QMR's per-iteration cost target).
            auto best_of = [&](Method method, const std::string& kernel) {
                double best = 0.0;
                for (const Row& r : rows) {
                    if (r.method == method && r.name.find(" " + kernel) != std::string::npos)
                        best = best == 0.0 ? r.per_iteration : std::min(best, r.per_iteration);
                }
                return best;
            };
            const double bicgstab_in_kernel = best_of(Method::bicgstab, "in_kernel");
            for (const Row& r : rows) {
                const double library_best = best_of(r.method, "library");
                const double multi_kernel = best_of(r.method, "multi_kernel (graph)");
                const double floor_bytes = r.method == Method::qmr
                                               ? gpu::qmr_floor_bytes(sys.matrix)
                                               : gpu::bicgstab_floor_bytes(sys.matrix);
                const double floor_seconds = floor_bytes / dev.triad;
                const double bytes = r.cost.products * spmv_bytes + r.cost.vector_passes * 8.0 * n;
                const double gbs = bytes / r.per_iteration / 1e9;
                const double speedup = library_best > 0.0 ? library_best / r.per_iteration : 0.0;
                y << YAML::BeginMap << YAML::Key << "grid" << YAML::Value << g << YAML::Key << "K"
                  << YAML::Value << K << YAML::Key << "rows" << YAML::Value << sys.matrix.rows()
                  << YAML::Key << "solver" << YAML::Value << r.name << YAML::Key << "iterations"
                  << YAML::Value << r.iterations << YAML::Key << "us_per_iteration" << YAML::Value
                  << 1e6 * r.per_iteration << YAML::Key << "bytes_per_iteration" << YAML::Value
                  << bytes << YAML::Key << "effective_gb_s" << YAML::Value << gbs << YAML::Key
                  << "ratio_to_triad" << YAML::Value << bytes / r.per_iteration / dev.triad
                  << YAML::Key << "speedup_vs_best_library" << YAML::Value << speedup << YAML::Key
                  << "speedup_vs_multi_kernel" << YAML::Value
                  << (multi_kernel > 0.0 ? multi_kernel / r.per_iteration : 0.0) << YAML::Key
                  << "time_over_bicgstab_in_kernel" << YAML::Value
                  << (bicgstab_in_kernel > 0.0 ? r.per_iteration / bicgstab_in_kernel : 0.0)
                  << YAML::Key << "time_over_floor" << YAML::Value
                  << r.per_iteration / floor_seconds << YAML::Key << "iterations_to_1e-8"
                  << YAML::Value << r.converged_iterations << YAML::Key << "seconds_to_1e-8"
                  << YAML::Value << r.converged_seconds;
                if (r.plan.grid > 0) {
                    y << YAML::Key << "launch" << YAML::Value << YAML::Flow << YAML::BeginMap
                      << YAML::Key << "grid" << YAML::Value << r.plan.grid << YAML::Key << "threads"
                      << YAML::Value << r.plan.threads << YAML::Key << "rows_per_block"
                      << YAML::Value << r.plan.rows_per_block << YAML::Key << "shared_ranges"
                      << YAML::Value << r.plan.shared_ranges << YAML::Key << "blocks_per_sm"
                      << YAML::Value << r.plan.blocks_per_sm << YAML::Key << "device_bytes"
                      << YAML::Value << r.plan.device_bytes << YAML::EndMap;
                }
                y << YAML::EndMap;
                std::snprintf(
                    line, sizeof line,
                    "%-7s %3d %12s  %-33s %6d %11.1f %9.1f %8.3f %9s %8.2f %d it, %.4f s\n",
                    grid_name(g).c_str(), K, with_commas(sys.matrix.rows()).c_str(), r.name.c_str(),
                    r.iterations, 1e6 * r.per_iteration, gbs, bytes / r.per_iteration / dev.triad,
                    speedup > 0.0 ? (fixed(speedup, 2) + "x").c_str() : "-",
                    r.per_iteration / floor_seconds, r.converged_iterations, r.converged_seconds);
                out << line;
            }
        }
    }
    y << YAML::EndSeq;
    y << YAML::Key << "bytes_counted" << YAML::Value
      << "per iteration: products x (8 nnz + 16 n) + vector passes x 8 n, with the products "
         "and passes of each implementation (gpu::cost, core IterationCost: bicgstab in_kernel "
         "2 + 12, multi_kernel 2 + 19, library 2 + 33, cpu 2 + 23; qmr in_kernel 2 + 28, "
         "multi_kernel 2 + 28, library 2 + 47, cpu 2 + 35); time_over_floor: time per iteration "
         "/ (floor bytes / triad), floor = 2 x 8 nnz + 9 x 8 n for bicgstab (the matrix twice; "
         "read x, r, r_hat, p, v, write x, r, p, v) and 2 x 8 nnz + 16 x 8 n for qmr (A and "
         "A^T; read and write v, w, p, q, d, s, x, r)";
    write_report(args.report, y, out);
    return 0;
}

std::vector<int> parse_block_sizes(const std::vector<std::string>& items) {
    auto number = [](const std::string& text) {
        std::size_t used = 0;
        int v = 0;
        try {
            v = std::stoi(text, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != text.size() || v < 1 || v > kMaxPromotedBlockSize) {
            throw InputError("--block-sizes", "'" + text + "' is not a block size in 1.." +
                                                  std::to_string(kMaxPromotedBlockSize));
        }
        return v;
    };
    std::vector<int> out;
    for (const std::string& item : items) {
        const std::size_t dots = item.find("..");
        if (dots == std::string::npos) {
            out.push_back(number(item));
            continue;
        }
        const int a = number(item.substr(0, dots)), b = number(item.substr(dots + 2));
        if (a > b) throw InputError("--block-sizes", "empty range '" + item + "'");
        for (int bs = a; bs <= b; ++bs) out.push_back(bs);
    }
    return out;
}

int cmd_bench_ksparse(const BenchArgs& args, std::ostream& out) {
    const Csr pattern = read_matrix_market(args.matrix);  // malformed: exit 2 with the line
    const Device dev = measure_device(args, out);
    if (!dev.gpu && (args.tune || args.retune)) {
        out << "note: --tune and --retune tune the GPU kernels; without a GPU there is nothing "
               "to tune\n";
    }
    YAML::Emitter y;
    begin_report(y, dev, "ksparse", args.command);
    y << YAML::Key << "matrix" << YAML::Value << args.matrix << YAML::Key << "rows" << YAML::Value
      << pattern.rows << YAML::Key << "nonzeros" << YAML::Value << pattern.nonzeros() << YAML::Key
      << "seed" << YAML::Value << args.seed;
    y << YAML::Key << "results" << YAML::Value << YAML::BeginSeq;
    out << args.matrix << ": " << pattern.rows << " x " << pattern.cols << ", "
        << with_commas(pattern.nonzeros()) << " nonzeros, each promoted to a bs x bs block\n";
    char line[256];
    std::snprintf(line, sizeof line, "%4s %12s %14s  %-16s %10s %9s %8s %10s\n", "bs", "rows",
                  "values", "kernel", "time [us]", "GB/s", "x triad", "vs cuSPARSE BSR");
    out << line;
    for (int bs : args.block_sizes) {
        const Bsr A = promote_to_bsr(pattern, bs, args.seed);
        const double n = static_cast<double>(A.block_rows) * bs;
        const double values = static_cast<double>(A.blocks()) * bs * bs;
        const double bytes = 8.0 * values + 16.0 * n;
        std::vector<gpu::Timing> timings;
        std::vector<std::string> tuning_log;
        if (dev.gpu) {
            gpu::KsparseBenchOptions o;
            o.tune = args.tune;
            o.retune = args.retune;
            o.cache_path = args.tuning_cache;
            o.tuning_log = &tuning_log;
            timings = gpu::time_block_spmv(A, args.repeats, o);
        }
        for (const std::string& l : tuning_log) out << "  tuning " << l << '\n';
        if (!dev.gpu || args.cpu) {
            timings.push_back(cpu_reference_timing(A, static_cast<std::size_t>(n), args.repeats));
        }
        const double best_bsr = fastest_cusparse_bsr(timings);
        // The fastest plain KSPARSE kernel, against which the balanced layout is stated.
        const double best_plain =
            fastest(timings, [](const std::string& n) { return n.rfind("ksparse_k", 0) == 0; });
        for (const auto& t : timings) {
            y << YAML::BeginMap << YAML::Key << "block_size" << YAML::Value << bs << YAML::Key
              << "kernel" << YAML::Value << t.name;
            if (!t.params.empty()) y << YAML::Key << "params" << YAML::Value << t.params;
            if (t.repeats == 0) {
                y << YAML::Key << "skipped" << YAML::Value << t.note << YAML::EndMap;
                continue;
            }
            const double gbs = bytes / t.median_seconds / 1e9;
            const double ratio = bytes / t.median_seconds / dev.triad;
            const double speedup = best_bsr > 0.0 ? best_bsr / t.median_seconds : 0.0;
            y << YAML::Key << "median_us" << YAML::Value << 1e6 * t.median_seconds << YAML::Key
              << "bytes" << YAML::Value << bytes << YAML::Key << "effective_gb_s" << YAML::Value
              << gbs << YAML::Key << "ratio_to_triad" << YAML::Value << ratio;
            if (speedup > 0.0)
                y << YAML::Key << "speedup_vs_cusparse_bsr" << YAML::Value << speedup;
            if (t.name == "ksparse_balanced" && best_plain > 0.0) {
                y << YAML::Key << "speedup_vs_best_unbalanced" << YAML::Value
                  << best_plain / t.median_seconds;
            }
            y << YAML::EndMap;
            std::snprintf(line, sizeof line, "%4d %12s %14s  %-16s %10.1f %9.1f %8.3f %10s\n", bs,
                          with_commas(static_cast<long long>(n)).c_str(),
                          with_commas(static_cast<long long>(values)).c_str(), t.name.c_str(),
                          1e6 * t.median_seconds, gbs, ratio,
                          speedup > 0.0 ? (fixed(speedup, 2) + "x").c_str() : "-");
            out << line;
            if (!t.params.empty()) {
                out << "       " << t.params;
                if (t.name == "ksparse_balanced" && best_plain > 0.0) {
                    out << "; " << fixed(best_plain / t.median_seconds, 2)
                        << "x the best unbalanced kernel";
                }
                out << '\n';
            }
        }
    }
    y << YAML::EndSeq;
    y << YAML::Key << "bytes_counted" << YAML::Value
      << "8 per value of the promoted blocks + 8 per row for x + 8 per row for y";
    write_report(args.report, y, out);
    return 0;
}

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
    const Device dev = measure_device(args, out);
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
