#pragma once
/// @file The products the multi-kernel solvers take: y = A x and y = A^T x on a stream,
/// gated by device state. Two implementations: the Bdia kernels on the GH matrix
/// (DeviceGH, the default) and KSPARSE on a BSR matrix (KsparseOperator, solver.spmv:
/// ksparse and matrix decks).
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <vector>

#include "core/formats.hpp"
#include "core/gh_matrix.hpp"
#include "core/krylov.hpp"
#include "gpu/ksparse.hpp"

namespace heptane::gpu {
struct GpuSolveOptions;
struct GpuSolveTimes;
}  // namespace heptane::gpu

namespace heptane::gpu::detail {

class DeviceOperator {
  public:
    virtual ~DeviceOperator() = default;
    /// y = A x (A^T x if `transpose`) on `stream`; if `skip` is not null, nothing while
    /// *skip != 0 (solvers gate whole phases on device state without a host round trip).
    virtual void apply(const double* x, double* y, bool transpose, cudaStream_t stream,
                       const int* skip = nullptr) const = 0;
};

class DeviceBsr;

/// KSPARSE products with a BSR matrix and (for QMR) with its explicit transpose.
class KsparseOperator final : public DeviceOperator {
  public:
    KsparseOperator(const Bsr& A, const KsparseParams& params, bool with_transpose);
    ~KsparseOperator() override;
    void apply(const double* x, double* y, bool transpose, cudaStream_t stream,
               const int* skip = nullptr) const override;
    const DeviceBsr& matrix() const { return *a_; }

  private:
    std::unique_ptr<DeviceBsr> a_, at_;
};

/// Uploads the operator of a solve (called after the setup timer has started).
using OperatorUpload = std::function<std::unique_ptr<DeviceOperator>()>;

class DevicePreconditioner;  // block_smoothers.cuh
/// Factors and uploads the right preconditioner of a solve (after the setup timer started).
using PreconditionerUpload = std::function<std::unique_ptr<DevicePreconditioner>()>;

/// A multi-kernel solver body: the solve of A x = b on the uploaded operator, b and x of
/// the operator's order, right-preconditioned when `precond` is not null.
using MultiKernelBody = SolveResult (*)(const OperatorUpload& upload,
                                        const PreconditionerUpload* precond,
                                        const std::vector<double>& b, std::vector<double>& x,
                                        const GpuSolveOptions& options, GpuSolveTimes* times);

/// A multi-kernel solve of a GH system: `body` on the Bdia operator (options.spmv bdia), or
/// on KSPARSE with the BSR form to_bsr(A) (options.spmv ksparse; b and x padded to its
/// order and x unpadded after). `transpose`: the body also takes products with A^T.
/// options.preconditioner (Bdia only; check_preconditioner has accepted it) is factored on
/// the host and uploaded inside the body's setup.
SolveResult multi_kernel_on(const GHMatrix& A, const std::vector<double>& b, std::vector<double>& x,
                            const GpuSolveOptions& options, GpuSolveTimes* times, bool transpose,
                            MultiKernelBody body);

SolveResult bicgstab_multi_kernel_body(const OperatorUpload& upload,
                                       const PreconditionerUpload* precond,
                                       const std::vector<double>& b, std::vector<double>& x,
                                       const GpuSolveOptions& options, GpuSolveTimes* times);
/// (QMR takes no preconditioner on the device: precond must be null.)
SolveResult qmr_multi_kernel_body(const OperatorUpload& upload, const PreconditionerUpload* precond,
                                  const std::vector<double>& b, std::vector<double>& x,
                                  const GpuSolveOptions& options, GpuSolveTimes* times);

}  // namespace heptane::gpu::detail
