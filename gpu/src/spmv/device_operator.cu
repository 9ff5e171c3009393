// The operators of the multi-kernel solvers (device_operator.cuh): KSPARSE on a BSR matrix,
// and the multi-kernel solver objects' setup, which chooses between it and the Bdia operator.
#include <memory>
#include <stdexcept>
#include <string>

#include "core/base/errors.hpp"
#include "core/matrix/formats.hpp"
#include "core/matrix/linear_operator.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/base/solver_state.cuh"
#include "gpu/src/krylov/factories.cuh"
#include "gpu/src/krylov/multi_kernel_common.cuh"
#include "gpu/src/ksparse/ksparse.cuh"
#include "gpu/src/precond/block_smoothers.cuh"
#include "gpu/src/precond/cpr.cuh"
#include "gpu/src/spmv/device_gh.cuh"
#include "gpu/src/spmv/device_operator.cuh"

namespace heptane::gpu::detail {

KsparseOperator::KsparseOperator(const Bsr& A, const KsparseParams& params, bool with_transpose)
    : a_(std::make_unique<DeviceBsr>(A, tuned_params(params, A.block_size))) {
    if (with_transpose) {
        at_ = std::make_unique<DeviceBsr>(transpose(A), tuned_params(params, A.block_size));
    }
}

KsparseOperator::~KsparseOperator() = default;

void KsparseOperator::apply(const double* x, double* y, bool transpose, cudaStream_t stream,
                            const int* skip) const {
    if (transpose && !at_) throw std::logic_error("KsparseOperator: built without A^T");
    (transpose ? *at_ : *a_).apply(x, y, stream, skip);
}

void KsparseOperator::update(const Bsr& A) {
    a_->update_values(A);
    if (at_) at_->update_values(transpose(A));
}

namespace {

std::unique_ptr<GpuSolver> make_algorithm(Method method, MultiKernelSetup setup,
                                          const GpuSolveOptions& options) {
    if (method == Method::qmr) return make_qmr_multi_kernel(std::move(setup), options);
    return make_bicgstab_multi_kernel(std::move(setup), options);
}

}  // namespace

std::unique_ptr<GpuSolver> make_multi_kernel_solver(Method method, const GHMatrix& A,
                                                    const GpuSolveOptions& options) {
    const bool qmr = method == Method::qmr;
    MultiKernelSetup setup;
    setup.t0 = SetupClock::now();
    setup.name = qmr ? "qmr_multi_kernel" : "bicgstab_multi_kernel";
    setup.rows = A.rows();
    setup.info.cost = cost(method, GpuKernel::multi_kernel);
    setup.info.bytes_per_iteration =
        iteration_bytes(method, options.preconditioner, options.block_shape, A,
                        GHOperator(A).minimal_bytes(), setup.info.cost);
    setup.structure = std::make_shared<const GHStructure>(A);
    if (options.spmv == SpmvKind::bdia) {
        auto gh = std::make_unique<DeviceGH>(A, options.variant);
        std::unique_ptr<DevicePreconditioner> M =
            options.preconditioner == PreconditionerKind::cpr
                ? std::make_unique<DeviceCpr>(A, *gh, options.cpr)  // set up from gh's values
                : upload_preconditioner(A, options.preconditioner, options.block_shape);
        DeviceGH* const gh_ptr = gh.get();
        DevicePreconditioner* const M_ptr = M.get();
        setup.n = A.rows();
        setup.info.kernel = "multi_kernel";
        setup.op = std::move(gh);
        setup.M = std::move(M);
        setup.update = [gh_ptr, M_ptr](const GHMatrix& B) {
            gh_ptr->update(B);
            if (M_ptr != nullptr) M_ptr->update(B);
        };
        // From the device: point-block Jacobi, line Jacobi and CPR factor from gh's values
        // there; spatial-block Jacobi factors on the host.
        if (M_ptr == nullptr || M_ptr->factors_on_device()) {
            setup.device_update = [gh_ptr, M_ptr](const DeviceSystemValues& B, cudaStream_t st) {
                gh_ptr->update(B, st);
                if (M_ptr != nullptr) M_ptr->factor_on_device(*gh_ptr, st);
            };
        } else if (options.preconditioner == PreconditionerKind::cpr) {
            auto* const cpr = static_cast<DeviceCpr*>(M_ptr);
            setup.device_update = [gh_ptr, cpr](const DeviceSystemValues& B, cudaStream_t st) {
                gh_ptr->update(B, st);
                HEPTANE_CUDA_CHECK(cudaStreamSynchronize(st));
                cpr->update(B.accumulation);
            };
        }
        return make_algorithm(method, std::move(setup), options);
    }
    // KSPARSE on the BSR form: padding unknowns (diagonal 1, right-hand side 0) stay 0.
    auto op = std::make_unique<KsparseOperator>(to_bsr(A), options.ksparse, qmr);
    KsparseOperator* const op_ptr = op.get();
    setup.n = bsr_padded_rows(A);
    setup.info.kernel = "multi_kernel/ksparse";
    setup.op = std::move(op);
    setup.update = [op_ptr](const GHMatrix& B) { op_ptr->update(to_bsr(B)); };
    return make_algorithm(method, std::move(setup), options);
}

std::unique_ptr<GpuSolver> make_multi_kernel_solver(Method method, const Bsr& A,
                                                    const GpuSolveOptions& options) {
    if (A.block_rows != A.block_cols) {
        throw std::invalid_argument("multi-kernel solvers: the BSR matrix must be square");
    }
    const bool qmr = method == Method::qmr;
    MultiKernelSetup setup;
    setup.t0 = SetupClock::now();
    setup.name = qmr ? "qmr_multi_kernel" : "bicgstab_multi_kernel";
    setup.rows = static_cast<long long>(A.block_rows) * A.block_size;
    setup.n = setup.rows;
    setup.info.kernel = "multi_kernel/ksparse";
    setup.info.cost = cost(method, GpuKernel::multi_kernel);
    setup.info.bytes_per_iteration =
        setup.info.cost.products * BsrOperator(A).minimal_bytes() +
        setup.info.cost.vector_passes * 8.0 * static_cast<double>(setup.rows);
    setup.op = std::make_unique<KsparseOperator>(A, options.ksparse, qmr);
    return make_algorithm(method, std::move(setup), options);
}

}  // namespace heptane::gpu::detail
