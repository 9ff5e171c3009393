#pragma once
/// @file The block preconditioners and smoothers of seed 003 on the device. The factors
/// (inverses, line pivots) are computed once on the host (core/precond/block_smoothers.hpp) and
/// uploaded; every kernel computes its rows with core/precond/block_arith.hpp, so z = M^{-1} r is
/// the CPU's bits.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <memory>

#include "core/base/canonical.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "core/precond/block_arith.hpp"
#include "core/precond/block_smoothers.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/spmv/device_gh.cuh"

namespace heptane::gpu::detail {

/// z = M^{-1} r on a stream; nothing while *skip != 0 (solver gates). update(A) factors
/// new values of the same structure on the host and uploads them into the same buffers;
/// factor_on_device factors values already on the device (point-block and vertical-line
/// Jacobi; CPR has its own, DeviceCpr::update).
class DevicePreconditioner {
  public:
    virtual ~DevicePreconditioner() = default;
    virtual void apply(const double* r, double* z, cudaStream_t stream,
                       const int* skip = nullptr) const = 0;
    /// z = M^{-T} r (QMR), the CPU's apply_transpose bit for bit; NotSupported where the
    /// preconditioner has none (capabilities refuse those before a solver is made).
    virtual void apply_transpose(const double* r, double* z, cudaStream_t stream,
                                 const int* skip = nullptr) const;
    virtual void update(const GHMatrix& A) = 0;
    /// Whether factor_on_device is there.
    virtual bool factors_on_device() const { return false; }
    /// New factors from the values of the same structure already on the device in `gh`, the
    /// bits of update(A); std::logic_error where factors_on_device() is false.
    virtual void factor_on_device(const DeviceGH& gh, cudaStream_t stream);
    /// Seconds of the last setup (construction or update) where measured apart, else 0.
    virtual double setup_seconds() const { return 0.0; }
};

/// Threads a block of the block preconditioners' kernels.
constexpr int kPrecondThreads = 256;

/// Blocks for `work` threads of kPrecondThreads (at most 65,535: the kernels stride).
inline unsigned grid_for(long long work) {
    return static_cast<unsigned>(std::max<long long>(
        1, std::min<long long>((work + kPrecondThreads - 1) / kPrecondThreads, 65535)));
}

/// Well rows of any preconditioner: z_w = inv_d[w] r_w (block_smoothers.cu).
void launch_scale_wells(const Buffer<double>& inv_d, long long cell_rows, const double* r,
                        double* z, cudaStream_t stream, const int* skip);

/// Well w's 1 / D (the preconditioners' well rows); a zero or non-finite D into err.
__device__ inline void invert_well(const double* d, int w, double* inv_d, int* err) {
    if (d[w] == 0.0 || !isfinite(d[w])) {
        atomicMin(err, w);
    } else {
        inv_d[w] = 1.0 / d[w];
    }
}

/// The first bad cell and well a device factorization records (INT_MAX: none), thrown in the
/// host's order: the wells' 1 / D are inverted before the cells (invert_well_diagonal), so a
/// zero well diagonal is reported first, then the cell's error.
class FactorErrors {
  public:
    /// Clears the record on `stream`: [0] the cell, [1] the well, for the kernel to atomicMin.
    int* reset(cudaStream_t stream);
    /// Reads the record back (synchronizing) and throws well_diagonal_zero (D read from d),
    /// else cell_error(nx, ny, nz, m).
    void check(const double* d, cudaStream_t stream,
               InputError (*cell_error)(int nx, int ny, int nz, index_t m), int nx, int ny,
               int nz) const;

  private:
    Buffer<int> errors_;
};

/// Point-block Jacobi factors as the fused in-kernel solver reads them: row i < cell_rows of
/// cell m = i / K: z_i = block::inverse_row(inv + m K^2, K, i % K, r of cell m); well row i:
/// z_i = inv_d[i - cell_rows] r_i.
struct PointBlockView {
    const double* inv;
    const double* inv_d;
    long long cell_rows;  ///< M K
    int K;
};

/// Row i of z = M^{-1} r for point-block Jacobi (r read with plain loads: the in-kernel
/// solver reads a vector its own block has just written).
__device__ __forceinline__ double point_block_row(const PointBlockView& v, long long i,
                                                  const double* r) {
    if (i >= v.cell_rows) return canonical::mul(v.inv_d[i - v.cell_rows], r[i]);
    const long long m = i / v.K;
    const double* rc = r + m * v.K;
    return block::inverse_row(v.inv + m * v.K * v.K, v.K, static_cast<int>(i - m * v.K),
                              [&](int c) { return rc[c]; });
}

/// Point-block Jacobi on the device.
class DevicePointBlock final : public DevicePreconditioner {
  public:
    explicit DevicePointBlock(const PointBlockFactors& f);
    void apply(const double* r, double* z, cudaStream_t stream,
               const int* skip = nullptr) const override;
    void apply_transpose(const double* r, double* z, cudaStream_t stream,
                         const int* skip = nullptr) const override;
    void update(const GHMatrix& A) override;
    bool factors_on_device() const override { return true; }
    /// The InputError of factor_point_blocks for a singular block or a zero well diagonal
    /// (FactorErrors).
    void factor_on_device(const DeviceGH& gh, cudaStream_t stream) override;
    PointBlockView view() const { return {inv_.get(), inv_d_.get(), cell_rows_, K_}; }
    /// The factors, copied to the host (the device-vs-reference tests).
    PointBlockFactors factors() const;

  private:
    Buffer<double> inv_, inv_d_;
    FactorErrors errors_;
    long long cell_rows_;
    int K_;
    int nw_;
};

/// Vertical-line Jacobi on the device: the pivot inverses of every (i, j) column and the
/// diagonals 2 and 4 the line solve reads; one thread a column.
class DeviceLine final : public DevicePreconditioner {
  public:
    DeviceLine(const GHMatrix& A, const LineFactors& f);
    void apply(const double* r, double* z, cudaStream_t stream,
               const int* skip = nullptr) const override;
    void apply_transpose(const double* r, double* z, cudaStream_t stream,
                         const int* skip = nullptr) const override;
    void update(const GHMatrix& A) override;
    bool factors_on_device() const override { return true; }
    /// cpr::line_block_pivots on the device; the InputError of factor_lines for a singular
    /// pivot or a zero well diagonal (FactorErrors).
    void factor_on_device(const DeviceGH& gh, cudaStream_t stream) override;
    LineFactors factors() const;  ///< pinv and inv_d from the device (tests)

  private:
    template <bool kTranspose>
    void launch(const double* r, double* z, cudaStream_t stream, const int* skip) const;

    Buffer<double> lu_, pinv_, inv_d_;
    FactorErrors errors_;
    int K_, nx_, ny_, nz_, columns_;
    long long cells_;
};

/// The uploaded preconditioner of `kind` (none: null), factored on the host. A GPU rank's slab
/// passes its halo planes (its first `lo_halo` and last `hi_halo` i-planes, other ranks'):
/// block_jacobi's blocks leave them out (the others work cell by cell or column by column).
std::unique_ptr<DevicePreconditioner> upload_preconditioner(const GHMatrix& A,
                                                            PreconditionerKind kind,
                                                            std::array<int, 3> shape,
                                                            int lo_halo = 0, int hi_halo = 0);

/// Spatial-block inverses on the device (the preconditioner and the smoother upload them
/// the same way): block b's column-major inverse at inv + offset[b], 1 / D per well.
struct SpatialUpload {
    explicit SpatialUpload(const SpatialBlockFactors& f);
    /// New factors of the same blocking into the same buffers (synchronizes).
    void update(const SpatialBlockFactors& f);
    SpatialBlocking blocking;
    int K, max_rows, threads;  ///< threads per spatial block
    Buffer<double> inv, inv_d;
    Buffer<long long> offset;
    /// Dynamic shared memory of a block kernel: the largest block's rows.
    std::size_t shared_bytes() const;
};

/// A spatial-block smoother on the device: the matrix (Bdia, cell-fastest) and the blocks'
/// inverses. sweep() is one block Jacobi sweep (seed 003 Algorithm 2: x_out = x_in + omega
/// A_b^{-1} (b - A x_in)_b, x_out != x_in) or, with x_out == x_in, one chaotic block
/// Gauss-Seidel sweep (Algorithm 1: each thread block updates its spatial block in place
/// with whatever its neighbours have written by then); the well rows follow in a second
/// kernel (from x_out's cells for Gauss-Seidel, as the CPU's sweep does).
class DeviceSmoother {
  public:
    DeviceSmoother(const GHMatrix& A, std::array<int, 3> shape);
    void sweep(const double* b, const double* x_in, double* x_out, double omega,
               cudaStream_t stream, const int* skip = nullptr) const;
    /// New values of the same structure: Bdia uploaded, the blocks re-factored.
    void update(const GHMatrix& A);
    const DeviceGH& matrix() const { return gh_; }
    /// Minimal bytes of one sweep: Bdia and the inverses once, b, x read, x written.
    double bytes() const { return bytes_; }

  private:
    DeviceGH gh_;
    std::array<int, 3> shape_;
    SpatialUpload blocks_;
    double bytes_ = 0.0;
};

}  // namespace heptane::gpu::detail
