// The in-kernel BiCGStab's host side: the launch plan (occupancy, rows per block, where the
// range vectors live), the workspace, one cooperative launch, progress while it runs, and
// the result. The kernel: bicgstab_in_kernel.cuh.
#include <cuda_runtime.h>

#include <chrono>
#include <string>
#include <thread>

#include "core/errors.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/bicgstab_in_kernel.cuh"
#include "gpu/src/buffer.cuh"
#include "gpu/src/cuda_check.cuh"
#include "gpu/src/device_gh.cuh"
#include "gpu/src/solver_state.cuh"

namespace heptane::gpu {
namespace detail {

#define HEPTANE_EXTERN(k) extern template const void* persistent_kernel<k>();
HEPTANE_FOR_EACH_K(HEPTANE_EXTERN)
#undef HEPTANE_EXTERN

namespace {

const void* kernel_for(int K) {
    switch (K) {
#define HEPTANE_CASE(k) \
    case k:             \
        return persistent_kernel<k>();
        HEPTANE_FOR_EACH_K(HEPTANE_CASE)
#undef HEPTANE_CASE
        default:
            throw NotSupported("in-kernel BiCGStab: no kernel for K = " + std::to_string(K));
    }
}

struct DeviceLimits {
    int sms = 0;
    size_t shared_optin = 0;  ///< dynamic shared memory one block may opt into
};

DeviceLimits device_limits() {
    int dev = 0, coop = 0, sms = 0, optin = 0;
    HEPTANE_CUDA_CHECK(cudaGetDevice(&dev));
    HEPTANE_CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    if (coop == 0) {
        throw NotSupported(
            "in-kernel BiCGStab: this device does not support cooperative launch (needed so "
            "that every block of the persistent kernel is resident); use solver.gpu_kernel: "
            "multi_kernel");
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

InKernelPlan in_kernel_plan(const GHMatrix& A, const GpuSolveOptions& options) {
    using namespace detail;
    const DeviceLimits lim = device_limits();
    const void* kernel = kernel_for(A.block_size());
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
        const size_t shared = in_kernel_shared_bytes(rows, threads, K, shared_ranges);
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
            throw NotSupported("in-kernel BiCGStab: rows per block must be a power of two >= " +
                               std::to_string(min_rows) + " for K = " + std::to_string(K));
        }
        const long long warps = rows / pass_rows < 16 ? rows / pass_rows : 16;
        if (!resident(static_cast<int>(32 * warps), rows, false)) {
            throw NotSupported("in-kernel BiCGStab: " + std::to_string((n + rows - 1) / rows) +
                               " blocks of " + std::to_string(rows) +
                               " rows cannot all be resident");
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
            if (rows >= n) throw NotSupported("in-kernel BiCGStab: the kernel cannot be launched");
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
            "in-kernel BiCGStab: the range vectors of " + std::to_string(plan.rows_per_block) +
            " rows per block (" +
            std::to_string(in_kernel_shared_bytes(plan.rows_per_block, plan.threads, K, true) /
                           1024) +
            " KiB) do not fit in shared memory with all blocks resident");
    }

    const size_t vectors = plan.shared_ranges ? 5 : 7;  // b x r q v (+ r_hat t)
    plan.device_bytes = A.storage_bytes() + vectors * sizeof(double) * static_cast<size_t>(n) +
                        sizeof(double) * (2 * kMaxReductions * static_cast<size_t>(plan.grid) +
                                          static_cast<size_t>(options.solve.max_iterations) + 1) +
                        sizeof(unsigned) * static_cast<size_t>(plan.grid);
    return plan;
}

SolveResult bicgstab_in_kernel(const GHMatrix& A, const std::vector<double>& b,
                               std::vector<double>& x, const GpuSolveOptions& options,
                               GpuSolveTimes* times, InKernelPlan* plan_out) {
    using namespace detail;
    const long long n = A.rows();
    check_sizes(n, b, x, "bicgstab_in_kernel");
    const SolveOptions& opt = options.solve;
    Stream stream;
    const cudaStream_t st = stream.get();
    EventTimer setup_timer(st);

    const InKernelPlan plan = in_kernel_plan(A, options);
    if (plan_out != nullptr) *plan_out = plan;
    const DeviceGH gh(A, BdiaVariant::cell_fastest);
    Buffer<double> d_b(b), d_x(x), r(n), q(n), v(n);
    Buffer<double> r_hat(plan.shared_ranges ? 0 : n), t(plan.shared_ranges ? 0 : n);
    Buffer<double> partial(2 * kMaxReductions * static_cast<size_t>(plan.grid));
    Buffer<double> history(opt.max_iterations + 1);
    Buffer<unsigned> flags(plan.grid);
    flags.zero(st);
    DeviceState state(opt);

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

    InKernelParams params{};
    params.A = gh.view(false);
    params.n = n;
    params.b = d_b.get();
    params.x = d_x.get();
    params.r = r.get();
    params.q = q.get();
    params.v = v.get();
    params.r_hat = r_hat.get();
    params.t = t.get();
    params.partial = partial.get();
    params.flags = flags.get();
    params.st = state.device();
    params.history = history.get();
    params.progress = d_progress;
    params.block_rows = plan.rows_per_block;
    params.passes = static_cast<int>(plan.rows_per_block / (plan.threads / 32) /
                                     in_kernel_pass_rows(A.block_size()));
    params.shared_ranges = plan.shared_ranges ? 1 : 0;
    HEPTANE_CUDA_CHECK(cudaStreamSynchronize(st));
    const double setup_seconds = setup_timer.seconds();

    EventTimer solve_timer(st);
    void* args[] = {&params};
    HEPTANE_CUDA_CHECK(cudaLaunchCooperativeKernel(kernel_for(A.block_size()), dim3(plan.grid),
                                                   dim3(plan.threads), args, plan.shared_bytes,
                                                   st));
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

    return finish_solve(host, d_x, history, x, setup_seconds, solve_seconds, times, st);
}

}  // namespace heptane::gpu
