// `heptane proxy` (issue 18; docs/PROXY.md): the procurement proxy run. Phases, in order:
//  setup       the defined problem generated on the host, the solver object made once
//              (upload, factor, plan), update_values timed (what a Newton step pays);
//  validation  a reduced problem solved by the reference and by the backend (same iterations
//              and bits), the defined solve to the tolerance (its iteration count N), the same
//              solve again (the same bits), A^T against A (QMR);
//  timed       the defined solve repeated (N iterations each, the same bits each time) for at
//              least --min-seconds;
//  final       the true residual of the last timed solution by the reference product;
// then the performance model: each kernel of the iteration timed alone against its bytes at
// the triad bandwidth measured in the same run. Any failed check makes the run INVALID.
#include "app/proxy.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>

#include "app/atomic_file.hpp"
#include "app/bench.hpp"
#include "app/cli.hpp"
#include "app/report.hpp"
#include "core/base/errors.hpp"
#include "core/base/vector_ops.hpp"
#include "core/krylov/capabilities.hpp"
#include "core/krylov/linear_solver.hpp"
#include "core/krylov/names.hpp"
#include "core/precond/block_smoothers.hpp"
#include "core/spmv/spmv.hpp"
#include "gpu/bench.hpp"
#include "gpu/device.hpp"
#include "gpu/solver.hpp"
#include "gpu/spmv.hpp"
#include "proxy/validation.hpp"
#include "wells/generator.hpp"

namespace heptane::app {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/// The size of an explicit --dims, --quick's, or the memory fraction's.
constexpr proxy::ProblemSize kQuickSize{40, 40, proxy::kLayers};

double host_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

/// Chooses the size and says how (run.sizing), and what keeps the run from being official.
void choose_size(ProxyRun& run) {
    const ProxyArgs& a = run.args;
    if (!a.dims.empty()) {
        if (a.dims.size() != 3) throw InputError("--dims", "takes three numbers: NX NY NZ");
        run.size = {a.dims[0], a.dims[1], a.dims[2]};
        if (run.size.nx < proxy::kPattern || run.size.ny < proxy::kPattern || run.size.nz < 1) {
            throw InputError("--dims", "NX and NY must be at least " +
                                           std::to_string(proxy::kPattern) +
                                           " (one five-spot pattern) and NZ at least 1");
        }
        run.sizing = "dims " + std::to_string(run.size.nx) + " x " + std::to_string(run.size.ny) +
                     " x " + std::to_string(run.size.nz);
        return;
    }
    if (a.quick && a.memory_fraction == 0.0) {
        run.size = kQuickSize;
        run.sizing = "quick";
        return;
    }
    const double fraction = a.memory_fraction > 0.0 ? a.memory_fraction : kOfficialMemoryFraction;
    if (fraction > 0.8) {
        throw InputError("--memory-fraction",
                         "at most 0.8 (the solver needs room beside the problem)");
    }
    const double memory = run.gpu ? static_cast<double>(gpu::list_devices()[0].global_memory_bytes)
                                  : host_memory_bytes();
    run.size = proxy::size_for_bytes(fraction * memory);
    run.sizing = "memory fraction " + fixed(fraction, 3) + " of " + fixed(memory / 1e9, 1) +
                 " GB (" + (run.gpu ? "device" : "host") + ")";
}

/// The run rules an official run keeps (docs/PROXY.md, "Run rules").
void check_rules(ProxyRun& run) {
    const ProxyArgs& a = run.args;
    auto deviate = [&](const std::string& why) { run.deviations.push_back(why); };
    if (a.quick) deviate("--quick");
    if (a.method != "bicgstab") deviate("method " + a.method + " (the defined solver is bicgstab)");
    if (!a.fault.empty()) deviate("test fault " + a.fault);
    if (run.args.min_seconds < kOfficialMinSeconds) {
        deviate("timed phase of " + fixed(run.args.min_seconds, 1) + " s (at least " +
                fixed(kOfficialMinSeconds, 0) + " s)");
    }
    if (run.size.nz != proxy::kLayers) deviate("nz " + std::to_string(run.size.nz) + " (85)");
    if (run.size.nx != run.size.ny || run.size.nx % proxy::kPattern != 0) {
        deviate("nx, ny not equal multiples of " + std::to_string(proxy::kPattern));
    }
    const double memory = run.gpu ? static_cast<double>(gpu::list_devices()[0].global_memory_bytes)
                                  : host_memory_bytes();
    if (static_cast<double>(run.size.cells()) * proxy::bytes_per_cell() <
        kOfficialMemoryFraction * memory * 0.9) {
        deviate("the problem uses less than " + fixed(kOfficialMemoryFraction, 2) + " of the " +
                (run.gpu ? "device" : "host") + " memory");
    }
    run.official = run.deviations.empty();
}

/// The backend's solver of the run's method for A.
std::unique_ptr<LinearSolver> make_backend_solver(const ProxyRun& run, const GHMatrix& A,
                                                  bool gpu) {
    if (gpu) {
        gpu::GpuSolveOptions o;
        o.solve.tolerance = kProxyTolerance;
        o.solve.max_iterations = kProxyMaxIterations;
        o.preconditioner = run.preconditioner;
        const GpuKernel kernel = *parse_name<GpuKernel>(run.args.kernel);
        return gpu::make_solver(run.method, kernel, A, o);
    }
    SolverSettings s;
    s.method = run.method;
    s.preconditioner = run.preconditioner;
    s.tolerance = kProxyTolerance;
    s.max_iterations = kProxyMaxIterations;
    return make_cpu_solver(s, A);
}

SolveOptions defined_solve() {
    SolveOptions o;
    o.tolerance = kProxyTolerance;
    o.max_iterations = kProxyMaxIterations;
    return o;
}

/// Runs `f` with `threads` OpenMP threads, then restores the count.
template <class F>
auto with_threads(int threads, F f) {
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    struct Restore {
        int n;
        ~Restore() { omp_set_num_threads(n); }
    } restore{before};
    return f();
}

/// The reduced problem (one pattern, the run's layers up to 85) by the reference and by the
/// backend: the same status, iterations and bits. On the CPU the reference is the same code
/// on one thread (canonical sums: the bits do not depend on the thread count).
ValidationLine reference_agreement(const ProxyRun& run) {
    const proxy::ProblemSize reduced{proxy::kPattern, proxy::kPattern,
                                     std::min(run.size.nz, proxy::kLayers)};
    const wells::Model model = wells::generate(proxy::problem_model(reduced));
    const GHMatrix& A = model.system.matrix;
    const std::vector<double>& b = model.system.rhs;
    std::vector<double> x_ref(b.size(), 0.0), x(b.size(), 0.0);
    const SolveResult ref = with_threads(run.gpu ? omp_get_max_threads() : 1, [&] {
        return make_backend_solver(run, A, false)->solve(b, x_ref, defined_solve());
    });
    const SolveResult got = make_backend_solver(run, A, run.gpu)->solve(b, x, defined_solve());
    ValidationLine v;
    v.name = "reference_agreement";
    v.value = proxy::max_relative_difference(x, x_ref);
    v.bound = 0.0;
    const bool bits = x == x_ref;
    v.passed = ref.status == SolveStatus::converged && got.status == SolveStatus::converged &&
               ref.iterations == got.iterations && bits;
    v.detail = "reduced problem " + std::to_string(reduced.nx) + " x " +
               std::to_string(reduced.ny) + " x " + std::to_string(reduced.nz) + " (" +
               with_commas(A.rows()) + " unknowns): reference (" +
               (run.gpu ? "CPU" : "CPU, 1 thread") + ") " + to_string(ref.status) + " in " +
               std::to_string(ref.iterations) + " iterations, backend " + to_string(got.status) +
               " in " + std::to_string(got.iterations) + "; solutions " +
               (bits ? "bitwise equal" : "differ by " + sci(v.value) + " (max relative)");
    return v;
}

/// x^T A y against y^T A^T x on the reduced problem with the backend's products.
ValidationLine transpose_line(const ProxyRun& run) {
    const proxy::ProblemSize reduced{proxy::kPattern, proxy::kPattern,
                                     std::min(run.size.nz, proxy::kLayers)};
    const wells::Model model = wells::generate(proxy::problem_model(reduced));
    const GHMatrix& A = model.system.matrix;
    const proxy::TransposeCheck c = proxy::transpose_consistency(
        A,
        [&](const std::vector<double>& v, bool transpose) {
            if (run.gpu) return gpu::spmv_device(A, v, gpu::default_variant(), transpose);
            return transpose ? spmv_transpose(A, v) : spmv(A, v);
        },
        proxy::kSeed);
    ValidationLine v;
    v.name = "transpose_consistency";
    v.value = c.difference();
    v.bound = c.bound;
    v.passed = c.passed();
    v.detail = "x^T (A y) = " + sci(c.forward, 15) + ", y^T (A^T x) = " + sci(c.transposed, 15) +
               ": |difference| " + sci(v.value) + " (bound " + sci(v.bound) + ")";
    return v;
}

/// The kernels of the model timed alone on the backend (median seconds, by name).
std::vector<std::pair<std::string, double>> time_kernels(const ProxyRun& run, const GHMatrix& A) {
    std::vector<std::pair<std::string, double>> out;
    if (run.gpu) {
        for (const gpu::Timing& t : gpu::time_iteration_kernels(A, 20)) {
            out.emplace_back(t.name, t.median_seconds);
        }
        return out;
    }
    const index_t n = A.rows();
    std::vector<double> x(static_cast<std::size_t>(n)), y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0 + 1e-3 * static_cast<double>(i % 97);
    const int repeats = 10;
    out.emplace_back("spmv", host_median(repeats, [&] { spmv(A, x.data(), y.data()); }));
    if (run.preconditioner != PreconditionerKind::none) {
        SolverSettings s;
        s.preconditioner = run.preconditioner;
        const std::unique_ptr<Preconditioner> M = make_preconditioner(A, s);
        out.emplace_back("precond_point_block",
                         host_median(repeats, [&] { M->apply(x.data(), y.data()); }));
    }
    volatile double sink = 0.0;  // keeps the dot products
    out.emplace_back("dot", host_median(repeats, [&] { sink = vec::dot(x.data(), y.data(), n); }));
    out.emplace_back("axpy", host_median(repeats, [&] { vec::axpy(1e-3, x.data(), y.data(), n); }));
    return out;
}

/// Fails early (exit 2, nothing measured) when the report's folder does not exist.
void check_report_folder(const std::string& path) {
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (dir.empty() || std::filesystem::is_directory(dir)) return;
    throw InputError("--report",
                     "cannot write '" + path + "': folder '" + dir.string() + "' does not exist");
}

void print_line(std::ostream& out, const ValidationLine& v) {
    out << "  " << (v.passed ? "pass" : "FAIL") << "  " << v.name << ": " << v.detail << '\n';
}

}  // namespace

bool ProxyRun::valid() const {
    if (validation.empty()) return false;
    return std::all_of(validation.begin(), validation.end(),
                       [](const ValidationLine& v) { return v.passed; });
}

int cmd_proxy(const ProxyArgs& args, std::ostream& out, std::ostream& err) {
    ProxyRun run;
    run.args = args;
    if (run.args.min_seconds <= 0.0) {
        run.args.min_seconds = args.quick ? kQuickMinSeconds : kOfficialMinSeconds;
    }
    if (args.memory_fraction < 0.0) throw InputError("--memory-fraction", "must be positive");
    if (!args.dims.empty() && args.memory_fraction > 0.0) {
        throw InputError("--dims", "give --dims or --memory-fraction, not both");
    }
    if (!args.fault.empty() && args.fault != "perturb_solution" &&
        args.fault != "nonreproducible") {
        throw InputError("--test-fault", "perturb_solution or nonreproducible");
    }
    const std::optional<Method> method = parse_name<Method>(args.method);
    if (!method || (*method != Method::bicgstab && *method != Method::qmr)) {
        throw InputError("--method", "bicgstab or qmr");
    }
    run.method = *method;
    // QMR runs without a preconditioner (the GPU QMR takes none; the same on every backend).
    run.preconditioner = run.method == Method::bicgstab ? PreconditionerKind::point_block_jacobi
                                                        : PreconditionerKind::none;
    const std::optional<GpuKernel> kernel = parse_name<GpuKernel>(args.kernel);
    if (!kernel || (*kernel != GpuKernel::in_kernel && *kernel != GpuKernel::multi_kernel)) {
        throw InputError("--kernel", "in_kernel or multi_kernel (the bit-exact GPU solvers)");
    }
    const bool gpu_ready = gpu::compiled_with_cuda() && gpu::device_count() > 0;
    run.gpu = args.backend == "gpu" || (args.backend == "auto" && gpu_ready);
    if (run.gpu && !gpu_ready) {
        throw Error(gpu::compiled_with_cuda() ? "proxy --backend gpu: no CUDA device"
                                              : "proxy --backend gpu: built without CUDA");
    }
    SolverSettings wanted;
    wanted.method = run.method;
    wanted.preconditioner = run.preconditioner;
    wanted.gpu_kernel = *kernel;
    if (const Support s = support(wanted, 2, run.gpu ? Backend::gpu : Backend::cpu, DeckKind::grid);
        !s) {
        throw InputError("--kernel", s.reason);
    }
    check_report_folder(args.report);
    choose_size(run);
    check_rules(run);
    run.openmp_threads = omp_get_max_threads();
    const std::string where =
        run.gpu ? gpu::list_devices()[0].name
                : "CPU (" + std::to_string(run.openmp_threads) + " OpenMP threads)";
    out << "heptane proxy, problem version " << proxy::kProblemVersion << ", on " << where
        << (run.official ? " (official run)\n" : " (not official: see the report)\n");

    // The machine's own limit, measured now.
    run.triad_bytes_per_second =
        run.gpu ? 24.0 * static_cast<double>(std::size_t{1} << 27) /
                      gpu::measure_triad(std::size_t{1} << 27, 20).median_seconds
                : cpu_triad(std::size_t{1} << 25, 10);
    out << "  triad " << fixed(run.triad_bytes_per_second / 1e9, 1) << " GB/s\n";

    // ---- setup
    auto t0 = Clock::now();
    const wells::Model model = wells::generate(proxy::problem_model(run.size));
    run.generation_seconds = since(t0);
    const GHMatrix& A = model.system.matrix;
    const std::vector<double>& b = model.system.rhs;
    run.cells = run.size.cells();
    run.unknowns = A.rows();
    run.wells = A.num_wells();
    run.nonzeros = A.nonzeros();
    out << "  problem " << run.size.nx << " x " << run.size.ny << " x " << run.size.nz << " ("
        << run.sizing << "): " << with_commas(run.unknowns) << " unknowns, "
        << with_commas(run.wells) << " wells; generated in " << fixed(run.generation_seconds, 2)
        << " s\n";
    t0 = Clock::now();
    std::unique_ptr<LinearSolver> solver = make_backend_solver(run, A, run.gpu);
    run.setup_seconds = since(t0);
    std::vector<double> updates;
    for (int k = 0; k < 3; ++k) {
        solver->update_values(A);
        updates.push_back(solver->info().update_seconds);
    }
    run.update_seconds = median(updates);
    const SolverInfo info = solver->info();
    run.kernel = info.kernel;
    run.problem_bytes = static_cast<double>(info.workspace_bytes);
    run.bytes_per_iteration = info.bytes_per_iteration;
    out << "  setup " << fixed(run.setup_seconds, 3) << " s (" << info.kernel << "), update_values "
        << fixed(run.update_seconds, 3) << " s\n";

    // ---- validation
    t0 = Clock::now();
    run.validation.push_back(reference_agreement(run));
    print_line(out, run.validation.back());
    std::vector<double> x_defined(b.size(), 0.0);
    const SolveResult defined = solver->solve(b, x_defined, defined_solve());
    run.iterations = defined.iterations;
    {
        ValidationLine v;
        v.name = "defined_solve_converged";
        v.value = defined.relative_residual;
        v.bound = kProxyTolerance;
        v.passed = defined.status == SolveStatus::converged;
        v.detail = std::string(to_string(defined.status)) + " in " +
                   std::to_string(defined.iterations) + " iterations (at most " +
                   std::to_string(kProxyMaxIterations) + "), relative residual " +
                   sci(defined.relative_residual) + " (tolerance " + sci(kProxyTolerance) + ")";
        run.validation.push_back(v);
        print_line(out, v);
    }
    const std::uint64_t checksum = proxy::bits_checksum(x_defined);
    std::vector<double> x_again(b.size(), 0.0);
    const SolveResult again = solver->solve(b, x_again, defined_solve());
    int differing =
        again.iterations != defined.iterations || proxy::bits_checksum(x_again) != checksum;
    if (run.method == Method::qmr) {
        run.validation.push_back(transpose_line(run));
        print_line(out, run.validation.back());
    }
    run.validation_seconds = since(t0);

    // ---- timed phase
    if (run.valid()) {
        out << "  timed phase: the defined solve (" << run.iterations
            << " iterations) repeated for at least " << fixed(run.args.min_seconds, 0) << " s\n";
        t0 = Clock::now();
        std::vector<double> x;
        for (int k = 0; k < 2 || since(t0) < run.args.min_seconds; ++k) {
            x.assign(b.size(), 0.0);
            const auto t_call = Clock::now();
            const SolveResult r = solver->solve(b, x, defined_solve());
            run.solve_wall_seconds.push_back(since(t_call));
            run.solve_seconds.push_back(solver->info().solve_seconds);
            if (args.fault == "nonreproducible" && k == 1) {
                x[0] = std::nextafter(x[0], x[0] >= 0 ? 1e300 : -1e300);
            }
            differing += r.iterations != run.iterations || proxy::bits_checksum(x) != checksum;
        }
        run.timed_seconds = since(t0);
        run.solve_median = median(run.solve_seconds);
        {
            ValidationLine v;
            v.name = "reproducibility";
            v.value = differing;
            v.bound = 0.0;
            v.passed = differing == 0;
            v.detail =
                std::to_string(run.solve_seconds.size() + 1) +
                " repeated solves against the validation solve: " + std::to_string(differing) +
                " differ in iterations or bits";
            run.validation.push_back(v);
            print_line(out, v);
        }

        // ---- final check
        t0 = Clock::now();
        if (args.fault == "perturb_solution") {
            double biggest = 0.0;
            for (double e : x) biggest = std::max(biggest, std::abs(e));
            for (double& e : x) e += 1e-3 * biggest;
        }
        ValidationLine v;
        v.name = "true_residual";
        v.value = proxy::true_relative_residual(A, b, x);
        v.bound = kProxyTrueResidualFactor * kProxyTolerance;
        v.passed = v.value <= v.bound;
        v.detail = "||b - A x|| / ||b|| of the last timed solution by the reference product: " +
                   sci(v.value) + " (bound " + sci(v.bound) + ")";
        run.validation.push_back(v);
        run.final_seconds = since(t0);
        print_line(out, v);
    }
    solver.reset();  // the model's kernels take the device memory next

    // ---- figure of merit and model
    if (run.solve_median > 0.0) {
        const double n = static_cast<double>(run.unknowns);
        run.solve_rate = n / run.solve_median;
        run.fom = n / (run.solve_median + run.setup_seconds / kSetupAmortization);
        run.gdof_iterations = n * run.iterations / run.solve_median / 1e9;
        run.effective_bandwidth = run.bytes_per_iteration * run.iterations / run.solve_median;
        t0 = Clock::now();
        const auto measured = time_kernels(run, A);
        for (const proxy::KernelModel& k :
             proxy::iteration_kernels(A, run.method, run.preconditioner)) {
            KernelLine line{k, proxy::predicted_seconds(k.bytes, run.triad_bytes_per_second), 0.0};
            for (const auto& [name, seconds] : measured) {
                if (name == k.name) line.measured_seconds = seconds;
            }
            run.kernels.push_back(line);
        }
        run.iteration_measured = run.solve_median / std::max(run.iterations, 1);
        run.iteration_predicted =
            proxy::predicted_seconds(run.bytes_per_iteration, run.triad_bytes_per_second);
        run.model_seconds = since(t0);
    }

    // ---- report
    const std::string yaml = proxy_report_yaml(run);
    AtomicOutput file(args.report);
    {
        std::ofstream s(file.temp_path());
        if (!s) throw InputError("--report", "cannot write '" + args.report + "'");
        s << yaml;
        if (!s.flush()) throw Error("write to '" + args.report + "' failed");
    }
    file.commit();

    out << "  model (predicted at the triad bandwidth / measured alone):\n";
    for (const KernelLine& k : run.kernels) {
        out << "    " << k.model.name << ": " << fixed(k.predicted_seconds * 1e6, 1) << " / "
            << fixed(k.measured_seconds * 1e6, 1) << " us ("
            << fixed(k.measured_seconds / std::max(k.predicted_seconds, 1e-30), 2) << "x)\n";
    }
    if (run.iteration_predicted > 0.0) {
        out << "    iteration: " << fixed(run.iteration_predicted * 1e6, 1) << " / "
            << fixed(run.iteration_measured * 1e6, 1) << " us ("
            << fixed(run.iteration_measured / run.iteration_predicted, 2) << "x)\n";
    }
    if (run.fom > 0.0) {
        out << "  figure of merit: " << sci(run.fom, 4) << " unknowns/s (solve "
            << fixed(run.solve_median, 4) << " s median of " << run.solve_seconds.size()
            << ", setup " << fixed(run.setup_seconds, 3) << " s charged over " << kSetupAmortization
            << " solves); " << fixed(run.gdof_iterations, 3) << " GDOF-it/s; "
            << fixed(run.effective_bandwidth / 1e9, 1)
            << " GB/s = " << fixed(run.effective_bandwidth / run.triad_bytes_per_second, 2)
            << " of triad\n";
    }
    const bool valid = run.valid();
    out << (valid ? "VALID" : "INVALID");
    if (!valid) {
        std::string sep = ": ";
        for (const ValidationLine& v : run.validation) {
            if (!v.passed) {
                out << sep << v.name;
                sep = ", ";
            }
        }
    }
    out << "\nreport: " << args.report << '\n';
    (void)err;
    return valid ? kExitOk : kExitFailed;
}

}  // namespace heptane::app
