// CPR on the device (cpr.cuh), z = M^{-1} r: the kernels of stage 1's restriction, the
// multigrid cycle (line smoother, restriction, prolongation, coarsest product) and stage 2,
// each the device twin of a loop of core/precond/cpr.cpp; the setup is in cpr_setup.cu.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "core/precond/block_arith.hpp"
#include "core/precond/cpr.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/base/peer_halo.cuh"
#include "gpu/src/base/solver_state.cuh"
#include "gpu/src/precond/cpr_device.cuh"

namespace heptane::gpu::detail {
namespace {

using namespace heptane::canonical;
using namespace cpr_device;

__device__ bool skipped(const int* skip) { return skip != nullptr && *skip != 0; }

/// r_p = R r: the weighted sum of each cell's residuals, the wells' as they are; the cells
/// [m0, m0 + cells) and the wells of ws.
__global__ void k_restrict_weights(const double* r, const double* w, int K, long long M,
                                   long long m0, long long cells, WellSet ws, double* rp,
                                   const int* skip) {
    if (skipped(skip)) return;
    const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (t < cells) {
        const long long i = m0 + t;
        rp[i] = cpr::weighted(w + i * K, K, [&](int c) { return r[i * K + c]; });
    } else if (t < cells + ws.n) {
        const int v = ws(static_cast<int>(t - cells));
        rp[M + v] = r[M * K + v];
    }
}

__global__ void k_zero(double* x, long long n, const int* skip) {
    if (skipped(skip)) return;
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) x[i] = 0.0;
}

/// cpr::line_solve1 (the CPU's operations, in its order) for the one lane that runs a
/// column's recurrence: the layers' operands are loaded kAhead at a time into registers
/// before their steps, so the chain waits on its three operations per layer only, not on a
/// shared-memory load each (measured: 9-14 us per pass of the small levels' 85-layer
/// columns, most of it this recurrence).
__device__ void line_solve_lane(const double* __restrict__ lower, const double* __restrict__ upper,
                                const double* __restrict__ pinv, const double* __restrict__ y,
                                double* __restrict__ z, int nz) {
    constexpr int kAhead = 8;
    double g = mul(pinv[0], y[0]);
    z[0] = g;
    int k = 1;
    for (; k + kAhead <= nz; k += kAhead) {
        double l[kAhead], p[kAhead], v[kAhead];
#pragma unroll
        for (int u = 0; u < kAhead; ++u) {
            l[u] = lower[k + u];
            p[u] = pinv[k + u];
            v[u] = y[k + u];
        }
#pragma unroll
        for (int u = 0; u < kAhead; ++u) {
            g = mul(p[u], sub(v[u], mul(l[u], g)));
            z[k + u] = g;
        }
    }
    for (; k < nz; ++k) {
        g = mul(pinv[k], sub(y[k], mul(lower[k], g)));
        z[k] = g;
    }
    k = nz - 2;
    for (; k + 1 >= kAhead; k -= kAhead) {
        double c[kAhead], p[kAhead], up[kAhead];
#pragma unroll
        for (int u = 0; u < kAhead; ++u) {
            c[u] = z[k - u];
            p[u] = pinv[k - u];
            up[u] = upper[k - u];
        }
#pragma unroll
        for (int u = 0; u < kAhead; ++u) {
            g = sub(c[u], mul(p[u], mul(up[u], g)));
            z[k - u] = g;
        }
    }
    for (; k >= 0; --k) {
        g = sub(z[k], mul(pinv[k], mul(upper[k], g)));
        z[k] = g;
    }
}

/// Column t of a pass over the rows i in [i0, i1) (col = i ny + j), or -1 outside them: all
/// columns in order (color -1), or those of colour `color` ((i + j) % 2), rows 2 q and
/// 2 q + 1 holding ny columns of each colour together, counted from row pair i0 / 2.
__device__ int line_column(int t, int color, int ny, int i0, int i1) {
    if (color < 0) return i0 * ny + t;
    const int q = t / ny + i0 / 2, u = t % ny;
    const int first = (ny + 1 - color) / 2;  // the colour's columns in row 2 q
    const int i = u < first ? 2 * q : 2 * q + 1;
    const int j = u < first ? color + 2 * u : 1 - color + 2 * (u - first);
    return i >= i0 && i < i1 ? i * ny + j : -1;
}

/// Warps of a pass of k_line_update over the rows [i0, i1): line_column's t.
__host__ __device__ inline int line_warps(int color, int ny, int i0, int i1) {
    return color < 0 ? (i1 - i0) * ny : ((i1 + 1) / 2 - i0 / 2) * ny;
}

/// One pass of the line smoother (StructuredMg::smooth): x_col += omega T^{-1} r_col on the
/// columns of `color` (-1: all) in the rows [i0, i1), a warp per column (line_column: only the
/// colour's columns are launched). r_col is b - A x from ax (Jacobi: A x of the x before the
/// sweep), or computed here from the x of now (ax null: Gauss-Seidel; a column's neighbours across
/// i and j have the other colour, its own rows are read before they change), or b (from_zero: x =
/// 0, whose columns of the other colour, and wells, this pass sets to 0: warp t zeroes the other
/// colour's column t). With inv_d (Jacobi), the warp after the columns updates the wells of ws from
/// ax. The lanes load the column's coefficients, pivots and residual into shared memory together
/// (coalesced, all loads in flight at once), lane 0 runs the recurrence (line_solve_lane:
/// cpr::line_solve1's operations), the lanes update x.
__global__ void __launch_bounds__(kLineWarps * 32)
    k_line_update(LevelView A, const double* pinv, int color, bool from_zero, const double* inv_d,
                  double omega, const double* b, const double* ax, double* x, int i0, int i1,
                  WellSet ws, const int* skip) {
    if (skipped(skip)) return;
    extern __shared__ double shared[];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int nz = A.nz, warps = line_warps(color, A.ny, i0, i1);
    const long long cells = static_cast<long long>(A.nx) * A.ny * nz;
    const long long t = static_cast<long long>(blockIdx.x) * kLineWarps + warp;
    const auto r = [&](long long q) {
        if (from_zero) return b[q];
        return ax != nullptr ? sub(b[q], ax[q]) : sub(b[q], A.row(q, x));
    };
    if (t >= warps) {  // the wells' warp
        if (t != warps) return;
        for (int v = lane; v < ws.n; v += 32) {
            const int w = ws(v);
            const long long q = cells + w;
            if (inv_d != nullptr) {
                x[q] = add(from_zero ? 0.0 : x[q], mul(omega, mul(inv_d[w], r(q))));
            } else if (from_zero) {
                x[q] = 0.0;
            }
        }
        return;
    }
    if (color >= 0 && from_zero) {
        const int other = line_column(static_cast<int>(t), 1 - color, A.ny, i0, i1);
        if (other >= 0) {
            for (int k = lane; k < nz; k += 32) x[static_cast<long long>(other) * nz + k] = 0.0;
        }
    }
    const int col = line_column(static_cast<int>(t), color, A.ny, i0, i1);
    if (col < 0) return;
    const long long m0 = static_cast<long long>(col) * nz;
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
    if (lane == 0) line_solve_lane(lower, upper, piv, res, z, nz);
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
                  WellSet ws, const int* skip) {
    if (skipped(skip)) return;
    extern __shared__ double shared[];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int j = blockIdx.x * kLineWarps + warp;
    if (j >= ws.n) return;
    const int w = ws(j);
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
/// computed here, a thread per aggregate (coarsening boxes of more than kMemberLanes cells).
__global__ void k_restrict_serial(cpr::LevelGrid g, LevelView A, const double* b, const double* x,
                                  long long c0, long long c1, double* bc, const int* skip) {
    if (skipped(skip)) return;
    const long long c = c0 + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (c >= c1) return;
    const int kc = static_cast<int>(c % g.cz), jc = static_cast<int>((c / g.cz) % g.cy);
    const int ic = static_cast<int>(c / (static_cast<long long>(g.cz) * g.cy));
    double v = 0.0;
    cpr::each_member(g, ic, jc, kc, [&](int i, int j, int k) {
        const long long m = cpr::cell_index(i, j, k, g.ny, g.nz);
        v = add(v, sub(b[m], A.row(m, x)));
    });
    bc[c] = v;
}

/// Lanes per aggregate of k_restrict: the members of a 2 x 2 x 2 box at most.
constexpr int kMemberLanes = 8;
/// k_restrict for coarse levels up to this size, k_restrict_serial above. Measured on the H100
/// (SPE10's hierarchy, Nsight Compute): to 19,040 coarse cells the lanes take 5-9 us against
/// 9-10 (latency), to 70,125 cells 22 us against 17.5 and to 280,500 85 us against 58 (the
/// serial kernel's loads are coalesced along k, the lanes' spread over the box's columns).
constexpr long long kLanesRestrictCells = 32768;

/// b_c = R (b - A x): each aggregate's sum of the residual, in member order (each_member's),
/// kMemberLanes lanes of one warp per aggregate: lane s computes the row of the member in
/// slot s of the fx x fy x fz box (i, then j, then k: each_member's order, slots past the
/// grid's edge absent), and the group's first lane adds them in slot order. One thread per
/// aggregate waits a memory latency per member (9-10 us from each small level of SPE10).
__global__ void k_restrict(cpr::LevelGrid g, LevelView A, const double* b, const double* x,
                           long long c0, long long c1, double* bc, const int* skip) {
    if (skipped(skip)) return;
    const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    const long long c = c0 + t / kMemberLanes;
    const int slot = static_cast<int>(t % kMemberLanes);
    const int kc = static_cast<int>(c % g.cz), jc = static_cast<int>((c / g.cz) % g.cy);
    const int ic = static_cast<int>(c / (static_cast<long long>(g.cz) * g.cy));
    const auto member = [&](int q, int& i, int& j, int& k) {  // each_member's box (with sx)
        i = ic * g.fx - g.sx + q / (g.fy * g.fz);
        j = jc * g.fy + q / g.fz % g.fy;
        k = kc * g.fz + q % g.fz;
        return q < g.fx * g.fy * g.fz && i >= 0 && i < g.nx && j < g.ny && k < g.nz;
    };
    int i = 0, j = 0, k = 0;
    double row = 0.0;
    if (c < c1 && member(slot, i, j, k)) {
        const long long m = cpr::cell_index(i, j, k, g.ny, g.nz);
        row = sub(b[m], A.row(m, x));
    }
    double v = 0.0;  // every lane of the warp takes part in the shuffles
#pragma unroll
    for (int q = 0; q < kMemberLanes; ++q) {
        const double term = __shfl_sync(0xffffffffu, row, (threadIdx.x & 31) - slot + q);
        if (member(q, i, j, k)) v = add(v, term);
    }
    if (c < c1 && slot == 0) bc[c] = v;
}

/// x += alpha P x_c on the cells [m0, m1).
__global__ void k_prolong(cpr::LevelGrid g, double alpha, const double* xc, double* x, long long m0,
                          long long m1, const int* skip) {
    if (skipped(skip)) return;
    const long long m = m0 + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (m >= m1) return;
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

/// Stage 2 from x_p (cpr::stage2_cell and stage2_well, the CPU's), a thread per cell of
/// [m0, m0 + cells), then one per well of ws: z = B^{-1} (r - A E x_p) + E x_p. A's pressure
/// columns only are read.
/// KMax: the block size when it is 2 (the two-phase decks: the cell's scratch in registers,
/// not a 128-byte stack frame), else kMaxBlockSize with K = A.K.
template <int KMax>
__global__ void k_stage2_apply(ARead A, BdiaView a, const double* inv, long long M, long long m0,
                               long long cells, WellSet ws, const double* xp, const double* r,
                               double* z, const int* skip) {
    if (skipped(skip)) return;
    const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    const int K = KMax == 2 ? 2 : A.K;
    const long long kk = static_cast<long long>(K) * K;
    if (t < cells) {
        const long long m = m0 + t;
        const double* wt = nullptr;
        double xpw = 0.0;
        if (a.nw > 0) {
            const int w = a.well_of_column[m / a.nz];
            if (w >= 0 && m >= a.cell0[w] && m < a.cell0[w] + a.count[w]) {
                wt = a.well_cols + a.first[w] + (m - a.cell0[w]) * static_cast<long long>(K);
                xpw = xp[M + w];
            }
        }
        cpr::stage2_cell<KMax>(A, K, a.nx, a.ny, a.nz, m, xp, nnc_of(a), wt, xpw, r + m * K,
                               inv + m * kk, z + m * K);
    } else if (t < cells + ws.n) {
        const int w = ws(static_cast<int>(t - cells));
        z[M * K + w] = cpr::stage2_well(a.well_rows + a.first[w], K, a.cell0[w], a.count[w], a.d[w],
                                        inv[M * kk + w], xp, xp[M + w], r[M * K + w]);
    }
}

}  // namespace

void cpr_device::allow_line_shared_memory(std::size_t bytes) {
    HEPTANE_CUDA_CHECK(cudaFuncSetAttribute(
        k_line_update, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
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
    return {L.gh->bdia_values(), L.Mp, L.g.nx, L.g.ny, L.g.nz, wells, nnc_of(v)};
}

std::array<int, 2> DeviceCpr::span(int l) const {
    if (!split(l)) return {0, levels_[l]->g.nx};
    const CprLevelPart& p = *planes_->part(l);
    return {p.first_plane, p.end_plane};
}

std::array<long long, 2> DeviceCpr::coarse_cells(int l) const {
    const cpr::LevelGrid& g = levels_[l]->g;
    const std::array<int, 2> part = span(l);
    const long long coarse_plane = static_cast<long long>(g.cy) * g.cz;
    return {(part[0] + g.sx) / g.fx * coarse_plane,
            (part[1] + g.sx + g.fx - 1) / g.fx * coarse_plane};
}

WellSet DeviceCpr::wells_of(int l) const {
    if (l == 0 && split(0)) return {my_wells_.get(), static_cast<int>(my_wells_.size())};
    return {nullptr, levels_[l]->nw};
}

void DeviceCpr::exchange(int l, double* x, cudaStream_t st) const {
    if (!split(l)) return;
    const Level& L = *levels_[l];
    const std::array<int, 2> part = span(l);
    const int first = part[0], end = part[1];
    const long long plane = static_cast<long long>(L.g.ny) * L.g.nz;
    const std::size_t bytes = plane * sizeof(double);
    double* h = stage_[l]->get();
    const auto copy = [&](double* to, const double* from, cudaMemcpyKind kind) {
        HEPTANE_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, kind, st));
    };
    const bool lo = first > 0, hi = end < L.g.nx;  // the neighbouring ranks (planes' order)
    if (!lo && !hi) return;                        // one rank: nothing to send or receive
    if (peer_ != nullptr) {                        // the GPUs move the planes, queued on st
        peer_->exchange(
            peer_channel_, lo ? x + first * plane : nullptr, hi ? x + (end - 1) * plane : nullptr,
            lo ? x + (first - 1) * plane : nullptr, hi ? x + end * plane : nullptr, plane, st);
        return;
    }
    if (lo) copy(h + first * plane, x + first * plane, cudaMemcpyDeviceToHost);
    if (hi) copy(h + (end - 1) * plane, x + (end - 1) * plane, cudaMemcpyDeviceToHost);
    HEPTANE_CUDA_CHECK(cudaStreamSynchronize(st));
    planes_->part(l)->exchange(h);
    if (lo) copy(x + (first - 1) * plane, h + (first - 1) * plane, cudaMemcpyHostToDevice);
    if (hi) copy(x + end * plane, h + end * plane, cudaMemcpyHostToDevice);
}

void DeviceCpr::gather(int l, double* b, long long c0, long long c1, cudaStream_t st) const {
    if (peer_ != nullptr) {  // the GPUs write their parts into each other's b, queued on st
        peer_->gather(b, c0, c1, levels_[l]->M, st);
        return;
    }
    const Pinned& h = *stage_[l];
    HEPTANE_CUDA_CHECK(cudaMemcpyAsync(h.get() + c0, b + c0, (c1 - c0) * sizeof(double),
                                       cudaMemcpyDeviceToHost, st));
    HEPTANE_CUDA_CHECK(cudaStreamSynchronize(st));
    planes_->gather(h.get());
    HEPTANE_CUDA_CHECK(
        cudaMemcpyAsync(b, h.get(), h.size() * sizeof(double), cudaMemcpyHostToDevice, st));
}

void DeviceCpr::product(int l, const double* x, cudaStream_t st, const int* skip) const {
    const Level& L = *levels_[l];
    if (split(l)) {  // the rank's cells' rows and every well's (its own read after)
        const std::array<int, 2> part = span(l);
        const auto plane = static_cast<unsigned>(L.g.ny * L.g.nz);
        L.gh->apply_rows(x, L.ax.get(), part[0] * plane, part[1] * plane, true, false, st);
    } else {
        L.gh->apply(x, L.ax.get(), false, st, skip);
    }
}

void DeviceCpr::smooth(int l, const double* b, double* x, bool from_zero, cudaStream_t st,
                       const int* skip) const {
    const Level& L = *levels_[l];
    const bool coarsest = l + 1 == levels();
    const double omega = coarsest ? 1.0 : smoother_omega(options_.mg);
    const LevelView A = view(l);
    const std::array<int, 2> part = span(l);
    const int i0 = part[0], i1 = part[1];
    const WellSet ws = wells_of(l);
    const auto pass = [&](int color, bool zero, const double* inv_d, const double* ax) {
        const int warps = line_warps(color, L.g.ny, i0, i1) + (L.nw > 0 ? 1 : 0);
        k_line_update<<<(warps + kLineWarps - 1) / kLineWarps, kLineWarps * 32,
                        kLineWarps * line_shared_bytes(L.g.nz), st>>>(
            A, L.pinv.get(), color, zero, inv_d, omega, b, ax, x, i0, i1, ws, skip);
        HEPTANE_SYNC_CHECK(st);
    };
    if (options_.mg.smoother == MgSmoother::line_jacobi || coarsest) {
        if (!from_zero) {
            exchange(l, x, st);
            product(l, x, st, skip);
        }
        pass(-1, from_zero, L.inv_d.get(), L.ax.get());
        return;
    }
    // The colours are the whole level's (i + j) parity: a slab starting at an odd plane counts
    // its rows' colours the other way round. Where a connection joins two columns of one
    // colour, each colour's rows come from a product of the x before its turn (the CPU's
    // order: its residual before any of its columns changes); else each warp forms its
    // column's rows (the same numbers: no column of its colour changes what they read).
    const int flip = split(l) ? planes_->part(l)->origin % 2 : 0;
    const auto rows = [&](bool zero) -> const double* {
        if (!L.colour_coupled || zero) return nullptr;
        product(l, x, st, skip);
        return L.ax.get();
    };
    if (!from_zero) exchange(l, x, st);
    pass(0 ^ flip, from_zero, nullptr, rows(from_zero));
    exchange(l, x, st);  // the other colour reads the neighbours' planes of this one
    pass(1 ^ flip, false, nullptr, rows(false));
    if (ws.n > 0) {
        k_well_update<<<(ws.n + kLineWarps - 1) / kLineWarps, kLineWarps * 32,
                        kLineWarps * L.g.nz * sizeof(double), st>>>(A, L.inv_d.get(), omega, b, x,
                                                                    ws, skip);
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
    const std::array<int, 2> part = span(l);
    const int i0 = part[0], i1 = part[1];
    const long long plane = static_cast<long long>(L.g.ny) * L.g.nz;
    for (int s = 0; s < o.pre_sweeps; ++s) smooth(l, b, x, s == 0, st, skip);
    if (o.pre_sweeps == 0) {  // the rank's planes with their halo planes, and the wells
        const long long z0 = std::max(i0 - 1, 0) * plane;
        const long long z1 = std::min(i1 + 1, L.g.nx) * plane;
        k_zero<<<blocks_for(z1 - z0), kThreads, 0, st>>>(x + z0, z1 - z0, skip);
        HEPTANE_SYNC_CHECK(st);
        if (L.nw > 0) {
            k_zero<<<blocks_for(L.nw), kThreads, 0, st>>>(x + L.M, L.nw, skip);
            HEPTANE_SYNC_CHECK(st);
        }
    }
    exchange(l, x, st);  // the restriction's rows read the halo planes
    const Level& C = *levels_[l + 1];
    const std::array<long long, 2> coarse = coarse_cells(l);
    const long long c0 = coarse[0], c1 = coarse[1];
    if (L.g.fx * L.g.fy * L.g.fz <= kMemberLanes && C.M <= kLanesRestrictCells) {
        k_restrict<<<blocks_for((c1 - c0) * kMemberLanes), kThreads, 0, st>>>(
            L.g, view(l), b, x, c0, c1, C.b.get(), skip);
    } else {
        k_restrict_serial<<<blocks_for(c1 - c0), kThreads, 0, st>>>(L.g, view(l), b, x, c0, c1,
                                                                    C.b.get(), skip);
    }
    HEPTANE_SYNC_CHECK(st);
    if (split(l) && !split(l + 1)) gather(l + 1, C.b.get(), c0, c1, st);
    cycle(l + 1, C.b.get(), C.x.get(), st, skip);
    if (o.cycle == MgCycle::w && l + 2 < levels()) {
        C.gh->apply(C.x.get(), C.ax.get(), false, st, skip);
        k_sub<<<blocks_for(C.M), kThreads, 0, st>>>(C.b.get(), C.ax.get(), C.rc.get(), C.M, skip);
        HEPTANE_SYNC_CHECK(st);
        cycle(l + 1, C.rc.get(), C.dc.get(), st, skip);
        k_add<<<blocks_for(C.M), kThreads, 0, st>>>(C.x.get(), C.dc.get(), C.M, skip);
        HEPTANE_SYNC_CHECK(st);
    }
    k_prolong<<<blocks_for((i1 - i0) * plane), kThreads, 0, st>>>(L.g, o.coarse_scale, C.x.get(), x,
                                                                  i0 * plane, i1 * plane, skip);
    HEPTANE_SYNC_CHECK(st);
    for (int s = 0; s < o.post_sweeps; ++s) smooth(l, b, x, false, st, skip);
}

long long DeviceCpr::gather_rows() const {
    return planes_ != nullptr ? levels_[planes_->levels.size()]->M : 0;
}

void DeviceCpr::apply(const double* r, double* z, cudaStream_t st, const int* skip) const {
    if (peer_ == nullptr || skip != nullptr) {
        apply_kernels(r, z, st, skip);
        return;
    }
    // No host step: one graph per (r, z), captured at its first apply (the kernels' rounds are
    // counted on the device, so a replay is the next round).
    auto it = std::find_if(graphs_.begin(), graphs_.end(),
                           [&](const Captured& c) { return c.r == r && c.z == z; });
    if (it == graphs_.end()) {
        cudaGraph_t graph = nullptr;
        HEPTANE_CUDA_CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
        apply_kernels(r, z, st, nullptr);
        HEPTANE_CUDA_CHECK(cudaStreamEndCapture(st, &graph));
        graphs_.push_back({r, z, std::make_unique<GraphExec>(graph)});
        HEPTANE_CUDA_CHECK(cudaGraphDestroy(graph));
        it = graphs_.end() - 1;
    }
    HEPTANE_CUDA_CHECK(cudaGraphLaunch(it->exec->get(), st));
}

void DeviceCpr::apply_kernels(const double* r, double* z, cudaStream_t st, const int* skip) const {
    const Level& L0 = *levels_[0];
    const std::array<int, 2> part = span(0);
    const int i0 = part[0], i1 = part[1];
    const long long plane = static_cast<long long>(L0.g.ny) * L0.g.nz;
    const long long m0 = i0 * plane, cells = (i1 - i0) * plane;
    const WellSet ws = wells_of(0);
    k_restrict_weights<<<blocks_for(cells + ws.n), kThreads, 0, st>>>(r, weights_.get(), K_, M_, m0,
                                                                      cells, ws, L0.b.get(), skip);
    HEPTANE_SYNC_CHECK(st);
    cycle(0, L0.b.get(), L0.x.get(), st, skip);
    exchange(0, L0.x.get(), st);  // stage 2 reads the neighbours' pressures
    const auto stage2 = K_ == 2 ? k_stage2_apply<2> : k_stage2_apply<kMaxBlockSize>;
    stage2<<<blocks_for(cells + ws.n), kThreads, 0, st>>>(
        read_of(gh_, K_), gh_.view(false), inv_.get(), M_, m0, cells, ws, L0.x.get(), r, z, skip);
    HEPTANE_SYNC_CHECK(st);
}

void DeviceCpr::cycle_level(int l, cudaStream_t st) const {
    const Level& L = *levels_[l];
    cycle(l, L.b.get(), L.x.get(), st, nullptr);
}

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
            const std::size_t rows = l == 0
                                         ? static_cast<std::size_t>(A.num_cells() + A.num_wells())
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
