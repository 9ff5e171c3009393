#pragma once
/// @file The products the multi-kernel solvers take: y = A x and y = A^T x on a stream,
/// gated by device state. Two implementations: the Bdia kernels on the GH matrix
/// (DeviceGH, the default) and KSPARSE on a BSR matrix (KsparseOperator, solver.spmv:
/// ksparse and matrix decks).
#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "core/krylov/krylov.hpp"
#include "core/matrix/formats.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "gpu/ksparse.hpp"

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
    /// New values of the same structure (and of its transpose), into the same buffers.
    void update(const Bsr& A);
    const DeviceBsr& matrix() const { return *a_; }

  private:
    std::unique_ptr<DeviceBsr> a_, at_;
};

}  // namespace heptane::gpu::detail
