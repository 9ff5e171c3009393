// The in-kernel solvers' host side: the launch plan (occupancy, rows per block, where the
// range vectors live), the workspace, one cooperative launch, progress while it runs, and
// the result. The kernels: bicgstab_in_kernel.cuh and qmr_in_kernel.cuh on in_kernel.cuh.
#include <cuda_runtime.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/errors.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/bicgstab_in_kernel.cuh"
#include "gpu/src/block_smoothers.cuh"
#include "gpu/src/buffer.cuh"
#include "gpu/src/cuda_check.cuh"
#include "gpu/src/device_gh.cuh"
#include "gpu/src/qmr_in_kernel.cuh"
#include "gpu/src/solver_state.cuh"

namespace heptane::gpu {
namespace detail {

#define HEPTANE_EXTERN(k)                             \
    extern template const void* bicgstab_kernel<k>(); \
    extern template const void* qmr_kernel<k>();
HEPTANE_FOR_EACH_K(HEPTANE_EXTERN)
#undef HEPTANE_EXTERN

namespace {

const char* solver_name(Method method) {
    return method == Method::qmr ? "in-kernel QMR" : "in-kernel BiCGStab";
}

const void* kernel_for(Method method, int K) {
    const bool qmr = method == Method::qmr;
    switch (K) {
#define HEPTANE_CASE(k) \
    case k:             \
        return qmr ? qmr_kernel<k>() : bicgstab_kernel<k>();
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
    const void* kernel = kernel_for(method, A.block_size());
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

/// The vectors of n entries a solve allocates besides b and x.
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

/// One in-kernel solve of `method`: plan, upload, workspace, the cooperative launch, progress
/// while it runs, the result. fill(params, vectors, gh, shared_ranges) sets the method's own
/// vectors (and views) of `params`.
template <class Params, class Fill>
SolveResult solve_in_kernel(Method method, const GHMatrix& A, const std::vector<double>& b,
                            std::vector<double>& x, const GpuSolveOptions& options,
                            GpuSolveTimes* times, InKernelPlan* plan_out, Fill fill) {
    const long long n = A.rows();
    check_sizes(n, b, x, solver_name(method));
    const SolveOptions& opt = options.solve;
    Stream stream;
    const cudaStream_t st = stream.get();
    EventTimer setup_timer(st);

    const InKernelPlan plan = in_kernel_plan(A, options, method);
    if (plan_out != nullptr) *plan_out = plan;
    const DeviceGH gh(A, BdiaVariant::cell_fastest);
    Buffer<double> d_b(b), d_x(x);
    Buffer<double> partial(2 * kMaxReductions * static_cast<size_t>(plan.grid));
    Buffer<double> history(opt.max_iterations + 1);
    Buffer<double> quasi(method == Method::qmr ? opt.max_iterations + 1 : 0);
    Buffer<unsigned> flags(plan.grid);
    flags.zero(st);
    DeviceState state(opt);
    Vectors vectors(n);

    // Progress: the kernel's leader writes the iteration count to host-mapped memory.
    InKernelProgress* progress = nullptr;
    InKernelProgress* d_progress = nullptr;
    if (opt.progress) {
        HEPTANE_CUDA_CHECK(cudaHostAlloc(&progress, sizeof *progress, cudaHostAllocMapped));
        *progress = InKernelProgress{0, 0.0};
        HEPTANE_CUDA_CHECK(cudaHostGetDevicePointer(&d_progress, progress, 0));
    }
    struct FreeHost {
        void* p;
        ~FreeHost() {
            if (p != nullptr) cudaFreeHost(p);
        }
    } free_progress{progress};

    Params params{};
    InKernelParams& common = params;
    common.A = gh.view(false);
    common.n = n;
    common.b = d_b.get();
    common.x = d_x.get();
    common.partial = partial.get();
    common.flags = flags.get();
    common.st = state.device();
    common.history = history.get();
    common.quasi_history = quasi.get();
    common.progress = d_progress;
    common.block_rows = plan.rows_per_block;
    common.passes = static_cast<int>(plan.rows_per_block / (plan.threads / 32) /
                                     in_kernel_pass_rows(A.block_size()));
    common.shared_ranges = plan.shared_ranges ? 1 : 0;
    fill(params, vectors, gh, plan.shared_ranges);
    HEPTANE_CUDA_CHECK(cudaStreamSynchronize(st));
    const double setup_seconds = setup_timer.seconds();

    EventTimer solve_timer(st);
    void* args[] = {&params};
    HEPTANE_CUDA_CHECK(cudaLaunchCooperativeKernel(kernel_for(method, A.block_size()),
                                                   dim3(plan.grid), dim3(plan.threads), args,
                                                   plan.shared_bytes, st));
    if (opt.progress) {
        int seen = 0;
        while (cudaStreamQuery(st) == cudaErrorNotReady) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            const volatile InKernelProgress* p = progress;
            const int it = p->iterations;
            if (it > seen) {
                seen = it;
                opt.progress(it, p->relative_residual);
            }
        }
    }
    HEPTANE_SYNC_CHECK(st);
    const double solve_seconds = solve_timer.seconds();
    const SolverState host = state.download(st);
    if (SolveResult trivial; trivial_rhs(host.bnorm, x, trivial)) return trivial;

    return finish_solve(host, d_x, history, x, setup_seconds, solve_seconds, times, st,
                        method == Method::qmr ? &quasi : nullptr);
}

}  // namespace
}  // namespace detail

SolveResult bicgstab_in_kernel(const GHMatrix& A, const std::vector<double>& b,
                               std::vector<double>& x, const GpuSolveOptions& options,
                               GpuSolveTimes* times, InKernelPlan* plan) {
    using namespace detail;
    check_preconditioner(Method::bicgstab, GpuKernel::in_kernel, options, A.block_size());
    const bool preconditioned = options.preconditioner != PreconditionerKind::none;
    std::unique_ptr<DevicePointBlock> M;  // factored and uploaded in the timed setup
    return solve_in_kernel<BicgstabParams>(
        Method::bicgstab, A, b, x, options, times, plan,
        [&](BicgstabParams& p, Vectors& v, const DeviceGH&, bool shared_ranges) {
            p.r = v.add();
            p.q = v.add();
            p.v = v.add();
            p.r_hat = v.add(!shared_ranges);
            p.t = v.add(!shared_ranges);
            p.rp = preconditioned ? v.add() : p.r;
            p.vp = preconditioned ? v.add() : p.v;
            p.preconditioned = preconditioned ? 1 : 0;
            if (preconditioned) {
                M = std::make_unique<DevicePointBlock>(factor_point_blocks(A));
                p.M = M->view();
            }
        });
}

SolveResult qmr_in_kernel(const GHMatrix& A, const std::vector<double>& b, std::vector<double>& x,
                          const GpuSolveOptions& options, GpuSolveTimes* times,
                          InKernelPlan* plan) {
    using namespace detail;
    check_preconditioner(Method::qmr, GpuKernel::in_kernel, options, A.block_size());
    return solve_in_kernel<QmrParams>(
        Method::qmr, A, b, x, options, times, plan,
        [](QmrParams& p, Vectors& v, const DeviceGH& gh, bool shared_ranges) {
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

}  // namespace heptane::gpu
