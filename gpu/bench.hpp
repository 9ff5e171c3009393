#pragma once
/// @file Device measurements for `heptane bench` (CUDA-free header): the device's own
/// STREAM-triad bandwidth and SpMV timings of every implementation. Timings use CUDA events
/// around single launches, after warm-up runs, with the L2 cache flushed before each timed
/// run (so small matrices are measured from device memory, not from L2); the median is
/// reported.
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "core/matrix/formats.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "core/precond/cpr_options.hpp"

namespace heptane::gpu {

struct Timing {
    std::string name;
    double median_seconds = 0.0;
    double min_seconds = 0.0;
    int repeats = 0;          ///< 0: not run (see note)
    std::string note;         ///< why it was skipped, if it was
    std::string params = {};  ///< KSPARSE: the launch parameters (describe()) and their origin
    /// SpMV: the median time a launch of kBackToBack run back to back after one L2 flush (0:
    /// not measured): a solver's loop, without one launch's latency and the write-backs of
    /// the flush's dirty L2 lines that a single launch pays.
    double back_to_back_seconds = 0.0;
};

/// Launches per back-to-back batch (Timing::back_to_back_seconds).
constexpr int kBackToBack = 20;

/// a = b + s c on three arrays of n doubles; bytes moved = 24 n.
Timing measure_triad(std::size_t n, int repeats);

/// y = GH x with every Bdia variant and, if `library`, cuSPARSE BSR (generic and legacy)
/// and CSR. A variant whose device arrays do not fit in free device memory is skipped.
std::vector<Timing> time_spmv(const GHMatrix& A, int repeats, bool library);

/// How `bench ksparse` treats the KSPARSE launch parameters.
struct KsparseBenchOptions {
    bool tune = false;       ///< brute-force tune each kernel not yet cached for (device, bs)
    bool retune = false;     ///< tune again even when cached (implies tune)
    std::string cache_path;  ///< tuning cache; empty: TuningCache::default_path()
    /// Out: one line per kernel, "k2 bs=16: tuned now, 99 candidates" or "... from the cache".
    std::vector<std::string>* tuning_log = nullptr;
};

/// y = A x for a general square BSR matrix: every KSPARSE kernel that takes A's block size
/// (ksparse_k1 for bs 1-5, ksparse_k2 for 2-128, ksparse_k3 from bs 8) with its tuned
/// parameters when the cache has them (tuning first with options.tune), else the defaults;
/// ksparse_balanced: the fastest of those with the balanced layout (default lambda); then
/// cuSPARSE BSR generic and legacy bsrmv (bs >= 2) and cuSPARSE CSR of the same matrix
/// (cusparse_bsr, cusparse_bsrmv, cusparse_csr).
std::vector<Timing> time_block_spmv(const Bsr& A, int repeats,
                                    const KsparseBenchOptions& options = {});

/// The block preconditioners and smoothers on the device (bench smoother): z = M^{-1} r for
/// precond_point_block, precond_line, precond_block (spatial blocks of `shape`), and one
/// sweep of sweep_block_jacobi (damped, omega) and sweep_block_gs (chaotic). Timing.params
/// holds "bytes=<minimal bytes of one application or sweep>" for the effective bandwidth.
std::vector<Timing> time_smoothers(const GHMatrix& A, std::array<int, 3> shape, double omega,
                                   int repeats);

/// The kernels of one BiCGStab iteration with the point-block Jacobi preconditioner, each timed
/// alone like the others here (`heptane proxy`'s performance model, proxy/model.hpp): spmv
/// (y = GH x by the solvers' Bdia kernel, default_variant(), wells included),
/// precond_point_block (z = D^-1 r, the solvers' preconditioner kernel), dot (x . y by a
/// grid-stride kernel with one atomic add a block) and axpy (y += a x), the last two on vectors
/// of A.rows() entries.
std::vector<Timing> time_iteration_kernels(const GHMatrix& A, int repeats);

/// CPR on the device, piece by piece (bench cpr): A uploaded in default_variant(), CPR set
/// up there (gpu/src/precond/cpr.cu), z = M^{-1} r once from a seeded r so that every level
/// holds a right-hand side; then z = M^{-1} r and one cycle from each level l (its levels below
/// included) are each captured in a CUDA graph, as the multi-kernel solver replays them, and
/// timed like the kernels above (L2 flushed before each replay). `kernels`: the graph's nodes.
struct CprTimes {
    double setup_seconds = 0.0;  ///< the setup on the device (weights to the coarsest inverse)
    Timing apply;
    int apply_kernels = 0;
    std::vector<Timing> cycles;  ///< one cycle from level l
    std::vector<int> cycle_kernels;
    /// What fusing would trade, per kernel of the application: a graph of apply_kernels empty
    /// kernels (one block of 128 per SM) over apply_kernels, and one persistent cooperative
    /// kernel's grid-wide barrier (cooperative groups grid.sync, a block per SM; 0 without
    /// cooperative launch).
    double kernel_boundary_seconds = 0.0;
    double grid_barrier_seconds = 0.0;
};
CprTimes time_cpr(const GHMatrix& A, const CprOptions& options, int repeats);

/// Free and total device memory in bytes (0, 0 without a device).
std::pair<std::size_t, std::size_t> device_memory();

}  // namespace heptane::gpu
