#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <functional>

#include "core/base/errors.hpp"
#include "core/ksparse/ksparse_tuning.hpp"
#include "core/matrix/formats.hpp"
#include "core/precond/block_smoothers.hpp"
#include "gpu/bench.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/base/solver_state.cuh"
#include "gpu/src/krylov/library_matrix.cuh"
#include "gpu/src/ksparse/ksparse.cuh"
#include "gpu/src/precond/block_smoothers.cuh"
#include "gpu/src/precond/cpr.cuh"
#include "gpu/src/spmv/device_gh.cuh"

namespace heptane::gpu {
namespace {

using detail::Buffer;

__global__ void triad(double* a, const double* b, const double* c, double s, std::size_t n) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        a[i] = b[i] + s * c[i];
    }
}

__global__ void dot_kernel(const double* x, const double* y, std::size_t n, double* out) {
    double s = 0.0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        s += x[i] * y[i];
    }
    for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
    __shared__ double warps[32];
    if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        double t = 0.0;
        for (unsigned w = 0; w < blockDim.x / 32; ++w) t += warps[w];
        atomicAdd(out, t);
    }
}

__global__ void axpy_kernel(double a, const double* x, double* y, std::size_t n) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        y[i] += a * x[i];
    }
}

/// Nothing: a graph of these measures what a kernel boundary costs by itself.
__global__ void empty_kernel() {}

/// n grid-wide barriers (cooperative groups): what a persistent kernel pays per phase instead.
__global__ void grid_barriers(int n) {
    const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    for (int i = 0; i < n; ++i) grid.sync();
}

int multiprocessors() {
    int dev = 0, sms = 0;
    HEPTANE_CUDA_CHECK(cudaGetDevice(&dev));
    HEPTANE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return sms;
}

/// Median and minimum of `run` over `repeats` timed launches after `warmup` untimed ones,
/// with `flush` (L2 eviction) before each timed launch, outside the timed region. With
/// `launches` > 1 each timed region runs it that many times back to back and the times are
/// per launch (Timing::back_to_back_seconds).
Timing time_it(const std::string& name, int repeats, cudaStream_t stream,
               const std::function<void()>& run, const std::function<void()>& flush,
               int launches = 1) {
    Timing t;
    t.name = name;
    for (int i = 0; i < 3; ++i) run();
    std::vector<double> seconds;
    cudaEvent_t start, stop;
    HEPTANE_CUDA_CHECK(cudaEventCreate(&start));
    HEPTANE_CUDA_CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < repeats; ++i) {
        if (flush) flush();
        HEPTANE_CUDA_CHECK(cudaEventRecord(start, stream));
        for (int l = 0; l < launches; ++l) run();
        HEPTANE_CUDA_CHECK(cudaEventRecord(stop, stream));
        HEPTANE_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        HEPTANE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        seconds.push_back(1e-3 * ms / launches);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(seconds.begin(), seconds.end());
    t.repeats = repeats;
    t.min_seconds = seconds.front();
    t.median_seconds = seconds.size() % 2
                           ? seconds[seconds.size() / 2]
                           : 0.5 * (seconds[seconds.size() / 2 - 1] + seconds[seconds.size() / 2]);
    return t;
}

/// A buffer twice the L2 size; writing it evicts earlier data from L2.
class L2Flusher {
  public:
    L2Flusher() {
        int dev = 0, l2 = 0;
        HEPTANE_CUDA_CHECK(cudaGetDevice(&dev));
        HEPTANE_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        buffer_ = Buffer<char>(static_cast<std::size_t>(std::max(l2, 1 << 20)) * 2);
    }
    void operator()(cudaStream_t s) {
        HEPTANE_CUDA_CHECK(cudaMemsetAsync(buffer_.get(), 1, buffer_.bytes(), s));
    }

  private:
    Buffer<char> buffer_;
};

/// The input vector of every timed kernel: n values 1 + 1e-3 (i mod 97), nothing special.
std::vector<double> bench_vector(std::size_t n) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = 1.0 + 1e-3 * static_cast<double>(i % 97);
    return v;
}

bool fits(std::size_t bytes) {
    std::size_t free = 0, total = 0;
    HEPTANE_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    return bytes + (256u << 20) < free;  // keep 256 MB of slack
}

}  // namespace

std::pair<std::size_t, std::size_t> device_memory() {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess) return {0, 0};
    return {free, total};
}

Timing measure_triad(std::size_t n, int repeats) {
    Buffer<double> a(n), b(n), c(n);
    b.zero();
    c.zero();
    detail::Stream stream;
    const cudaStream_t s = stream.get();
    const int sms = multiprocessors();
    auto run = [&] {
        triad<<<sms * 8, 256, 0, s>>>(a.get(), b.get(), c.get(), 3.0, n);
        HEPTANE_SYNC_CHECK(s);
    };
    Timing t = time_it("triad", repeats, s, run, nullptr);  // arrays >> L2: no flush needed
    return t;
}

std::vector<Timing> time_spmv(const GHMatrix& A, int repeats, bool library) {
    std::vector<Timing> out;
    detail::Stream stream;
    const cudaStream_t s = stream.get();
    L2Flusher flusher;
    auto flush = [&] { flusher(s); };
    const std::vector<double> host_x = bench_vector(static_cast<std::size_t>(A.rows()));
    const std::size_t vec_bytes = 2 * host_x.size() * sizeof(double);

    for (BdiaVariant v :
         {BdiaVariant::cell_fastest, BdiaVariant::cell_fastest_x2, BdiaVariant::tiled}) {
        const std::size_t need = A.storage_bytes() * 33 / 32 + vec_bytes;
        if (!fits(need)) {
            out.push_back({to_string(v), 0, 0, 0, "does not fit in device memory"});
            continue;
        }
        const detail::DeviceGH gh(A, v);
        Buffer<double> x(host_x), y(host_x.size());
        const auto run = [&] { gh.apply(x.get(), y.get(), false, s); };
        out.push_back(time_it(to_string(v), repeats, s, run, flush));
        out.back().back_to_back_seconds =
            time_it(to_string(v), repeats, s, run, flush, kBackToBack).median_seconds;
    }
    if (!library) return out;
    for (LibrarySpmv kind : {LibrarySpmv::bsr, LibrarySpmv::bsr_legacy, LibrarySpmv::csr}) {
        const std::size_t need =
            (kind == LibrarySpmv::csr ? csr_bytes(A) : bsr_bytes(A)) + 2 * vec_bytes;
        if (!fits(need)) {
            out.push_back({to_string(kind), 0, 0, 0, "does not fit in device memory"});
            continue;
        }
        if (kind != LibrarySpmv::csr && A.block_size() == 1) {
            out.push_back({to_string(kind), 0, 0, 0, "cuSPARSE BSR needs blocks of 2 x 2 or more"});
            continue;
        }
        detail::LibraryMatrix mat(A, kind, s);
        const std::vector<double> xp = mat.size() == A.rows() ? host_x : pad_vector(A, host_x);
        Buffer<double> x(xp), y(xp.size());
        const auto run = [&] { mat.apply(x.get(), y.get()); };
        out.push_back(time_it(to_string(kind), repeats, s, run, flush));
        out.back().back_to_back_seconds =
            time_it(to_string(kind), repeats, s, run, flush, kBackToBack).median_seconds;
    }
    return out;
}

std::vector<Timing> time_block_spmv(const Bsr& A, int repeats, const KsparseBenchOptions& o) {
    using detail::DeviceBsr;
    std::vector<Timing> out;
    detail::Stream stream;
    const cudaStream_t s = stream.get();
    L2Flusher flusher;
    auto flush = [&] { flusher(s); };
    const int bs = A.block_size;
    const std::size_t n = static_cast<std::size_t>(A.block_rows) * bs;
    const std::vector<double> host_x = bench_vector(n);
    Buffer<double> x(host_x), y(n);

    // The matrix once, for the tuner's candidates (plain rows, no balancing).
    TuningCache cache(o.cache_path.empty() ? TuningCache::default_path() : o.cache_path);
    const std::string device = detail::device_name();
    const Buffer<int> row_ptr(A.row_ptr), col(A.col);
    const Buffer<double> val(detail::column_major_blocks(A));
    const detail::KsparseView view{row_ptr.get(), col.get(), val.get(), A.block_rows, bs};
    auto time_candidate = [&](const KsparseParams& p) {
        if (p.kernel == KsparseKernel::k4) {  // its own layout per chunk length
            const DeviceBsr dev(A, p);
            return time_it(
                       "candidate", std::max(3, repeats / 2), s,
                       [&] { dev.apply(x.get(), y.get(), s); }, flush)
                .median_seconds;
        }
        const detail::KsparseLaunch l = detail::ksparse_plan(A.block_rows, bs, p);
        return time_it(
                   "candidate", std::max(3, repeats / 2), s,
                   [&] { detail::ksparse_launch(l, view, x.get(), y.get(), s); }, flush)
            .median_seconds;
    };

    double best = 0.0;
    KsparseParams best_params;
    for (KsparseKernel k :
         {KsparseKernel::k1, KsparseKernel::k2, KsparseKernel::k3, KsparseKernel::k4}) {
        if (ksparse_candidates(k, bs).empty() || (k == KsparseKernel::k3 && bs < 8)) continue;
        KsparseParams p = tuned_or_default(cache, device, k, bs);
        std::string origin = cache.find(device, k, bs) ? "tuned (cache)" : "default";
        if (o.tune || o.retune) {
            bool from_cache = false;
            const TunedEntry e =
                tune_ksparse(device, k, bs, time_candidate, cache, o.retune, &from_cache);
            p = e.params;
            origin = from_cache
                         ? "tuned (cache)"
                         : "tuned now, " + std::to_string(e.candidates_tried) + " candidates";
            if (o.tuning_log) {
                o.tuning_log->push_back(std::string(to_string(k)) + " bs=" + std::to_string(bs) +
                                        ": " + origin + ": " + describe(e.params));
            }
        }
        // The plain kernels unbalanced; K4 with its chunks (its only layout).
        p.balance = k == KsparseKernel::k4 ? KsparseBalance::automatic : KsparseBalance::off;
        const DeviceBsr dev(A, p);
        Timing t = time_it(
            std::string("ksparse_") + to_string(k), repeats, s,
            [&] { dev.apply(x.get(), y.get(), s); }, flush);
        t.params = describe(dev.launch().params) + " (" + origin + ")";
        if (k == KsparseKernel::k4) {
            t.params += ", " + std::to_string(dev.chunks()) + " chunks, " +
                        std::to_string(dev.split_rows()) + " rows split";
            out.push_back(t);
            continue;  // the balanced run below splits the best of K1-K3
        }
        if (best == 0.0 || t.median_seconds < best) {
            best = t.median_seconds;
            best_params = p;
        }
        out.push_back(t);
    }
    // The fastest kernel with long rows split (seed 001, section 5.5).
    best_params.balance = KsparseBalance::on;
    const DeviceBsr balanced(A, best_params);
    Timing t = time_it(
        "ksparse_balanced", repeats, s, [&] { balanced.apply(x.get(), y.get(), s); }, flush);
    t.params = describe(balanced.launch().params) + ", " +
               std::to_string(balanced.launch().grid.x) + " blocks";
    out.push_back(t);

    for (LibrarySpmv kind : {LibrarySpmv::bsr, LibrarySpmv::bsr_legacy, LibrarySpmv::csr}) {
        if (kind != LibrarySpmv::csr && A.block_size == 1) {
            out.push_back({to_string(kind), 0, 0, 0, "cuSPARSE BSR needs blocks of 2 x 2 or more"});
            continue;
        }
        detail::LibraryMatrix mat(A, kind, s);
        out.push_back(time_it(
            to_string(kind), repeats, s, [&] { mat.apply(x.get(), y.get()); }, flush));
    }
    return out;
}

std::vector<Timing> time_smoothers(const GHMatrix& A, std::array<int, 3> shape, double omega,
                                   int repeats) {
    std::vector<Timing> out;
    detail::Stream stream;
    const cudaStream_t s = stream.get();
    L2Flusher flusher;
    auto flush = [&] { flusher(s); };
    const std::size_t n = static_cast<std::size_t>(A.rows());
    const std::vector<double> host = bench_vector(n);
    Buffer<double> r(host), z(n), x(host), b(host);
    auto bytes = [](double v) { return "bytes=" + std::to_string(static_cast<long long>(v)); };
    const std::pair<const char*, PreconditionerKind> kinds[] = {
        {"precond_point_block", PreconditionerKind::point_block_jacobi},
        {"precond_line", PreconditionerKind::line_jacobi},
        {"precond_block", PreconditionerKind::block_jacobi}};
    for (const auto& [name, kind] : kinds) {
        const double need = preconditioner_bytes(A, kind, shape);
        if (!fits(static_cast<std::size_t>(need) + 2 * n * sizeof(double))) {
            out.push_back({name, 0, 0, 0, "does not fit in free device memory"});
            continue;
        }
        try {
            const auto M = detail::upload_preconditioner(A, kind, shape);
            Timing t = time_it(
                name, repeats, s, [&] { M->apply(r.get(), z.get(), s); }, flush);
            t.params = bytes(need);
            out.push_back(t);
        } catch (const NotSupported& e) {
            out.push_back({name, 0, 0, 0, e.what()});
        }
    }
    try {
        const detail::DeviceSmoother smoother(A, shape);
        Timing t = time_it(
            "sweep_block_jacobi", repeats, s,
            [&] { smoother.sweep(b.get(), x.get(), z.get(), omega, s); }, flush);
        t.params = bytes(smoother.bytes());
        out.push_back(t);
        t = time_it(
            "sweep_block_gs", repeats, s,
            [&] { smoother.sweep(b.get(), z.get(), z.get(), 1.0, s); }, flush);
        t.params = bytes(smoother.bytes());
        out.push_back(t);
    } catch (const NotSupported& e) {
        out.push_back({"sweep_block_jacobi", 0, 0, 0, e.what()});
        out.push_back({"sweep_block_gs", 0, 0, 0, e.what()});
    }
    return out;
}

std::vector<Timing> time_iteration_kernels(const GHMatrix& A, int repeats) {
    std::vector<Timing> out;
    detail::Stream stream;
    const cudaStream_t s = stream.get();
    L2Flusher flusher;
    auto flush = [&] { flusher(s); };
    const std::size_t n = static_cast<std::size_t>(A.rows());
    const std::vector<double> host = bench_vector(n);
    Buffer<double> x(host), y(host), sum(1);
    {
        const detail::DeviceGH gh(A, default_variant());
        out.push_back(time_it(
            "spmv", repeats, s, [&] { gh.apply(x.get(), y.get(), false, s); }, flush));
    }
    {
        const auto M =
            detail::upload_preconditioner(A, PreconditionerKind::point_block_jacobi, {1, 1, 1});
        out.push_back(time_it(
            "precond_point_block", repeats, s, [&] { M->apply(x.get(), y.get(), s); }, flush));
    }
    const int blocks = multiprocessors() * 8;
    out.push_back(time_it(
        "dot", repeats, s,
        [&] {
            HEPTANE_CUDA_CHECK(cudaMemsetAsync(sum.get(), 0, sizeof(double), s));
            dot_kernel<<<blocks, 256, 0, s>>>(x.get(), y.get(), n, sum.get());
            HEPTANE_SYNC_CHECK(s);
        },
        flush));
    out.push_back(time_it(
        "axpy", repeats, s,
        [&] {
            axpy_kernel<<<blocks, 256, 0, s>>>(1e-3, x.get(), y.get(), n);
            HEPTANE_SYNC_CHECK(s);
        },
        flush));
    return out;
}

CprTimes time_cpr(const GHMatrix& A, const CprOptions& options, int repeats) {
    detail::Stream stream;
    const cudaStream_t s = stream.get();
    L2Flusher flusher;
    auto flush = [&] { flusher(s); };
    detail::DeviceGH gh(A, default_variant());
    const detail::DeviceCpr M(A, gh, options);
    CprTimes out;
    out.setup_seconds = M.setup_seconds();
    const std::size_t n = static_cast<std::size_t>(A.rows());
    Buffer<double> r(bench_vector(n)), z(n);
    // The work of `run` as one graph (the solver's replay), and its node count.
    const auto timed = [&](const std::string& name, const std::function<void()>& run,
                           int& kernels) {
        cudaGraph_t graph = nullptr;
        HEPTANE_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        run();
        HEPTANE_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
        std::size_t nodes = 0;
        HEPTANE_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
        kernels = static_cast<int>(nodes);
        const detail::GraphExec exec(graph);
        HEPTANE_CUDA_CHECK(cudaGraphDestroy(graph));
        return time_it(
            name, repeats, s, [&] { HEPTANE_CUDA_CHECK(cudaGraphLaunch(exec.get(), s)); }, flush);
    };
    out.apply = timed(
        "apply", [&] { M.apply(r.get(), z.get(), s); }, out.apply_kernels);
    // The two costs a fused cycle trades: a graph of apply_kernels empty kernels (one block
    // per SM, like the small levels' launches), and as many barriers of one persistent grid.
    const int sms = multiprocessors();
    const int n_kernels = out.apply_kernels;
    int empty_nodes = 0;
    const Timing empty = timed(
        "empty_kernels",
        [&] {
            for (int k = 0; k < n_kernels; ++k) {
                empty_kernel<<<sms, 128, 0, s>>>();
                HEPTANE_CUDA_CHECK(cudaGetLastError());
            }
        },
        empty_nodes);
    out.kernel_boundary_seconds = empty.median_seconds / n_kernels;
    int cooperative = 0, device = 0;
    HEPTANE_CUDA_CHECK(cudaGetDevice(&device));
    HEPTANE_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    if (cooperative) {
        int n = n_kernels;
        void* args[] = {&n};
        const Timing barriers = time_it(
            "grid_barriers", repeats, s,
            [&] {
                HEPTANE_CUDA_CHECK(cudaLaunchCooperativeKernel(
                    reinterpret_cast<void*>(grid_barriers), dim3(sms), dim3(128), args, 0, s));
            },
            flush);
        out.grid_barrier_seconds = barriers.median_seconds / n_kernels;
    }
    for (int l = 0; l < M.levels(); ++l) {
        int kernels = 0;
        out.cycles.push_back(timed(
            "cycle_level_" + std::to_string(l), [&] { M.cycle_level(l, s); }, kernels));
        out.cycle_kernels.push_back(kernels);
    }
    return out;
}

}  // namespace heptane::gpu
