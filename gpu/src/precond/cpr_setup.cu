// CPR on the device (cpr.cuh), its setup: the kernels that build the pressure system, the
// Galerkin coarse operators, the line pivots and the coarsest inverse from A's values on the
// device, each the device twin of a loop of core/precond/cpr.cpp, and the hierarchy's
// construction. The kernels of z = M^{-1} r are in cpr.cu.
#include <algorithm>
#include <array>
#include <climits>
#include <stdexcept>
#include <string>

#include "core/base/errors.hpp"
#include "core/precond/cpr.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/base/solver_state.cuh"
#include "gpu/src/precond/cpr_device.cuh"

namespace heptane::gpu::detail {
namespace {

using namespace heptane::canonical;
using namespace cpr_device;

/// The decoupling weights: from A's diagonal block (quasi-IMPES), or from the accumulation
/// blocks acc when given (true-IMPES; GHMatrix::accumulation's layout).
__global__ void k_weights(ARead A, const double* acc, long long M, long long m0, long long m1,
                          double* w, int* err) {
    const long long m = m0 + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (m >= m1) return;
    const auto D = [&](int r, int c) {
        return acc != nullptr ? acc[(static_cast<long long>(r) * A.K + c) * M + m] : A(3, r, c, m);
    };
    if (!cpr::impes_cell(D, A.K, w + m * A.K)) atomicMin(err + kWeights, static_cast<int>(m));
}

__global__ void k_stage2(ARead A, long long m0, long long m1, double* inv, int* err) {
    const long long m = m0 + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (m >= m1) return;
    const auto D = [&](int r, int c) { return A(3, r, c, m); };
    const long long kk = static_cast<long long>(A.K) * A.K;
    if (!cpr::invert_cell(D, A.K, inv + m * kk)) atomicMin(err + kStage2, static_cast<int>(m));
}

/// 1 / D of each well of ws into out (A's and the pressure system's: the same D).
__global__ void k_well_inverses(const double* d, WellSet ws, double* out, int* err) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= ws.n) return;
    const int w = ws(v);
    if (!cpr::usable_pivot(d[w])) {
        atomicMin(err + kWell, w);
        return;
    }
    out[w] = 1.0 / d[w];
}

/// The pressure system's rows [m0, m1): its Bdia and its connections' values (p_nnc: A's
/// layout, a value an entry; null without connections), cpr::extract_pressure's.
__global__ void k_extract(ARead A, cpr::NncRef<int> a_nnc, const double* w, int nx, int ny, int nz,
                          long long m0, long long m1, double* p, long long Mp, double* p_nnc) {
    const long long m = m0 + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (m >= m1) return;
    const double* wm = w + m * A.K;
    for (int d = 0; d < 7; ++d) {
        p[d * Mp + m] = stencil_has_neighbour(nx, ny, nz, m, d)
                            ? cpr::weighted(wm, A.K, [&](int r) { return A(d, r, 0, m); })
                            : 0.0;
    }
    if (a_nnc.ptr == nullptr) return;
    const long long kk = static_cast<long long>(A.K) * A.K;
    for (int e = a_nnc.ptr[m]; e < a_nnc.ptr[m + 1]; ++e) {
        const double* block = a_nnc.vals + e * kk;
        p_nnc[e] = cpr::weighted(wm, A.K, [&](int r) { return block[r * A.K]; });
    }
}

/// The pressure system's wells from A's (one thread per well of ws).
__global__ void k_extract_wells(BdiaView a, BdiaView p, const double* w, int K, WellSet ws,
                                double* p_w, double* p_wt, double* p_d) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= ws.n) return;
    const int n = ws(v);
    for (int l = 0; l < a.count[n]; ++l) {
        const long long m = a.cell0[n] + l;
        const long long src = a.first[n] + static_cast<long long>(l) * K, dst = p.first[n] + l;
        p_w[dst] = a.well_rows[src];
        p_wt[dst] = cpr::weighted(w + m * K, K, [&](int r) { return a.well_cols[src + r]; });
    }
    p_d[n] = a.d[n];
}

/// The coarse rows [c0, c1) of R A P.
__global__ void k_galerkin(LevelRead fine, cpr::NncRef<int> nnc, cpr::LevelGrid g, long long c0,
                           long long c1, double* coarse, long long Mpc) {
    const long long mc = c0 + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (mc >= c1) return;
    double v[7];
    cpr::galerkin_row(g, mc, fine, nnc, v);
    for (int d = 0; d < 7; ++d) {
        coarse[d * Mpc + mc] = stencil_has_neighbour(g.cx, g.cy, g.cz, mc, d) ? v[d] : 0.0;
    }
}

/// The line pivots of the columns [col0, col1).
__global__ void k_pivots(LevelRead a, int col0, int col1, int nz, double* pinv, int* err) {
    const int col = col0 + blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= col1) return;
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

/// cpr::dense_inverse, step by step over the whole device (a kernel per column p; one block
/// alone was most of the setup: 22 ms of it on SPE10's 340-row coarsest level, a pass over
/// 1.8 MB per step through one multiprocessor). k_dense_start sets inv = I and the largest
/// entry |a| (as bits: a non-negative double orders as its bits; NaN never compares larger,
/// as in cpr::largest).
__global__ void k_dense_start(const double* a, double* inv, int n, unsigned long long* big_bits) {
    const long long nn = static_cast<long long>(n) * n;
    double mine = 0.0;
    for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < nn;
         e += static_cast<long long>(gridDim.x) * blockDim.x) {
        inv[e] = e / n == e % n ? 1.0 : 0.0;
        mine = fabs(a[e]) > mine ? fabs(a[e]) : mine;
    }
    atomicMax(big_bits, static_cast<unsigned long long>(__double_as_longlong(mine)));
}

/// Step p of cpr::dense_inverse from (a, inv) into (a_out, inv_out), a block per row of the
/// result. Every block finds the pivot row of column p (the serial scan's first largest: a
/// block reduction that picks one of the values given) and the scaled pivot row in shared
/// memory (the same mul per entry in every block), then writes its row: row p the scaled
/// row, row i != p the row that the swap put there (row p's for i = piv) minus f times the
/// scaled row, f its entry in column p: cpr::dense_inverse's operations. Columns j <= p of a
/// are not read again and not written. Two buffers each, so no block reads a row that
/// another block of the step writes.
__global__ void __launch_bounds__(kDenseThreads)
    k_dense_step(const double* a, const double* inv, double* a_out, double* inv_out, int n, int p,
                 const unsigned long long* big_bits, int* err) {
    extern __shared__ double row[];  // the scaled pivot row: a's then inv's
    __shared__ Candidate warps[kDenseThreads / 32];
    Candidate c{-1.0, INT_MAX};
    for (int i = p + threadIdx.x; i < n; i += blockDim.x) {
        const double v = fabs(a[static_cast<long long>(i) * n + p]);
        if (v > c.v) c = {v, i};
    }
    c = block_best(c, warps);
    // the serial scan keeps row p unless a later row is strictly larger (a NaN never is; a
    // NaN in row p is never replaced)
    const double diagonal = a[static_cast<long long>(p) * n + p];
    const int piv = isnan(diagonal) ? p : c.i;
    const double pivot = a[static_cast<long long>(piv) * n + p];
    if (!cpr::usable_pivot(pivot, n, __longlong_as_double(static_cast<long long>(*big_bits)))) {
        if (blockIdx.x == 0 && threadIdx.x == 0) atomicMin(err, p);  // the same in every block
        return;
    }
    const double s = 1.0 / pivot;
    const double* ap = a + static_cast<long long>(piv) * n;
    const double* ip = inv + static_cast<long long>(piv) * n;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        row[j] = j > p ? mul(ap[j], s) : 0.0;
        row[n + j] = mul(ip[j], s);
    }
    __syncthreads();
    const int i = blockIdx.x;
    double* ao = a_out + static_cast<long long>(i) * n;
    double* io = inv_out + static_cast<long long>(i) * n;
    if (i == p) {
        for (int j = threadIdx.x; j < n; j += blockDim.x) {
            if (j > p) ao[j] = row[j];
            io[j] = row[n + j];
        }
        return;
    }
    const int from = i == piv ? p : i;
    const double* ai = a + static_cast<long long>(from) * n;
    const double* ii = inv + static_cast<long long>(from) * n;
    const double f = ai[p];
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        if (j > p) ao[j] = sub(ai[j], mul(f, row[j]));
        io[j] = sub(ii[j], mul(f, row[n + j]));
    }
}

std::vector<int> no_errors(int levels) { return std::vector<int>(kLevel0 + levels, INT_MAX); }

}  // namespace

/// The coarsest level's inverse into L.dense from its matrix in L.dense_work: n steps, each
/// from one pair of buffers into the other, arranged so the last lands in L.dense.
void DeviceCpr::dense_inverse(Level& L, int n, int* err, cudaStream_t st) {
    double* a[2] = {L.dense_work.get(), L.dense_work2.get()};
    double* inv[2] = {L.dense_scratch.get(), L.dense_scratch.get()};
    inv[n % 2] = L.dense.get();
    unsigned long long* big = big_.get();
    HEPTANE_CUDA_CHECK(cudaMemsetAsync(big, 0, sizeof(unsigned long long), st));
    k_dense_start<<<blocks_for(static_cast<long long>(n) * n), kThreads, 0, st>>>(a[0], inv[0], n,
                                                                                  big);
    HEPTANE_SYNC_CHECK(st);
    const std::size_t shared = 2 * sizeof(double) * static_cast<std::size_t>(n);
    for (int p = 0; p < n; ++p) {
        k_dense_step<<<n, kDenseThreads, shared, st>>>(a[p % 2], inv[p % 2], a[(p + 1) % 2],
                                                       inv[(p + 1) % 2], n, p, big, err);
        HEPTANE_SYNC_CHECK(st);
    }
}

DeviceCpr::DeviceCpr(const GHMatrix& A, DeviceGH& gh, const CprOptions& options,
                     const CprPlanes* planes)
    : gh_(gh),
      options_(options),
      structure_(A),
      K_(A.block_size()),
      M_(A.num_cells()),
      nw_(static_cast<int>(A.num_wells())),
      planes_(planes) {
    if (planes != nullptr && planes->nx <= 0) {
        throw std::invalid_argument("DeviceCpr: a rank's part holds slabs (CprPlanes::nx)");
    }
    const auto grids = planes != nullptr ? mg_slab_grids(*planes, A.ny(), A.nz(), options_.mg)
                                         : mg_grids(A.nx(), A.ny(), A.nz(), options_.mg);
    if (grids[0].nx != A.nx()) throw std::invalid_argument("DeviceCpr: not level 0's slab");
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
                           std::to_string(limit / (kLineWarps * line_shared_bytes(1))) + ")");
    }
    if (shared > 48 * 1024) {
        allow_line_shared_memory(shared);
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
        L->connections = shape.nnc().num_entries();
        L->colour_coupled = nnc_joins_one_colour(shape);
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
            L->dense_work2 = Buffer<double>(rows * rows);
            L->dense_scratch = Buffer<double>(rows * rows);
        }
        levels_.push_back(std::move(L));
    }
    // Level 0's b and x are stage 1's r_p and x_p.
    levels_[0]->b = Buffer<double>(static_cast<std::size_t>(levels_[0]->rows));
    levels_[0]->x = Buffer<double>(static_cast<std::size_t>(levels_[0]->rows));
    weights_ = Buffer<double>(static_cast<std::size_t>(M_ * K_));
    inv_ = Buffer<double>(static_cast<std::size_t>(M_ * K_ * K_ + nw_));
    errors_ = Buffer<int>(no_errors(levels()).size());
    big_ = Buffer<unsigned long long>(1);
    if (planes_ != nullptr) {
        if (planes_->levels.empty() || planes_->levels.size() >= levels_.size() ||
            !planes_->gather || !planes_->minimum) {
            throw std::invalid_argument(
                "DeviceCpr: planes split the leading levels (the coarsest runs whole) and "
                "gather and minimum across the ranks");
        }
        my_wells_ = Buffer<int>(planes_->wells);
        stage_.resize(levels_.size());
        for (std::size_t l = 0; l <= planes_->levels.size(); ++l) {
            stage_[l] = std::make_unique<Pinned>(static_cast<std::size_t>(levels_[l]->M));
        }
    }
    upload_accumulation(A);
    setup();
}

DeviceCpr::~DeviceCpr() = default;

void DeviceCpr::update(const GHMatrix& B) {
    structure_.check(B, "DeviceCpr::update");
    upload_accumulation(B);
    setup();
}

void DeviceCpr::update(const double* accumulation) {
    if (options_.weights == CprWeights::true_impes) {
        if (accumulation == nullptr) {
            throw InputError("solver.cpr.weights",
                             "true_impes needs the accumulation blocks, and the system has none");
        }
        if (acc_.size() == 0) acc_ = Buffer<double>(static_cast<std::size_t>(M_) * K_ * K_);
        HEPTANE_CUDA_CHECK(cudaMemcpyAsync(acc_.get(), accumulation, acc_.bytes(),
                                           cudaMemcpyDeviceToDevice, nullptr));
    }
    setup();
}

void DeviceCpr::upload_accumulation(const GHMatrix& A) {
    if (options_.weights != CprWeights::true_impes) return;
    check_weights_available(A, options_.weights);
    if (acc_.size() == 0) acc_ = Buffer<double>(A.accumulation().size());
    acc_.upload(A.accumulation());
}

void DeviceCpr::setup() {
    const cudaStream_t st = nullptr;
    HEPTANE_CUDA_CHECK(cudaDeviceSynchronize());  // the values' upload is not the setup
    graphs_.clear();  // captured with the last setup's buffers: captured again at next use
    const auto t0 = SetupClock::now();
    errors_.upload(no_errors(levels()));
    int* err = errors_.get();
    const BdiaView a = gh_.view(false);
    const ARead A = read_of(gh_, K_);
    // Stage 1's system on level 0: its cells of the rank's planes (all of them when whole)
    // and the rank's wells.
    Level& L0 = *levels_[0];
    const std::array<int, 2> part = span(0);
    const long long plane0 = static_cast<long long>(a.ny) * a.nz;
    const long long m0 = part[0] * plane0, m1 = part[1] * plane0;
    const WellSet ws = wells_of(0);
    const double* acc = options_.weights == CprWeights::true_impes ? acc_.get() : nullptr;
    k_weights<<<blocks_for(m1 - m0), kThreads, 0, st>>>(A, acc, M_, m0, m1, weights_.get(), err);
    HEPTANE_SYNC_CHECK(st);
    k_extract<<<blocks_for(m1 - m0), kThreads, 0, st>>>(A, nnc_of(a), weights_.get(), a.nx, a.ny,
                                                        a.nz, m0, m1, L0.gh->bdia_values(), L0.Mp,
                                                        L0.gh->nnc_values());
    HEPTANE_SYNC_CHECK(st);
    if (ws.n > 0) {
        k_extract_wells<<<blocks_for(ws.n), kThreads, 0, st>>>(
            a, L0.gh->view(false), weights_.get(), K_, ws, L0.gh->well_row_values(),
            L0.gh->well_col_values(), L0.gh->well_diagonal());
        HEPTANE_SYNC_CHECK(st);
        k_well_inverses<<<blocks_for(ws.n), kThreads, 0, st>>>(a.d, ws, L0.inv_d.get(), err);
        HEPTANE_SYNC_CHECK(st);
        k_well_inverses<<<blocks_for(ws.n), kThreads, 0, st>>>(a.d, ws, inv_.get() + M_ * K_ * K_,
                                                               err);
        HEPTANE_SYNC_CHECK(st);
    }
    k_stage2<<<blocks_for(m1 - m0), kThreads, 0, st>>>(A, m0, m1, inv_.get(), err);
    HEPTANE_SYNC_CHECK(st);
    // The coarse operators and every level's pivots: a split level's rows of the rank's
    // planes, computed from the rows of its planes above; the first whole level's operator
    // gathered diagonal by diagonal, and the levels from there on whole on every rank.
    for (std::size_t l = 0; l < levels_.size(); ++l) {
        Level& L = *levels_[l];
        const std::array<int, 2> mine = span(static_cast<int>(l));
        if (l > 0) {
            const Level& F = *levels_[l - 1];
            const std::array<long long, 2> coarse = coarse_cells(static_cast<int>(l) - 1);
            const long long c0 = coarse[0], c1 = coarse[1];
            k_galerkin<<<blocks_for(c1 - c0), kThreads, 0, st>>>(
                LevelRead{F.gh->bdia_values(), F.Mp}, nnc_of(F.gh->view(false)), F.g, c0, c1,
                L.gh->bdia_values(), L.Mp);
            HEPTANE_SYNC_CHECK(st);
            if (split(static_cast<int>(l) - 1) && !split(static_cast<int>(l))) {
                for (int d = 0; d < 7; ++d)
                    gather(static_cast<int>(l), L.gh->bdia_values() + d * L.Mp, c0, c1, st);
            }
        }
        const LevelRead lr{L.gh->bdia_values(), L.Mp};
        const int col0 = mine[0] * L.g.ny, col1 = mine[1] * L.g.ny;
        k_pivots<<<blocks_for(col1 - col0), kThreads, 0, st>>>(lr, col0, col1, L.g.nz, L.pinv.get(),
                                                               err + kLevel0 + l);
        HEPTANE_SYNC_CHECK(st);
        if (L.dense.size() > 0) {
            const int n = static_cast<int>(L.rows);
            k_dense_assemble<<<blocks_for(n), kThreads, 0, st>>>(lr, L.g.nx, L.g.ny, L.g.nz,
                                                                 L.dense_work.get());
            HEPTANE_SYNC_CHECK(st);
            dense_inverse(L, n, err + kDense, st);
        }
    }
    std::vector<int> e = errors_.download();  // synchronizes
    // Split: each rank checked its part (the first bad index of each check in its slabs'
    // numbering, here the whole system's); the minimum over the ranks is the one-process result.
    if (planes_ != nullptr) {
        const auto to_whole = [](int& v, long long base) {
            if (v != INT_MAX) v = static_cast<int>(v + base);
        };
        const CprLevelPart& p0 = planes_->levels[0];
        to_whole(e[kWeights], p0.origin * plane0);
        to_whole(e[kStage2], p0.origin * plane0);
        if (e[kWell] != INT_MAX) e[kWell] = planes_->global_wells.at(e[kWell]);
        for (std::size_t l = 0; l < planes_->levels.size(); ++l) {
            to_whole(e[kLevel0 + l],
                     static_cast<long long>(planes_->levels[l].origin) * levels_[l]->g.ny);
        }
        planes_->minimum(e.data(), static_cast<int>(e.size()));
    }
    setup_seconds_ = seconds_since(t0);
    const auto fail = [](const std::string& what) {
        throw InputError("solver.preconditioner", "cpr: " + what);
    };
    if (e[kWeights] != INT_MAX) {
        fail(std::string(acc != nullptr ? "the accumulation block (no true-IMPES weights)"
                                        : "the diagonal block (no quasi-IMPES weights)") +
             " of cell " + std::to_string(e[kWeights]) + " is singular");
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

std::vector<double> DeviceCpr::level_values(int l) const {
    const Level& L = *levels_[l];
    const auto fetch = [](const double* p, long long n, std::vector<double>& out) {
        const std::size_t at = out.size();
        out.resize(at + static_cast<std::size_t>(n));
        if (n > 0) {
            HEPTANE_CUDA_CHECK(cudaMemcpy(out.data() + at, p,
                                          static_cast<std::size_t>(n) * sizeof(double),
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
    if (L.connections > 0) fetch(L.gh->nnc_values(), L.connections, out);
    return out;
}

std::vector<double> DeviceCpr::pivots(int l) const { return levels_[l]->pinv.download(); }

std::vector<double> DeviceCpr::coarsest_inverse() const { return levels_.back()->dense.download(); }

}  // namespace heptane::gpu::detail
