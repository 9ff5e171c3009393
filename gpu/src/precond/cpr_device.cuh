#pragma once
// What the two halves of the device CPR share (cpr_setup.cu: the setup kernels and the
// hierarchy; cpr.cu: the kernels of z = M^{-1} r): launch sizes, the setup checks, the
// readers of A's and a level's Bdia, and the hierarchy's levels.
#include <algorithm>
#include <cstddef>
#include <memory>

#include "core/precond/cpr.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/precond/cpr.cuh"
#include "gpu/src/spmv/device_gh.cuh"

namespace heptane::gpu::detail {
namespace cpr_device {

constexpr int kThreads = 256;
/// Chunks of a dense row (k_dense_apply): coarsest_rows is at most 32 kDenseChunk of them.
constexpr int kMaxDenseChunks = kMaxCoarsestRows / cpr::kDenseChunk;
constexpr int kDenseThreads = 256;  ///< a block per row of the coarsest inverse's step
constexpr int kLineWarps = 4;       ///< columns (warps) per block of k_line_update
/// The setup checks, each the first (lowest) bad index: the weights' and stage 2's cells,
/// a well's zero diagonal, the coarsest inverse; then one per level (line pivots' column).
enum Check { kWeights, kStage2, kWell, kDense, kLevel0 };

inline unsigned blocks_for(long long work) {
    return static_cast<unsigned>(std::max<long long>(1, (work + kThreads - 1) / kThreads));
}

/// Shared memory of k_line_update (and k_well_update) per warp: 5 arrays of nz.
inline std::size_t line_shared_bytes(int nz) {
    return 5 * sizeof(double) * static_cast<std::size_t>(nz);
}

/// Lets k_line_update use `bytes` of dynamic shared memory (above the default 48 KiB).
void allow_line_shared_memory(std::size_t bytes);

/// A's Bdia in the solver's layout (cell_fastest(_x2) or tiled, device_gh.cuh).
struct ARead {
    const double* v;
    long long Mp;
    int K;
    bool tiled;
    __device__ double operator()(int d, int r, int c, long long m) const {
        const long long e = (static_cast<long long>(d) * K + r) * K + c;
        if (tiled) return v[((m / 32) * 7 * K * K + e) * 32 + m % 32];
        return v[e * Mp + m];
    }
};

inline ARead read_of(const DeviceGH& gh, int K) {
    const BdiaView a = gh.view(false);
    return {a.bdia, static_cast<long long>(a.Mp), K, gh.variant() == BdiaVariant::tiled};
}

/// A matrix's connections as cpr_arith.hpp reads them (ptr null where it has none).
__host__ __device__ inline cpr::NncRef<int> nnc_of(const BdiaView& v) {
    return {v.nnc_ptr, v.nnc_col, v.nnc_vals};
}

/// A K = 1 level's Bdia (cell_fastest, planes of Mp).
struct LevelRead {
    const double* v;
    long long Mp;
    __device__ double operator()(int d, long long m) const { return v[d * Mp + m]; }
};

}  // namespace cpr_device

/// A K = 1 level as the fused kernels read it: its Bdia (planes of Mp), sizes, wells and
/// connections (level 0's; nnc.ptr null on the others).
struct LevelView {
    const double* bdia;
    long long Mp;
    int nx, ny, nz;
    cpr::WellsRef<int> wells;
    cpr::NncRef<int> nnc;
    __device__ double operator()(int d, long long m) const { return bdia[d * Mp + m]; }
    __device__ double row(long long m, const double* x) const {
        return cpr::cell_row(*this, nx, ny, nz, m, x, wells, nnc);
    }
};

/// The wells a kernel updates: list[j] for j < n, or j < n itself (list null: all of them).
struct WellSet {
    const int* list;
    int n;
    __device__ int operator()(int j) const { return list != nullptr ? list[j] : j; }
};

struct DeviceCpr::Level {
    cpr::LevelGrid g{};
    std::unique_ptr<DeviceGH> gh;  ///< the operator (cell_fastest; level 0 with the wells)
    long long M = 0, rows = 0, Mp = 0;
    int nw = 0;
    long long perforations = 0;   ///< level 0's well values (one per perforated cell)
    long long connections = 0;    ///< level 0's connection entries
    bool colour_coupled = false;  ///< nnc_joins_one_colour (level 0)
    Buffer<double> pinv, inv_d, b, x, ax, rc, dc;
    /// The coarsest level: its inverse (row-major); the matrix, and the second buffers of
    /// the elimination's steps (k_dense_step writes a step's result apart from its input).
    Buffer<double> dense, dense_work, dense_work2, dense_scratch;
};

}  // namespace heptane::gpu::detail
