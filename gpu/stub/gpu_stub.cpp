// gpu/ built without CUDA: the same API. Queries report no devices; operations that need a
// device throw NotCompiled.
#include "core/base/errors.hpp"
#include "gpu/assembly.hpp"
#include "gpu/bench.hpp"
#include "gpu/device.hpp"
#include "gpu/ksparse.hpp"
#include "gpu/newton.hpp"
#include "gpu/slab_solver.hpp"
#include "gpu/solver.hpp"
#include "gpu/solvers.hpp"
#include "gpu/spmv.hpp"

namespace heptane::gpu {
namespace {

[[noreturn]] void not_compiled(const char* what) {
    throw NotCompiled(std::string(what) +
                      ": heptane was built without CUDA (HEPTANE_ENABLE_CUDA=OFF or no nvcc)");
}

}  // namespace

bool compiled_with_cuda() { return false; }
int device_count() { return 0; }
std::vector<DeviceInfo> list_devices() { return {}; }
bool peer_access(int, int) { return false; }
std::string runtime_version() { return "not compiled"; }
std::pair<std::size_t, std::size_t> device_memory() { return {0, 0}; }
long long device_allocations() { return 0; }

// The one factory of the GPU solvers: every solve function of gpu/solvers.hpp goes through it.
std::unique_ptr<GpuSolver> make_solver(Method, GpuKernel, const GHMatrix&, const GpuSolveOptions&) {
    not_compiled("the GPU solvers");
}

std::unique_ptr<GpuSolver> make_solver(Method, GpuKernel, const Bsr&, const GpuSolveOptions&) {
    not_compiled("the GPU solvers");
}

std::vector<double> spmv_device(const GHMatrix&, const std::vector<double>&, BdiaVariant, bool) {
    not_compiled("spmv_device");
}

std::vector<double> spmv_rows_device(const GHMatrix&, const std::vector<double>&, BdiaVariant,
                                     index_t, index_t, bool, std::vector<double>, bool) {
    not_compiled("spmv_rows_device");
}

std::vector<double> apply_preconditioner(const GHMatrix&, PreconditionerKind, std::array<int, 3>,
                                         const std::vector<double>&, bool) {
    not_compiled("apply_preconditioner");
}

CprDeviceSteps cpr_device_steps(const GHMatrix&, const CprOptions&, const std::vector<double>&,
                                BdiaVariant) {
    not_compiled("cpr_device_steps");
}

LineFactors line_factors_on_device(const GHMatrix&, BdiaVariant) {
    not_compiled("line_factors_on_device");
}

PointBlockFactors point_block_factors_on_device(const GHMatrix&, BdiaVariant) {
    not_compiled("point_block_factors_on_device");
}

std::vector<double> smoother_sweep(Method, const GHMatrix&, std::array<int, 3>, double,
                                   const std::vector<double>&, const std::vector<double>&) {
    not_compiled("smoother_sweep");
}

std::array<double, 2> chunk_dots(const std::vector<double>&, const std::vector<double>&) {
    not_compiled("chunk_dots");
}

std::vector<Timing> time_iteration_kernels(const GHMatrix&, int) {
    not_compiled("time_iteration_kernels");
}

CprTimes time_cpr(const GHMatrix&, const CprOptions&, int) { not_compiled("time_cpr"); }

std::vector<Timing> time_smoothers(const GHMatrix&, std::array<int, 3>, double, int) {
    not_compiled("time_smoothers");
}

InKernelPlan in_kernel_plan(const GHMatrix&, const GpuSolveOptions&, Method) {
    not_compiled("in_kernel_plan");
}

std::vector<double> spmv_ksparse(const Bsr&, const std::vector<double>&, const KsparseParams&) {
    not_compiled("spmv_ksparse");
}

KsparseParams ksparse_resolved(const Bsr&, const KsparseParams&) {
    not_compiled("ksparse_resolved");
}

Timing measure_triad(std::size_t, int) { not_compiled("measure_triad"); }

std::vector<Timing> time_block_spmv(const Bsr&, int, const KsparseBenchOptions&) {
    not_compiled("time_block_spmv");
}

std::vector<Timing> time_spmv(const GHMatrix&, int, bool) { not_compiled("time_spmv"); }

struct DeviceTwoPhase::Impl {};
DeviceTwoPhase::DeviceTwoPhase(const grid::TwoPhaseCells&, const wells::TwoPhaseWells&) {
    not_compiled("DeviceTwoPhase");
}
DeviceTwoPhase::~DeviceTwoPhase() = default;
double DeviceTwoPhase::assemble(const grid::CellState&, const std::vector<double>&,
                                const grid::CellState&, double,
                                const std::vector<wells::WellControl>&, bool) {
    not_compiled("DeviceTwoPhase");
}
std::vector<double> DeviceTwoPhase::residual() const { not_compiled("DeviceTwoPhase"); }
GHMatrix DeviceTwoPhase::jacobian() const { not_compiled("DeviceTwoPhase"); }
double DeviceTwoPhase::minimal_bytes(bool) const { not_compiled("DeviceTwoPhase"); }

std::unique_ptr<sim::NewtonSystem> make_device_newton(const wells::TwoPhaseSystem&,
                                                      const sim::State&, sim::SolverFactory,
                                                      SolveOptions) {
    not_compiled("the device Newton loop");
}

std::unique_ptr<SlabSolver> make_slab_solver(const SolverSettings&, const GHMatrix&,
                                             const SlabLayout&, const SlabNeighbours&,
                                             const CprPlanes*) {
    not_compiled("the GPU ranks' solver");
}
int select_device(int) { not_compiled("select_device"); }

}  // namespace heptane::gpu
