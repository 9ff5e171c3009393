// The operators of the multi-kernel solvers (device_operator.cuh): KSPARSE on a BSR matrix,
// and the entry points that choose between it and the Bdia operator.
#include <memory>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "core/formats.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/block_smoothers.cuh"
#include "gpu/src/device_gh.cuh"
#include "gpu/src/device_operator.cuh"
#include "gpu/src/ksparse.cuh"
#include "gpu/src/solver_state.cuh"

namespace heptane::gpu {
namespace detail {

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

SolveResult multi_kernel_on(const GHMatrix& A, const std::vector<double>& b, std::vector<double>& x,
                            const GpuSolveOptions& options, GpuSolveTimes* times, bool transpose,
                            MultiKernelBody body) {
    const char* name = transpose ? "qmr_multi_kernel" : "bicgstab_multi_kernel";
    check_sizes(A.rows(), b, x, name);
    if (options.spmv == SpmvKind::bdia) {
        const PreconditionerUpload precond = [&] {
            return upload_preconditioner(A, options.preconditioner, options.block_shape);
        };
        return body([&] { return std::make_unique<DeviceGH>(A, options.variant); },
                    options.preconditioner == PreconditionerKind::none ? nullptr : &precond, b, x,
                    options, times);
    }
    // KSPARSE on the BSR form: padding unknowns (diagonal 1, right-hand side 0) stay 0.
    const Bsr bsr = to_bsr(A);
    const std::vector<double> padded_b = pad_vector(A, b);
    std::vector<double> padded_x = pad_vector(A, x);
    const SolveResult result =
        body([&] { return std::make_unique<KsparseOperator>(bsr, options.ksparse, transpose); },
             nullptr, padded_b, padded_x, options, times);
    x = unpad_vector(A, padded_x);
    return result;
}

namespace {

SolveResult on_bsr(const Bsr& A, const std::vector<double>& b, std::vector<double>& x,
                   const GpuSolveOptions& options, GpuSolveTimes* times, bool transpose,
                   MultiKernelBody body) {
    if (A.block_rows != A.block_cols) {
        throw std::invalid_argument("multi-kernel solvers: the BSR matrix must be square");
    }
    check_sizes(static_cast<long long>(A.block_rows) * A.block_size, b, x,
                transpose ? "qmr_multi_kernel" : "bicgstab_multi_kernel");
    return body([&] { return std::make_unique<KsparseOperator>(A, options.ksparse, transpose); },
                nullptr, b, x, options, times);
}

}  // namespace
}  // namespace detail

SolveResult bicgstab_multi_kernel(const Bsr& A, const std::vector<double>& b,
                                  std::vector<double>& x, const GpuSolveOptions& options,
                                  GpuSolveTimes* times) {
    return detail::on_bsr(A, b, x, options, times, false, detail::bicgstab_multi_kernel_body);
}

SolveResult qmr_multi_kernel(const Bsr& A, const std::vector<double>& b, std::vector<double>& x,
                             const GpuSolveOptions& options, GpuSolveTimes* times) {
    return detail::on_bsr(A, b, x, options, times, true, detail::qmr_multi_kernel_body);
}

}  // namespace heptane::gpu
