// CPR on the device (cpr.cuh): the setup kernels, then the kernels of z = M^{-1} r, each the
// device twin of a loop of core/precond/cpr.cpp.
#include "gpu/src/precond/cpr.cuh"

#include <algorithm>
#include <climits>
#include <string>

#include "core/base/errors.hpp"
#include "core/precond/block_arith.hpp"
#include "core/precond/cpr.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/base/cuda_check.cuh"

namespace heptane::gpu::detail {
namespace {

using namespace heptane::canonical;

constexpr int kThreads = 256;
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

/// cpr::dense_inverse with each step's entries over the threads of one block (the same
/// operations per entry; f_i = a(i, p) kept before row i changes).
__global__ void __launch_bounds__(kDenseThreads)
    k_dense_inverse(double* a, double* inv, int n, int* err) {
    extern __shared__ double f[];
    __shared__ int piv;
    __shared__ double scale, big;
    const long long nn = static_cast<long long>(n) * n;
    for (long long e = threadIdx.x; e < nn; e += blockDim.x) inv[e] = e / n == e % n ? 1.0 : 0.0;
    if (threadIdx.x == 0) big = cpr::largest(a, static_cast<int>(nn));
    __syncthreads();
    for (int p = 0; p < n; ++p) {
        if (threadIdx.x == 0) {
            int q = p;
            for (int i = p + 1; i < n; ++i) {
                if (fabs(a[static_cast<long long>(i) * n + p]) > fabs(a[static_cast<long long>(q) * n + p])) q = i;
            }
            piv = cpr::usable_pivot(a[static_cast<long long>(q) * n + p], n, big) ? q : -1;
        }
        __syncthreads();
        if (piv < 0) {
            if (threadIdx.x == 0) atomicMin(err, p);
            return;
        }
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

/// x += omega T^{-1} (b - A x) on the columns of `color` (-1: all; the residual's A x in
/// ax, or null for x = 0) and, with inv_d, the wells after them.
__global__ void k_line_update(const double* bdia, long long Mp, const double* pinv, int columns,
                              int ny, int nz, int color, const double* inv_d, int nw, double omega,
                              const double* b, const double* ax, double* x, double* z,
                              const int* skip) {
    if (skipped(skip)) return;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const auto r = [&](long long q) { return ax != nullptr ? sub(b[q], ax[q]) : b[q]; };
    if (t < columns) {
        if (color >= 0 && (t / ny + t % ny) % 2 != color) return;
        const long long m0 = static_cast<long long>(t) * nz;
        const block::BdiaRef A{bdia, Mp, 1};
        block::line_solve(A, pinv + m0, m0, nz, r, [&](long long q) -> double& { return z[q]; });
        for (long long q = m0; q < m0 + nz; ++q) x[q] = add(x[q], mul(omega, z[q]));
    } else if (inv_d != nullptr && t < columns + nw) {
        const long long q = static_cast<long long>(columns) * nz + (t - columns);
        x[q] = add(x[q], mul(omega, mul(inv_d[t - columns], r(q))));
    }
}

/// b_c = R (b - A x): each aggregate's sum of the residual, in member order.
__global__ void k_restrict(cpr::LevelGrid g, const double* b, const double* ax, double* bc,
                           const int* skip) {
    if (skipped(skip)) return;
    const long long Mc = static_cast<long long>(g.cx) * g.cy * g.cz;
    const long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (c >= Mc) return;
    const int kc = static_cast<int>(c % g.cz), jc = static_cast<int>((c / g.cz) % g.cy);
    const int ic = static_cast<int>(c / (static_cast<long long>(g.cz) * g.cy));
    double v = 0.0;
    cpr::each_member(g, ic, jc, kc, [&](int i, int j, int k) {
        const long long m = cpr::cell_index(i, j, k, g.ny, g.nz);
        v = add(v, sub(b[m], ax[m]));
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

__global__ void k_dense_apply(const double* inv, int n, const double* b, double* x,
                              const int* skip) {
    if (skipped(skip)) return;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = cpr::dense_row(inv, n, i, b);
}

/// x = E x_p: the pressure into component 0 of each cell, the wells as they are.
__global__ void k_expand(const double* xp, int K, long long M, int nw, double* x,
                         const int* skip) {
    if (skipped(skip)) return;
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < M * K) {
        x[i] = i % K == 0 ? xp[i / K] : 0.0;
    } else if (i < M * K + nw) {
        x[i] = xp[M + (i - M * K)];
    }
}

/// z = B^{-1} (r - A x) + x (ax = A x), a thread per cell, then the wells.
__global__ void k_stage2_apply(const double* inv, int K, long long M, int nw, const double* r,
                               const double* ax, const double* x, double* z, const int* skip) {
    if (skipped(skip)) return;
    const long long m = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    const long long kk = static_cast<long long>(K) * K;
    if (m < M) {
        double s[kMaxBlockSize];
        for (int c = 0; c < K; ++c) s[c] = sub(r[m * K + c], ax[m * K + c]);
        for (int c = 0; c < K; ++c) {
            const double v = block::inverse_row(inv + m * kk, K, c, [&](int q) { return s[q]; });
            z[m * K + c] = add(v, x[m * K + c]);
        }
    } else if (m < M + nw) {
        const long long i = M * K + (m - M);
        z[i] = add(mul(inv[M * kk + (m - M)], sub(r[i], ax[i])), x[i]);
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
    Buffer<double> pinv, inv_d, b, x, ax, z, rc, dc;
    Buffer<double> dense, dense_work;  ///< coarsest: the inverse, the matrix it came from
};

DeviceCpr::DeviceCpr(const GHMatrix& A, DeviceGH& gh, const CprOptions& options)
    : gh_(gh),
      options_(options),
      structure_(A),
      K_(A.block_size()),
      M_(A.num_cells()),
      nw_(static_cast<int>(A.num_wells())) {
    const auto grids = mg_grids(A.nx(), A.ny(), A.nz(), options_.mg);
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
        L->z = Buffer<double>(rows);
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
    x_ = Buffer<double>(static_cast<std::size_t>(A.rows()));
    s_ = Buffer<double>(static_cast<std::size_t>(A.rows()));
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
    errors_.upload(no_errors(levels()));
    int* err = errors_.get();
    const BdiaView a = gh_.view(false);
    const ARead A{a.bdia, static_cast<long long>(a.Mp), K_, gh_.variant() == BdiaVariant::tiled};
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

void DeviceCpr::smooth(int l, const double* b, double* x, bool from_zero, cudaStream_t st,
                       const int* skip) const {
    const Level& L = *levels_[l];
    const bool coarsest = l + 1 == levels();
    const double omega = coarsest ? 1.0 : smoother_omega(options_.mg);
    const int columns = L.g.nx * L.g.ny;
    const auto update = [&](int color, bool wells, bool zero) {
        const int threads = columns + (wells ? L.nw : 0);
        k_line_update<<<blocks_for(threads), kThreads, 0, st>>>(
            L.gh->bdia_values(), L.Mp, L.pinv.get(), columns, L.g.ny, L.g.nz, color,
            wells && L.nw > 0 ? L.inv_d.get() : nullptr, L.nw, omega, b, zero ? nullptr : L.ax.get(),
            x, L.z.get(), skip);
        HEPTANE_SYNC_CHECK(st);
    };
    if (from_zero) {
        k_zero<<<blocks_for(L.rows), kThreads, 0, st>>>(x, L.rows, skip);
        HEPTANE_SYNC_CHECK(st);
    } else {
        L.gh->apply(x, L.ax.get(), false, st, skip);
    }
    if (options_.mg.smoother == MgSmoother::line_jacobi || coarsest) {
        update(-1, true, from_zero);
        return;
    }
    update(0, false, from_zero);
    L.gh->apply(x, L.ax.get(), false, st, skip);
    update(1, true, false);
}

void DeviceCpr::cycle(int l, const double* b, double* x, cudaStream_t st, const int* skip) const {
    const Level& L = *levels_[l];
    const MgOptions& o = options_.mg;
    if (L.dense.size() > 0) {
        const int n = static_cast<int>(L.rows);
        k_dense_apply<<<blocks_for(n), kThreads, 0, st>>>(L.dense.get(), n, b, x, skip);
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
    L.gh->apply(x, L.ax.get(), false, st, skip);
    const Level& C = *levels_[l + 1];
    k_restrict<<<blocks_for(C.M), kThreads, 0, st>>>(L.g, b, L.ax.get(), C.b.get(), skip);
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
    const long long n = M_ * K_ + nw_;
    k_expand<<<blocks_for(n), kThreads, 0, st>>>(L0.x.get(), K_, M_, nw_, x_.get(), skip);
    HEPTANE_SYNC_CHECK(st);
    gh_.apply(x_.get(), s_.get(), false, st, skip);
    k_stage2_apply<<<blocks_for(M_ + nw_), kThreads, 0, st>>>(inv_.get(), K_, M_, nw_, r, s_.get(),
                                                              x_.get(), z, skip);
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
