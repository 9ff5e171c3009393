#pragma once
/// @file GPU products with the GH matrix (CUDA-free header). Device results equal the
/// reference core/spmv/spmv.hpp bit for bit (canonical arithmetic, core/base/canonical.hpp).
#include <string>
#include <vector>

#include "core/matrix/gh_matrix.hpp"

namespace heptane::gpu {

/// How Bdia is laid out and read on the device (docs/BENCHMARKS.md compares them).
enum class BdiaVariant {
    cell_fastest,     ///< DESIGN layout [d][r][c][m], one cell per thread, 8-byte loads
    cell_fastest_x2,  ///< the same layout, two cells per thread, 16-byte loads
    tiled,            ///< [m/32][d][r][c][m%32]: a warp's 32 cells contiguous per entry
};
const char* to_string(BdiaVariant v);
/// The variant the solvers use (the fastest measured; docs/BENCHMARKS.md).
BdiaVariant default_variant();

/// y = GH x (or GH^T x) on the device: uploads A and x, runs the kernel, downloads y.
/// For tests and one-off products; the solvers keep A on the device.
std::vector<double> spmv_device(const GHMatrix& A, const std::vector<double>& x,
                                BdiaVariant variant, bool transpose = false);

/// y with the rows of cells [begin, end) of GH x (GH^T x with `transpose`), and the well rows
/// when `wells`, computed on the device (what a GPU rank runs while its halo planes travel);
/// y's other rows are kept. The cell_fastest and tiled variants.
std::vector<double> spmv_rows_device(const GHMatrix& A, const std::vector<double>& x,
                                     BdiaVariant variant, index_t begin, index_t end,
                                     bool wells, std::vector<double> y, bool transpose = false);

}  // namespace heptane::gpu
