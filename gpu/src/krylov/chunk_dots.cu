// gpu::chunk_dots (gpu/solvers.hpp): the multi-kernel solvers' chunk reduction on two vectors,
// for the device-vs-reference test of the reduction alone.
#include <cuda_runtime.h>

#include <stdexcept>

#include "gpu/solvers.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/krylov/multi_kernel_common.cuh"

namespace heptane::gpu {
namespace detail {
namespace {

/// (u, v) and (v, v) into out[0], out[1] (the block that finishes last).
__global__ void __launch_bounds__(kChunkThreads)
    k_chunk_dots(Work w, const double* u, const double* v, double* out) {
    double total[2];
    const bool last = reduce_chunk<2>(
        w,
        [&](long long i, GroupSum(&g)[2]) {
            g[0].add(canonical::mul(u[i], v[i]));
            g[1].add(canonical::mul(v[i], v[i]));
        },
        total);
    if (last && threadIdx.x == 0) {
        out[0] = total[0];
        out[1] = total[1];
    }
}

}  // namespace
}  // namespace detail

std::array<double, 2> chunk_dots(const std::vector<double>& u, const std::vector<double>& v) {
    using namespace detail;
    if (u.size() != v.size() || u.empty()) {
        throw std::invalid_argument("chunk_dots: u and v of the same size, at least one entry");
    }
    SolveOptions opt;
    opt.max_iterations = 1;
    const auto n = static_cast<long long>(u.size());
    MultiKernelWorkspace ws(n, opt, nullptr);
    Buffer<double> du(u), dv(v), out(2);
    k_chunk_dots<<<ws.blocks, kChunkThreads>>>(ws.work, du.get(), dv.get(), out.get());
    HEPTANE_SYNC_CHECK(nullptr);
    const std::vector<double> r = out.download();
    return {r[0], r[1]};
}

}  // namespace heptane::gpu
