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

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <memory>
#include <ostream>

#include "app/atomic_file.hpp"
#include "app/bench.hpp"
#include "app/cli.hpp"
#include "app/mpi_session.hpp"
#include "app/report.hpp"
#include "core/base/errors.hpp"
#include "core/base/piece_sums.hpp"
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

/// The size of --quick.
constexpr proxy::ProblemSize kQuickSize{40, 40, proxy::kLayers};

/// Memory of the run's backend: the device's, or the host's on the CPU.
double backend_memory(const ProxyRun& run) {
    return run.gpu ? static_cast<double>(gpu::list_devices()[0].global_memory_bytes)
                   : host_memory_bytes();
}

/// One rank's share of the defined problem: --dims, --quick's, or the memory fraction's.
void choose_rank_size(ProxyRun& run) {
    const ProxyArgs& a = run.args;
    ProblemRun& d = run.defined;
    if (!a.dims.empty()) {
        if (a.dims.size() != 3) throw InputError("--dims", "takes three numbers: NX NY NZ");
        d.size = {a.dims[0], a.dims[1], a.dims[2]};
        if (d.size.nx < proxy::kPattern || d.size.ny < proxy::kPattern || d.size.nz < 1) {
            throw InputError("--dims", "NX and NY must be at least " +
                                           std::to_string(proxy::kPattern) +
                                           " (one five-spot pattern) and NZ at least 1");
        }
        d.sizing = "dims " + std::to_string(d.size.nx) + " x " + std::to_string(d.size.ny) + " x " +
                   std::to_string(d.size.nz);
        return;
    }
    if (a.quick && a.memory_fraction == 0.0) {
        d.size = kQuickSize;
        d.sizing = "quick";
        return;
    }
    const double fraction = a.memory_fraction > 0.0 ? a.memory_fraction : kOfficialMemoryFraction;
    if (fraction > 0.8) {
        throw InputError("--memory-fraction",
                         "at most 0.8 (the solver needs room beside the problem)");
    }
    const double memory = backend_memory(run);
    d.size = proxy::size_for_bytes(fraction * memory);
    d.sizing = "memory fraction " + fixed(fraction, 3) + " of " + fixed(memory / 1e9, 1) + " GB (" +
               (run.gpu ? "device" : "host") + ")";
}

/// Chooses the defined problem's size and says how. Under mpirun the size is one rank's and
/// the grid is `ranks` of them along i (weak scaling: the same cells a rank at any count).
void choose_size(ProxyRun& run) {
    choose_rank_size(run);
    const int ranks = mpi_ranks();
    run.rank_size = run.defined.size;
    if (ranks > 1) {
        run.defined.size.nx *= ranks;
        run.defined.sizing += " a rank, " + std::to_string(ranks) + " ranks along i";
    }
}

/// Each rank's share of the defined problem: its planes' cells, its wells' columns, its own
/// median solve time (collective under mpirun).
std::vector<RankLine> rank_lines(const ProxyRun& run) {
    const ProblemRun& d = run.defined;
    const std::vector<double> medians = mpi_allgather(d.solve_median);
    const std::vector<double> cells = mpi_allgather(static_cast<double>(d.rank_cells));
    const std::vector<double> wells = mpi_allgather(static_cast<double>(d.rank_wells));
    auto gathered = [](const std::vector<double>& mine) {
        return mpi_allgather(mine.empty() ? 0.0 : median(mine));
    };
    const std::vector<double> halo = gathered(d.halo_seconds);
    const std::vector<double> joins = gathered(d.reduction_seconds);
    const std::vector<double> transfers = gathered(d.transfer_seconds);
    std::vector<RankLine> lines;
    for (int r = 0; r < run.ranks; ++r) {
        RankLine l;
        l.rank = r;
        l.cells = static_cast<long long>(cells[static_cast<std::size_t>(r)]);
        l.wells = static_cast<long long>(wells[static_cast<std::size_t>(r)]);
        l.unknowns = l.cells * d.block_size + l.wells;
        l.solve_median = medians[static_cast<std::size_t>(r)];
        l.halo_median = halo[static_cast<std::size_t>(r)];
        l.reduction_median = joins[static_cast<std::size_t>(r)];
        l.transfer_median = transfers[static_cast<std::size_t>(r)];
        lines.push_back(l);
    }
    return lines;
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
    const proxy::ProblemSize& size = run.rank_size;
    if (!a.secondary) deviate("--no-secondary");
    if (a.secondary && mpi_launched()) deviate("no secondary variants under mpirun");
    if (size.nz != proxy::kLayers) deviate("nz " + std::to_string(size.nz) + " (85)");
    if (size.nx != size.ny || size.nx % proxy::kPattern != 0) {
        deviate("nx, ny not equal multiples of " + std::to_string(proxy::kPattern));
    }
    const double memory = backend_memory(run);
    if (static_cast<double>(size.cells()) * proxy::bytes_per_cell() <
        kOfficialMemoryFraction * memory * 0.9) {
        deviate("the problem uses less than " + fixed(kOfficialMemoryFraction, 2) + " of the " +
                (run.gpu ? "device" : "host") + " memory");
    }
    run.official = run.deviations.empty();
}

/// The system of a problem of the run at a size: the defined problem or a variant's.
using ModelAt = std::function<wells::Model(const proxy::ProblemSize&)>;

/// The run's method and preconditioner to the proxy's tolerance.
SolverSettings proxy_settings(const ProxyRun& run) {
    SolverSettings s;
    s.method = run.method;
    s.preconditioner = run.preconditioner;
    s.tolerance = kProxyTolerance;
    s.max_iterations = kProxyMaxIterations;
    return s;
}

/// The backend's solver of the run's method for A (on the GPU with `kernel`); with
/// `ranks`, over the MPI ranks' slabs (the run's own solver under mpirun, GPU ranks with gpu).
std::unique_ptr<LinearSolver> make_backend_solver(const ProxyRun& run, const GHMatrix& A, bool gpu,
                                                  GpuKernel kernel, bool ranks = false) {
    if (ranks) return make_mpi_solver(proxy_settings(run), A, gpu);
    if (gpu) {
        gpu::GpuSolveOptions o;
        o.solve.tolerance = kProxyTolerance;
        o.solve.max_iterations = kProxyMaxIterations;
        o.preconditioner = run.preconditioner;
        return gpu::make_solver(run.method, kernel, A, o);
    }
    return make_cpu_solver(proxy_settings(run), A);
}

/// The GPU kernel for a problem of K x K blocks and `rows` rows: the requested one (auto: the
/// faster for that size, sized_gpu_kernel) where it takes the run's method and
/// preconditioner (the in-kernel solver fuses point-block Jacobi only for K a power of two),
/// else the multi-kernel solver.
GpuKernel kernel_for(const ProxyRun& run, int K, long long rows) {
    SolverSettings s;
    s.method = run.method;
    s.preconditioner = run.preconditioner;
    if (run.args.kernel == "auto") {
        s.gpu_kernel = sized_gpu_kernel(s, K, rows);
    } else {
        s.gpu_kernel = *parse_name<GpuKernel>(run.args.kernel);
    }
    if (!run.gpu || support(s, K, Backend::gpu, DeckKind::grid)) return s.gpu_kernel;
    return GpuKernel::multi_kernel;
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

/// The reduced size of a problem: one pattern, its layers up to 85.
proxy::ProblemSize reduced_size(const proxy::ProblemSize& size) {
    const int patterns = (mpi_ranks() + proxy::kPattern - 1) / proxy::kPattern;  // a plane a rank
    return {proxy::kPattern * patterns, proxy::kPattern, std::min(size.nz, proxy::kLayers)};
}

/// The reduced problem by the reference and by the backend: the same status, iterations and
/// bits. On the CPU the reference is the same code on one thread (canonical sums: the bits do
/// not depend on the thread count).
ValidationLine reference_agreement(const ProxyRun& run, const ProblemRun& p,
                                   const ModelAt& model_at, GpuKernel kernel) {
    const proxy::ProblemSize reduced = reduced_size(p.size);
    const wells::Model model = model_at(reduced);
    const GHMatrix& A = model.system.matrix;
    const std::vector<double>& b = model.system.rhs;
    std::vector<double> x_ref(b.size(), 0.0), x(b.size(), 0.0);
    const SolveResult ref = with_threads(run.gpu ? omp_get_max_threads() : 1, [&] {
        return make_backend_solver(run, A, false, kernel)->solve(b, x_ref, defined_solve());
    });
    const SolveResult got =
        make_backend_solver(run, A, run.gpu, kernel, mpi_launched())->solve(b, x, defined_solve());
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
ValidationLine transpose_line(const ProxyRun& run, const ProblemRun& p, const ModelAt& model_at) {
    const wells::Model model = model_at(reduced_size(p.size));
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

void print_line(std::ostream& out, const ValidationLine& v) {
    out << "  " << (v.passed ? "pass" : "FAIL") << "  " << v.name << ": " << v.detail << '\n';
}

ValidationLine line(const char* name, bool passed, double value, double bound,
                    const std::string& detail) {
    return {name, passed, value, bound, detail};
}

/// One problem through setup, validation, the timed phase and the final check. The system is
/// kept in `model` for the performance model (under mpirun: this rank's slab). The test faults
/// apply to the defined problem.
void run_problem(ProxyRun& run, ProblemRun& p, const ModelAt& model_at, wells::Model& model,
                 std::ostream& out) {
    const std::string& fault = p.name == "defined" ? run.args.fault : std::string();
    const GpuKernel kernel = kernel_for(run, p.block_size, p.size.cells() * p.block_size);
    p.gpu = run.gpu;
    // ---- setup
    // Under mpirun (the defined problem only) each rank generates its own slab: no rank builds
    // or holds the whole system, and b and x are this rank's entries.
    if (mpi_launched() && p.name != "defined") throw std::logic_error("a variant under mpirun");
    auto t0 = Clock::now();
    std::unique_ptr<MpiSlab> slab;
    if (mpi_launched()) {
        slab = std::make_unique<MpiSlab>(proxy::problem_model(p.size));
    } else {
        model = model_at(p.size);
    }
    const std::vector<double> generation = mpi_allgather(since(t0));
    p.generation_seconds = *std::max_element(generation.begin(), generation.end());
    const GHMatrix& A = slab ? slab->model().system.matrix : model.system.matrix;
    const std::vector<double> b_mine = slab ? slab->local_rhs() : std::vector<double>();
    const std::vector<double>& b = slab ? b_mine : model.system.rhs;
    p.cells = p.size.cells();
    p.wells =
        slab ? static_cast<long long>(proxy::problem_model(p.size).wells.size()) : A.num_wells();
    p.unknowns = p.cells * A.block_size() + p.wells;
    p.nonzeros = slab ? slab->total_nonzeros() : A.nonzeros();
    p.rank_cells = slab ? slab->own_cells() : p.cells;
    p.rank_wells = slab ? slab->own_wells() : p.wells;
    out << (p.name == "defined" ? "  problem " : "  secondary " + p.name + ": ") << p.size.nx
        << " x " << p.size.ny << " x " << p.size.nz << " (" << p.sizing
        << "): " << with_commas(p.unknowns) << " unknowns, " << with_commas(p.wells)
        << " wells; generated in " << fixed(p.generation_seconds, 2) << " s\n";
    t0 = Clock::now();
    std::unique_ptr<LinearSolver> solver = slab ? slab->solver(proxy_settings(run), run.gpu)
                                                : make_backend_solver(run, A, run.gpu, kernel);
    p.setup_seconds = since(t0);
    std::vector<double> updates;
    for (int k = 0; k < 3; ++k) {
        solver->update_values(A);
        updates.push_back(solver->info().update_seconds);
    }
    p.update_seconds = median(updates);
    const SolverInfo info = solver->info();
    p.kernel = info.kernel;
    if (!info.halo_path.empty()) p.halo_path = info.halo_path;
    p.workspace_bytes = static_cast<double>(info.workspace_bytes);
    p.bytes_per_iteration = info.bytes_per_iteration;
    out << "  setup " << fixed(p.setup_seconds, 3) << " s (" << info.kernel << "), update_values "
        << fixed(p.update_seconds, 3) << " s\n";

    // ---- validation
    t0 = Clock::now();
    p.validation.push_back(reference_agreement(run, p, model_at, kernel));
    print_line(out, p.validation.back());
    std::vector<double> x_defined(b.size(), 0.0);
    const SolveResult defined = solver->solve(b, x_defined, defined_solve());
    p.iterations = defined.iterations;
    p.validation.push_back(line("defined_solve_converged", defined.status == SolveStatus::converged,
                                defined.relative_residual, kProxyTolerance,
                                std::string(to_string(defined.status)) + " in " +
                                    std::to_string(defined.iterations) + " iterations (at most " +
                                    std::to_string(kProxyMaxIterations) + "), relative residual " +
                                    sci(defined.relative_residual) + " (tolerance " +
                                    sci(kProxyTolerance) + ")"));
    print_line(out, p.validation.back());
    const std::uint64_t checksum = proxy::bits_checksum(x_defined);
    std::vector<double> x_again(b.size(), 0.0);
    const SolveResult again = solver->solve(b, x_again, defined_solve());
    // Under mpirun each rank checks its own entries; a solve differs where any rank's do.
    int differing = mpi_any(again.iterations != defined.iterations ||
                            proxy::bits_checksum(x_again) != checksum);
    if (run.method == Method::qmr) {
        p.validation.push_back(transpose_line(run, p, model_at));
        print_line(out, p.validation.back());
    }
    p.validation_seconds = since(t0);
    if (!p.valid()) return;

    // ---- timed phase
    out << "  timed phase: the defined solve (" << p.iterations
        << " iterations) repeated for at least " << fixed(p.min_seconds, 1) << " s\n";
    t0 = Clock::now();
    std::vector<double> x;
    // Under mpirun every rank must run the same solves: the ranks agree on going on.
    for (int k = 0; k < 2 || mpi_any(since(t0) < p.min_seconds); ++k) {
        x.assign(b.size(), 0.0);
        const auto t_call = Clock::now();
        const SolveResult r = solver->solve(b, x, defined_solve());
        p.solve_wall_seconds.push_back(since(t_call));
        const SolverInfo done = solver->info();
        p.solve_seconds.push_back(done.solve_seconds);
        p.halo_seconds.push_back(done.halo_seconds);
        p.reduction_seconds.push_back(done.reduction_seconds);
        p.transfer_seconds.push_back(done.transfer_seconds);
        if (fault == "nonreproducible" && k == 1) {
            x[0] = std::nextafter(x[0], x[0] >= 0 ? 1e300 : -1e300);
        }
        differing += mpi_any(r.iterations != p.iterations || proxy::bits_checksum(x) != checksum);
    }
    p.timed_seconds = since(t0);
    p.solve_median = median(p.solve_seconds);
    p.validation.push_back(line("reproducibility", differing == 0, differing, 0.0,
                                std::to_string(p.solve_seconds.size() + 1) +
                                    " repeated solves against the validation solve: " +
                                    std::to_string(differing) + " differ in iterations or bits"));
    print_line(out, p.validation.back());

    // ---- final check
    t0 = Clock::now();
    if (fault == "perturb_solution") {
        double biggest = 0.0;
        for (double e : x) biggest = std::max(biggest, std::abs(e));
        for (double& e : x) e += 1e-3 * biggest;
    }
    const double residual =
        slab ? slab->true_relative_residual(b, x) : proxy::true_relative_residual(A, b, x);
    const double bound = kProxyTrueResidualFactor * kProxyTolerance;
    p.validation.push_back(
        line("true_residual", residual <= bound, residual, bound,
             "||b - A x|| / ||b|| of the last timed solution by the reference product: " +
                 sci(residual) + " (bound " + sci(bound) + ")"));
    p.final_seconds = since(t0);
    print_line(out, p.validation.back());

    const double n = static_cast<double>(p.unknowns);
    p.solve_rate = n / p.solve_median;
    p.fom = n / (p.solve_median + p.setup_seconds / kSetupAmortization);
    if (slab) model = slab->take_model();  // the performance model times this rank's slab
    p.gdof_iterations = n * p.iterations / p.solve_median / 1e9;
    p.effective_bandwidth = p.bytes_per_iteration * p.iterations / p.solve_median;
}

/// The performance model of the defined problem: each kernel timed alone against its bytes
/// at the triad bandwidth.
void run_model(ProxyRun& run, const GHMatrix& A) {
    const auto t0 = Clock::now();
    const auto measured = time_kernels(run, A);
    for (const proxy::KernelModel& k :
         proxy::iteration_kernels(A, run.method, run.preconditioner)) {
        KernelLine kl{k, proxy::predicted_seconds(k.bytes, run.triad_bytes_per_second), 0.0};
        for (const auto& [name, seconds] : measured) {
            if (name == k.name) kl.measured_seconds = seconds;
        }
        run.kernel_sum_bytes += k.bytes * k.per_iteration;
        run.kernel_sum_predicted += kl.predicted_seconds * k.per_iteration;
        run.kernel_sum_measured += kl.measured_seconds * k.per_iteration;
        run.kernels.push_back(kl);
    }
    const ProblemRun& d = run.defined;
    run.iteration_measured = d.solve_median / std::max(d.iterations, 1);
    run.iteration_predicted =
        proxy::predicted_seconds(d.bytes_per_iteration / run.ranks, run.triad_bytes_per_second);
    run.model_seconds = since(t0);
}

/// ratio a / b as "1.23x" ("-" when b is 0).
std::string times(double a, double b) { return b > 0.0 ? fixed(a / b, 2) + "x" : "-"; }

void print_summary(std::ostream& out, const ProxyRun& run) {
    out << "  model (predicted at the triad bandwidth / measured alone):\n";
    for (const KernelLine& k : run.kernels) {
        out << "    " << k.model.name << ": " << fixed(k.predicted_seconds * 1e6, 1) << " / "
            << fixed(k.measured_seconds * 1e6, 1) << " us ("
            << times(k.measured_seconds, k.predicted_seconds) << ")\n";
    }
    if (!run.kernels.empty()) {
        out << "    the kernels' sum (unfused iteration): "
            << fixed(run.kernel_sum_predicted * 1e6, 1) << " / "
            << fixed(run.kernel_sum_measured * 1e6, 1) << " us ("
            << times(run.kernel_sum_measured, run.kernel_sum_predicted) << ")\n";
        out << "    the solver's iteration: " << fixed(run.iteration_predicted * 1e6, 1) << " / "
            << fixed(run.iteration_measured * 1e6, 1) << " us ("
            << times(run.iteration_measured, run.iteration_predicted) << ")\n";
    }
    const ProblemRun& d = run.defined;
    if (d.fom > 0.0) {
        out << "  figure of merit: " << sci(d.fom, 4) << " unknowns/s (solve "
            << fixed(d.solve_median, 4) << " s median of " << d.solve_seconds.size() << ", setup "
            << fixed(d.setup_seconds, 3) << " s charged over " << kSetupAmortization << " solves); "
            << fixed(d.gdof_iterations, 3) << " GDOF-it/s; "
            << fixed(d.effective_bandwidth / 1e9, 1)
            << " GB/s = " << fixed(d.effective_bandwidth / run.triad_all_ranks, 2) << " of triad\n";
    }
    if (run.ranks > 1 && d.fom > 0.0) {
        out << "  ranks: " << run.ranks << ", " << run.rank_size.nx << " x " << run.rank_size.ny
            << " x " << run.rank_size.nz << " cells a rank; figure of merit a rank "
            << sci(d.fom / run.ranks, 4) << " unknowns/s (scripts/weak_scaling.py compares "
            << "reports)\n";
        if (!run.per_rank.empty()) {
            const RankLine& r0 = run.per_rank.front();
            out << "  rank 0, medians a solve: halo exchanges " << fixed(r0.halo_median, 4)
                << " s, joins of sums " << fixed(r0.reduction_median, 4) << " s, b and x to and "
                << "from the device " << fixed(r0.transfer_median, 4) << " s (solve "
                << fixed(r0.solve_median, 4) << " s)\n";
        }
    }
    for (const ProblemRun& p : run.secondary) {
        if (p.fom <= 0.0) continue;
        out << "  secondary " << p.name << ": " << sci(p.fom, 4) << " unknowns/s, " << p.iterations
            << " iterations, " << fixed(p.gdof_iterations, 3) << " GDOF-it/s, "
            << fixed(p.effective_bandwidth / run.triad_bytes_per_second, 2) << " of triad\n";
    }
}

}  // namespace

bool ProblemRun::valid() const {
    return !validation.empty() && std::all_of(validation.begin(), validation.end(),
                                              [](const ValidationLine& v) { return v.passed; });
}

std::vector<std::pair<std::string, const ValidationLine*>> failed_checks(const ProxyRun& run) {
    std::vector<std::pair<std::string, const ValidationLine*>> failed;
    auto add = [&](const ProblemRun& p, const std::string& prefix) {
        for (const ValidationLine& v : p.validation) {
            if (!v.passed) failed.emplace_back(prefix + v.name, &v);
        }
    };
    add(run.defined, "");
    for (const ProblemRun& p : run.secondary) add(p, p.name + " ");
    return failed;
}

bool ProxyRun::valid() const {
    return defined.valid() && std::all_of(secondary.begin(), secondary.end(),
                                          [](const ProblemRun& p) { return p.valid(); });
}

int cmd_proxy(const ProxyArgs& args, std::ostream& out) {
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
    // QMR runs without a preconditioner (the in-kernel QMR fuses none: design decision 37;
    // the same on every backend).
    run.preconditioner = run.method == Method::bicgstab ? PreconditionerKind::point_block_jacobi
                                                        : PreconditionerKind::none;
    // auto is checked as in_kernel (the one that takes fewer combinations).
    const std::optional<GpuKernel> kernel =
        args.kernel == "auto" ? GpuKernel::in_kernel : parse_name<GpuKernel>(args.kernel);
    if (!kernel || (*kernel != GpuKernel::in_kernel && *kernel != GpuKernel::multi_kernel)) {
        throw InputError("--kernel", "auto, in_kernel or multi_kernel (the bit-exact GPU solvers)");
    }
    run.ranks = mpi_ranks();
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
    // Under mpirun the ranks' solver (dist/) takes both methods with point-block Jacobi, on CPU
    // and GPU ranks.
    if (!mpi_launched()) {
        if (const Support s =
                support(wanted, 2, run.gpu ? Backend::gpu : Backend::cpu, DeckKind::grid);
            !s) {
            throw InputError("--kernel", s.reason);
        }
    }
    check_output_path(args.report, "--report");
    choose_size(run);
    check_rules(run);
    run.openmp_threads = omp_get_max_threads();
    const std::string where =
        run.gpu ? gpu::list_devices()[0].name
                : "CPU (" + std::to_string(run.openmp_threads) + " OpenMP threads)";
    out << "heptane proxy, problem version " << proxy::kProblemVersion << ", on " << where
        << (mpi_launched() ? " x " + std::to_string(run.ranks) + " MPI ranks" : "")
        << (run.official ? " (official run)\n" : " (not official: see the report)\n");

    // The machine's own limit, measured now.
    run.triad_bytes_per_second =
        run.gpu ? 24.0 * static_cast<double>(std::size_t{1} << 27) /
                      gpu::measure_triad(std::size_t{1} << 27, 20).median_seconds
                : cpu_triad(std::size_t{1} << 25, 10);
    run.triad_all_ranks = 0.0;
    for (double t : mpi_allgather(run.triad_bytes_per_second)) run.triad_all_ranks += t;
    out << "  triad " << fixed(run.triad_bytes_per_second / 1e9, 1) << " GB/s"
        << (run.ranks > 1
                ? " (rank 0; the ranks' sum " + fixed(run.triad_all_ranks / 1e9, 1) + " GB/s)"
                : std::string())
        << "\n";

    // The defined problem, then its performance model.
    ProblemRun& d = run.defined;
    d.name = "defined";
    d.min_seconds = run.args.min_seconds;
    {
        wells::Model model;
        run_problem(
            run, d,
            [](const proxy::ProblemSize& s) { return wells::generate(proxy::problem_model(s)); },
            model, out);
        run.per_rank = rank_lines(run);
        // Under mpirun the model is this rank's slab (its planes and halo planes), timed alone.
        if (d.fom > 0.0) run_model(run, model.system.matrix);
    }
    // The secondary variants: the same bytes as the defined problem, K x K synthetic blocks,
    // a quarter of its timed phase each.
    if (run.args.secondary && d.valid() && !mpi_launched()) {
        const double bytes = static_cast<double>(d.size.cells()) * proxy::bytes_per_cell();
        for (int K : proxy::kVariantBlockSizes) {
            ProblemRun p;
            p.name = "k" + std::to_string(K);
            p.block_size = K;
            p.size = proxy::size_for_bytes(bytes, K, d.size.nz);
            p.sizing = "the defined problem's bytes";
            p.min_seconds = run.args.min_seconds / 4;
            wells::Model model;
            run_problem(
                run, p, [K](const proxy::ProblemSize& s) { return proxy::variant_system(s, K); },
                model, out);
            run.secondary.push_back(std::move(p));
        }
    }

    // ---- report
    const std::string yaml = proxy_report_yaml(run);
    if (mpi_rank() == 0) {  // rank 0 writes for every rank
        AtomicOutput file(args.report);
        {
            std::ofstream s(file.temp_path());
            if (!s) throw InputError("--report", "cannot write '" + args.report + "'");
            s << yaml;
            if (!s.flush()) throw Error("write to '" + args.report + "' failed");
        }
        file.commit();
    }

    print_summary(out, run);
    const bool valid = run.valid();
    out << (valid ? "VALID" : "INVALID");
    std::string sep = ": ";
    for (const auto& [name, line] : failed_checks(run)) {
        out << sep << name;
        sep = ", ";
    }
    out << "\nreport: " << args.report << '\n';
    return valid ? kExitOk : kExitFailed;
}

}  // namespace heptane::app
