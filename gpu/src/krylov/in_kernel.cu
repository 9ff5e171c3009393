// The in-kernel solvers' host side: the launch plan (occupancy, rows per block, where the
// range vectors live), the workspace, one cooperative launch, progress while it runs, and
// the result. The kernels: bicgstab_in_kernel.cuh and qmr_in_kernel.cuh on in_kernel.cuh.
#include <cuda_runtime.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/base/errors.hpp"
#include "core/krylov/linear_solver.hpp"
#include "core/matrix/linear_operator.hpp"
#include "gpu/solver.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/base/solver_state.cuh"
#include "gpu/src/krylov/bicgstab_in_kernel.cuh"
#include "gpu/src/krylov/factories.cuh"
#include "gpu/src/krylov/qmr_in_kernel.cuh"
#include "gpu/src/precond/block_smoothers.cuh"
#include "gpu/src/spmv/device_gh.cuh"

namespace heptane::gpu {
namespace detail {

#define HEPTANE_EXTERN(k)                                    \
    extern template const void* bicgstab_kernel<k, false>(); \
    extern template const void* qmr_kernel<k, false>();
HEPTANE_FOR_EACH_K(HEPTANE_EXTERN)
#undef HEPTANE_EXTERN
#define HEPTANE_EXTERN(k)                                   \
    extern template const void* bicgstab_kernel<k, true>(); \
    extern template const void* qmr_kernel<k, true>();
HEPTANE_EXTERN(1)
HEPTANE_EXTERN(2)
HEPTANE_EXTERN(3)
HEPTANE_EXTERN(4)
#undef HEPTANE_EXTERN
static_assert(kInKernelConnectionsMaxK == 4, "the kernels with connections: K = 1..4");

namespace {

const char* solver_name(Method method) {
    return method == Method::qmr ? "in-kernel QMR" : "in-kernel BiCGStab";
}

/// The kernel for K, with the rows' non-neighbour connections where `connections` (a second
/// instantiation: the kernels without them keep their register allocation; decision 68).
const void* kernel_for(Method method, int K, bool connections) {
    const bool qmr = method == Method::qmr;
    if (connections) {
        switch (K) {
#define HEPTANE_CASE(k) \
    case k:             \
        return qmr ? qmr_kernel<k, true>() : bicgstab_kernel<k, true>();
            HEPTANE_CASE(1)
            HEPTANE_CASE(2)
            HEPTANE_CASE(3)
            HEPTANE_CASE(4)
#undef HEPTANE_CASE
            default:
                throw NotSupported(
                    std::string(solver_name(method)) + ": non-neighbour connections at K <= " +
                    std::to_string(kInKernelConnectionsMaxK) + ", not K = " + std::to_string(K) +
                    " (gpu_kernel multi_kernel takes them)");
        }
    }
    switch (K) {
#define HEPTANE_CASE(k) \
    case k:             \
        return qmr ? qmr_kernel<k, false>() : bicgstab_kernel<k, false>();
        HEPTANE_FOR_EACH_K(HEPTANE_CASE)
#undef HEPTANE_CASE
        default:
            throw NotSupported(std::string(solver_name(method)) +
                               ": no kernel for K = " + std::to_string(K));
    }
}

/// Range vectors, and vectors of n entries in global memory besides them (b and x included).
int range_vectors(Method method) { return method == Method::qmr ? kQmrRanges : kBicgstabRanges; }
int global_vectors(Method method) { return method == Method::qmr ? 8 : 5; }

struct DeviceLimits {
    int sms = 0;
    size_t shared_optin = 0;  ///< dynamic shared memory one block may opt into
};

DeviceLimits device_limits(Method method) {
    int dev = 0, coop = 0, sms = 0, optin = 0;
    HEPTANE_CUDA_CHECK(cudaGetDevice(&dev));
    HEPTANE_CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    if (coop == 0) {
        throw NotSupported(std::string(solver_name(method)) +
                           ": this device does not support cooperative launch (needed so that "
                           "every block of the persistent kernel is resident); use "
                           "solver.gpu_kernel: multi_kernel");
    }
    HEPTANE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    HEPTANE_CUDA_CHECK(
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    return {sms, static_cast<size_t>(optin)};
}

int blocks_per_sm(const void* kernel, int threads, size_t shared) {
    int n = 0;
    HEPTANE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, shared));
    return n;
}

}  // namespace
}  // namespace detail

InKernelPlan in_kernel_plan(const GHMatrix& A, const GpuSolveOptions& options, Method method) {
    using namespace detail;
    if (method != Method::bicgstab && method != Method::qmr) {
        throw NotSupported("in-kernel solvers: bicgstab and qmr only");
    }
    const std::string name = solver_name(method);
    const DeviceLimits lim = device_limits(method);
    const void* kernel = kernel_for(method, A.block_size(), A.has_nnc());
    const int ranges = range_vectors(method);
    // Dynamic shared memory a block may use: the opt-in limit less the kernel's static part.
    cudaFuncAttributes attr{};
    HEPTANE_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
    const size_t dynamic_max = lim.shared_optin - attr.sharedSizeBytes;
    HEPTANE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(dynamic_max)));
    const long long n = A.rows();
    const int K = A.block_size();
    const long long pass_rows = in_kernel_pass_rows(K);

    // A launch of `threads` per block and `rows` per block (powers of two, rows >= threads):
    // can all its blocks be resident (and folded by warp 0's registers)?
    InKernelPlan plan;
    plan.sms = lim.sms;
    auto resident = [&](int threads, long long rows, bool shared_ranges) {
        const long long grid = (n + rows - 1) / rows;
        const size_t shared = in_kernel_shared_bytes(rows, threads, K, ranges, shared_ranges);
        if (grid > kInKernelMaxGrid || shared > dynamic_max) return false;
        const int per_sm = blocks_per_sm(kernel, threads, shared);
        if (per_sm == 0 || grid > static_cast<long long>(per_sm) * lim.sms) return false;
        plan.grid = static_cast<int>(grid);
        plan.threads = threads;
        plan.rows_per_block = rows;
        plan.blocks_per_sm = per_sm;
        plan.shared_ranges = shared_ranges;
        plan.shared_bytes = shared;
        return true;
    };
    // The fewest threads of a block of `rows` rows: 4 warps, each at least one pass.
    const long long min_rows = 4 * pass_rows;
    if (options.in_kernel_block_rows > 0) {
        const long long rows = options.in_kernel_block_rows;
        if (rows < min_rows || (rows & (rows - 1)) != 0) {
            throw NotSupported(name + ": rows per block must be a power of two >= " +
                               std::to_string(min_rows) + " for K = " + std::to_string(K));
        }
        const long long warps = rows / pass_rows < 16 ? rows / pass_rows : 16;
        if (!resident(static_cast<int>(32 * warps), rows, false)) {
            throw NotSupported(name + ": " + std::to_string((n + rows - 1) / rows) + " blocks of " +
                               std::to_string(rows) + " rows cannot all be resident");
        }
    } else {
        // One pass per warp in blocks of 512 threads (16 warps; halved down to 4 warps while
        // fewer than half the SMs would get a block), then the fewest passes that let the
        // grid be resident.
        int threads = kInKernelMaxThreads;
        auto pass_grid = [&](int t) { return (n + t / 32 * pass_rows - 1) / (t / 32 * pass_rows); };
        while (threads > 128 && pass_grid(threads) < lim.sms / 2) threads /= 2;
        long long rows = threads / 32 * pass_rows;
        while (!resident(threads, rows, false)) {
            if (rows >= n) throw NotSupported(name + ": the kernel cannot be launched");
            rows *= 2;
        }
    }

    // Range vectors in shared memory when the co-resident grid still fits.
    const InKernelPlan global = plan;
    const bool fits = options.range_storage != RangeStorage::global &&
                      resident(plan.threads, plan.rows_per_block, true);
    if (!fits) plan = global;
    if (options.range_storage == RangeStorage::shared && !fits) {
        throw NotSupported(
            name + ": the range vectors of " + std::to_string(plan.rows_per_block) +
            " rows per block (" +
            std::to_string(
                in_kernel_shared_bytes(plan.rows_per_block, plan.threads, K, ranges, true) / 1024) +
            " KiB) do not fit in shared memory with all blocks resident");
    }

    // b, x and the shared vectors (+ the range vectors but x, when in global memory)
    // (+ r^ and v^ and the cells' inverses with the fused point-block Jacobi)
    const bool preconditioned = options.preconditioner != PreconditionerKind::none;
    const size_t vectors =
        global_vectors(method) + (plan.shared_ranges ? 0 : ranges - 1) + (preconditioned ? 2 : 0);
    const size_t histories = method == Method::qmr ? 2 : 1;
    plan.device_bytes =
        A.storage_bytes() + vectors * sizeof(double) * static_cast<size_t>(n) +
        (preconditioned ? sizeof(double) * static_cast<size_t>(A.cell_unknowns()) * A.block_size()
                        : 0) +
        sizeof(double) * (2 * kMaxReductions * static_cast<size_t>(plan.grid) +
                          histories * (static_cast<size_t>(options.solve.max_iterations) + 1)) +
        sizeof(unsigned) * static_cast<size_t>(plan.grid);
    return plan;
}

namespace detail {
namespace {

/// The vectors of n entries a solver allocates besides b and x.
class Vectors {
  public:
    explicit Vectors(long long n) : n_(static_cast<size_t>(n)) {}
    /// A new vector, or null when it is not `needed` (a range vector in shared memory).
    double* add(bool needed = true) {
        if (!needed) return nullptr;
        list_.emplace_back(n_);
        return list_.back().get();
    }

  private:
    size_t n_;
    std::vector<Buffer<double>> list_;
};

/// Host-mapped progress (iteration, residual) the kernel's leader writes while it runs.
class MappedProgress {
  public:
    MappedProgress() {
        HEPTANE_CUDA_CHECK(cudaHostAlloc(&host_, sizeof *host_, cudaHostAllocMapped));
        count_allocation();
        HEPTANE_CUDA_CHECK(cudaHostGetDevicePointer(&device_, host_, 0));
    }
    MappedProgress(const MappedProgress&) = delete;
    MappedProgress& operator=(const MappedProgress&) = delete;
    ~MappedProgress() { cudaFreeHost(host_); }
    void reset() { *host_ = InKernelProgress{0, 0.0}; }
    InKernelProgress* device() const { return device_; }
    InKernelProgress read() const {
        const volatile InKernelProgress* p = host_;
        return {p->iterations, p->relative_residual};
    }

  private:
    InKernelProgress* host_ = nullptr;
    InKernelProgress* device_ = nullptr;
};

/// The in-kernel solver object of `method`: plan, upload, workspace and (fused point-block
/// Jacobi) the preconditioner once; per solve b and x, one cooperative launch, progress while
/// it runs, the result. Fill(params, vectors, gh, shared_ranges, M) sets the method's own
/// vectors (and views) of `params`.
template <class Params>
class InKernelSolver final : public GpuSolver {
  public:
    template <class Fill>
    InKernelSolver(Method method, const GHMatrix& A, const GpuSolveOptions& options, Fill fill)
        : t0_(SetupClock::now()),
          method_(method),
          structure_(A),
          capacity_(options.solve.max_iterations),
          plan_(in_kernel_plan(A, options, method)),
          gh_(A, BdiaVariant::cell_fastest),
          d_b_(static_cast<size_t>(A.rows())),
          d_x_(static_cast<size_t>(A.rows())),
          partial_(2 * kMaxReductions * static_cast<size_t>(plan_.grid)),
          history_(static_cast<size_t>(capacity_) + 1),
          quasi_(method == Method::qmr ? static_cast<size_t>(capacity_) + 1 : 0),
          flags_(static_cast<size_t>(plan_.grid)),
          state_(options.solve),
          vectors_(A.rows()) {
        if (options.preconditioner != PreconditionerKind::none) {
            M_ = std::make_unique<DevicePointBlock>(factor_point_blocks(A));
        }
        InKernelParams& common = params_;
        common.A = gh_.view(false);
        common.n = A.rows();
        common.b = d_b_.get();
        common.x = d_x_.get();
        common.partial = partial_.get();
        common.flags = flags_.get();
        common.st = state_.device();
        common.history = history_.get();
        common.quasi_history = quasi_.get();
        common.progress = nullptr;  // per solve: only when someone watches
        common.block_rows = plan_.rows_per_block;
        common.passes = static_cast<int>(plan_.rows_per_block / (plan_.threads / 32) /
                                         in_kernel_pass_rows(A.block_size()));
        common.shared_ranges = plan_.shared_ranges ? 1 : 0;
        fill(params_, vectors_, gh_, plan_.shared_ranges, M_.get());
        kernel_ = kernel_for(method, A.block_size(), A.has_nnc());
        HEPTANE_CUDA_CHECK(cudaDeviceSynchronize());
        info_.backend = "gpu";
        info_.kernel = "in_kernel (" + std::to_string(plan_.grid) + " blocks x " +
                       std::to_string(plan_.threads) + ", " +
                       (plan_.shared_ranges ? "shared" : "global") + " ranges)";
        info_.cost = cost(method, GpuKernel::in_kernel);
        info_.bytes_per_iteration =
            iteration_bytes(method, options.preconditioner, options.block_shape, A,
                            GHOperator(A).minimal_bytes(), info_.cost);
        info_.workspace_bytes = plan_.device_bytes;
        info_.counts = {1, 1, M_ ? 1 : 0};
        info_.setup_seconds = seconds_since(t0_);
    }

    void update_values(const GHMatrix& A) override {
        update_values_into(info_, structure_, A, M_ != nullptr, [&] {
            gh_.update(A);
            if (M_) M_->update(A);
        });
    }

    SolveResult solve(const std::vector<double>& b, std::vector<double>& x,
                      const SolveOptions& opt) override {
        check_sizes(params_.n, b, x, solver_name(method_));
        check_capacity(opt, capacity_, solver_name(method_));
        const cudaStream_t st = stream_.get();
        upload_padded(d_b_, b, st);
        upload_padded(d_x_, x, st);
        const SolverState host = run(opt);
        if (SolveResult trivial; trivial_rhs(host.bnorm, x, trivial)) return trivial;
        return finish_solve(host, d_x_, history_, x, 0.0, 0.0, nullptr, st,
                            method_ == Method::qmr ? &quasi_ : nullptr);
    }

    // From the device: point-block Jacobi (the one it fuses) factors there too.
    bool takes_device_values() const override { return true; }

    void update_values(const DeviceSystemValues& A) override {
        update_values_into(info_, M_ != nullptr, [&] {
            gh_.update(A, stream_.get());
            if (M_) M_->factor_on_device(gh_, stream_.get());
            HEPTANE_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
        });
    }

    SolveResult solve_device(const double* b, double* x, const SolveOptions& opt) override {
        check_capacity(opt, capacity_, solver_name(method_));
        const cudaStream_t st = stream_.get();
        copy_on_device(d_b_.get(), b, params_.n, st);
        copy_on_device(d_x_.get(), x, params_.n, st);
        const SolverState host = run(opt);
        std::vector<double> unused;
        if (SolveResult trivial; trivial_rhs(host.bnorm, unused, trivial)) {
            if (trivial.status == SolveStatus::converged) zero_on_device(x, params_.n, st);
            return trivial;
        }
        copy_on_device(x, d_x_.get(), params_.n, st);
        return to_result(host, history_.download(st),
                         method_ == Method::qmr ? quasi_.download(st) : std::vector<double>{});
    }

    SolverInfo info() const override { return info_; }
    InKernelPlan plan() const override { return plan_; }

  private:
    /// One launch from b and x in d_b_, d_x_; the final state (its bnorm says whether the
    /// right-hand side was trivial).
    SolverState run(const SolveOptions& opt) {
        const cudaStream_t st = stream_.get();
        flags_.zero(st);
        state_.reset(opt, st);
        progress_.reset();
        params_.progress = opt.progress ? progress_.device() : nullptr;

        EventTimer solve_timer(st);
        void* args[] = {&params_};
        HEPTANE_CUDA_CHECK(cudaLaunchCooperativeKernel(
            kernel_, dim3(plan_.grid), dim3(plan_.threads), args, plan_.shared_bytes, st));
        if (opt.progress) {
            int seen = 0;
            while (cudaStreamQuery(st) == cudaErrorNotReady) {
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                const InKernelProgress p = progress_.read();
                if (p.iterations > seen) {
                    seen = p.iterations;
                    opt.progress(p.iterations, p.relative_residual);
                }
            }
        }
        HEPTANE_SYNC_CHECK(st);
        info_.solve_seconds = solve_timer.seconds();
        return state_.download(st);
    }

    SetupClock::time_point t0_;
    Method method_;
    GHStructure structure_;
    int capacity_;
    InKernelPlan plan_;
    Stream stream_;
    DeviceGH gh_;
    Buffer<double> d_b_, d_x_, partial_, history_, quasi_;
    Buffer<unsigned> flags_;
    DeviceState state_;
    Vectors vectors_;
    MappedProgress progress_;
    std::unique_ptr<DevicePointBlock> M_;  ///< fused point-block Jacobi (or none)
    Params params_{};
    const void* kernel_ = nullptr;
    SolverInfo info_;
};

}  // namespace

std::unique_ptr<GpuSolver> make_in_kernel_solver(Method method, const GHMatrix& A,
                                                 const GpuSolveOptions& options) {
    check_solver(method, GpuKernel::in_kernel, options, A.block_size());
    if (method == Method::qmr) {
        return std::make_unique<InKernelSolver<QmrParams>>(
            method, A, options,
            [](QmrParams& p, Vectors& v, const DeviceGH& gh, bool shared_ranges,
               const DevicePointBlock*) {
                p.AT = gh.view(true);
                p.v = v.add();
                p.w = v.add();
                for (int k = 0; k < 2; ++k) {
                    p.p[k] = v.add();
                    p.q[k] = v.add();
                }
                p.r = v.add(!shared_ranges);
                p.d = v.add(!shared_ranges);
                p.s = v.add(!shared_ranges);
                p.pt = v.add(!shared_ranges);
                p.u = v.add(!shared_ranges);
            });
    }
    return std::make_unique<InKernelSolver<BicgstabParams>>(
        method, A, options,
        [](BicgstabParams& p, Vectors& v, const DeviceGH&, bool shared_ranges,
           const DevicePointBlock* M) {
            p.r = v.add();
            p.q = v.add();
            p.v = v.add();
            p.r_hat = v.add(!shared_ranges);
            p.t = v.add(!shared_ranges);
            p.rp = M != nullptr ? v.add() : p.r;
            p.vp = M != nullptr ? v.add() : p.v;
            p.preconditioned = M != nullptr ? 1 : 0;
            if (M != nullptr) p.M = M->view();
        });
}

}  // namespace detail

}  // namespace heptane::gpu
