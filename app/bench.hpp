#pragma once
/// @file `heptane bench spmv | solve | ksparse | smoother`: measured against the machine's own
/// limits (the device's STREAM triad measured in the same run); `bench update | cpr`: a deck's
/// solver and CPR. Each prints a table on stdout and writes a YAML report.
#include <array>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "core/krylov/solver_settings.hpp"

namespace heptane::app {

/// bench smoother: the convergence study of seed 003 section 3 (Fig. 4) and the throughput of
/// the block preconditioners and smoothers (section 4.2).
struct SmootherStudyOptions {
    int grid = 64;  ///< the Poisson problem poisson_matrix(g, g, g)
    /// Block shapes (bx, by, bz), z fastest: seed 003's 8..512-cell blocks with its x-first
    /// growth moved to our fastest axis (its (4, 2, 2) is our (2, 2, 4)).
    std::vector<std::array<int, 3>> shapes{{2, 2, 2}, {2, 2, 4}, {2, 4, 4}, {4, 4, 4},
                                           {4, 4, 8}, {4, 8, 8}, {8, 8, 8}};
    double jacobi_omega = 0.8;    ///< block Jacobi's damping (the seed's); Gauss-Seidel: 1
    int sweeps = 3;               ///< relative error ||r_s|| / ||r_0|| after s sweeps
    int asymptotic_sweeps = 300;  ///< length of the run the convergence factor is taken from
    int window = 100;             ///< k of the factor (||r_{i+k}|| / ||r_i||)^{1/k}
    unsigned long long seed = 1;  ///< the random initial guess, uniform in [-1, 1)
};

/// One (backend, method, shape) of the convergence study. f = 0, so r_k = -A x_k and the
/// solution is x = 0.
struct SmootherConvergenceRow {
    std::string backend;  ///< "cpu" (deterministic lexicographic GS) or "gpu" (chaotic GS)
    Method method = Method::block_jacobi;  ///< block_jacobi or block_gs
    std::array<int, 3> shape{0, 0, 0};
    double omega = 1.0;
    double relative_error = 0.0;  ///< ||r_s|| / ||r_0|| after options.sweeps sweeps
    /// (||r_last|| / ||r_first||)^{1 / (last - first)}: the window of options.window sweeps
    /// ending at the last sweep of the run, or, when the residual fell below
    /// kSmootherResidualFloor ||r_0|| first (an exact or nearly exact solve), the window
    /// ending at the last sweep above it. 0 when already the first sweep fell below.
    double factor = 0.0;
    int window_first = 0, window_last = 0;
    int sweeps_run = 0;           ///< sweeps performed (fewer than asked when stopped at the floor)
    std::vector<double> history;  ///< ||r_k|| / ||r_0||, k = 0 .. sweeps_run
    double setup_seconds = 0.0;   ///< factoring the blocks (CPU), or the device setup (GPU)
    double seconds = 0.0;         ///< the sweeps and their residual norms
    /// Why the run ended before its sweeps while still above the floor (the GPU solver's
    /// status and detail), else empty.
    std::string note;
};

/// Far above the subnormal range, where the arithmetic (and its speed) changes; with f = 0
/// the iteration is homogeneous, so its rounding scales with x and the factor stays
/// measurable down to here.
constexpr double kSmootherResidualFloor = 1e-250;

/// The window factor of a history ||r_k|| / ||r_0|| (see SmootherConvergenceRow::factor);
/// fills factor, window_first, window_last.
void set_window_factor(SmootherConvergenceRow& row, int window);

/// The random initial guess of the study (n entries, uniform in [-1, 1), Rng(seed)).
std::vector<double> smoother_initial_guess(std::size_t n, unsigned long long seed);

/// Called with each row of the study as soon as it is measured (long runs show progress).
using SmootherRowCallback = std::function<void(const SmootherConvergenceRow&)>;

/// The study on the CPU reference (core block_jacobi_sweep / block_gs_sweep, ||A x|| by the
/// core SpMV after every sweep, max(sweeps, asymptotic_sweeps) sweeps unless the residual
/// reaches the floor): rows in the order shapes x {block_jacobi, block_gs}.
std::vector<SmootherConvergenceRow> smoother_convergence_cpu(
    const SmootherStudyOptions& options, const SmootherRowCallback& on_row = {});

/// The same on the device: gpu::block_smoother with b = 0 and tolerance 0 runs the sweeps
/// and returns ||r_k|| / ||r_0|| (chaotic Gauss-Seidel). Throws NotCompiled without CUDA.
std::vector<SmootherConvergenceRow> smoother_convergence_gpu(
    const SmootherStudyOptions& options, const SmootherRowCallback& on_row = {});

/// "2x2x4,8x8x8" items -> shapes, each entry in [1, 1024] (InputError at --shapes).
std::vector<std::array<int, 3>> parse_shapes(const std::vector<std::string>& items);

struct BenchArgs {
    std::vector<int> grids{32, 64, 128};            ///< cubic grids g^3
    std::vector<int> ks{1, 2, 3, 4, 6, 8, 12, 16};  ///< block sizes
    int repeats = 20;                               ///< timed runs per kernel (median)
    int wells = 16;
    int iterations = 100;       ///< bench solve: fixed iteration count
    double max_host_gb = 48.0;  ///< skip systems larger than this
    /// bench solve: the GPU solvers timed (in_kernel, multi_kernel, library)
    std::vector<std::string> solvers{"in_kernel", "multi_kernel", "library"};
    /// bench solve: the Krylov methods timed (bicgstab, qmr)
    std::vector<std::string> methods{"bicgstab", "qmr"};
    /// bench solve: the right preconditioner of the GPU solvers (none, point_block_jacobi,
    /// line_jacobi, block_jacobi with 4 x 4 x 4 blocks); a solver that cannot take it is
    /// skipped with the reason
    std::string preconditioner = "none";
    /// bench ksparse: the MatrixMarket file, its block sizes ("a..b" ranges expanded) and the
    /// seed of the promoted blocks' values
    std::string matrix;
    std::vector<int> block_sizes;
    unsigned long long seed = 1;
    bool tune = false;         ///< bench ksparse: tune the kernels not yet cached
    bool retune = false;       ///< bench ksparse: tune again even when cached
    std::string tuning_cache;  ///< bench ksparse: the cache file ("" = the default path)
    bool cpu = false;          ///< also time the CPU reference
    /// bench smoother: the study (study.seed is --seed), --asymptotic-sweeps (0: 2000 on the
    /// GPU, 300 on the CPU), --backend (auto | cpu | gpu | both) and the throughput system
    /// (--deck, else the Poisson matrix of the study's grid)
    SmootherStudyOptions study;
    int asymptotic_sweeps = 0;
    std::string backend = "auto";
    int solves = 20;                     ///< bench update: solves (the first sets the solver up)
    int cycles = 20;                     ///< bench cpr: cycles per level's convergence factor
    std::vector<std::string> overrides;  ///< bench update, cpr: --set key.path=value
    std::string deck;
    std::string report;   ///< YAML report path
    std::string command;  ///< the command line, for the report
};

/// Median and minimum seconds of `run` over `repeats` host-timed runs after one warm-up.
std::pair<double, double> host_times(int repeats, const std::function<void()>& run);
/// The median of host_times.
double host_median(int repeats, const std::function<void()>& run);

/// The CPU's STREAM triad (OpenMP) on three arrays of n doubles: 24 n bytes / median seconds.
double cpu_triad(std::size_t n, int repeats);

int cmd_bench_spmv(const BenchArgs& args, std::ostream& out);
int cmd_bench_solve(const BenchArgs& args, std::ostream& out);
int cmd_bench_ksparse(const BenchArgs& args, std::ostream& out);
int cmd_bench_smoother(const BenchArgs& args, std::ostream& out);
/// bench update (app/bench_update.cpp): the deck's solver made once, then args.solves times
/// update_values and solve; the first setup against the later updates.
int cmd_bench_update(const BenchArgs& args, std::ostream& out);
/// bench assembly (app/bench_assembly.cpp): the two-phase residual and Jacobian at the deck's
/// initial state on the host and on the GPU, timed, compared bit for bit, the device's
/// against its minimal bytes at the triad.
int cmd_bench_assembly(const BenchArgs& args, std::ostream& out);
/// bench cpr (app/bench_cpr.cpp): CPR made for the deck's system (solver.cpr, CPU); the
/// convergence factor of each multigrid level's cycle over args.cycles cycles, the cost of one
/// cycle, and BiCGStab with CPR to the deck's tolerance; with a GPU (args.backend auto or gpu)
/// the device's setup, application and cycle from each level (gpu::time_cpr).
int cmd_bench_cpr(const BenchArgs& args, std::ostream& out);

/// "1..16,24,32" -> 1, 2, ..., 16, 24, 32; each in [1, 128] (InputError at --block-sizes).
std::vector<int> parse_block_sizes(const std::vector<std::string>& items);

}  // namespace heptane::app
