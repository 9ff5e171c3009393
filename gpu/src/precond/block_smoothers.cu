// The block preconditioners and smoothers of seed 003 on the device (block_smoothers.cuh),
// the smoothers as solvers (block_smoother) and the entry points the tests use.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/base/canonical.hpp"
#include "core/base/errors.hpp"
#include "core/krylov/linear_solver.hpp"
#include "core/matrix/linear_operator.hpp"
#include "core/precond/block_arith.hpp"
#include "core/precond/cpr_arith.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/base/solver_state.cuh"
#include "gpu/src/krylov/factories.cuh"
#include "gpu/src/krylov/multi_kernel_common.cuh"
#include "gpu/src/precond/block_smoothers.cuh"
#include "gpu/src/precond/cpr_device.cuh"
#include "gpu/src/spmv/bdia_spmv.cuh"

namespace heptane::gpu {
namespace detail {
namespace {

using namespace heptane::canonical;

/// Well rows of any preconditioner: z_w = inv_d[w] r_w.
__global__ void k_scale_wells(const double* inv_d, int nw, long long cell_rows, const double* r,
                              double* z, const int* skip) {
    if (skip != nullptr && *skip != 0) return;
    const int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w < nw) z[cell_rows + w] = mul(inv_d[w], r[cell_rows + w]);
}

// ---- point-block Jacobi ------------------------------------------------------------------

__global__ void __launch_bounds__(kPrecondThreads)
    k_point_block(PointBlockView v, long long n, const double* r, double* z, const int* skip) {
    if (skip != nullptr && *skip != 0) return;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        z[i] = point_block_row(v, i, r);
    }
}

/// z = M^{-T} r: row i of cell m is row i - m K of inv_m^T r_m (wells: inv_d r).
__global__ void __launch_bounds__(kPrecondThreads)
    k_point_block_transpose(PointBlockView v, long long n, const double* r, double* z,
                            const int* skip) {
    if (skip != nullptr && *skip != 0) return;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        if (i >= v.cell_rows) {
            z[i] = mul(v.inv_d[i - v.cell_rows], r[i]);
            continue;
        }
        const long long m = i / v.K;
        const double* rc = r + m * v.K;
        z[i] =
            block::inverse_transpose_row(v.inv + m * v.K * v.K, v.K, static_cast<int>(i - m * v.K),
                                         [&](int c) { return rc[c]; });
    }
}

// ---- spatial blocks ------------------------------------------------------------------------

/// What a spatial-block kernel needs to find its block's cells and inverse.
struct BlockGeometry {
    int bx, by, bz, nby, nbz, nx, ny, nz, K;
    const double* inv;
    const long long* offset;
    __device__ block::SpatialBlock block(long long b) const {
        return block::spatial_block(b, bx, by, bz, nby, nbz, nx, ny, nz);
    }
    /// Global scalar row of the block's local row lr.
    __device__ long long row(const block::SpatialBlock& s, int lr) const {
        return s.cell(lr / K, ny, nz) * K + lr % K;
    }
};

BlockGeometry geometry(const SpatialUpload& u) {
    const SpatialBlocking& b = u.blocking;
    return {b.shape[0], b.shape[1], b.shape[2], b.count[1],  b.count[2],    b.grid[0],
            b.grid[1],  b.grid[2],  u.K,        u.inv.get(), u.offset.get()};
}

/// z_b = A_b^{-1} r_b (A_b^{-T} r_b with kTranspose), one thread block per spatial block:
/// the block's r gathered into shared memory, then one inverse row per thread (seed 003
/// Algorithm 2, steps 1-2).
template <bool kTranspose>
__global__ void k_spatial(BlockGeometry g, const double* r, double* z, const int* skip) {
    if (skip != nullptr && *skip != 0) return;
    extern __shared__ double rb[];
    const long long b = blockIdx.x;
    const block::SpatialBlock s = g.block(b);
    const int n = s.cells() * g.K;
    for (int lr = threadIdx.x; lr < n; lr += blockDim.x) rb[lr] = r[g.row(s, lr)];
    __syncthreads();
    const double* inv = g.inv + g.offset[b];
    const auto x = [&](int c) { return rb[c]; };
    for (int lr = threadIdx.x; lr < n; lr += blockDim.x) {
        z[g.row(s, lr)] = kTranspose ? block::inverse_transpose_row(inv, n, lr, x)
                                     : block::inverse_row(inv, n, lr, x);
    }
}

int block_threads(int max_rows) { return std::min(512, std::max(32, (max_rows + 31) / 32 * 32)); }

std::size_t block_shared_bytes(int max_rows) {
    const std::size_t bytes = sizeof(double) * static_cast<std::size_t>(max_rows);
    if (bytes > 227u * 1024u) {
        throw NotSupported("spatial blocks of " + std::to_string(max_rows) +
                           " rows do not fit in a thread block's shared memory (at most " +
                           std::to_string(227 * 1024 / 8) +
                           " rows): choose a smaller "
                           "solver.block_shape");
    }
    return bytes;
}

void allow_shared(const void* kernel, std::size_t bytes) {
    if (bytes > 48u * 1024u) {
        HEPTANE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                static_cast<int>(bytes)));
    }
}

/// Spatial-block Jacobi. On a GPU rank (design decision 60) the slab's first `lo` and last
/// `hi` planes are other ranks' (its halo planes): the blocks are factored on the owned planes
/// alone (planes_of), so they are the one-process blocks, and applied to the slab's vectors
/// from the first owned cell on; the wells follow the slab's cells.
class DeviceSpatial final : public DevicePreconditioner {
  public:
    DeviceSpatial(const GHMatrix& A, std::array<int, 3> shape, int lo, int hi)
        : lo_(lo),
          hi_(hi),
          shape_(shape),
          blocks_(factor(A)),
          cell_at_(static_cast<long long>(lo) * A.ny() * A.nz() * A.block_size()),
          wells_at_(A.cell_unknowns()) {
        allow_shared(reinterpret_cast<const void*>(&k_spatial<false>), blocks_.shared_bytes());
        allow_shared(reinterpret_cast<const void*>(&k_spatial<true>), blocks_.shared_bytes());
    }
    void update(const GHMatrix& A) override { blocks_.update(factor(A)); }
    void apply(const double* r, double* z, cudaStream_t stream,
               const int* skip = nullptr) const override {
        launch<false>(r, z, stream, skip);
    }
    void apply_transpose(const double* r, double* z, cudaStream_t stream,
                         const int* skip = nullptr) const override {
        launch<true>(r, z, stream, skip);
    }

  private:
    SpatialBlockFactors factor(const GHMatrix& A) const {
        if (lo_ == 0 && hi_ == 0) return factor_spatial_blocks(A, shape_);
        return factor_spatial_blocks(planes_of(A, lo_, A.nx() - lo_ - hi_), shape_);
    }
    template <bool kTranspose>
    void launch(const double* r, double* z, cudaStream_t stream, const int* skip) const {
        k_spatial<kTranspose><<<static_cast<unsigned>(blocks_.blocking.blocks()), blocks_.threads,
                                blocks_.shared_bytes(), stream>>>(geometry(blocks_), r + cell_at_,
                                                                  z + cell_at_, skip);
        HEPTANE_SYNC_CHECK(stream);
        launch_scale_wells(blocks_.inv_d, wells_at_, r, z, stream, skip);
    }

    int lo_, hi_;
    std::array<int, 3> shape_;  // before blocks_, which factor() makes
    SpatialUpload blocks_;
    long long cell_at_, wells_at_;
};

// ---- smoother sweeps -------------------------------------------------------------------------

/// (A x)_i of cell row (m, r) in the canonical order (core/spmv/spmv.cpp): over d, then c, then
/// the non-neighbour connections, then the well term. Plain loads: in a chaotic sweep x changes
/// under the kernel.
__device__ double cell_row_product(const BdiaView& v, int K, unsigned m, int r, const double* x) {
    const Stencil s = stencil(v, m);
    double acc = 0.0;
    for (int d = 0; d < 7; ++d) {
        if (!(s.mask & (1u << d))) continue;
        const long long nb = static_cast<long long>(m) + s.off[d];
        for (int c = 0; c < K; ++c) {
            const double a = v.bdia[((static_cast<long long>(d) * K + r) * K + c) * v.Mp + m];
            acc = mul_add(a, x[nb * K + c], acc);
        }
    }
    if (v.nnc_ptr != nullptr) {  // the non-neighbour connections, in entry order (decision 71)
        for (int e = v.nnc_ptr[m]; e < v.nnc_ptr[m + 1]; ++e) {
            const double* xn = x + static_cast<long long>(v.nnc_col[e]) * K;
            const double* block = v.nnc_vals + static_cast<long long>(e) * K * K;
            for (int c = 0; c < K; ++c) acc = mul_add(block[r * K + c], xn[c], acc);
        }
    }
    int base = 0;
    const int w = well_of(v, m, K, base);
    if (w >= 0) acc = mul_add(v.well_cols[base + r], x[static_cast<long long>(v.M) * K + w], acc);
    return acc;
}

/// One sweep over the spatial blocks: r_b = b_b - (A x_in)_b into shared memory, then
/// x_out_b = x_in_b + omega A_b^{-1} r_b (seed 003 Algorithm 2; x_out == x_in: chaotic
/// Gauss-Seidel, Algorithm 1).
__global__ void k_sweep(BdiaView v, BlockGeometry g, const double* b, const double* x_in,
                        double* x_out, double omega, const int* skip) {
    if (skip != nullptr && *skip != 0) return;
    extern __shared__ double rb[];
    const long long blk = blockIdx.x;
    const block::SpatialBlock s = g.block(blk);
    const int n = s.cells() * g.K;
    for (int lr = threadIdx.x; lr < n; lr += blockDim.x) {
        const long long m = s.cell(lr / g.K, g.ny, g.nz);
        const int r = lr % g.K;
        const long long i = m * g.K + r;
        rb[lr] = sub(b[i], cell_row_product(v, g.K, static_cast<unsigned>(m), r, x_in));
    }
    __syncthreads();
    const double* inv = g.inv + g.offset[blk];
    for (int lr = threadIdx.x; lr < n; lr += blockDim.x) {
        const long long i = g.row(s, lr);
        const double z = block::inverse_row(inv, n, lr, [&](int c) { return rb[c]; });
        x_out[i] = add(x_in[i], mul(omega, z));
    }
}

/// The well rows after the cells: x_w = x_w + omega (b_w - (A x)_w) / D_w, a warp a well
/// (warp_ordered_sum: the row's terms in order; one thread a well waited a load latency every
/// few perforations).
__global__ void k_sweep_wells(BdiaView v, int K, const double* inv_d, const double* b,
                              const double* x_in, double* x_out, double omega, const int* skip) {
    if (skip != nullptr && *skip != 0) return;
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (w >= v.nw) return;  // whole warps
    const double* xc = x_in + static_cast<long long>(v.cell0[w]) * K;
    const double* vals = v.well_rows + v.first[w];
    const double sum =
        warp_ordered_sum<4>(v.count[w] * K, [&](int i) { return mul(vals[i], xc[i]); });
    if (threadIdx.x % 32 != 0) return;
    const long long row = static_cast<long long>(v.M) * K + w;
    const double ax = mul_add(v.d[w], x_in[row], sum);
    x_out[row] = add(x_in[row], mul(omega, mul(inv_d[w], sub(b[row], ax))));
}

}  // namespace

void launch_scale_wells(const Buffer<double>& inv_d, long long cell_rows, const double* r,
                        double* z, cudaStream_t stream, const int* skip) {
    const int nw = static_cast<int>(inv_d.size());
    if (nw == 0) return;
    k_scale_wells<<<(nw + 127) / 128, 128, 0, stream>>>(inv_d.get(), nw, cell_rows, r, z, skip);
    HEPTANE_SYNC_CHECK(stream);
}

DevicePointBlock::DevicePointBlock(const PointBlockFactors& f)
    : inv_(f.inv),
      inv_d_(f.inv_d),
      cell_rows_(f.cells * f.K),
      K_(f.K),
      nw_(static_cast<int>(f.inv_d.size())) {}

void DevicePointBlock::update(const GHMatrix& A) {
    const PointBlockFactors f = factor_point_blocks(A);
    inv_.upload(f.inv);
    inv_d_.upload(f.inv_d);
    HEPTANE_CUDA_CHECK(cudaStreamSynchronize(nullptr));  // the host copies die here
}

namespace {

/// Point-block Jacobi's factors from A on the device: cell m's diagonal block inverted by
/// cpr::invert_cell (factor_point_blocks' arithmetic), then 1 / D per well; the first bad cell
/// and well into err[0], err[1] (INT_MAX: none).
__global__ void k_point_block_factor(cpr_device::ARead A, long long M, const double* d, int nw,
                                     double* inv, double* inv_d, int* err) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < M) {
        const auto D = [&](int r, int c) { return A(kCenter, r, c, i); };
        if (!cpr::invert_cell(D, A.K, inv + i * A.K * A.K)) atomicMin(err, static_cast<int>(i));
    } else if (i < M + nw) {
        invert_well(d, static_cast<int>(i - M), inv_d, err + 1);
    }
}

}  // namespace

void DevicePointBlock::factor_on_device(const DeviceGH& gh, cudaStream_t stream) {
    const BdiaView a = gh.view(false);
    const long long M = static_cast<long long>(a.M);
    int* err = errors_.reset(stream);
    k_point_block_factor<<<static_cast<unsigned>((M + nw_ + kPrecondThreads - 1) / kPrecondThreads),
                           kPrecondThreads, 0, stream>>>(cpr_device::read_of(gh, K_), M, a.d, nw_,
                                                         inv_.get(), inv_d_.get(), err);
    HEPTANE_CUDA_CHECK(cudaGetLastError());
    errors_.check(a.d, stream, point_block_singular, a.nx, a.ny, a.nz);
}

PointBlockFactors DevicePointBlock::factors() const {
    PointBlockFactors f;
    f.K = K_;
    f.cells = cell_rows_ / K_;
    f.inv = inv_.download();
    f.inv_d = inv_d_.download();
    return f;
}

void DevicePreconditioner::factor_on_device(const DeviceGH&, cudaStream_t) {
    throw std::logic_error("this preconditioner factors on the host only");
}

int* FactorErrors::reset(cudaStream_t stream) {
    if (errors_.size() == 0) errors_ = Buffer<int>(2);
    const std::vector<int> none = {INT_MAX, INT_MAX};
    errors_.upload(none, stream);
    return errors_.get();
}

void FactorErrors::check(const double* d, cudaStream_t stream,
                         InputError (*cell_error)(int, int, int, index_t), int nx, int ny,
                         int nz) const {
    const std::vector<int> bad = errors_.download(stream);
    if (bad[1] != INT_MAX) {
        double dw = 0.0;
        HEPTANE_CUDA_CHECK(cudaMemcpy(&dw, d + bad[1], sizeof dw, cudaMemcpyDeviceToHost));
        throw well_diagonal_zero(static_cast<std::size_t>(bad[1]), dw);
    }
    if (bad[0] != INT_MAX) throw cell_error(nx, ny, nz, bad[0]);
}

void DevicePointBlock::apply(const double* r, double* z, cudaStream_t stream,
                             const int* skip) const {
    const long long n = cell_rows_ + nw_;
    k_point_block<<<grid_for(n), kPrecondThreads, 0, stream>>>(view(), n, r, z, skip);
    HEPTANE_SYNC_CHECK(stream);
}

void DevicePointBlock::apply_transpose(const double* r, double* z, cudaStream_t stream,
                                       const int* skip) const {
    const long long n = cell_rows_ + nw_;
    k_point_block_transpose<<<grid_for(n), kPrecondThreads, 0, stream>>>(view(), n, r, z, skip);
    HEPTANE_SYNC_CHECK(stream);
}

void DevicePreconditioner::apply_transpose(const double*, double*, cudaStream_t, const int*) const {
    throw NotSupported("this preconditioner has no transpose on the device (QMR needs M^-T)");
}

std::unique_ptr<DevicePreconditioner> upload_preconditioner(const GHMatrix& A,
                                                            PreconditionerKind kind,
                                                            std::array<int, 3> shape, int lo_halo,
                                                            int hi_halo) {
    switch (kind) {
        case PreconditionerKind::none:
            return nullptr;
        case PreconditionerKind::point_block_jacobi:
            return std::make_unique<DevicePointBlock>(factor_point_blocks(A));
        case PreconditionerKind::line_jacobi:
            return std::make_unique<DeviceLine>(A, factor_lines(A));
        case PreconditionerKind::block_jacobi:
            return std::make_unique<DeviceSpatial>(A, shape, lo_halo, hi_halo);
        case PreconditionerKind::cpr:  // set up from the solver's device matrix
            throw std::logic_error("upload_preconditioner: cpr is made by DeviceCpr");
    }
    return nullptr;
}

SpatialUpload::SpatialUpload(const SpatialBlockFactors& f)
    : blocking(f.blocking),
      K(f.K),
      max_rows(f.max_rows),
      threads(block_threads(f.max_rows)),
      inv(f.inv),
      inv_d(f.inv_d),
      offset(std::vector<long long>(f.offset.begin(), f.offset.end())) {}

void SpatialUpload::update(const SpatialBlockFactors& f) {
    if (f.inv.size() != inv.size() || f.inv_d.size() != inv_d.size()) {
        throw std::invalid_argument("SpatialUpload::update: another blocking");
    }
    inv.upload(f.inv);
    inv_d.upload(f.inv_d);
    HEPTANE_CUDA_CHECK(cudaStreamSynchronize(nullptr));  // the host copies die here
}

std::size_t SpatialUpload::shared_bytes() const { return block_shared_bytes(max_rows); }

DeviceSmoother::DeviceSmoother(const GHMatrix& A, std::array<int, 3> shape)
    : gh_(A, BdiaVariant::cell_fastest), shape_(shape), blocks_(factor_spatial_blocks(A, shape)) {
    allow_shared(reinterpret_cast<const void*>(&k_sweep), blocks_.shared_bytes());
    // Bdia's structural blocks and the inverses once, b and x read, x written.
    bytes_ = 8.0 * static_cast<double>(A.nonzeros()) +
             8.0 * static_cast<double>(blocks_.inv.size()) + 24.0 * static_cast<double>(A.rows());
}

void DeviceSmoother::update(const GHMatrix& A) {
    gh_.update(A);
    blocks_.update(factor_spatial_blocks(A, shape_));
}

void DeviceSmoother::sweep(const double* b, const double* x_in, double* x_out, double omega,
                           cudaStream_t stream, const int* skip) const {
    const BdiaView v = gh_.view(false);
    k_sweep<<<static_cast<unsigned>(blocks_.blocking.blocks()), blocks_.threads,
              blocks_.shared_bytes(), stream>>>(v, geometry(blocks_), b, x_in, x_out, omega, skip);
    HEPTANE_SYNC_CHECK(stream);
    if (v.nw > 0) {
        k_sweep_wells<<<(v.nw * 32 + 127) / 128, 128, 0, stream>>>(
            v, blocks_.K, blocks_.inv_d.get(), b, x_in, x_out, omega, skip);
        HEPTANE_SYNC_CHECK(stream);
    }
}

namespace {

/// After a sweep (A x in `ax`): ||b - A x|| recorded as sweep s.iterations + 1 (or, with
/// `init`, as sweep 0); a zero ||b|| (a smoothing study from a random guess) measures
/// residuals relative to ||r_0|| instead.
__global__ void __launch_bounds__(kChunkThreads)
    k_smoother_record(Work w, const double* b, const double* ax, int init) {
    if (!init && w.st->skip_iteration) return;
    double total[1];
    const bool last = reduce_chunk<1>(
        w,
        [&](long long i, GroupSum(&g)[1]) {
            const double ri = sub(b[i], mul(1.0, ax[i]));
            g[0].add(mul(ri, ri));
        },
        total);
    if (!last || threadIdx.x != 0) return;
    SolverState& s = *w.st;
    const double norm = sqrt(total[0]);
    if (init && s.bnorm == 0.0) s.bnorm = norm > 0.0 ? norm : 1.0;
    const int it = init ? 0 : s.iterations + 1;
    if (s.record(it, norm, w.history) || init) return;
    if (it >= s.max_iterations) {
        s.status = kMaxIterations;
        s.update_gates();
    }
}

/// The block smoothers as a solver object: the matrix and the blocks' inverses uploaded,
/// the graph of two sweeps captured, once.
class SmootherSolver final : public GpuSolver {
  public:
    using GpuSolver::update_values;  // the device values' form: NotSupported here
    SmootherSolver(Method method, const GHMatrix& A, const GpuSolveOptions& options)
        : t0_(SetupClock::now()),
          method_(method),
          structure_(A),
          options_(options),
          capacity_(options.solve.max_iterations),
          smoother_(A, options.block_shape),
          n_(A.rows()),
          d_b_(static_cast<std::size_t>(n_)),
          x0_(static_cast<std::size_t>(n_)),
          x1_(static_cast<std::size_t>(n_)),
          ax_(static_cast<std::size_t>(n_)),
          ws_(n_, options.solve, stream_.get()) {
        if (!is_smoother(method)) {
            throw NotSupported(std::string("block_smoother runs block_jacobi or block_gs, not ") +
                               to_string(method));
        }
        info_.backend = "gpu";
        info_.kernel = "block_smoother";
        info_.bytes_per_iteration =
            iteration_bytes(method, PreconditionerKind::none, options.block_shape, A,
                            GHOperator(A).minimal_bytes(), info_.cost);
        info_.workspace_bytes = 4 * d_b_.bytes();
        info_.counts.matrix_uploads = 1;
        info_.counts.factorizations = 1;
        // Jacobi alternates x0 -> x1 -> x0; Gauss-Seidel updates x0 in place. A graph of two
        // sweeps (each gated, so the count stays exact) keeps the ping-pong in one replay.
        const cudaStream_t st = stream_.get();
        const bool jacobi = method == Method::block_jacobi;
        const int* gate = &ws_.state.device()->skip_iteration;
        const Work& w = ws_.work;
        cudaGraph_t graph = nullptr;
        HEPTANE_CUDA_CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
        for (int half = 0; half < 2; ++half) {
            const double* in = (jacobi && half == 1) ? x1_.get() : x0_.get();
            double* out = jacobi ? (half == 0 ? x1_.get() : x0_.get()) : x0_.get();
            smoother_.sweep(d_b_.get(), in, out, options.omega, st, gate);
            smoother_.matrix().apply(out, ax_.get(), false, st, gate);
            k_smoother_record<<<ws_.blocks, kChunkThreads, 0, st>>>(w, d_b_.get(), ax_.get(), 0);
        }
        HEPTANE_CUDA_CHECK(cudaStreamEndCapture(st, &graph));
        exec_ = std::make_unique<GraphExec>(graph);
        HEPTANE_CUDA_CHECK(cudaGraphDestroy(graph));
        HEPTANE_CUDA_CHECK(cudaStreamSynchronize(st));
        info_.counts.plans = 1;
        info_.setup_seconds = seconds_since(t0_);
    }

    void update_values(const GHMatrix& A) override {
        update_values_into(info_, structure_, A, true, [&] { smoother_.update(A); });
    }

    SolveResult solve(const std::vector<double>& b, std::vector<double>& x,
                      const SolveOptions& opt) override {
        check_sizes(n_, b, x, "block_smoother");
        check_capacity(opt, capacity_, "block_smoother");
        const cudaStream_t st = stream_.get();
        upload_padded(d_b_, b, st);
        upload_padded(x0_, x, st);
        HEPTANE_CUDA_CHECK(cudaMemcpyAsync(x1_.get(), x0_.get(), sizeof(double) * n_,
                                           cudaMemcpyDeviceToDevice, st));
        ws_.reset(opt, st);
        const SolverState start = ws_.bnorm(d_b_.get(), st);
        if (SolveResult trivial;
            !std::isfinite(start.bnorm) && trivial_rhs(start.bnorm, x, trivial)) {
            return trivial;
        }
        EventTimer solve_timer(st);
        const Work& w = ws_.work;
        smoother_.matrix().apply(x0_.get(), ax_.get(), false, st);
        k_smoother_record<<<ws_.blocks, kChunkThreads, 0, st>>>(w, d_b_.get(), ax_.get(), 1);
        HEPTANE_SYNC_CHECK(st);
        GpuSolveOptions replay = options_;
        replay.solve = opt;
        replay.solve.max_iterations = (opt.max_iterations + 1) / 2;  // two sweeps per replay
        replay_iterations(exec_->get(), ws_.state, replay, st);
        SolverState host = ws_.state.download(st);
        const bool jacobi = method_ == Method::block_jacobi;
        const Buffer<double>& last = (jacobi && host.iterations % 2 == 1) ? x1_ : x0_;
        host = ws_.true_residual(smoother_.matrix(), d_b_.get(), last.get(), ax_.get(), st);
        info_.solve_seconds = solve_timer.seconds();
        return finish_solve(host, last, ws_.history, x, 0.0, 0.0, nullptr, st);
    }

    SolverInfo info() const override { return info_; }

  private:
    SetupClock::time_point t0_;
    Method method_;
    GHStructure structure_;
    GpuSolveOptions options_;
    int capacity_;
    Stream stream_;
    DeviceSmoother smoother_;
    long long n_;
    Buffer<double> d_b_, x0_, x1_, ax_;
    MultiKernelWorkspace ws_;
    std::unique_ptr<GraphExec> exec_;
    SolverInfo info_;
};

}  // namespace

std::unique_ptr<GpuSolver> make_smoother_solver(Method method, const GHMatrix& A,
                                                const GpuSolveOptions& options) {
    return std::make_unique<SmootherSolver>(method, A, options);
}

}  // namespace detail

PointBlockFactors point_block_factors_on_device(const GHMatrix& A, BdiaVariant variant) {
    using namespace detail;
    const DeviceGH gh(A, variant);
    PointBlockFactors zeros;  // sizes only: the device computes every value
    zeros.K = A.block_size();
    zeros.cells = A.num_cells();
    zeros.inv.assign(static_cast<std::size_t>(A.num_cells()) * A.block_size() * A.block_size(),
                     0.0);
    zeros.inv_d.assign(static_cast<std::size_t>(A.num_wells()), 0.0);
    DevicePointBlock pb(zeros);
    pb.factor_on_device(gh, nullptr);
    return pb.factors();
}

std::vector<double> apply_preconditioner(const GHMatrix& A, PreconditionerKind kind,
                                         std::array<int, 3> shape, const std::vector<double>& r,
                                         bool transpose) {
    using namespace detail;
    if (static_cast<long long>(r.size()) != A.rows()) {
        throw std::invalid_argument("apply_preconditioner: r must have A.rows() entries");
    }
    if (kind == PreconditionerKind::none) return r;
    if (kind == PreconditionerKind::cpr) {
        if (transpose) throw NotSupported("cpr has no transpose (QMR needs M^-T)");
        return cpr_device_steps(A, CprOptions{}, r).z;
    }
    const auto M = upload_preconditioner(A, kind, shape);
    Buffer<double> d_r(r), d_z(r.size());
    d_z.zero();
    if (transpose) {
        M->apply_transpose(d_r.get(), d_z.get(), nullptr);
    } else {
        M->apply(d_r.get(), d_z.get(), nullptr);
    }
    HEPTANE_CUDA_CHECK(cudaDeviceSynchronize());
    return d_z.download();
}

std::vector<double> smoother_sweep(Method method, const GHMatrix& A, std::array<int, 3> shape,
                                   double omega, const std::vector<double>& b,
                                   const std::vector<double>& x) {
    using namespace detail;
    const long long n = A.rows();
    check_sizes(n, b, x, "smoother_sweep");
    const DeviceSmoother smoother(A, shape);
    Buffer<double> d_b(b), x_in(x), x_out(x);
    const bool jacobi = method == Method::block_jacobi;
    smoother.sweep(d_b.get(), x_in.get(), jacobi ? x_out.get() : x_in.get(), omega, nullptr);
    HEPTANE_CUDA_CHECK(cudaDeviceSynchronize());
    return jacobi ? x_out.download() : x_in.download();
}

}  // namespace heptane::gpu
