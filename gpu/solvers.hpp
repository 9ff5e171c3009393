#pragma once
/// @file GPU BiCGStab and QMR (CUDA-free header; DESIGN section 5), each in three variants:
///  - in-kernel (the product's solver): one persistent cooperative kernel per solve, each
///    block owning a fixed range of rows, blocks synchronized by per-block arrival flags
///    with the reductions fused into three WS-S constructs per iteration (seed 002, sections
///    6.3-6.4). Canonical arithmetic: the reference's bits.
///  - multi-kernel (baseline): own Bdia SpMV + fused vector-update-and-dot kernels, one iteration
///    captured into a CUDA graph and replayed; scalars stay on the device and the host looks
///    at the device state every `check_interval` iterations only. Canonical arithmetic: the
///    same bits as the CPU reference (core/krylov/krylov.hpp), restarts included.
///  - library: cuSPARSE SpMV (BSR or CSR of the same GH) + cuBLAS vector operations with
///    device-side scalars, the paper's library comparison. Its reductions are cuBLAS's, so its
///    iterates differ from the reference by rounding.
/// All return the SolveResult of the reference (status, iterations, residuals, histories).
#include <array>
#include <cstddef>
#include <vector>

#include "core/krylov/krylov.hpp"
#include "core/krylov/names.hpp"
#include "core/krylov/solver_settings.hpp"
#include "core/ksparse/ksparse_params.hpp"
#include "core/matrix/formats.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "core/precond/block_smoothers.hpp"
#include "gpu/spmv.hpp"

namespace heptane::gpu {

/// cuSPARSE SpMV used by the library baseline: the deck's solver.library_format (bsr:
/// cusparseSpMV on BSR with K x K blocks; bsr_legacy: cusparseDbsrmv; csr: cusparseSpMV on
/// scalar CSR). Its report names (to_string) are cusparse_bsr, cusparse_bsrmv, cusparse_csr.
using LibrarySpmv = LibraryFormat;

/// Where the in-kernel solver keeps its range vectors (x, r_hat, t): in shared memory when
/// the block's rows fit (automatic), or forced either way.
enum class RangeStorage { automatic, shared, global };
const char* to_string(RangeStorage s);

struct GpuSolveOptions {
    SolveOptions solve;       ///< tolerance, max_iterations, max_restarts; progress at checks
    int check_interval = 16;  ///< iterations between host looks at the device state
    BdiaVariant variant = default_variant();  ///< multi-kernel SpMV
    LibrarySpmv library_spmv = LibrarySpmv::bsr;
    RangeStorage range_storage = RangeStorage::automatic;  ///< in-kernel solver
    /// In-kernel solver: force the rows per block (a power of two, at least 4 warps x 32 K2
    /// rows, K2 the largest power of two <= K; 0 = chosen from the occupancy). For tests and
    /// tuning.
    long long in_kernel_block_rows = 0;
    /// Multi-kernel solver's SpMV: the Bdia kernels (bdia) or KSPARSE on the BSR form of the
    /// system (ksparse; results then agree with the reference to rounding, not bitwise).
    SpmvKind spmv = SpmvKind::bdia;
    /// KSPARSE launch (spmv ksparse and matrix decks); parameters left at 0 are taken from
    /// the tuning cache when it has the (device, kernel, bs), else the defaults.
    KsparseParams ksparse;
    /// Right preconditioner (core/precond/block_smoothers.hpp): the in-kernel BiCGStab fuses
    /// point_block_jacobi (K a power of two: a thread block's rows hold whole cells); the
    /// multi-kernel BiCGStab applies every kind between kernels (Bdia SpMV only). Anything
    /// else: NotSupported (check_preconditioner says which).
    PreconditionerKind preconditioner = PreconditionerKind::none;
    std::array<int, 3> block_shape{4, 4, 4};  ///< block_jacobi preconditioner and smoothers
    double omega = 1.0;                       ///< damping of the smoothers (block_smoother)
    CprOptions cpr;                           ///< preconditioner cpr (multi_kernel BiCGStab)
};

/// The solver settings (core/krylov/solver_settings.hpp) of (method, kernel) under `options`, for
/// the capabilities check (core/krylov/capabilities.hpp).
SolverSettings settings_of(Method method, GpuKernel kernel, const GpuSolveOptions& options);

/// Whether the GPU runs the Krylov method (bicgstab or qmr) with `kernel` on a grid system
/// with K x K blocks under `options` (core/krylov/capabilities.hpp's support); throws NotSupported
/// with the reason when not. make_solver checks it.
void check_solver(Method method, GpuKernel kernel, const GpuSolveOptions& options, int K);
/// The same for a BSR system (matrix decks): bicgstab or qmr, multi_kernel, no preconditioner.
void check_bsr_solver(Method method, GpuKernel kernel, const GpuSolveOptions& options);

/// The launch the in-kernel solver chooses for a system (for reports and tests).
struct InKernelPlan {
    int grid = 0;                  ///< blocks, all co-resident
    int threads = 0;               ///< per block
    long long rows_per_block = 0;  ///< a power of two times 4 (canonical groups)
    bool shared_ranges = false;    ///< x, r_hat, t in shared memory
    std::size_t shared_bytes = 0;  ///< dynamic shared memory per block
    int blocks_per_sm = 0;         ///< occupancy at that shared memory
    int sms = 0;
    std::size_t device_bytes = 0;  ///< matrix, vectors and workspace of one solve
};

/// The largest block size whose in-kernel solvers take non-neighbour connections (a second
/// kernel each for K = 1..4, a reservoir's unknowns a cell; design decision 68). A system
/// with connections and a larger K runs with the multi-kernel solver.
inline constexpr int kInKernelConnectionsMaxK = 4;

/// The plan of `method`'s in-kernel solver (bicgstab or qmr) for A under `options`; throws
/// NotSupported when the device cannot launch it cooperatively (no cooperative launch, or
/// range vectors forced into shared memory that cannot hold them).
InKernelPlan in_kernel_plan(const GHMatrix& A, const GpuSolveOptions& options,
                            Method method = Method::bicgstab);

/// Wall times of a GPU solve (CUDA events).
struct GpuSolveTimes {
    double setup_seconds = 0.0;  ///< upload and workspace (and graph capture)
    double solve_seconds = 0.0;  ///< from the initial residual to the status at exit
};

/// Products and vector passes of one iteration as implemented (for effective bandwidth;
/// see core/krylov/krylov.hpp IterationCost).
IterationCost in_kernel_cost();
IterationCost multi_kernel_cost();
IterationCost library_cost();

/// The same for QMR (products with A and A^T).
IterationCost qmr_in_kernel_cost();
IterationCost qmr_multi_kernel_cost();
IterationCost qmr_library_cost();
/// Products and vector passes of (method, kernel); method bicgstab or qmr.
IterationCost cost(Method method, GpuKernel kernel);

/// The bytes one BiCGStab iteration must move at least: the matrix twice (8 per structural
/// nonzero) and 9 vector passes (read x, r, r_hat, p, v; write x, r, p, v). The in-kernel
/// target is stated against this floor divided by the measured triad bandwidth.
double bicgstab_floor_bytes(const GHMatrix& A);

/// The bytes one QMR iteration must move at least: the matrix twice (A and A^T) and 16
/// vector passes (read and write each of v, w, p, q, d, s, x, r).
double qmr_floor_bytes(const GHMatrix& A);

/// x: initial guess in, iterate out (size A.rows()).
SolveResult bicgstab_in_kernel(const GHMatrix& A, const std::vector<double>& b,
                               std::vector<double>& x, const GpuSolveOptions& options,
                               GpuSolveTimes* times = nullptr, InKernelPlan* plan = nullptr);
SolveResult bicgstab_multi_kernel(const GHMatrix& A, const std::vector<double>& b,
                                  std::vector<double>& x, const GpuSolveOptions& options,
                                  GpuSolveTimes* times = nullptr);
SolveResult bicgstab_library(const GHMatrix& A, const std::vector<double>& b,
                             std::vector<double>& x, const GpuSolveOptions& options,
                             GpuSolveTimes* times = nullptr);

/// QMR (Freund-Nachtigal without look-ahead, the CPU reference's formulation,
/// core/krylov/krylov.hpp) in the same three variants. Products with A^T use the mirrored diagonals
/// and the swapped well arrays (no stored transpose) except in the library baseline, which gives
/// cuSPARSE an explicit transpose. SolveResult::quasi_history holds tau_i / ||b||.
SolveResult qmr_in_kernel(const GHMatrix& A, const std::vector<double>& b, std::vector<double>& x,
                          const GpuSolveOptions& options, GpuSolveTimes* times = nullptr,
                          InKernelPlan* plan = nullptr);
SolveResult qmr_multi_kernel(const GHMatrix& A, const std::vector<double>& b,
                             std::vector<double>& x, const GpuSolveOptions& options,
                             GpuSolveTimes* times = nullptr);
SolveResult qmr_library(const GHMatrix& A, const std::vector<double>& b, std::vector<double>& x,
                        const GpuSolveOptions& options, GpuSolveTimes* times = nullptr);

/// The multi-kernel solvers on a general square BSR matrix with the KSPARSE SpMV
/// (options.ksparse); QMR's A^T products use an explicit transpose (core transpose(Bsr)).
SolveResult bicgstab_multi_kernel(const Bsr& A, const std::vector<double>& b,
                                  std::vector<double>& x, const GpuSolveOptions& options,
                                  GpuSolveTimes* times = nullptr);
SolveResult qmr_multi_kernel(const Bsr& A, const std::vector<double>& b, std::vector<double>& x,
                             const GpuSolveOptions& options, GpuSolveTimes* times = nullptr);

/// The block smoothers as solvers on the device (seed 003): block_jacobi (Algorithm 2: per
/// spatial block of options.block_shape, the residual into shared memory, the dgemv with
/// the block's inverse, x + omega z into a second vector, then swap) or block_gs (chaotic:
/// the same kernel updating x in place, so a block reads whatever its neighbours have
/// written - not the CPU's sweep order, and not reproducible bit for bit). Stops when
/// ||b - A x|| / ||b|| <= tolerance (checked every sweep); history per sweep.
SolveResult block_smoother(Method method, const GHMatrix& A, const std::vector<double>& b,
                           std::vector<double>& x, const GpuSolveOptions& options,
                           GpuSolveTimes* times = nullptr);

/// z = M^{-1} r (transpose: z = M^{-T} r, QMR's) on the device for preconditioner `kind`
/// (block_jacobi: of `shape`), from the CPU factors (core/precond/block_smoothers.hpp): the
/// device-vs-reference tests compare it with the CPU's apply (apply_transpose), bit for bit.
/// CPR has no transpose (NotSupported).
std::vector<double> apply_preconditioner(const GHMatrix& A, PreconditionerKind kind,
                                         std::array<int, 3> shape, const std::vector<double>& r,
                                         bool transpose = false);

/// CPR on the device step by step (gpu/src/precond/cpr.cu), for the device-vs-reference
/// tests: the setup from A's values on the device (A uploaded in `variant`), then
/// z = M^{-1} r.
struct CprDeviceSteps {
    std::vector<double> weights;
    /// Each level's 7 diagonals ([d][m]); level 0 then its wells' W, W^T and D.
    std::vector<std::vector<double>> levels;
    std::vector<std::vector<double>> pivots;  ///< each level's line pivot inverses
    std::vector<double> coarsest_inverse;     ///< row-major; empty when not inverted
    std::vector<double> stage2;               ///< stage 2's inverses, then 1 / D per well
    /// One smoothing sweep from zero on each level but the coarsest, b_i = 1 + i % 7.
    std::vector<std::vector<double>> sweeps;
    std::vector<double> z;  ///< M^{-1} r
};
CprDeviceSteps cpr_device_steps(const GHMatrix& A, const CprOptions& options,
                                const std::vector<double>& r,
                                BdiaVariant variant = default_variant());

/// Vertical-line Jacobi's factors computed on the device from A's values (uploaded in
/// `variant`, as a solver holds them): the pivot inverses and 1 / D per well, factor_lines'
/// bits, or its InputError (the device-vs-reference tests). Only pinv and inv_d are set.
LineFactors line_factors_on_device(const GHMatrix& A, BdiaVariant variant = default_variant());

/// Point-block Jacobi's factors computed on the device from A's values (the Newton loop's
/// path): factor_point_blocks' bits, or its InputError.
PointBlockFactors point_block_factors_on_device(const GHMatrix& A,
                                                BdiaVariant variant = default_variant());

/// One sweep of a smoother on the device (block_jacobi with omega, or one chaotic block_gs
/// sweep), from x: the device-vs-reference tests.
std::vector<double> smoother_sweep(Method method, const GHMatrix& A, std::array<int, 3> shape,
                                   double omega, const std::vector<double>& b,
                                   const std::vector<double>& x);

/// (u, v) and (v, v) by the multi-kernel solvers' chunk reduction (reduce_chunk: a warp row of
/// 32 entries a load, the canonical tree): the device-vs-reference test of every length's
/// partial rows, groups and chunks (u and v of the same size, at least one entry).
std::array<double, 2> chunk_dots(const std::vector<double>& u, const std::vector<double>& v);

/// The solver of (method, kernel): bicgstab or qmr, or the block smoothers (block_jacobi,
/// block_gs: block_smoother, the kernel is not used); `plan` is filled by the in-kernel
/// solvers only. options.spmv ksparse runs with the multi-kernel
/// solvers only (NotSupported with in_kernel and library).
SolveResult solve(Method method, GpuKernel kernel, const GHMatrix& A, const std::vector<double>& b,
                  std::vector<double>& x, const GpuSolveOptions& options,
                  GpuSolveTimes* times = nullptr, InKernelPlan* plan = nullptr);

/// A general square BSR system (matrix decks): the multi-kernel solver of `method` with the
/// KSPARSE SpMV (products with A^T on an explicit transpose for QMR). kernel in_kernel or
/// library: NotSupported (the persistent solvers need the GH structure; the library
/// baseline is cuSPARSE's).
SolveResult solve(Method method, GpuKernel kernel, const Bsr& A, const std::vector<double>& b,
                  std::vector<double>& x, const GpuSolveOptions& options,
                  GpuSolveTimes* times = nullptr);

}  // namespace heptane::gpu
