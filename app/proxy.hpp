#pragma once
/// @file `heptane proxy`: the procurement proxy run (issue 18; docs/PROXY.md). The defined
/// problem (proxy/problem.hpp) sized to the machine, four timed phases (setup, validation,
/// the timed solves, the final check), validation inside the run, the figure of merit, the
/// performance model (proxy/model.hpp) against kernels timed in the same run, and a YAML
/// report with a versioned schema (scripts/check_proxy_report.py). VALID: exit 0; INVALID:
/// exit 1 with the reasons.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "core/krylov/solver_settings.hpp"
#include "proxy/model.hpp"
#include "proxy/problem.hpp"

namespace heptane::app {

/// The version of the report's schema (docs/PROXY.md, "Report"); a change of a key is a new
/// version.
constexpr int kProxyReportVersion = 3;

/// Run rules of version 1 (docs/PROXY.md, "Run rules").
constexpr double kProxyTolerance = 1e-6;          ///< ||b - A x|| / ||b|| of the defined solve
constexpr int kProxyMaxIterations = 20000;        ///< a solve that needs more is INVALID
constexpr double kProxyTrueResidualFactor = 2.0;  ///< true residual <= factor x tolerance
constexpr double kOfficialMinSeconds = 60.0;      ///< the timed phase of an official run
constexpr double kQuickMinSeconds = 5.0;
constexpr double kOfficialMemoryFraction = 0.25;  ///< least share of memory an official run uses
constexpr int kSetupAmortization = 50;            ///< solves the one-time setup is charged over

struct ProxyArgs {
    std::string backend = "auto";  ///< auto | cpu | gpu
    /// GPU: auto (the faster of the two for the problem's size: sized_gpu_kernel, the
    /// crossover measured on the H100) | in_kernel | multi_kernel
    std::string kernel = "auto";
    std::string method = "bicgstab";  ///< bicgstab (official) | qmr (no preconditioner)
    bool quick = false;               ///< the quick size and kQuickMinSeconds
    double min_seconds = 0.0;         ///< 0: kOfficialMinSeconds (kQuickMinSeconds with quick)
    double memory_fraction = 0.0;     ///< 0: kOfficialMemoryFraction (not with quick or dims)
    std::vector<int> dims;            ///< nx ny nz (explicit size)
    bool secondary = true;            ///< also the K = 3, 4, 8 variants
    std::string report = "heptane_proxy.yaml";
    /// Test hook (hidden option --test-fault): "perturb_solution" adds 1e-3 max|x| to every
    /// entry of the final solution before the final check; "nonreproducible" flips the last
    /// bit of one entry of the second timed solve, as a reduction in another order would.
    /// Either must turn the run INVALID.
    std::string fault;
    std::string command;  ///< the command line, for the report
};

/// One check of the run (a line of the report): its numbers and whether it passed.
struct ValidationLine {
    std::string name;
    bool passed = false;
    double value = 0.0;  ///< the measured quantity (what the bound applies to)
    double bound = 0.0;
    std::string detail;  ///< one sentence with the numbers
};

/// One kernel of the model with its measurement.
struct KernelLine {
    proxy::KernelModel model;
    double predicted_seconds = 0.0;
    double measured_seconds = 0.0;  ///< median of the kernel timed alone
};

/// One problem taken through the phases: the defined problem, or a secondary variant.
struct ProblemRun {
    std::string name;  ///< "defined", or "k3", "k4", "k8"
    int block_size = 2;
    proxy::ProblemSize size;
    std::string sizing;  ///< how the size was chosen
    long long unknowns = 0, cells = 0, wells = 0, nonzeros = 0;
    long long rank_cells = 0, rank_wells = 0;  ///< this rank's share (all of it in one process)
    bool gpu = false;
    std::string kernel;  ///< the solver object's own description
    /// How the halo planes travel (SolverInfo::halo_path; "none" in one process).
    std::string halo_path = "none";
    double workspace_bytes = 0.0, bytes_per_iteration = 0.0;
    // phases (seconds)
    double generation_seconds = 0.0, setup_seconds = 0.0, update_seconds = 0.0;
    double validation_seconds = 0.0, timed_seconds = 0.0, final_seconds = 0.0;
    double min_seconds = 0.0;  ///< the timed phase's least length
    // the timed phase
    int iterations = 0;                 ///< of the defined solve (every timed solve takes the same)
    std::vector<double> solve_seconds;  ///< each timed solve (the solver's own time)
    std::vector<double> solve_wall_seconds;  ///< each timed solve's solve() call
    double solve_median = 0.0;
    /// Under mpirun, this rank's share of each timed solve (SolverInfo): halo exchanges, joins
    /// of sums across the ranks, b and x to and from its GPU.
    std::vector<double> halo_seconds, reduction_seconds, transfer_seconds;
    std::vector<ValidationLine> validation;
    // figures
    double fom = 0.0;                  ///< unknowns / (t_solve + setup / kSetupAmortization)
    double solve_rate = 0.0;           ///< unknowns / t_solve
    double gdof_iterations = 0.0;      ///< unknowns x iterations / t_solve / 1e9
    double effective_bandwidth = 0.0;  ///< bytes_per_iteration x iterations / t_solve
    bool valid() const;
};

/// One rank's share of the defined problem (the report's per_rank list).
struct RankLine {
    int rank = 0;
    long long cells = 0, unknowns = 0, wells = 0;
    double solve_median = 0.0;  ///< this rank's median timed solve
    /// Medians over the timed solves of this rank's seconds a solve in halo exchanges, in
    /// joins of sums across the ranks and in copies of b and x to and from its GPU.
    double halo_median = 0.0, reduction_median = 0.0, transfer_median = 0.0;
};

/// Everything a run measured and decided: the report's content.
struct ProxyRun {
    ProxyArgs args;
    int ranks = 1;                 ///< MPI ranks (1 without mpirun)
    proxy::ProblemSize rank_size;  ///< one rank's share (the whole problem on one rank)
    std::vector<RankLine> per_rank;
    bool official = false;
    std::vector<std::string> deviations;  ///< why the run is not official
    bool gpu = false;
    int openmp_threads = 0;
    double triad_bytes_per_second = 0.0;  ///< this rank's machine (the model's bandwidth)
    double triad_all_ranks = 0.0;         ///< the ranks' triads summed (the figure of merit's)
    Method method = Method::bicgstab;
    PreconditionerKind preconditioner = PreconditionerKind::point_block_jacobi;
    ProblemRun defined;                 ///< the headline
    std::vector<ProblemRun> secondary;  ///< K = 3, 4, 8 (not with --no-secondary)
    // the performance model (the defined problem)
    double model_seconds = 0.0;
    std::vector<KernelLine> kernels;
    double iteration_predicted = 0.0, iteration_measured = 0.0;
    /// The unfused iteration: the kernels' bytes x calls (core iteration_bytes) and their
    /// times alone x calls, against which the solver's fusion and synchronization show.
    double kernel_sum_bytes = 0.0, kernel_sum_predicted = 0.0, kernel_sum_measured = 0.0;
    /// Every check of the defined problem and of the variants passed.
    bool valid() const;
};

/// The failed checks of the run, each named as the report and the summary name it:
/// "true_residual" for the defined problem, "k4 reproducibility" for a variant.
std::vector<std::pair<std::string, const ValidationLine*>> failed_checks(const ProxyRun& run);

int cmd_proxy(const ProxyArgs& args, std::ostream& out);

/// The run as the report's YAML (app/proxy_report.cpp).
std::string proxy_report_yaml(const ProxyRun& run);

}  // namespace heptane::app
