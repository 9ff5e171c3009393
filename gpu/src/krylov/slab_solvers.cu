// GPU ranks (gpu/slab_solver.hpp, issue 25): the method's slab solver (slab_bicgstab.cu,
// slab_qmr.cu; what they share is slab_base.cuh) and the device of a rank.
#include <cuda_runtime.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "core/base/errors.hpp"
#include "core/krylov/names.hpp"
#include "gpu/slab_solver.hpp"
#include "gpu/src/base/cuda_check.cuh"

namespace heptane::gpu {
namespace detail {

/// The methods' slab solvers (slab_bicgstab.cu, slab_qmr.cu).
/// planes: cpr's (make_slab_solver), else null.
std::unique_ptr<SlabSolver> make_slab_bicgstab(const SolverSettings& settings, const GHMatrix& slab,
                                               const SlabLayout& layout,
                                               const SlabNeighbours& neighbours,
                                               const CprPlanes* planes);
std::unique_ptr<SlabSolver> make_slab_qmr(const SolverSettings& settings, const GHMatrix& slab,
                                          const SlabLayout& layout,
                                          const SlabNeighbours& neighbours,
                                          const CprPlanes* planes);

}  // namespace detail

std::unique_ptr<SlabSolver> make_slab_solver(const SolverSettings& settings, const GHMatrix& slab,
                                             const SlabLayout& layout,
                                             const SlabNeighbours& neighbours,
                                             const CprPlanes* planes) {
    if (settings.method != Method::bicgstab && settings.method != Method::qmr) {
        throw NotSupported(std::string("method ") + to_string(settings.method) +
                           " does not run on GPU ranks yet (bicgstab and qmr do)");
    }
    if (settings.preconditioner == PreconditionerKind::cpr) {
        if (settings.method != Method::bicgstab) {
            throw NotSupported("preconditioner cpr runs with bicgstab only (it has no transpose)");
        }
        if (planes == nullptr) throw std::invalid_argument("make_slab_solver: cpr needs planes");
    }
    if (settings.method == Method::qmr) {
        return detail::make_slab_qmr(settings, slab, layout, neighbours, planes);
    }
    return detail::make_slab_bicgstab(settings, slab, layout, neighbours, planes);
}

int select_device(int local_rank) {
    int count = 0;
    HEPTANE_CUDA_CHECK(cudaGetDeviceCount(&count));
    if (count == 0) throw CudaError("select_device: no CUDA device");
    const int device = local_rank % count;
    HEPTANE_CUDA_CHECK(cudaSetDevice(device));
    return device;
}

}  // namespace heptane::gpu
