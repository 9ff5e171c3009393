#pragma once
/// @file What a GPU rank's BiCGStab and QMR share (slab_bicgstab.cu, slab_qmr.cu;
/// gpu/slab_solver.hpp, issue 25): the chunk and loose-entry kernels, pinned host memory and
/// SlabBase (the slab's vectors, halo exchanges, cross-rank sums - joined through the host, or
/// on the devices with slab_joins.cuh - and the setup); the passes' element work is in
/// slab_passes.cuh. A fused pass runs as two kernels: one block per whole global chunk (the
/// canonical tree of the chunk, as ChunkReduction computes it for the one-GPU solvers) and one
/// thread per loose entry (the edges of the rank's cells that share a chunk with a neighbour, and
/// the wells), which writes its terms; both apply the pass's element work once per entry.
/// Everything here has internal linkage: each including file gets its own copy.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/base/canonical.hpp"
#include "core/base/errors.hpp"
#include "core/krylov/bicgstab_recurrence.hpp"
#include "core/krylov/names.hpp"
#include "core/krylov/qmr_recurrence.hpp"
#include "core/krylov/solve_record.hpp"
#include "gpu/slab_solver.hpp"
#include "gpu/solvers.hpp"
#include "gpu/spmv.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/base/canonical_reduce.cuh"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/base/peer_halo.cuh"
#include "gpu/src/base/solver_state.cuh"
#include "gpu/src/krylov/bicgstab_steps.cuh"
#include "gpu/src/krylov/slab_joins.cuh"
#include "gpu/src/krylov/slab_passes.cuh"
#include "gpu/src/precond/block_smoothers.cuh"
#include "gpu/src/precond/cpr.cuh"
#include "gpu/src/spmv/device_gh.cuh"

namespace heptane::gpu::detail {
namespace {

using namespace heptane::canonical;
using Clock = std::chrono::steady_clock;

constexpr int kThreads = 256;

/// The rank's entries in the slab: j < own is owned cell entry j, the rest the wells.
struct RankEntries {
    long long own_at, own, wells_at, count;
    __device__ long long operator()(long long j) const {
        return j < own ? own_at + j : wells_at + (j - own);
    }
};

/// The loose entries: the head [h0, h0 + nh), the tail [t0, t0 + nt), the wells [w0, w0 + nw).
struct LooseEntries {
    long long h0, nh, t0, nt, w0, nw;
    __device__ long long operator()(long long j) const {
        return j < nh ? h0 + j : (j < nh + nt ? t0 + (j - nh) : w0 + (j - nh - nt));
    }
    __host__ __device__ long long count() const { return nh + nt + nw; }
};

__device__ bool skipped(const int* skip) { return skip != nullptr && *skip != 0; }

template <class Op>
__global__ void __launch_bounds__(kThreads) k_each(Op op, RankEntries e, const int* skip) {
    if (skipped(skip)) return;
    const long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j < e.count) op(e(j));
}

/// Block b: the canonical sums of the entries [base + b kChunk, base + (b + 1) kChunk) into
/// out[q gridDim.x + b]. Nothing while *skip != 0 (here and below: solver gates).
template <int Q, class Pass>
__global__ void __launch_bounds__(kChunkThreads)
    k_chunks(Pass pass, long long base, double* out, const int* skip) {
    if (skipped(skip)) return;
    __shared__ double warps[Q][kChunkWarps];
    __shared__ double scratch[33];
    const long long n = static_cast<long long>(gridDim.x) * kChunk;
    ChunkReduction<Q> red(warps, n);
    for (int p = 0; p < kPasses; ++p) {  // whole chunks: every row's entries exist
        double t[kWarpRows][Q];
#pragma unroll
        for (int r = 0; r < kWarpRows; ++r) pass(base + chunk_row(p, r), t[r]);
        red.pass_rows(p, t);
    }
    double sums[Q];
    red.chunk_sums(sums, scratch);
    if (threadIdx.x == 0) {
#pragma unroll
        for (int q = 0; q < Q; ++q) out[q * gridDim.x + blockIdx.x] = sums[q];
    }
}

/// Thread j: loose entry j's terms into out[q count + j].
template <int Q, class Pass>
__global__ void __launch_bounds__(kThreads)
    k_loose(Pass pass, LooseEntries e, double* out, const int* skip) {
    if (skipped(skip)) return;
    const long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long count = e.count();
    if (j >= count) return;
    double t[Q];
    pass(e(j), t);
#pragma unroll
    for (int q = 0; q < Q; ++q) out[q * count + j] = t[q];
}

unsigned blocks_for(long long n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

/// What a GPU rank's Krylov solver needs whatever its method: the slab's operator and
/// preconditioner on the device, b and x, the products with host-staged halos, the fused passes
/// joined across the ranks, and solve()'s frame (copies in and out, the true residual).
class SlabBase : public SlabSolver {
  public:
    /// planes: cpr's (make_slab_solver), else null. `device_steps`: the method can run its
    /// iteration on the device with the sums joined there (BiCGStab; design decision 59).
    SlabBase(const SolverSettings& s, const GHMatrix& slab, const SlabLayout& layout,
             const SlabNeighbours& neighbours, const CprPlanes* planes, bool device_steps)
        : made_(Clock::now()),
          layout_(layout),
          neighbours_(neighbours),
          rows_(slab.rows()),
          plane_cells_(static_cast<long long>(slab.ny()) * slab.nz()),
          op_(slab, default_variant()),
          // CPR on the slab's operator, the rank's part of its hierarchy (design decision 56)
          M_(s.preconditioner == PreconditionerKind::cpr
                 ? std::make_unique<DeviceCpr>(slab, op_, s.cpr, planes)
                 : upload_preconditioner(slab, s.preconditioner, s.block_shape,
                                         layout.lo_halo ? 1 : 0, layout.hi_halo ? 1 : 0)),
          b_(rows_),
          x_(rows_),
          planes_(4 * static_cast<std::size_t>(layout.plane)),
          entries_{layout.own_at, layout.own, layout.wells_at, layout.own + layout.wells} {
        HEPTANE_CUDA_CHECK(cudaEventCreateWithFlags(&halo_in_, cudaEventDisableTiming));
        HEPTANE_CUDA_CHECK(cudaEventCreateWithFlags(&x_ready_, cudaEventDisableTiming));
        HEPTANE_CUDA_CHECK(cudaEventCreateWithFlags(&pass_done_, cudaEventDisableTiming));
        // Every rank's HEPTANE_JOINS and the most a pass's parts can take on the ranks
        // together (collective).
        const JoinsAgreed joins = agree_on_joins(neighbours, layout);
        // The halo planes by peer access where every rank can (collective): channel 0 the
        // products', channel 1 CPR's (design decision 58); its gather also the pass parts of
        // the sums joined on the device (decision 59).
        auto* cpr = s.preconditioner == PreconditionerKind::cpr ? static_cast<DeviceCpr*>(M_.get())
                                                                : nullptr;
        const long long cpr_rows = cpr != nullptr ? cpr->gather_rows() : 0;
        peer_ = PeerHalo::connect(neighbours, layout.lo_halo, layout.hi_halo, layout.plane,
                                  std::max(cpr_rows, joins.mode != 0 ? 2 * joins.units : 0));
        if (peer_ && cpr != nullptr) cpr->use_peer(peer_.get(), 1);
        // The sums joined on the device where no step of an iteration needs the host: the
        // other ranks' parts come by peer access (or there are none), as do CPR's gathers.
        std::string why;
        if (!device_steps) {
            why = "QMR joins its sums through the host";
        } else if (!peer_ && neighbours.ranks() > 1) {
            why = "the other ranks' GPUs are not reached by peer access (no peer halos)";
        } else if (!peer_ && cpr_rows > 0) {
            why = "CPR's first whole level is gathered through the host";
        }
        if (joins.mode == 2 && !why.empty()) {
            throw InputError("HEPTANE_JOINS", "sums cannot be joined on the device: " + why);
        }
        device_joins_ = joins.mode != 0 && why.empty();
        join_units_ = 2 * joins.units;
        info_.backend = "gpu";
        info_.kernel = "multi_kernel/slab";
        info_.counts.matrix_uploads = 1;
        info_.counts.factorizations = M_ ? 1 : 0;
    }
    ~SlabBase() override {
        cudaEventDestroy(halo_in_);
        cudaEventDestroy(x_ready_);
        cudaEventDestroy(pass_done_);
    }
    SlabBase(const SlabBase&) = delete;
    SlabBase& operator=(const SlabBase&) = delete;

    void update(const GHMatrix& slab) override {
        const auto t0 = Clock::now();
        op_.update(slab);  // first: CPR sets up from op_'s values
        if (M_) {
            M_->update(slab);
            ++info_.counts.factorizations;
        }
        ++info_.counts.matrix_uploads;
        info_.update_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    }

    SolveResult solve(const double* b, double* x, const SolveOptions& opt) override {
        if (opt.distribution == nullptr) {
            throw std::invalid_argument("SlabSolver::solve: options.distribution is not set");
        }
        dist_ = opt.distribution;
        times_ = SlabTimes{};
        const auto t_start = Clock::now();
        upload(b, b_.get());
        upload(x, x_.get());
        times_.transfer_seconds = std::chrono::duration<double>(Clock::now() - t_start).count();
        SolveResult result = iterate(opt);
        // x back to the host: the owned cells, then the wells.
        const cudaStream_t st = stream_.get();
        HEPTANE_CUDA_CHECK(cudaStreamSynchronize(st));
        const auto t_down = Clock::now();
        HEPTANE_CUDA_CHECK(cudaMemcpyAsync(x, x_.get() + layout_.own_at,
                                           layout_.own * sizeof(double), cudaMemcpyDeviceToHost,
                                           st));
        if (layout_.wells > 0) {
            HEPTANE_CUDA_CHECK(cudaMemcpyAsync(x + layout_.own, x_.get() + layout_.wells_at,
                                               layout_.wells * sizeof(double),
                                               cudaMemcpyDeviceToHost, st));
        }
        HEPTANE_CUDA_CHECK(cudaStreamSynchronize(st));
        if (peer_) peer_->check();
        const auto t_end = Clock::now();
        times_.transfer_seconds += std::chrono::duration<double>(t_end - t_down).count();
        info_.solve_seconds = std::chrono::duration<double>(t_end - t_start).count();
        return result;
    }

    SolverInfo info() const override { return info_; }
    SlabTimes times() const override { return times_; }
    std::string halos() const override { return peer_ ? "peer" : "host-staged"; }
    std::string joins() const override { return device_joins_ ? "device" : "host"; }

  protected:
    /// The method's iteration on b_ and x_ (core/krylov/krylov.cpp's, with the device vectors).
    virtual SolveResult iterate(const SolveOptions& opt) = 0;

    /// Work vectors of the slab's size, zeroed: the halo rows of products are never computed.
    void zero(std::initializer_list<Buffer<double>*> vectors) {
        for (Buffer<double>* v : vectors) v->zero(stream_.get());
        HEPTANE_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    }
    void finish_setup(std::size_t vectors) {
        info_.workspace_bytes = vectors * rows_ * sizeof(double);
        info_.setup_seconds = std::chrono::duration<double>(Clock::now() - made_).count();
    }

    /// The rank's local vector (owned cells, wells) into slab vector d (halo planes zero).
    void upload(const double* local, double* d) {
        const cudaStream_t st = stream_.get();
        HEPTANE_CUDA_CHECK(cudaMemsetAsync(d, 0, rows_ * sizeof(double), st));
        HEPTANE_CUDA_CHECK(cudaMemcpyAsync(d + layout_.own_at, local, layout_.own * sizeof(double),
                                           cudaMemcpyHostToDevice, st));
        if (layout_.wells > 0) {
            HEPTANE_CUDA_CHECK(cudaMemcpyAsync(d + layout_.wells_at, local + layout_.own,
                                               layout_.wells * sizeof(double),
                                               cudaMemcpyHostToDevice, st));
        }
        HEPTANE_CUDA_CHECK(cudaStreamSynchronize(st));
    }

    template <class Op>
    void each(Op op, const int* skip = nullptr) {
        k_each<<<blocks_for(entries_.count), kThreads, 0, stream_.get()>>>(op, entries_, skip);
        HEPTANE_SYNC_CHECK(stream_.get());
    }

    /// Where a launched pass's parts lie in parts_ (join() reads them).
    struct Launched {
        long long whole = 0;
        LooseEntries loose{};
    };

    /// The Q sums of a fused pass over every rank (the one-process bits).
    template <int Q, class Pass>
    std::array<double, Q> sums(Pass pass) {
        return join<Q>(launch<Q>(pass));
    }

    /// Where a fused pass's parts come from on this rank: the whole global chunks of its cell
    /// entries (k_chunks from slab entry `first`) and the loose entries.
    struct PassGeometry {
        long long whole = 0, first = 0;
        LooseEntries loose{};
    };
    PassGeometry geometry() const {
        const long long c0 = dist_->cell_offset(), cells = dist_->cells();
        const ChunkSpan span = chunk_span(c0, cells);
        const long long whole = span.whole();
        const long long head_end = whole > 0 ? span.first : c0 + cells;
        const long long tail_begin = whole > 0 ? span.last : c0 + cells;
        const long long slab_of = layout_.own_at - c0;  // slab index of global cell entry g - g
        return {whole, span.first + slab_of,
                LooseEntries{layout_.own_at, head_end - c0, tail_begin + slab_of,
                             c0 + cells - tail_begin, layout_.wells_at, layout_.wells}};
    }

    /// A fused pass's kernels on the solve's stream, its parts into `out`: the whole chunks'
    /// sums (Q g.whole, q-major), then the loose terms (Q g.loose.count()); gated by `skip`.
    template <int Q, class Pass>
    void launch_parts(Pass pass, const PassGeometry& g, double* out, const int* skip) {
        const cudaStream_t st = stream_.get();
        if (g.whole > 0) {
            k_chunks<Q><<<static_cast<unsigned>(g.whole), kChunkThreads, 0, st>>>(pass, g.first,
                                                                                  out, skip);
            HEPTANE_SYNC_CHECK(st);
        }
        const long long count = g.loose.count();
        if (count > 0) {
            k_loose<Q>
                <<<blocks_for(count), kThreads, 0, st>>>(pass, g.loose, out + Q * g.whole, skip);
            HEPTANE_SYNC_CHECK(st);
        }
    }

    /// Launches a fused pass; its parts are in host memory once pass_done_ has happened, so
    /// work that does not need the sums can be launched before join().
    template <int Q, class Pass>
    Launched launch(Pass pass) {
        const PassGeometry g = geometry();
        ensure_parts(static_cast<std::size_t>(Q * (g.whole + g.loose.count())));
        launch_parts<Q>(pass, g, parts_->get(), nullptr);  // mapped host memory
        HEPTANE_CUDA_CHECK(cudaEventRecord(pass_done_, stream_.get()));
        return {g.whole, g.loose};
    }

    /// The sums of the pass launched last, joined across the ranks.
    template <int Q>
    std::array<double, Q> join(const Launched& l) {
        HEPTANE_CUDA_CHECK(cudaEventSynchronize(pass_done_));  // the parts are in host memory
        if (peer_) peer_->check();
        const auto t0 = Clock::now();
        const long long whole = l.whole, count = l.loose.count();
        const LooseEntries& loose = l.loose;
        const double* h = parts_->get();
        PassParts parts;
        parts.Q = Q;
        parts.chunks.assign(h, h + Q * whole);
        for (int q = 0; q < Q; ++q) {
            const double* l = h + Q * whole + q * count;
            parts.head.insert(parts.head.end(), l, l + loose.nh);
            parts.tail.insert(parts.tail.end(), l + loose.nh, l + loose.nh + loose.nt);
            parts.wells.insert(parts.wells.end(), l + loose.nh + loose.nt, l + count);
        }
        const std::array<double, Q> total = combine_parts<Q>(parts, *dist_);
        times_.reduction_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
        ++times_.reductions;
        return total;
    }

    void ensure_parts(std::size_t n) {
        if (parts_ && n <= parts_size_) return;
        parts_ = std::make_unique<Pinned>(n);
        parts_size_ = n;
    }

    double dot(const double* u, const double* v) { return sums<1>(DotPass{u, v})[0]; }

    // ---- the sums joined on the device (design decision 59) --------------------------------

    /// Every rank's entries of this solve's Distribution (collective).
    std::vector<RankHolding> every_rank_entries() const {
        const std::vector<index_t>& wells = dist_->well_rows();
        const long long mine[3] = {dist_->cell_offset(), dist_->cells(),
                                   static_cast<long long>(wells.size())};
        const std::vector<unsigned char> counts =
            neighbours_.all_gather(mine, static_cast<int>(sizeof mine));
        std::vector<RankHolding> out(static_cast<std::size_t>(neighbours_.ranks()));
        long long most = 0;
        for (std::size_t r = 0; r < out.size(); ++r) {
            long long c[3];
            std::memcpy(c, counts.data() + r * sizeof mine, sizeof mine);
            out[r].c0 = c[0];
            out[r].cells = c[1];
            out[r].well_rows.resize(static_cast<std::size_t>(c[2]));
            most = std::max(most, c[2]);
        }
        if (most == 0) return out;
        std::vector<index_t> rows(static_cast<std::size_t>(most), -1);
        std::copy(wells.begin(), wells.end(), rows.begin());
        const std::vector<unsigned char> all =
            neighbours_.all_gather(rows.data(), static_cast<int>(rows.size() * sizeof(index_t)));
        for (std::size_t r = 0; r < out.size(); ++r) {
            std::memcpy(out[r].well_rows.data(), all.data() + r * rows.size() * sizeof(index_t),
                        out[r].well_rows.size() * sizeof(index_t));
        }
        return out;
    }

    /// Before a solve with the sums joined on the device: the join plan of this solve's
    /// Distribution (collective where it is new), the device state reset for `opt` and a
    /// history of opt.max_iterations. True when what a captured iteration reads was made anew.
    bool prepare_device(const SolveOptions& opt) {
        bool fresh = false;
        if (!joins_ || joins_for_ != dist_) {
            joins_ = std::make_unique<DeviceJoins>(make_join_plan(every_rank_entries()));
            joins_for_ = dist_;
            geometry_ = geometry();
            if (peer_ && 2 * joins_->plan().offset.back() > join_units_) {
                throw std::logic_error("SlabBase: the joined parts outgrow the peer gather");
            }
            fresh = true;
        }
        if (!state_) state_ = std::make_unique<DeviceState>(opt);
        const auto capacity = static_cast<std::size_t>(opt.max_iterations) + 1;
        if (history_.size() < capacity) {
            history_ = Buffer<double>(capacity);
            fresh = true;
        }
        state_->reset(opt, stream_.get());
        return fresh;
    }

    /// A fused pass joined on the device: its parts into this rank's place in the joined
    /// buffer, the other ranks' into the rest (the peer gather), then k_join, whose last block
    /// applies `step` to the device state. Gated by `skip`, all but the gather: every rank
    /// runs the same gathers, and the ranks' states are the same bits.
    template <int Q, class Pass, class Step>
    void join_on_device(Pass pass, Step step, const int* skip) {
        const std::vector<long long>& at = joins_->plan().offset;
        const auto r = static_cast<std::size_t>(neighbours_.rank());
        double* joined = joins_->joined();
        launch_parts<Q>(pass, geometry_, joined + Q * at[r], skip);
        if (peer_) peer_->gather(joined, Q * at[r], Q * at[r + 1], Q * at.back(), stream_.get());
        joins_->join<Q>(step, state_->device(), history_.get(), skip, stream_.get());
    }

    /// Replays `exec` (one iteration) as the one-GPU solvers do (replay_iterations: batches
    /// of GpuSolveOptions::check_interval), checking after each look that no peer receive
    /// gave up.
    void replay(cudaGraphExec_t exec, const SolveOptions& opt) {
        GpuSolveOptions options;
        options.solve = opt;
        replay_iterations(exec, *state_, options, stream_.get(), [&] {
            if (peer_) peer_->check();
        });
    }

    /// y = A x (A^T x with `transpose`) on the slab. With neighbours, the halo planes of x
    /// travel through the host while the GPU computes the rows that do not need them (the
    /// interior cells and the wells); the edge planes' rows follow once the halo planes are in.
    /// The rows' kernels are gated by `skip`, the exchange is not (every rank runs the same
    /// exchanges whatever its state).
    void product(double* x, double* y, bool transpose = false, const int* skip = nullptr) {
        const cudaStream_t st = stream_.get();
        if (!layout_.lo_halo && !layout_.hi_halo) {
            op_.apply(x, y, transpose, st, skip);
            return;
        }
        const long long plane = layout_.plane, K = plane / plane_cells_;
        const auto c0 = static_cast<unsigned>(layout_.own_at / K);
        const auto c1 = static_cast<unsigned>((layout_.own_at + layout_.own) / K);
        const auto pc = static_cast<unsigned>(plane_cells_);
        unsigned ib = c0 + (layout_.lo_halo ? pc : 0u), ie = c1 - (layout_.hi_halo ? pc : 0u);
        if (ib >= ie) ib = ie = c1;  // one owned plane: all of it is edge
        const std::size_t bytes = plane * sizeof(double);
        double* first = planes_.get();
        double* last = first + plane;
        double* lo = last + plane;
        double* hi = lo + plane;
        // The edge planes leave on the copy stream once x is written, while the interior
        // product runs on the solve's stream: the GPU does not wait for the host here.
        const cudaStream_t cp = copies_.get();
        const double* own = x + layout_.own_at;
        HEPTANE_CUDA_CHECK(cudaEventRecord(x_ready_, st));
        HEPTANE_CUDA_CHECK(cudaStreamWaitEvent(cp, x_ready_, 0));
        if (peer_) {  // the GPUs move the planes: nothing for the host to wait for
            const auto t0 = Clock::now();
            peer_->exchange(0, layout_.lo_halo ? own : nullptr,
                            layout_.hi_halo ? own + layout_.own - plane : nullptr,
                            layout_.lo_halo ? x + layout_.own_at - plane : nullptr,
                            layout_.hi_halo ? x + layout_.own_at + layout_.own : nullptr, plane,
                            cp);
            HEPTANE_CUDA_CHECK(cudaEventRecord(halo_in_, cp));
            op_.apply_rows(x, y, ib, ie, true, transpose, st, skip);  // interior cells, wells
            HEPTANE_CUDA_CHECK(cudaStreamWaitEvent(st, halo_in_, 0));
            times_.halo_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
            ++times_.halo_exchanges;
            op_.apply_rows(x, y, c0, ib == ie ? c1 : ib, false, transpose, st, skip);  // edges
            if (ib != ie) op_.apply_rows(x, y, ie, c1, false, transpose, st, skip);
            return;
        }
        if (layout_.lo_halo) {
            HEPTANE_CUDA_CHECK(cudaMemcpyAsync(first, own, bytes, cudaMemcpyDeviceToHost, cp));
        }
        if (layout_.hi_halo) {
            HEPTANE_CUDA_CHECK(cudaMemcpyAsync(last, own + layout_.own - plane, bytes,
                                               cudaMemcpyDeviceToHost, cp));
        }
        op_.apply_rows(x, y, ib, ie, true, transpose, st, skip);  // interior, wells, meanwhile
        HEPTANE_CUDA_CHECK(cudaEventSynchronize(x_ready_));  // x computed: time the exchange only
        const auto t0 = Clock::now();
        HEPTANE_CUDA_CHECK(cudaStreamSynchronize(cp));
        neighbours_.exchange(first, last, lo, hi);
        if (layout_.lo_halo) {
            HEPTANE_CUDA_CHECK(
                cudaMemcpyAsync(x + layout_.own_at - plane, lo, bytes, cudaMemcpyHostToDevice, cp));
        }
        if (layout_.hi_halo) {
            HEPTANE_CUDA_CHECK(cudaMemcpyAsync(x + layout_.own_at + layout_.own, hi, bytes,
                                               cudaMemcpyHostToDevice, cp));
        }
        HEPTANE_CUDA_CHECK(cudaEventRecord(halo_in_, cp));
        HEPTANE_CUDA_CHECK(cudaStreamWaitEvent(st, halo_in_, 0));
        times_.halo_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
        ++times_.halo_exchanges;
        op_.apply_rows(x, y, c0, ib == ie ? c1 : ib, false, transpose, st, skip);  // the edges
        if (ib != ie) op_.apply_rows(x, y, ie, c1, false, transpose, st, skip);
    }

    /// r = b - A x; returns ||r||.
    double residual(double* r) {
        product(x_.get(), r);
        return std::sqrt(sums<1>(ResidualPass{b_.get(), r})[0]);
    }

    /// ||b||; false with the result set when the solve is trivial (||b|| zero or not finite),
    /// as SolverFrame::trivial.
    bool start(SolveResult& result, double& bnorm) {
        bnorm = std::sqrt(dot(b_.get(), b_.get()));
        return goes_on(result, bnorm);
    }
    /// The same with ||b|| known.
    bool goes_on(SolveResult& result, double bnorm) {
        if (!std::isfinite(bnorm)) {
            result.status = SolveStatus::non_finite;
            result.detail = "||b|| is not finite";
            return false;
        }
        if (bnorm == 0.0) {
            HEPTANE_CUDA_CHECK(cudaMemsetAsync(x_.get(), 0, rows_ * sizeof(double), stream_.get()));
            result.status = SolveStatus::converged;
            result.history = {0.0};
            return false;
        }
        result.status = SolveStatus::max_iterations;
        return true;
    }

    Clock::time_point made_;
    SlabLayout layout_;
    const SlabNeighbours& neighbours_;
    const Distribution* dist_ = nullptr;
    long long rows_;
    Stream stream_, copies_;  ///< the solve's kernels; the halo planes' copies in
    cudaEvent_t halo_in_ = nullptr, x_ready_ = nullptr, pass_done_ = nullptr;
    long long plane_cells_;  ///< cells of an i-plane (ny nz)
    DeviceGH op_;
    std::unique_ptr<DevicePreconditioner> M_;
    std::unique_ptr<PeerHalo> peer_;  ///< null: host-staged halos
    Buffer<double> b_, x_;
    std::unique_ptr<Pinned> parts_;  ///< a pass's parts, written by its kernels
    std::size_t parts_size_ = 0;
    Pinned planes_;  ///< first, last owned plane; lo, hi halo plane
    RankEntries entries_;
    SolverInfo info_;
    SlabTimes times_;
    // The sums joined on the device (design decision 59):
    bool device_joins_ = false;
    long long join_units_ = 0;  ///< the peer gather's room for parts
    std::unique_ptr<DeviceJoins> joins_;
    const Distribution* joins_for_ = nullptr;  ///< the Distribution joins_ was planned for
    PassGeometry geometry_;                    ///< of joins_for_
    std::unique_ptr<DeviceState> state_;
    Buffer<double> history_;
};

}  // namespace
}  // namespace heptane::gpu::detail
