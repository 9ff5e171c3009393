#pragma once
/// @file What the multi-kernel solvers (bicgstab_multi_kernel.cu, qmr_multi_kernel.cu) share:
/// the kernels' common arguments and the chunk loops over the canonical reduction of
/// canonical_reduce.cuh (one block of kChunkThreads threads per chunk, the block that
/// finishes last combining the chunks).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/base/errors.hpp"
#include "gpu/solver.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/base/canonical_reduce.cuh"
#include "gpu/src/base/solver_state.cuh"
#include "gpu/src/precond/block_smoothers.cuh"
#include "gpu/src/spmv/device_operator.cuh"

namespace heptane::gpu::detail {

/// What a multi-kernel solver object is made from (device_operator.cu builds it: the Bdia
/// or KSPARSE operator, the uploaded preconditioner, how new values reach them).
struct MultiKernelSetup {
    const char* name = "";  ///< for messages: "bicgstab_multi_kernel"
    long long rows = 0;     ///< order of the system (b and x)
    long long n = 0;        ///< order of the operator: rows, or the padded BSR order
    std::unique_ptr<DeviceOperator> op;
    std::unique_ptr<DevicePreconditioner> M;  ///< null: no preconditioner
    /// The GH structure the solver takes new values of (null for BSR systems), and how they
    /// reach op (and M, re-factored).
    std::shared_ptr<const GHStructure> structure;
    std::function<void(const GHMatrix&)> update;
    /// The same from values on the device (empty: the preconditioner factors on the host).
    std::function<void(const DeviceSystemValues&, cudaStream_t)> device_update;
    SolverInfo info;              ///< kernel, cost, bytes per iteration filled in
    SetupClock::time_point t0{};  ///< when the setup started (upload and factors included)
};

/// The multi-kernel BiCGStab and QMR objects (bicgstab_multi_kernel.cu, qmr_multi_kernel.cu).
std::unique_ptr<GpuSolver> make_bicgstab_multi_kernel(MultiKernelSetup setup,
                                                      const GpuSolveOptions& options);
std::unique_ptr<GpuSolver> make_qmr_multi_kernel(MultiKernelSetup setup,
                                                 const GpuSolveOptions& options);

/// Every solver kernel works on whole chunks: a block of kChunkThreads threads per chunk.
struct Work {
    long long n;
    double* partial[2];
    unsigned* counter;
    SolverState* st;
    double* history;
};

/// The chunk loop of a reducing kernel: f(i, g) for every entry i of this thread's rows,
/// g[q] taking the term of reduction q; then the chunk sums. True (in every thread of the
/// block that finished last) with the N totals in `total`. A warp reads its entries of a
/// pass a row of 32 at a time (chunk_row: coalesced), and ChunkReduction::pass_rows sums
/// them in the canonical tree (the same bits as a thread per group; design decision 54).
template <int N, class F>
__device__ bool reduce_chunk(const Work& w, F f, double (&total)[N]) {
    __shared__ double warps[N][kChunkWarps];
    ChunkReduction<N> red(warps, w.n);
#pragma unroll
    for (int p = 0; p < kPasses; ++p) {
        double t[kWarpRows][N];
#pragma unroll
        for (int r = 0; r < kWarpRows; ++r) {
            const long long i = chunk_row(p, r);
            GroupSum g[N];
            if (i < w.n) f(i, g);
#pragma unroll
            for (int q = 0; q < N; ++q) t[r][q] = g[q].s;
        }
        red.pass_rows(p, t);
    }
    double* partial[N];
#pragma unroll
    for (int q = 0; q < N; ++q) partial[q] = w.partial[q];
    return red.finish(partial, w.counter, total);
}

/// Calls f(i) for every entry of this block's chunk (no reduction), a warp's row of 32
/// consecutive entries at a time.
template <class F>
__device__ void each_entry(const Work& w, F f) {
#pragma unroll
    for (int p = 0; p < kPasses; ++p) {
#pragma unroll
        for (int r = 0; r < kWarpRows; ++r) {
            const long long i = chunk_row(p, r);
            if (i < w.n) f(i);
        }
    }
}

// The kernels both solvers launch (internal linkage: each .cu file has its own copy).
namespace {

/// ||b - A x|| / ||b|| with A x in `ax` (the reference's true residual).
__global__ void __launch_bounds__(kChunkThreads)
    k_true_residual(Work work, const double* b, const double* ax) {
    double total[1];
    const bool last = reduce_chunk<1>(
        work,
        [&](long long i, GroupSum(&g)[1]) {
            const double ri = canonical::sub(b[i], canonical::mul(1.0, ax[i]));
            g[0].add(canonical::mul(ri, ri));
        },
        total);
    if (!last || threadIdx.x != 0) return;
    work.st->true_relative_residual = sqrt(total[0]) / work.st->bnorm;
}

/// ||b||.
__global__ void __launch_bounds__(kChunkThreads) k_bnorm(Work work, const double* b) {
    double total[1];
    const bool last = reduce_chunk<1>(
        work, [&](long long i, GroupSum(&g)[1]) { g[0].add(canonical::mul(b[i], b[i])); }, total);
    if (!last || threadIdx.x != 0) return;
    work.st->bnorm = sqrt(total[0]);
}

/// What every multi-kernel solve owns besides its vectors: the chunk partial sums and the
/// counter of the last-block reduction, the device state, the residual history, and the Work
/// its kernels take.
struct MultiKernelWorkspace {
    MultiKernelWorkspace(long long n, const SolveOptions& opt, cudaStream_t st)
        : blocks(reduction_blocks(n)),
          partial0(blocks),
          partial1(blocks),
          history(static_cast<std::size_t>(opt.max_iterations) + 1),
          counter(1),
          state(opt),
          work{n, {partial0.get(), partial1.get()}, counter.get(), state.device(), history.get()} {
        counter.zero(st);
    }
    /// ||b|| into the state; returns the state (trivial_rhs decides on its bnorm).
    SolverState bnorm(const double* b, cudaStream_t st) {
        k_bnorm<<<blocks, kChunkThreads, 0, st>>>(work, b);
        HEPTANE_SYNC_CHECK(st);
        return state.download(st);
    }
    /// ||b - A x|| / ||b|| into the state, with A x into `ax`; returns the final state.
    SolverState true_residual(const DeviceOperator& gh, const double* b, const double* x,
                              double* ax, cudaStream_t st) {
        gh.apply(x, ax, false, st);
        k_true_residual<<<blocks, kChunkThreads, 0, st>>>(work, b, ax);
        HEPTANE_SYNC_CHECK(st);
        return state.download(st);
    }

    /// A new solve with `opt`: the initial state, the chunk counter at zero.
    void reset(const SolveOptions& opt, cudaStream_t st) {
        counter.zero(st);
        state.reset(opt, st);
    }

    unsigned blocks;
    Buffer<double> partial0, partial1, history;
    Buffer<unsigned> counter;
    DeviceState state;
    Work work;
};

/// What every multi-kernel solver object shares: the stream, the operator and the
/// preconditioner, b and x on the device, the workspace and the graph of one iteration;
/// update_values and the frame of a solve. An algorithm supplies its vectors, the kernels of
/// one iteration (captured once, in its constructor), the vectors that start at zero, and
/// iteration 0.
class MultiKernelSolver : public GpuSolver {
  public:
    void update_values(const GHMatrix& A) override {
        if (!setup_.structure) {
            throw NotSupported(std::string(setup_.name) +
                               ": update_values needs a grid (GH) system; this solver was made "
                               "for a BSR matrix");
        }
        update_values_into(info_, *setup_.structure, A, setup_.M != nullptr,
                           [&] { setup_.update(A); });
        if (setup_.M) info_.preconditioner_setup_seconds = setup_.M->setup_seconds();
    }

    SolveResult solve(const std::vector<double>& b, std::vector<double>& x,
                      const SolveOptions& opt) override {
        check_sizes(setup_.rows, b, x, setup_.name);
        check_capacity(opt, capacity_, setup_.name);
        const cudaStream_t st = stream_.get();
        upload_padded(d_b_, b, st);
        upload_padded(d_x_, x, st);
        SolverState host;
        if (SolveResult trivial; !run(opt, host, x, trivial)) return trivial;
        std::vector<double> xs;
        SolveResult result =
            finish_solve(host, d_x_, ws_.history, xs, 0.0, 0.0, nullptr, st, quasi());
        xs.resize(static_cast<std::size_t>(setup_.rows));  // the padding unknowns (KSPARSE)
        x = std::move(xs);
        return result;
    }

    bool takes_device_values() const override { return static_cast<bool>(setup_.device_update); }

    void update_values(const DeviceSystemValues& A) override {
        if (!takes_device_values()) GpuSolver::update_values(A);
        update_values_into(info_, setup_.M != nullptr, [&] {
            setup_.device_update(A, stream_.get());
            HEPTANE_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
        });
        if (setup_.M) info_.preconditioner_setup_seconds = setup_.M->setup_seconds();
    }

    SolveResult solve_device(const double* b, double* x, const SolveOptions& opt) override {
        if (!takes_device_values()) return GpuSolver::solve_device(b, x, opt);
        check_capacity(opt, capacity_, setup_.name);
        const cudaStream_t st = stream_.get();
        copy_on_device(d_b_.get(), b, setup_.rows, st);
        copy_on_device(d_x_.get(), x, setup_.rows, st);
        SolverState host;
        std::vector<double> unused;
        if (SolveResult trivial; !run(opt, host, unused, trivial)) {
            if (trivial.status == SolveStatus::converged) zero_on_device(x, setup_.rows, st);
            return trivial;
        }
        copy_on_device(x, d_x_.get(), setup_.rows, st);
        return to_result(host, ws_.history.download(st),
                         quasi() != nullptr ? quasi()->download(st) : std::vector<double>{});
    }

    SolverInfo info() const override { return info_; }

  protected:
    MultiKernelSolver(MultiKernelSetup setup, const GpuSolveOptions& options)
        : setup_(std::move(setup)),
          options_(options),
          capacity_(options.solve.max_iterations),
          d_b_(static_cast<std::size_t>(setup_.n)),
          d_x_(static_cast<std::size_t>(setup_.n)),
          ws_(setup_.n, options.solve, stream_.get()) {
        info_ = setup_.info;
        info_.backend = "gpu";
        info_.counts.matrix_uploads = 1;
        info_.counts.factorizations = setup_.M ? 1 : 0;
        if (setup_.M) info_.preconditioner_setup_seconds = setup_.M->setup_seconds();
    }

    /// A vector of the operator's order, counted in info().workspace_bytes.
    Buffer<double> vector(bool needed = true) {
        const std::size_t n = needed ? static_cast<std::size_t>(setup_.n) : 0;
        info_.workspace_bytes += n * sizeof(double);
        return Buffer<double>(n);
    }

    /// Captures iteration() into the graph that every solve replays (once, at the end of
    /// the algorithm's constructor); the setup time ends here.
    void capture() {
        const cudaStream_t st = stream_.get();
        cudaGraph_t graph = nullptr;
        HEPTANE_CUDA_CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
        iteration(st);
        HEPTANE_CUDA_CHECK(cudaStreamEndCapture(st, &graph));
        exec_ = std::make_unique<GraphExec>(graph);
        HEPTANE_CUDA_CHECK(cudaGraphDestroy(graph));
        HEPTANE_CUDA_CHECK(cudaStreamSynchronize(st));
        ++info_.counts.plans;
        info_.workspace_bytes += d_b_.bytes() + d_x_.bytes() + ws_.history.bytes() +
                                 ws_.partial0.bytes() + ws_.partial1.bytes();
        info_.setup_seconds = seconds_since(setup_.t0);
    }

    /// The kernels of one iteration (captured).
    virtual void iteration(cudaStream_t st) = 0;
    /// Zeros the vectors whose old values a first iteration multiplies by 0.
    virtual void reset_vectors(cudaStream_t st) = 0;
    /// Iteration 0 (r = b - A x and what the algorithm derives from it).
    virtual void start(cudaStream_t st) = 0;
    /// A vector the true residual's A x may overwrite.
    virtual double* scratch() = 0;
    /// QMR's quasi-residual history (null for BiCGStab).
    virtual const Buffer<double>* quasi() const { return nullptr; }

    const DeviceOperator& op() const { return *setup_.op; }
    /// z = M^{-1} r on `st`, gated by `skip` (nothing without a preconditioner).
    void precondition(const double* r, double* z, cudaStream_t st, const int* skip) const {
        if (setup_.M) setup_.M->apply(r, z, st, skip);
    }
    /// z = M^{-T} r on `st`, gated by `skip` (QMR; nothing without a preconditioner).
    void precondition_transpose(const double* r, double* z, cudaStream_t st,
                                const int* skip) const {
        if (setup_.M) setup_.M->apply_transpose(r, z, st, skip);
    }
    bool preconditioned() const { return setup_.M != nullptr; }
    long long n() const { return setup_.n; }
    int capacity() const { return capacity_; }
    double* d_b() const { return d_b_.get(); }
    double* d_x() const { return d_x_.get(); }
    const Work& work() const { return ws_.work; }
    unsigned blocks() const { return ws_.blocks; }
    SolverState* state() const { return ws_.state.device(); }

  private:
    /// A solve from b and x in d_b_, d_x_: false (with `trivial`, x set as the reference
    /// does) when b is zero or not finite; else true with the final state in `host`.
    bool run(const SolveOptions& opt, SolverState& host, std::vector<double>& x,
             SolveResult& trivial) {
        const cudaStream_t st = stream_.get();
        reset_vectors(st);
        ws_.reset(opt, st);
        // ||b||: zero and non-finite right-hand sides end the solve here, as in the reference.
        if (trivial_rhs(ws_.bnorm(d_b_.get(), st).bnorm, x, trivial)) return false;
        EventTimer solve_timer(st);
        start(st);  // iteration 0
        HEPTANE_SYNC_CHECK(st);
        GpuSolveOptions replay = options_;
        replay.solve = opt;
        replay_iterations(exec_->get(), ws_.state, replay, st);
        // The true residual ||b - A x|| / ||b||, A x into the algorithm's scratch vector.
        host = ws_.true_residual(*setup_.op, d_b_.get(), d_x_.get(), scratch(), st);
        info_.solve_seconds = solve_timer.seconds();
        return true;
    }

    MultiKernelSetup setup_;
    GpuSolveOptions options_;
    int capacity_;
    Stream stream_;
    Buffer<double> d_b_, d_x_;
    MultiKernelWorkspace ws_;
    std::unique_ptr<GraphExec> exec_;
    SolverInfo info_;
};

}  // namespace

}  // namespace heptane::gpu::detail
