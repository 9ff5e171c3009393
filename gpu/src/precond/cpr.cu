// CPR on the device (cpr.cuh): the setup kernels, then the kernels of z = M^{-1} r, each the
// device twin of a loop of core/precond/cpr.cpp.
#include <algorithm>
#include <climits>
#include <string>

#include "core/base/errors.hpp"
#include "core/precond/block_arith.hpp"
#include "core/precond/cpr.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/base/solver_state.cuh"
#include "gpu/src/precond/cpr.cuh"

namespace heptane::gpu::detail {
namespace {

using namespace heptane::canonical;

constexpr int kThreads = 256;
/// Chunks of a dense row (k_dense_apply): coarsest_rows is at most 32 kDenseChunk of them.
constexpr int kMaxDenseChunks = kMaxCoarsestRows / cpr::kDenseChunk;
constexpr int kDenseThreads = 1024;
/// The setup checks, each the first (lowest) bad index: the weights' and stage 2's cells,
/// a well's zero diagonal, the coarsest inverse; then one per level (line pivots' column).
enum Check { kWeights, kStage2, kWell, kDense, kLevel0 };

unsigned blocks_for(long long work) {
    return static_cast<unsigned>(std::max<long long>(1, (work + kThreads - 1) / kThreads));
}

__device__ bool skipped(const int* skip) { return skip != nullptr && *skip != 0; }

/// A's Bdia in the solver's layout (cell_fastest(_x2) or tiled, device_gh.cuh).
struct ARead {
    const double* v;
    long long Mp;
    int K;
    bool tiled;
    __device__ double operator()(int d, int r, int c, long long m) const {
        const long long e = (static_cast<long long>(d) * K + r) * K + c;
        if (tiled) return v[((m / 32) * 7 * K * K + e) * 32 + m % 32];
        return v[e * Mp + m];
    }
};

ARead read_of(const DeviceGH& gh, int K) {
    const BdiaView a = gh.view(false);
    return {a.bdia, static_cast<long long>(a.Mp), K, gh.variant() == BdiaVariant::tiled};
}

/// A K = 1 level's Bdia (cell_fastest, planes of Mp).
struct LevelRead {
    const double* v;
    long long Mp;
    __device__ double operator()(int d, long long m) const { return v[d * Mp + m]; }
};

// ---- setup -----------------------------------------------------------------------------

__global__ void k_weights(ARead A, long long M, double* w, int* err) {
    const long long m = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (m >= M) return;
    const auto D = [&](int r, int c) { return A(3, r, c, m); };
    if (!cpr::quasi_impes_cell(D, A.K, w + m * A.K)) atomicMin(err + kWeights, static_cast<int>(m));
}

__global__ void k_stage2(ARead A, long long M, double* inv, int* err) {
    const long long m = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (m >= M) return;
    const auto D = [&](int r, int c) { return A(3, r, c, m); };
    const long long kk = static_cast<long long>(A.K) * A.K;
    if (!cpr::invert_cell(D, A.K, inv + m * kk)) atomicMin(err + kStage2, static_cast<int>(m));
}

/// 1 / D of each well into out (A's and the pressure system's: the same D).
__global__ void k_well_inverses(const double* d, int nw, double* out, int* err) {
    const int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nw) return;
    if (!cpr::usable_pivot(d[w])) {
        atomicMin(err + kWell, w);
        return;
    }
    out[w] = 1.0 / d[w];
}

__global__ void k_extract(ARead A, const double* w, int nx, int ny, int nz, long long M,
                          double* p, long long Mp) {
    const long long m = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (m >= M) return;
    const double* wm = w + m * A.K;
    for (int d = 0; d < 7; ++d) {
        p[d * Mp + m] = stencil_has_neighbour(nx, ny, nz, m, d)
                            ? cpr::weighted(wm, A.K, [&](int r) { return A(d, r, 0, m); })
                            : 0.0;
    }
}

/// The pressure system's wells from A's (one thread per well).
__global__ void k_extract_wells(BdiaView a, BdiaView p, const double* w, int K, double* p_w,
                                double* p_wt, double* p_d) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= a.nw) return;
    for (int l = 0; l < a.count[n]; ++l) {
        const long long m = a.cell0[n] + l;
        const long long src = a.first[n] + static_cast<long long>(l) * K, dst = p.first[n] + l;
        p_w[dst] = a.well_rows[src];
        p_wt[dst] = cpr::weighted(w + m * K, K, [&](int r) { return a.well_cols[src + r]; });
    }
    p_d[n] = a.d[n];
}

__global__ void k_galerkin(LevelRead fine, cpr::LevelGrid g, double* coarse, long long Mpc) {
    const long long Mc = static_cast<long long>(g.cx) * g.cy * g.cz;
    const long long mc = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (mc >= Mc) return;
    double v[7];
    cpr::galerkin_row(g, mc, fine, v);
    for (int d = 0; d < 7; ++d) {
        coarse[d * Mpc + mc] = stencil_has_neighbour(g.cx, g.cy, g.cz, mc, d) ? v[d] : 0.0;
    }
}

__global__ void k_pivots(LevelRead a, int columns, int nz, double* pinv, int* err) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= columns) return;
    const long long m0 = static_cast<long long>(col) * nz;
    if (!cpr::line_pivots(a, m0, nz, pinv + m0)) atomicMin(err, col);
}

/// The coarsest level as a dense row-major matrix (a thread per row; no wells there).
__global__ void k_dense_assemble(LevelRead a, int nx, int ny, int nz, double* dense) {
    const int n = nx * ny * nz;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double* row = dense + static_cast<long long>(i) * n;
    for (int j = 0; j < n; ++j) row[j] = 0.0;
    const long long off[7] = {-static_cast<long long>(nz) * ny, -nz, -1, 0, 1, nz,
                              static_cast<long long>(nz) * ny};
    for (int d = 0; d < 7; ++d) {
        if (stencil_has_neighbour(nx, ny, nz, i, d)) row[i + off[d]] = a(d, i);
    }
}

/// A pivot candidate: |a(i, p)| and its row.
struct Candidate {
    double v;
    int i;
};

/// The larger value; on a tie the lower row: the first largest, as the serial scan finds it.
__device__ Candidate better(Candidate a, Candidate b) {
    return b.v > a.v || (b.v == a.v && b.i < a.i) ? b : a;
}

/// The best candidate of the block (kDenseThreads threads), in every thread. Both reductions
/// here (this and the largest entry) pick one of the values given, so the order of the
/// reduction cannot change the result.
__device__ Candidate block_best(Candidate c, Candidate* warps) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int o = 16; o > 0; o /= 2) {
        c = better(c,
                   {__shfl_down_sync(0xffffffffu, c.v, o), __shfl_down_sync(0xffffffffu, c.i, o)});
    }
    __syncthreads();  // warps[] of the last call is read
    if (lane == 0) warps[warp] = c;
    __syncthreads();
    c = warps[0];
    for (int w = 1; w < kDenseThreads / 32; ++w) c = better(c, warps[w]);
    return c;
}

/// cpr::dense_inverse with each step's entries over the threads of one block (the same
/// operations per entry; f_i = a(i, p) kept before row i changes). The largest entry and each
/// column's pivot are block reductions (the serial scans, a load latency per row, were most
/// of the setup: 32 ms of it on SPE10's 340-row coarsest level).
__global__ void __launch_bounds__(kDenseThreads)
    k_dense_inverse(double* a, double* inv, int n, int* err) {
    extern __shared__ double f[];
    __shared__ Candidate warps[kDenseThreads / 32];
    __shared__ double scale;
    const long long nn = static_cast<long long>(n) * n;
    for (long long e = threadIdx.x; e < nn; e += blockDim.x) inv[e] = e / n == e % n ? 1.0 : 0.0;
    // cpr::largest: NaN never compares larger, so it is never the largest
    double mine = 0.0;
    for (long long e = threadIdx.x; e < nn; e += blockDim.x)
        mine = fabs(a[e]) > mine ? fabs(a[e]) : mine;
    const double big = block_best({mine, 0}, warps).v;
    for (int p = 0; p < n; ++p) {
        // the serial scan keeps row p unless a later row is strictly larger (a NaN never is;
        // a NaN in row p is never replaced)
        Candidate c{-1.0, INT_MAX};
        for (int i = p + threadIdx.x; i < n; i += blockDim.x) {
            const double v = fabs(a[static_cast<long long>(i) * n + p]);
            if (v > c.v) c = {v, i};
        }
        c = block_best(c, warps);
        const double diagonal = a[static_cast<long long>(p) * n + p];
        const int piv_row = isnan(diagonal) ? p : c.i;
        const int piv =
            cpr::usable_pivot(a[static_cast<long long>(piv_row) * n + p], n, big) ? piv_row : -1;
        if (piv < 0) {  // the same in every thread
            if (threadIdx.x == 0) atomicMin(err, p);
            return;
        }
        __syncthreads();  // column p is read before the swap writes it
        if (piv != p) {
            for (int j = threadIdx.x; j < n; j += blockDim.x) {
                double* ap = a + static_cast<long long>(p) * n;
                double* aq = a + static_cast<long long>(piv) * n;
                double* ip = inv + static_cast<long long>(p) * n;
                double* iq = inv + static_cast<long long>(piv) * n;
                double t = ap[j];
                ap[j] = aq[j];
                aq[j] = t;
                t = ip[j];
                ip[j] = iq[j];
                iq[j] = t;
            }
        }
        __syncthreads();
        if (threadIdx.x == 0) scale = 1.0 / a[static_cast<long long>(p) * n + p];
        __syncthreads();
        for (int j = threadIdx.x; j < n; j += blockDim.x) {
            a[static_cast<long long>(p) * n + j] = mul(a[static_cast<long long>(p) * n + j], scale);
            inv[static_cast<long long>(p) * n + j] = mul(inv[static_cast<long long>(p) * n + j], scale);
        }
        __syncthreads();
        for (int i = threadIdx.x; i < n; i += blockDim.x) f[i] = a[static_cast<long long>(i) * n + p];
        __syncthreads();
        for (long long e = threadIdx.x; e < nn; e += blockDim.x) {
            const int i = static_cast<int>(e / n), j = static_cast<int>(e % n);
            if (i == p) continue;
            const long long pj = static_cast<long long>(p) * n + j;
            a[e] = sub(a[e], mul(f[i], a[pj]));
            inv[e] = sub(inv[e], mul(f[i], inv[pj]));
        }
        __syncthreads();
    }
}

// ---- z = M^{-1} r ------------------------------------------------------------------------

/// r_p = R r: the weighted sum of each cell's residuals, the wells' as they are.
__global__ void k_restrict_weights(const double* r, const double* w, int K, long long M, int nw,
                                   double* rp, const int* skip) {
    if (skipped(skip)) return;
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < M) {
        rp[i] = cpr::weighted(w + i * K, K, [&](int c) { return r[i * K + c]; });
    } else if (i < M + nw) {
        rp[i] = r[M * K + (i - M)];
    }
}

__global__ void k_zero(double* x, long long n, const int* skip) {
    if (skipped(skip)) return;
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) x[i] = 0.0;
}

constexpr int kLineWarps = 4;  ///< columns (warps) per block of k_line_update

/// Shared memory of k_line_update (and k_well_update) per warp: 5 arrays of nz.
std::size_t line_shared_bytes(int nz) { return 5 * sizeof(double) * static_cast<std::size_t>(nz); }

}  // namespace

/// A K = 1 level as the fused kernels read it: its Bdia (planes of Mp), sizes and wells.
struct LevelView {
    const double* bdia;
    long long Mp;
    int nx, ny, nz;
    cpr::WellsRef<int> wells;
    __device__ double operator()(int d, long long m) const { return bdia[d * Mp + m]; }
    __device__ double row(long long m, const double* x) const {
        return cpr::cell_row(*this, nx, ny, nz, m, x, wells);
    }
};

namespace {

/// One pass of the line smoother (StructuredMg::smooth): x_col += omega T^{-1} r_col on the
/// columns of `color` (-1: all), a warp per column. r_col is b - A x from ax (Jacobi: A x of
/// the x before the sweep), or computed here from the x of now (ax null: Gauss-Seidel; a
/// column's neighbours across i and j have the other colour, its own rows are read before
/// they change), or b (from_zero: x = 0, whose columns of the other colour, and wells, this
/// pass sets to 0). With inv_d (Jacobi), the warp after the columns updates the wells from
/// ax. The lanes load the column's coefficients, pivots and residual into shared memory
/// together (coalesced, all loads in flight at once), lane 0 runs the recurrence
/// (cpr::line_solve1, the CPU's) there, the lanes update x.
__global__ void __launch_bounds__(kLineWarps * 32)
    k_line_update(LevelView A, const double* pinv, int color, bool from_zero, const double* inv_d,
                  double omega, const double* b, const double* ax, double* x, const int* skip) {
    if (skipped(skip)) return;
    extern __shared__ double shared[];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int nz = A.nz, columns = A.nx * A.ny;
    const long long cells = static_cast<long long>(columns) * nz;
    const long long t = static_cast<long long>(blockIdx.x) * kLineWarps + warp;
    const auto r = [&](long long q) {
        if (from_zero) return b[q];
        return ax != nullptr ? sub(b[q], ax[q]) : sub(b[q], A.row(q, x));
    };
    if (t >= columns) {  // the wells' warp
        if (t != columns) return;
        for (int w = lane; w < A.wells.nw; w += 32) {
            const long long q = cells + w;
            if (inv_d != nullptr) {
                x[q] = add(from_zero ? 0.0 : x[q], mul(omega, mul(inv_d[w], r(q))));
            } else if (from_zero) {
                x[q] = 0.0;
            }
        }
        return;
    }
    const int col = static_cast<int>(t);
    const long long m0 = static_cast<long long>(col) * nz;
    if (color >= 0 && (col / A.ny + col % A.ny) % 2 != color) {
        if (from_zero) {
            for (int k = lane; k < nz; k += 32) x[m0 + k] = 0.0;
        }
        return;
    }
    double* lower = shared + static_cast<long long>(warp) * 5 * nz;
    double* upper = lower + nz;
    double* piv = upper + nz;
    double* res = piv + nz;
    double* z = res + nz;
    for (int k = lane; k < nz; k += 32) {
        lower[k] = A(2, m0 + k);
        upper[k] = A(4, m0 + k);
        piv[k] = pinv[m0 + k];
        res[k] = r(m0 + k);
    }
    __syncwarp();
    if (lane == 0) cpr::line_solve1(lower, upper, piv, res, z, nz);
    __syncwarp();
    for (int k = lane; k < nz; k += 32) {
        x[m0 + k] = add(from_zero ? 0.0 : x[m0 + k], mul(omega, z[k]));
    }
}

/// Gauss-Seidel's last turn on level 0: each well from the residual of the x of now, a warp
/// per well: the lanes form the products of its row (cpr::well_row's terms) in shared
/// memory, lane 0 adds them in well_row's order (one thread alone waited a load latency per
/// perforation).
__global__ void __launch_bounds__(kLineWarps * 32)
    k_well_update(LevelView A, const double* inv_d, double omega, const double* b, double* x,
                  const int* skip) {
    if (skipped(skip)) return;
    extern __shared__ double shared[];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int w = blockIdx.x * kLineWarps + warp;
    if (w >= A.wells.nw) return;
    const cpr::WellsRef<int>& W = A.wells;
    double* terms = shared + static_cast<long long>(warp) * A.nz;  // count <= nz: one column
    for (int v = lane; v < W.count[w]; v += 32)
        terms[v] = mul(W.w[W.first[w] + v], x[W.cell0[w] + v]);
    __syncwarp();
    if (lane != 0) return;
    const long long cells = static_cast<long long>(A.nx) * A.ny * A.nz, q = cells + w;
    double sum = 0.0;
    for (int v = 0; v < W.count[w]; ++v) sum = add(sum, terms[v]);
    const double row = add(sum, mul(W.d[w], x[q]));  // cpr::well_row's last term
    x[q] = add(x[q], mul(omega, mul(inv_d[w], sub(b[q], row))));
}

/// b_c = R (b - A x): each aggregate's sum of the residual, in member order, its rows
/// computed here.
__global__ void k_restrict(cpr::LevelGrid g, LevelView A, const double* b, const double* x,
                           double* bc, const int* skip) {
    if (skipped(skip)) return;
    const long long Mc = static_cast<long long>(g.cx) * g.cy * g.cz;
    const long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (c >= Mc) return;
    const int kc = static_cast<int>(c % g.cz), jc = static_cast<int>((c / g.cz) % g.cy);
    const int ic = static_cast<int>(c / (static_cast<long long>(g.cz) * g.cy));
    double v = 0.0;
    cpr::each_member(g, ic, jc, kc, [&](int i, int j, int k) {
        const long long m = cpr::cell_index(i, j, k, g.ny, g.nz);
        v = add(v, sub(b[m], A.row(m, x)));
    });
    bc[c] = v;
}

__global__ void k_prolong(cpr::LevelGrid g, double alpha, const double* xc, double* x,
                          const int* skip) {
    if (skipped(skip)) return;
    const long long M = static_cast<long long>(g.nx) * g.ny * g.nz;
    const long long m = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (m >= M) return;
    const int k = static_cast<int>(m % g.nz), j = static_cast<int>((m / g.nz) % g.ny);
    const int i = static_cast<int>(m / (static_cast<long long>(g.nz) * g.ny));
    x[m] = add(x[m], mul(alpha, xc[cpr::coarse_of(g, i, j, k)]));
}

__global__ void k_sub(const double* b, const double* ax, double* r, long long n, const int* skip) {
    if (skipped(skip)) return;
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) r[i] = sub(b[i], ax[i]);
}

__global__ void k_add(double* x, const double* d, long long n, const int* skip) {
    if (skipped(skip)) return;
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) x[i] = add(x[i], d[i]);
}

constexpr int kDenseWarps = 4;  ///< rows (warps) per block of k_dense_apply

/// x = inv b, a warp per row: the lanes sum the row's chunks (cpr::dense_chunk), lane 0 adds
/// the chunk sums left to right (cpr::dense_row's order). At most 32 kMaxDenseChunks entries.
__global__ void __launch_bounds__(kDenseWarps * 32)
    k_dense_apply(const double* inv, int n, const double* b, double* x, const int* skip) {
    if (skipped(skip)) return;
    __shared__ double sums[kDenseWarps][kMaxDenseChunks];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int i = blockIdx.x * kDenseWarps + warp;
    if (i >= n) return;
    const int chunks = (n + cpr::kDenseChunk - 1) / cpr::kDenseChunk;
    for (int c = lane; c < chunks; c += 32) sums[warp][c] = cpr::dense_chunk(inv, n, i, c, b);
    __syncwarp();
    if (lane != 0) return;
    double acc = sums[warp][0];
    for (int c = 1; c < chunks; ++c) acc = add(acc, sums[warp][c]);
    x[i] = acc;
}

/// Stage 2 from x_p (cpr::stage2_cell and stage2_well, the CPU's), a thread per cell, then
/// one per well: z = B^{-1} (r - A E x_p) + E x_p. A's pressure columns only are read.
__global__ void k_stage2_apply(ARead A, BdiaView a, const double* inv, long long M,
                               const double* xp, const double* r, double* z, const int* skip) {
    if (skipped(skip)) return;
    const long long m = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    const int K = A.K;
    const long long kk = static_cast<long long>(K) * K;
    if (m < M) {
        const double* wt = nullptr;
        double xpw = 0.0;
        if (a.nw > 0) {
            const int w = a.well_of_column[m / a.nz];
            if (w >= 0 && m >= a.cell0[w] && m < a.cell0[w] + a.count[w]) {
                wt = a.well_cols + a.first[w] + (m - a.cell0[w]) * static_cast<long long>(K);
                xpw = xp[M + w];
            }
        }
        cpr::stage2_cell(A, K, a.nx, a.ny, a.nz, m, xp, wt, xpw, r + m * K, inv + m * kk,
                         z + m * K);
    } else if (m < M + a.nw) {
        const int w = static_cast<int>(m - M);
        z[M * K + w] = cpr::stage2_well(a.well_rows + a.first[w], K, a.cell0[w], a.count[w], a.d[w],
                                        inv[M * kk + w], xp, xp[M + w], r[M * K + w]);
    }
}

std::vector<int> no_errors(int levels) { return std::vector<int>(kLevel0 + levels, INT_MAX); }

}  // namespace

struct DeviceCpr::Level {
    cpr::LevelGrid g{};
    std::unique_ptr<DeviceGH> gh;  ///< the operator (cell_fastest; level 0 with the wells)
    long long M = 0, rows = 0, Mp = 0;
    int nw = 0;
    long long perforations = 0;  ///< level 0's well values (one per perforated cell)
    Buffer<double> pinv, inv_d, b, x, ax, rc, dc;
    Buffer<double> dense, dense_work;  ///< coarsest: the inverse (row-major), the matrix
};

DeviceCpr::DeviceCpr(const GHMatrix& A, DeviceGH& gh, const CprOptions& options)
    : gh_(gh),
      options_(options),
      structure_(A),
      K_(A.block_size()),
      M_(A.num_cells()),
      nw_(static_cast<int>(A.num_wells())) {
    const auto grids = mg_grids(A.nx(), A.ny(), A.nz(), options_.mg);
    if (options_.mg.coarsest_rows > kMaxCoarsestRows) {
        throw NotSupported("cpr: coarsest_rows above " + std::to_string(kMaxCoarsestRows));
    }
    // The line smoother stages a column per warp in shared memory (k_line_update).
    int max_nz = 0;
    for (const cpr::LevelGrid& g : grids) max_nz = std::max(max_nz, g.nz);
    const std::size_t shared = kLineWarps * line_shared_bytes(max_nz);
    int device = 0, limit = 0;
    HEPTANE_CUDA_CHECK(cudaGetDevice(&device));
    HEPTANE_CUDA_CHECK(
        cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (shared > static_cast<std::size_t>(limit)) {
        throw NotSupported("cpr on the GPU: columns of " + std::to_string(max_nz) +
                           " cells exceed the line smoother's shared memory (at most " +
                           std::to_string(limit / (kLineWarps * 4 * sizeof(double))) + ")");
    }
    if (shared > 48 * 1024) {
        HEPTANE_CUDA_CHECK(cudaFuncSetAttribute(
            k_line_update, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    }
    for (std::size_t l = 0; l < grids.size(); ++l) {
        auto L = std::make_unique<Level>();
        L->g = grids[l];
        const GHMatrix shape =
            l == 0 ? pressure_structure(A) : GHMatrix(L->g.nx, L->g.ny, L->g.nz, 1);
        L->gh = std::make_unique<DeviceGH>(shape, BdiaVariant::cell_fastest);
        L->M = shape.num_cells();
        L->rows = shape.rows();
        L->Mp = L->gh->view(false).Mp;
        L->nw = static_cast<int>(shape.num_wells());
        L->perforations = static_cast<long long>(shape.wells().w_vals.size());
        const auto rows = static_cast<std::size_t>(L->rows);
        L->pinv = Buffer<double>(static_cast<std::size_t>(L->M));
        L->inv_d = Buffer<double>(static_cast<std::size_t>(L->nw));
        L->ax = Buffer<double>(rows);
        if (l > 0) {
            L->b = Buffer<double>(rows);
            L->x = Buffer<double>(rows);
            if (options_.mg.cycle == MgCycle::w) {
                L->rc = Buffer<double>(rows);
                L->dc = Buffer<double>(rows);
            }
        }
        if (l > 0 && l + 1 == grids.size() && L->rows <= options_.mg.coarsest_rows) {
            L->dense = Buffer<double>(rows * rows);
            L->dense_work = Buffer<double>(rows * rows);
        }
        levels_.push_back(std::move(L));
    }
    // Level 0's b and x are stage 1's r_p and x_p.
    levels_[0]->b = Buffer<double>(static_cast<std::size_t>(levels_[0]->rows));
    levels_[0]->x = Buffer<double>(static_cast<std::size_t>(levels_[0]->rows));
    weights_ = Buffer<double>(static_cast<std::size_t>(M_ * K_));
    inv_ = Buffer<double>(static_cast<std::size_t>(M_ * K_ * K_ + nw_));
    errors_ = Buffer<int>(no_errors(levels()).size());
    setup();
}

DeviceCpr::~DeviceCpr() = default;

void DeviceCpr::update(const GHMatrix& B) {
    structure_.check(B, "DeviceCpr::update");
    setup();
}

void DeviceCpr::setup() {
    const cudaStream_t st = nullptr;
    HEPTANE_CUDA_CHECK(cudaDeviceSynchronize());  // the values' upload is not the setup
    const auto t0 = SetupClock::now();
    errors_.upload(no_errors(levels()));
    int* err = errors_.get();
    const BdiaView a = gh_.view(false);
    const ARead A = read_of(gh_, K_);
    // Stage 1's system on level 0.
    Level& L0 = *levels_[0];
    k_weights<<<blocks_for(M_), kThreads, 0, st>>>(A, M_, weights_.get(), err);
    HEPTANE_SYNC_CHECK(st);
    k_extract<<<blocks_for(M_), kThreads, 0, st>>>(A, weights_.get(), a.nx, a.ny, a.nz, M_,
                                                    L0.gh->bdia_values(), L0.Mp);
    HEPTANE_SYNC_CHECK(st);
    if (nw_ > 0) {
        k_extract_wells<<<blocks_for(nw_), kThreads, 0, st>>>(
            a, L0.gh->view(false), weights_.get(), K_, L0.gh->well_row_values(),
            L0.gh->well_col_values(), L0.gh->well_diagonal());
        HEPTANE_SYNC_CHECK(st);
        k_well_inverses<<<blocks_for(nw_), kThreads, 0, st>>>(a.d, nw_, L0.inv_d.get(), err);
        HEPTANE_SYNC_CHECK(st);
        k_well_inverses<<<blocks_for(nw_), kThreads, 0, st>>>(a.d, nw_, inv_.get() + M_ * K_ * K_,
                                                               err);
        HEPTANE_SYNC_CHECK(st);
    }
    k_stage2<<<blocks_for(M_), kThreads, 0, st>>>(A, M_, inv_.get(), err);
    HEPTANE_SYNC_CHECK(st);
    // The coarse operators and every level's pivots.
    for (std::size_t l = 0; l < levels_.size(); ++l) {
        Level& L = *levels_[l];
        if (l > 0) {
            const Level& F = *levels_[l - 1];
            k_galerkin<<<blocks_for(L.M), kThreads, 0, st>>>(
                LevelRead{F.gh->bdia_values(), F.Mp}, F.g, L.gh->bdia_values(), L.Mp);
            HEPTANE_SYNC_CHECK(st);
        }
        const LevelRead lr{L.gh->bdia_values(), L.Mp};
        const int columns = L.g.nx * L.g.ny;
        k_pivots<<<blocks_for(columns), kThreads, 0, st>>>(lr, columns, L.g.nz, L.pinv.get(),
                                                           err + kLevel0 + l);
        HEPTANE_SYNC_CHECK(st);
        if (L.dense.size() > 0) {
            const int n = static_cast<int>(L.rows);
            k_dense_assemble<<<blocks_for(n), kThreads, 0, st>>>(lr, L.g.nx, L.g.ny, L.g.nz,
                                                                 L.dense_work.get());
            HEPTANE_SYNC_CHECK(st);
            k_dense_inverse<<<1, kDenseThreads, n * sizeof(double), st>>>(
                L.dense_work.get(), L.dense.get(), n, err + kDense);
            HEPTANE_SYNC_CHECK(st);
        }
    }
    const std::vector<int> e = errors_.download();  // synchronizes
    setup_seconds_ = seconds_since(t0);
    const auto fail = [](const std::string& what) {
        throw InputError("solver.preconditioner", "cpr: " + what);
    };
    if (e[kWeights] != INT_MAX) {
        fail("the diagonal block (no quasi-IMPES weights) of cell " + std::to_string(e[kWeights]) +
             " is singular");
    }
    if (e[kWell] != INT_MAX) fail("well " + std::to_string(e[kWell]) + " has a zero diagonal");
    if (e[kStage2] != INT_MAX) {
        fail("the diagonal block (stage 2) of cell " + std::to_string(e[kStage2]) + " is singular");
    }
    for (int l = 0; l < levels(); ++l) {
        if (e[kLevel0 + l] != INT_MAX) {
            fail("the line solve of multigrid level " + std::to_string(l) +
                 " has an unusable pivot in column " + std::to_string(e[kLevel0 + l]));
        }
    }
    if (e[kDense] != INT_MAX) {
        fail("the coarsest multigrid level (" + std::to_string(levels() - 1) + ") is singular");
    }
}

LevelView DeviceCpr::view(int l) const {
    const Level& L = *levels_[l];
    const BdiaView v = L.gh->view(false);
    const cpr::WellsRef<int> wells{L.nw > 0 ? v.well_of_column : nullptr,
                                   v.cell0,
                                   v.count,
                                   v.first,
                                   v.well_rows,
                                   v.well_cols,
                                   v.d,
                                   L.nw};
    return {L.gh->bdia_values(), L.Mp, L.g.nx, L.g.ny, L.g.nz, wells};
}

void DeviceCpr::smooth(int l, const double* b, double* x, bool from_zero, cudaStream_t st,
                       const int* skip) const {
    const Level& L = *levels_[l];
    const bool coarsest = l + 1 == levels();
    const double omega = coarsest ? 1.0 : smoother_omega(options_.mg);
    const LevelView A = view(l);
    const int warps = L.g.nx * L.g.ny + (L.nw > 0 ? 1 : 0);
    const auto pass = [&](int color, bool zero, const double* inv_d, const double* ax) {
        k_line_update<<<(warps + kLineWarps - 1) / kLineWarps, kLineWarps * 32,
                        kLineWarps * line_shared_bytes(L.g.nz), st>>>(A, L.pinv.get(), color, zero,
                                                                      inv_d, omega, b, ax, x, skip);
        HEPTANE_SYNC_CHECK(st);
    };
    if (options_.mg.smoother == MgSmoother::line_jacobi || coarsest) {
        if (!from_zero) L.gh->apply(x, L.ax.get(), false, st, skip);
        pass(-1, from_zero, L.inv_d.get(), L.ax.get());
        return;
    }
    pass(0, from_zero, nullptr, nullptr);
    pass(1, false, nullptr, nullptr);
    if (L.nw > 0) {
        k_well_update<<<(L.nw + kLineWarps - 1) / kLineWarps, kLineWarps * 32,
                        kLineWarps * L.g.nz * sizeof(double), st>>>(A, L.inv_d.get(), omega, b, x,
                                                                    skip);
        HEPTANE_SYNC_CHECK(st);
    }
}

void DeviceCpr::cycle(int l, const double* b, double* x, cudaStream_t st, const int* skip) const {
    const Level& L = *levels_[l];
    const MgOptions& o = options_.mg;
    if (L.dense.size() > 0) {
        const int n = static_cast<int>(L.rows);
        k_dense_apply<<<(n + kDenseWarps - 1) / kDenseWarps, kDenseWarps * 32, 0, st>>>(
            L.dense.get(), n, b, x, skip);
        HEPTANE_SYNC_CHECK(st);
        return;
    }
    if (l + 1 == levels()) {
        const bool exact = L.g.nx * L.g.ny == 1 && L.nw == 0;
        const int sweeps = exact ? 1 : o.coarsest_sweeps;
        for (int s = 0; s < sweeps; ++s) smooth(l, b, x, s == 0, st, skip);
        return;
    }
    for (int s = 0; s < o.pre_sweeps; ++s) smooth(l, b, x, s == 0, st, skip);
    if (o.pre_sweeps == 0) {
        k_zero<<<blocks_for(L.rows), kThreads, 0, st>>>(x, L.rows, skip);
        HEPTANE_SYNC_CHECK(st);
    }
    const Level& C = *levels_[l + 1];
    k_restrict<<<blocks_for(C.M), kThreads, 0, st>>>(L.g, view(l), b, x, C.b.get(), skip);
    HEPTANE_SYNC_CHECK(st);
    cycle(l + 1, C.b.get(), C.x.get(), st, skip);
    if (o.cycle == MgCycle::w && l + 2 < levels()) {
        C.gh->apply(C.x.get(), C.ax.get(), false, st, skip);
        k_sub<<<blocks_for(C.M), kThreads, 0, st>>>(C.b.get(), C.ax.get(), C.rc.get(), C.M, skip);
        HEPTANE_SYNC_CHECK(st);
        cycle(l + 1, C.rc.get(), C.dc.get(), st, skip);
        k_add<<<blocks_for(C.M), kThreads, 0, st>>>(C.x.get(), C.dc.get(), C.M, skip);
        HEPTANE_SYNC_CHECK(st);
    }
    k_prolong<<<blocks_for(L.M), kThreads, 0, st>>>(L.g, o.coarse_scale, C.x.get(), x, skip);
    HEPTANE_SYNC_CHECK(st);
    for (int s = 0; s < o.post_sweeps; ++s) smooth(l, b, x, false, st, skip);
}

void DeviceCpr::apply(const double* r, double* z, cudaStream_t st, const int* skip) const {
    const Level& L0 = *levels_[0];
    k_restrict_weights<<<blocks_for(L0.rows), kThreads, 0, st>>>(r, weights_.get(), K_, M_, nw_,
                                                                  L0.b.get(), skip);
    HEPTANE_SYNC_CHECK(st);
    cycle(0, L0.b.get(), L0.x.get(), st, skip);
    k_stage2_apply<<<blocks_for(M_ + nw_), kThreads, 0, st>>>(
        read_of(gh_, K_), gh_.view(false), inv_.get(), M_, L0.x.get(), r, z, skip);
    HEPTANE_SYNC_CHECK(st);
}

std::vector<double> DeviceCpr::level_values(int l) const {
    const Level& L = *levels_[l];
    const auto fetch = [](const double* p, long long n, std::vector<double>& out) {
        const std::size_t at = out.size();
        out.resize(at + static_cast<std::size_t>(n));
        if (n > 0) {
            HEPTANE_CUDA_CHECK(cudaMemcpy(out.data() + at, p, static_cast<std::size_t>(n) * sizeof(double),
                                          cudaMemcpyDeviceToHost));
        }
    };
    std::vector<double> out;
    for (int d = 0; d < 7; ++d) fetch(L.gh->bdia_values() + d * L.Mp, L.M, out);
    if (L.nw > 0) {
        fetch(L.gh->well_row_values(), L.perforations, out);
        fetch(L.gh->well_col_values(), L.perforations, out);
        fetch(L.gh->well_diagonal(), L.nw, out);
    }
    return out;
}

void DeviceCpr::cycle_level(int l, cudaStream_t st) const {
    const Level& L = *levels_[l];
    cycle(l, L.b.get(), L.x.get(), st, nullptr);
}

std::vector<double> DeviceCpr::pivots(int l) const { return levels_[l]->pinv.download(); }

std::vector<double> DeviceCpr::coarsest_inverse() const { return levels_.back()->dense.download(); }

std::vector<double> DeviceCpr::smooth_from_zero(int l, const std::vector<double>& b) const {
    const Level& L = *levels_[l];
    Buffer<double> db(b), dx(static_cast<std::size_t>(L.rows));
    smooth(l, db.get(), dx.get(), true, nullptr, nullptr);
    return dx.download();
}

}  // namespace heptane::gpu::detail

namespace heptane::gpu {

CprDeviceSteps cpr_device_steps(const GHMatrix& A, const CprOptions& options,
                                const std::vector<double>& r, BdiaVariant variant) {
    using namespace detail;
    if (static_cast<long long>(r.size()) != A.rows()) {
        throw std::invalid_argument("cpr_device_steps: r must have A.rows() entries");
    }
    DeviceGH gh(A, variant);
    const DeviceCpr M(A, gh, options);
    CprDeviceSteps out;
    out.weights = M.weights();
    for (int l = 0; l < M.levels(); ++l) {
        out.levels.push_back(M.level_values(l));
        out.pivots.push_back(M.pivots(l));
        if (l + 1 < M.levels()) {
            const std::size_t rows = l == 0 ? static_cast<std::size_t>(A.num_cells() + A.num_wells())
                                            : out.levels[l].size() / 7;
            std::vector<double> b(rows);
            for (std::size_t i = 0; i < rows; ++i) b[i] = 1.0 + static_cast<double>(i % 7);
            out.sweeps.push_back(M.smooth_from_zero(l, b));
        }
    }
    out.coarsest_inverse = M.coarsest_inverse();
    out.stage2 = M.stage2_inverses();
    Buffer<double> d_r(r), d_z(r.size());
    M.apply(d_r.get(), d_z.get(), nullptr);
    HEPTANE_CUDA_CHECK(cudaDeviceSynchronize());
    out.z = d_z.download();
    return out;
}

}  // namespace heptane::gpu
