#pragma once
/// @file The GH matrix on the device: Bdia in one of the BdiaVariant layouts plus the
/// compact well arrays, uploaded once (RAII), and the POD view kernels take.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/base/fast_div.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "gpu/solver.hpp"
#include "gpu/spmv.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/spmv/device_operator.cuh"

namespace heptane::gpu::detail {

/// Cells of a tile in the tiled layout (one warp).
constexpr int kTile = 32;

/// What a Bdia kernel reads. Bdia value (d, r, c) of cell m is at
///   cell_fastest(_x2): ((d K + r) K + c) Mp + m
///   tiled:             ((m / 32) 7 K^2 + (d K + r) K + c) 32 + m % 32
/// with Mp = M rounded up to 32 (padding cells hold zeros). For the transpose product the
/// launcher swaps the well arrays (rows <-> cols).
struct BdiaView {
    const double* bdia;
    const int* well_of_column;  ///< nx ny entries, or null without wells
    const int* first;           ///< per well: offset of its values
    const int* cell0;
    const int* count;
    const double* well_rows;  ///< W (or W^T's values for the transpose)
    const double* well_cols;  ///< W^T (or W's values for the transpose)
    const double* d;
    int nx, ny, nz;
    unsigned M, Mp;
    int nw;
    FastDiv nz_div, ny_div;  ///< m / nz and column / ny without integer division
    /// The rows the Bdia product computes: cells [cell_begin, cell_end), and the well rows
    /// when with_wells (view(): every row; a GPU rank computes its interior cells while the
    /// halo planes travel, then its edge planes: gpu/src/krylov/bicgstab_slab.cu).
    unsigned cell_begin, cell_end;
    int with_wells;
    /// Non-neighbour connections (design decision 63; GHMatrix::nnc()), or nnc_ptr null: row
    /// m's entries [nnc_ptr[m], nnc_ptr[m + 1]), column nnc_col[e], block nnc_vals[e K K ..];
    /// the transpose reads the block of the mirror entry nnc_mirror[e] transposed. The Bdia
    /// products and the in-kernel solvers' row passes read them (decision 68).
    const int* nnc_ptr;
    const int* nnc_col;
    const int* nnc_mirror;
    const double* nnc_vals;
};

class DeviceGH final : public DeviceOperator {
  public:
    DeviceGH(const GHMatrix& A, BdiaVariant variant);

    BdiaView view(bool transpose) const;
    BdiaVariant variant() const { return variant_; }
    /// The device values, for kernels that compute them in place (CPR's setup,
    /// gpu/src/precond/cpr.cu): Bdia in the layout of variant(), W, W^T and D of the wells.
    double* bdia_values() { return bdia_.get(); }
    double* well_row_values() { return w_vals_.get(); }
    double* well_col_values() { return wt_vals_.get(); }
    double* nnc_values() { return nnc_vals_.get(); }
    double* well_diagonal() { return d_.get(); }

    /// New values of a matrix of the same structure into the same buffers (synchronizes:
    /// the host copies die here); std::invalid_argument for another structure.
    void update(const GHMatrix& A);
    /// New values from the device (GHMatrix's layouts, the same structure) on `stream`.
    void update(const DeviceSystemValues& A, cudaStream_t stream);

    /// y = A x (or A^T x) on `stream`. If `skip` is not null, the kernel does nothing while
    /// *skip != 0 (solvers gate whole phases on device state without a host round trip).
    void apply(const double* x, double* y, bool transpose, cudaStream_t stream,
               const int* skip = nullptr) const override;
    /// The rows of cells [begin, end) of y = A x (A^T x with `transpose`), and the well rows
    /// when `wells`; the other rows of y are left alone. The cell_fastest and tiled layouts.
    /// Gated by `skip` as apply().
    void apply_rows(const double* x, double* y, unsigned begin, unsigned end, bool wells,
                    bool transpose, cudaStream_t stream, const int* skip = nullptr) const;

  private:
    BdiaVariant variant_;
    int K_, nx_, ny_, nz_, nw_;
    unsigned M_, Mp_;
    Buffer<double> bdia_;
    Buffer<int> well_of_column_, first_, cell0_, count_;
    Buffer<double> w_vals_, wt_vals_, d_;
    Buffer<int> nnc_ptr_, nnc_col_, nnc_mirror_;
    Buffer<double> nnc_vals_;
};

/// Launches the Bdia product for block size K (explicit instantiations in bdia_spmv.cu).
void launch_bdia_spmv(const BdiaView& v, int K, BdiaVariant variant, bool transpose,
                      const double* x, double* y, cudaStream_t stream, const int* skip);

}  // namespace heptane::gpu::detail
