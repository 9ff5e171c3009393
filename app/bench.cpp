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
#include "core/spmv/cell_major.hpp"
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

std::string grid_name(int g) { return std::to_string(g) + "^3"; }

BenchDevice measure_device(const BenchArgs& args, std::ostream& out) {
    BenchDevice d;
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

bool bench_on_gpu(const std::string& backend, const std::string& command) {
    const bool ready = gpu::compiled_with_cuda() && gpu::device_count() > 0;
    const bool gpu = backend == "gpu" || (backend == "auto" && ready);
    if (gpu && !ready) throw Error(command + " --backend gpu: no CUDA device (or no CUDA)");
    return gpu;
}

YAML::Emitter& begin_report(YAML::Emitter& y, const std::string& what, const std::string& command,
                            const std::string& device) {
    y << YAML::BeginMap;
    y << YAML::Key << "benchmark" << YAML::Value << what;
    y << YAML::Key << "heptane_version" << YAML::Value << kVersion;
    y << YAML::Key << "date" << YAML::Value << utc_now();
    y << YAML::Key << "command" << YAML::Value << command;
    y << YAML::Key << "device" << YAML::Value << device;
    return y;
}

YAML::Emitter& begin_report(YAML::Emitter& y, const BenchDevice& d, const std::string& what,
                            const std::string& command) {
    begin_report(y, what, command, d.name);
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

/// The fastest of the timings whose name `pick` takes: its name and median (empty, 0 if none).
template <class Pick>
std::pair<std::string, double> fastest_named(const std::vector<gpu::Timing>& timings, Pick pick) {
    std::pair<std::string, double> best{"", 0.0};
    for (const auto& t : timings) {
        if (t.repeats > 0 && pick(t.name) &&
            (best.second == 0.0 || t.median_seconds < best.second)) {
            best = {t.name, t.median_seconds};
        }
    }
    return best;
}

bool is_cusparse(const std::string& n) { return n.rfind("cusparse_", 0) == 0; }
bool is_ksparse(const std::string& n) { return n.rfind("ksparse_", 0) == 0; }

/// The CPU reference product y = A x (x = 1, n rows), median of `repeats` runs.
template <class Matrix>
gpu::Timing cpu_reference_timing(const Matrix& A, std::size_t n, int repeats) {
    std::vector<double> x(n, 1.0), y(n);
    const auto [median, min] = host_times(repeats, [&] { spmv(A, x.data(), y.data()); });
    return {"cpu_reference", median, min, repeats, ""};
}

/// The cell-major product (core/spmv/cell_major.hpp), timed at every K: the CPU solvers use it
/// where cell_major_pays(K), the Bdia product ("cpu_reference" above) elsewhere. The copy is
/// made before the timing.
gpu::Timing cpu_cell_major_timing(const GHMatrix& A, int repeats) {
    const CellMajorBlocks cells(A);
    std::vector<double> x(static_cast<std::size_t>(A.rows()), 1.0), y(x.size());
    const auto [median, min] = host_times(repeats, [&] { cells.product(A, x.data(), y.data()); });
    return {"cpu_cell_major", median, min, repeats, ""};
}

}  // namespace

int cmd_bench_spmv(const BenchArgs& args, std::ostream& out) {
    const BenchDevice dev = measure_device(args, out);
    YAML::Emitter y;
    begin_report(y, dev, "spmv", args.command);
    y << YAML::Key << "results" << YAML::Value << YAML::BeginSeq;
    char line[256];
    std::snprintf(line, sizeof line, "%-7s %3s %12s %14s  %-22s %10s %9s %8s %10s %12s %8s\n",
                  "grid", "K", "rows", "nonzeros", "kernel", "time [us]", "GB/s", "x triad",
                  "vs cuSPARSE BSR", "b2b [us]", "x triad");
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
                timings.push_back(cpu_cell_major_timing(A, args.repeats));
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
                const double b2b = t.back_to_back_seconds;
                const double b2b_ratio = b2b > 0.0 ? bytes / b2b / dev.triad : 0.0;
                if (b2b > 0.0) {
                    y << YAML::Key << "back_to_back_us" << YAML::Value << 1e6 * b2b << YAML::Key
                      << "back_to_back_ratio_to_triad" << YAML::Value << b2b_ratio;
                }
                y << YAML::EndMap;
                std::snprintf(line, sizeof line,
                              "%-7s %3d %12s %14s  %-22s %10.1f %9.1f %8.3f %10s %12s %8s\n",
                              grid_name(g).c_str(), K, with_commas(A.rows()).c_str(),
                              with_commas(A.nonzeros()).c_str(), t.name.c_str(),
                              1e6 * t.median_seconds, gbs, ratio,
                              speedup > 0.0 ? (fixed(speedup, 2) + "x").c_str() : "-",
                              b2b > 0.0 ? fixed(1e6 * b2b, 1).c_str() : "-",
                              b2b > 0.0 ? fixed(b2b_ratio, 3).c_str() : "-");
                out << line;
            }
        }
    }
    y << YAML::EndSeq;
    y << YAML::Key << "bytes_counted" << YAML::Value
      << "8 per structural nonzero of GH + 8 per row for x + 8 per row for y";
    y << YAML::Key << "back_to_back" << YAML::Value
      << std::to_string(gpu::kBackToBack) +
             " launches between two events after one L2 flush, the time per launch";
    write_report(args.report, y, out);
    return 0;
}

int cmd_bench_solve(const BenchArgs& args, std::ostream& out) {
    const BenchDevice dev = measure_device(args, out);
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
                    // what the CPU solver object uses (QMR: the copy of H^T's blocks too)
                    const CpuGHOperator op(sys.matrix, true, method == Method::qmr);
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
                            method == Method::qmr ? qmr_cpu_cost() : bicgstab_cpu_cost(),
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
    const BenchDevice dev = measure_device(args, out);
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
    struct Fastest {
        int bs;
        std::string ksparse;
        double ksparse_s;
        std::string cusparse;
        double cusparse_s;
    };
    std::vector<Fastest> summary;  // per block size: the fastest of each side
    char line[256];
    std::snprintf(line, sizeof line, "%4s %12s %14s  %-16s %10s %9s %8s %9s %9s\n", "bs", "rows",
                  "values", "kernel", "time [us]", "GB/s", "x triad", "vs BSR", "vs best");
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
        // What a user would pick instead: the fastest cuSPARSE format, CSR included.
        const auto [best_lib_name, best_lib] = fastest_named(timings, is_cusparse);
        // The fastest plain KSPARSE kernel, against which the balanced layout is stated.
        const double best_plain = fastest(timings, [](const std::string& n) {
            return n == "ksparse_k1" || n == "ksparse_k2" || n == "ksparse_k3";
        });
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
            const double vs_best = best_lib > 0.0 ? best_lib / t.median_seconds : 0.0;
            if (vs_best > 0.0)
                y << YAML::Key << "speedup_vs_fastest_cusparse" << YAML::Value << vs_best;
            if (t.name == "ksparse_balanced" && best_plain > 0.0) {
                y << YAML::Key << "speedup_vs_best_unbalanced" << YAML::Value
                  << best_plain / t.median_seconds;
            }
            y << YAML::EndMap;
            std::snprintf(line, sizeof line, "%4d %12s %14s  %-16s %10.1f %9.1f %8.3f %9s %9s\n",
                          bs, with_commas(static_cast<long long>(n)).c_str(),
                          with_commas(static_cast<long long>(values)).c_str(), t.name.c_str(),
                          1e6 * t.median_seconds, gbs, ratio,
                          speedup > 0.0 ? (fixed(speedup, 2) + "x").c_str() : "-",
                          vs_best > 0.0 ? (fixed(vs_best, 2) + "x").c_str() : "-");
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
        const auto [best_k_name, best_k] = fastest_named(timings, is_ksparse);
        if (best_k > 0.0 && best_lib > 0.0) {
            summary.push_back({bs, best_k_name, best_k, best_lib_name, best_lib});
            out << "     fastest KSPARSE " << best_k_name << " / fastest cuSPARSE " << best_lib_name
                << ": " << fixed(best_lib / best_k, 2) << "x\n";
        }
    }
    y << YAML::EndSeq;
    y << YAML::Key << "fastest" << YAML::Value << YAML::BeginSeq;
    for (const Fastest& f : summary) {
        y << YAML::BeginMap << YAML::Key << "block_size" << YAML::Value << f.bs << YAML::Key
          << "ksparse" << YAML::Value << f.ksparse << YAML::Key << "ksparse_us" << YAML::Value
          << 1e6 * f.ksparse_s << YAML::Key << "cusparse" << YAML::Value << f.cusparse << YAML::Key
          << "cusparse_us" << YAML::Value << 1e6 * f.cusparse_s << YAML::Key << "ratio"
          << YAML::Value << f.cusparse_s / f.ksparse_s << YAML::EndMap;
    }
    y << YAML::EndSeq;
    y << YAML::Key << "bytes_counted" << YAML::Value
      << "8 per value of the promoted blocks + 8 per row for x + 8 per row for y";
    write_report(args.report, y, out);
    return 0;
}

}  // namespace heptane::app
