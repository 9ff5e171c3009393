// `heptane bench cpr DECK`: how well CPR's pressure stage converges, level by level (issue 21:
// "measure the convergence factor per level"), what CPR gives BiCGStab on the deck's system
// (CPU reference), and, on a GPU, what each level of the device's cycle costs: whether the
// small levels are bound by their launches (issue 21 item 4: fuse the cycle where it pays).
#include <omp.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "app/bench.hpp"
#include "app/bench_common.hpp"
#include "app/deck.hpp"
#include "app/report.hpp"
#include "app/solver_setup.hpp"
#include "core/base/random.hpp"
#include "core/base/vector_ops.hpp"
#include "core/krylov/krylov.hpp"
#include "core/krylov/names.hpp"
#include "core/precond/cpr.hpp"
#include "core/spmv/spmv.hpp"
#include "gpu/bench.hpp"
#include "gpu/device.hpp"

namespace heptane::app {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kFactorWindow = 5;  ///< the factor is (||r_N|| / ||r_{N-5}||)^(1/5)
constexpr int kTimedCycles = 5;   ///< the cycle's cost: median of this many
constexpr std::uint64_t kSeed = 1;

/// One level of the hierarchy and its factor (none for an inverted coarsest level).
struct LevelRow {
    int nx = 0, ny = 0, nz = 0;
    index_t rows = 0;
    bool inverted = false;
    double factor = 0.0;
    std::vector<double> ratios;  ///< ||r_k|| / ||r_{k-1}||, k = 1 .. cycles
};

/// The stationary iteration x <- x + C (b - A_l x) from x = 0 with a seeded random b, C one
/// cycle from level l (StructuredMg::cycle_from). Its residual is r_k = (I - A_l C)^k b: run
/// as r <- r - A_l C r and rescaled to norm 1 after each cycle (the ratio kept), so rounding
/// in b - A_l x cannot floor it when the factor is small.
LevelRow level_factor(const StructuredMg& mg, int l, int cycles) {
    const GHMatrix& A = mg.level(l);
    LevelRow row;
    row.nx = A.nx(), row.ny = A.ny(), row.nz = A.nz(), row.rows = A.rows();
    row.inverted = l == mg.levels() - 1 && !mg.coarsest_inverse().empty();
    if (row.inverted) return row;  // one cycle there is the exact solve
    const index_t n = A.rows();
    std::vector<double> r(static_cast<std::size_t>(n)), c(r.size()), ac(r.size());
    Rng rng(kSeed, static_cast<std::uint64_t>(l));
    for (double& v : r) v = rng.uniform(-1.0, 1.0);
    vec::scale(1.0 / vec::norm2(r.data(), n), r.data(), n);
    for (int k = 0; k < cycles; ++k) {
        mg.cycle_from(l, r.data(), c.data());
        spmv(A, c.data(), ac.data());
        vec::axpy(-1.0, ac.data(), r.data(), n);  // r = r - A C r
        const double ratio = vec::norm2(r.data(), n);
        row.ratios.push_back(ratio);
        if (!(ratio > 0.0 && std::isfinite(ratio))) break;  // solved exactly, or diverged
        vec::scale(1.0 / ratio, r.data(), n);
    }
    if (static_cast<int>(row.ratios.size()) < cycles) {  // stopped: 0, inf or NaN
        row.factor = row.ratios.back();
        return row;
    }
    double log_sum = 0.0;
    for (int k = cycles - kFactorWindow; k < cycles; ++k) log_sum += std::log(row.ratios[k]);
    row.factor = std::exp(log_sum / kFactorWindow);
    return row;
}

}  // namespace

int cmd_bench_cpr(const BenchArgs& args, std::ostream& out) {
    // The deck need not name CPR: it is put first, so --set solver.cpr.* is checked as usual.
    std::vector<std::string> overrides{"solver.method=bicgstab", "solver.preconditioner=cpr"};
    overrides.insert(overrides.end(), args.overrides.begin(), args.overrides.end());
    const Deck deck = load_deck(args.deck, overrides);
    const wells::Model model = build_model(deck);
    const GHMatrix& A = model.system.matrix;
    const MgOptions& mgo = deck.solver.cpr.mg;

    const auto t_setup = Clock::now();
    const CprPreconditioner M(A, deck.solver.cpr);
    const double setup_seconds = seconds_since(t_setup);
    const StructuredMg& mg = M.multigrid();

    const std::string device = "CPU (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)";
    out << "heptane bench cpr " << deck.path << " on " << device << ": " << with_commas(A.rows())
        << " unknowns (" << A.nx() << " x " << A.ny() << " x " << A.nz()
        << ", K = " << A.block_size() << ", " << A.num_wells() << " wells)\n";
    out << "  CPR: cycle " << deck_name(mgo.cycle) << ", smoother " << deck_name(mgo.smoother)
        << ", sweeps " << mgo.pre_sweeps << " + " << mgo.post_sweeps << ", coarsening "
        << mgo.factor[0] << "x" << mgo.factor[1] << "x" << mgo.factor[2] << "; " << mg.levels()
        << " levels; setup " << fixed(setup_seconds, 4) << " s\n";
    out << "  level  grid                 rows        factor  ((||r_" << args.cycles << "|| / ||r_"
        << args.cycles - kFactorWindow << "||)^(1/" << kFactorWindow
        << "), x <- x + C (b - A x) from x = 0)\n";
    std::vector<LevelRow> rows;
    for (int l = 0; l < mg.levels(); ++l) {
        rows.push_back(level_factor(mg, l, args.cycles));
        const LevelRow& r = rows.back();
        char line[160];
        const std::string grid =
            std::to_string(r.nx) + " x " + std::to_string(r.ny) + " x " + std::to_string(r.nz);
        std::snprintf(line, sizeof line, "  %5d  %-19s  %10s  %s\n", l, grid.c_str(),
                      with_commas(r.rows).c_str(),
                      r.inverted ? "inverted (coarsest)" : fixed(r.factor, 4).c_str());
        out << line;
    }

    const std::size_t n = static_cast<std::size_t>(A.rows());
    std::vector<double> b(n), z(n);
    Rng rng(kSeed);
    for (double& v : b) v = rng.uniform(-1.0, 1.0);
    const double cycle_seconds = host_median(kTimedCycles, [&] { mg.vcycle(b.data(), z.data()); });
    const double apply_seconds = host_median(kTimedCycles, [&] { M.apply(b.data(), z.data()); });
    out << "  one cycle from level 0 (" << with_commas(mg.level(0).rows())
        << " rows): " << fixed(1e3 * cycle_seconds, 3)
        << " ms; one CPR application: " << fixed(1e3 * apply_seconds, 3) << " ms (medians of "
        << kTimedCycles << ")\n";

    const SolveOptions options = solve_options(deck);
    std::vector<double> x(n, 0.0);
    const auto t_solve = Clock::now();
    const SolveResult result =
        bicgstab(GHOperator(A), model.system.rhs.data(), x.data(), options, &M);
    const double solve_seconds = seconds_since(t_solve);
    out << "  BiCGStab with CPR to " << sci(options.tolerance) << ": " << to_string(result.status)
        << " after " << result.iterations << " iterations, true residual "
        << sci(result.true_relative_residual) << ", " << fixed(solve_seconds, 3) << " s\n";

    const bool on_gpu = bench_on_gpu(args.backend, "bench cpr");
    gpu::CprTimes dev;
    std::string gpu_name;
    if (on_gpu) {
        gpu_name = gpu::list_devices()[0].name;
        dev = gpu::time_cpr(A, deck.solver.cpr, args.repeats);
        out << "  on " << gpu_name << " (CUDA graphs, medians of " << args.repeats
            << ", L2 flushed): setup " << fixed(1e3 * dev.setup_seconds, 3)
            << " ms; one CPR application " << fixed(1e3 * dev.apply.median_seconds, 3) << " ms ("
            << dev.apply_kernels << " kernels)\n";
        out << "  level  rows        cycle from level [ms]  kernels  the level alone [ms]  "
               "kernels  [us / kernel]\n";
        for (std::size_t l = 0; l < dev.cycles.size(); ++l) {
            // The cycle from l runs the one from l + 1 once (V), or twice (W, but on the level
            // above the coarsest), and its own work.
            const std::size_t below = l + 1 == dev.cycles.size()                             ? 0
                                      : mgo.cycle == MgCycle::w && l + 2 < dev.cycles.size() ? 2
                                                                                             : 1;
            const double own = dev.cycles[l].median_seconds -
                               (below ? below * dev.cycles[l + 1].median_seconds : 0.0);
            const int own_kernels =
                dev.cycle_kernels[l] -
                (below ? static_cast<int>(below) * dev.cycle_kernels[l + 1] : 0);
            char line[200];
            std::snprintf(line, sizeof line, "  %5zu  %10s  %21.4f  %7d  %20.4f  %7d  %13.1f\n", l,
                          with_commas(rows[l].rows).c_str(), 1e3 * dev.cycles[l].median_seconds,
                          dev.cycle_kernels[l], 1e3 * own, own_kernels,
                          own_kernels > 0 ? 1e6 * own / own_kernels : 0.0);
            out << line;
        }
        const double boundary = dev.kernel_boundary_seconds, barrier = dev.grid_barrier_seconds;
        out << "  a kernel boundary in a graph (" << dev.apply_kernels << " empty kernels) costs "
            << fixed(1e6 * boundary, 2) << " us, a persistent kernel's grid barrier "
            << fixed(1e6 * barrier, 2) << " us: fusing the application's " << dev.apply_kernels
            << " kernels would save at most "
            << fixed(1e3 * dev.apply_kernels * (boundary - barrier), 3) << " ms of its "
            << fixed(1e3 * dev.apply.median_seconds, 3) << " ms\n";
    }

    YAML::Emitter y;
    begin_report(y, "cpr", args.command, device);
    y << YAML::Key << "deck" << YAML::Value << deck.path;
    y << YAML::Key << "unknowns" << YAML::Value << A.rows();
    y << YAML::Key << "cycle" << YAML::Value << deck_name(mgo.cycle);
    y << YAML::Key << "smoother" << YAML::Value << deck_name(mgo.smoother);
    y << YAML::Key << "sweeps" << YAML::Value << YAML::Flow << YAML::BeginSeq << mgo.pre_sweeps
      << mgo.post_sweeps << YAML::EndSeq;
    y << YAML::Key << "coarsening" << YAML::Value << YAML::Flow << YAML::BeginSeq << mgo.factor[0]
      << mgo.factor[1] << mgo.factor[2] << YAML::EndSeq;
    y << YAML::Key << "cycles" << YAML::Value << args.cycles;
    y << YAML::Key << "setup_seconds" << YAML::Value << setup_seconds;
    y << YAML::Key << "levels" << YAML::Value << YAML::BeginSeq;
    for (const LevelRow& r : rows) {
        y << YAML::BeginMap;
        y << YAML::Key << "dims" << YAML::Value << YAML::Flow << YAML::BeginSeq << r.nx << r.ny
          << r.nz << YAML::EndSeq;
        y << YAML::Key << "rows" << YAML::Value << r.rows;
        if (r.inverted) {
            y << YAML::Key << "solve" << YAML::Value << "inverted";
        } else {
            y << YAML::Key << "factor" << YAML::Value << r.factor;
            y << YAML::Key << "ratios" << YAML::Value << YAML::Flow << r.ratios;
        }
        y << YAML::EndMap;
    }
    y << YAML::EndSeq;
    y << YAML::Key << "cycle_seconds" << YAML::Value << cycle_seconds;
    y << YAML::Key << "apply_seconds" << YAML::Value << apply_seconds;
    if (on_gpu) {
        y << YAML::Key << "gpu" << YAML::Value << YAML::BeginMap;
        y << YAML::Key << "device" << YAML::Value << gpu_name;
        y << YAML::Key << "repeats" << YAML::Value << args.repeats;
        y << YAML::Key << "setup_seconds" << YAML::Value << dev.setup_seconds;
        y << YAML::Key << "apply_seconds" << YAML::Value << dev.apply.median_seconds;
        y << YAML::Key << "apply_kernels" << YAML::Value << dev.apply_kernels;
        std::vector<double> cycle_seconds;
        for (const gpu::Timing& t : dev.cycles) cycle_seconds.push_back(t.median_seconds);
        y << YAML::Key << "cycle_seconds" << YAML::Value << YAML::Flow << cycle_seconds;
        y << YAML::Key << "cycle_kernels" << YAML::Value << YAML::Flow << dev.cycle_kernels;
        y << YAML::Key << "kernel_boundary_seconds" << YAML::Value << dev.kernel_boundary_seconds;
        y << YAML::Key << "grid_barrier_seconds" << YAML::Value << dev.grid_barrier_seconds;
        y << YAML::EndMap;
    }
    y << YAML::Key << "bicgstab" << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "tolerance" << YAML::Value << options.tolerance;
    y << YAML::Key << "status" << YAML::Value << to_string(result.status);
    y << YAML::Key << "iterations" << YAML::Value << result.iterations;
    y << YAML::Key << "true_relative_residual" << YAML::Value << result.true_relative_residual;
    y << YAML::Key << "solve_seconds" << YAML::Value << solve_seconds;
    y << YAML::EndMap;
    write_report(args.report, y, out);
    return 0;
}

}  // namespace heptane::app
