// Vertical-line Jacobi on the device (block_smoothers.cuh, DeviceLine): the block Thomas line
// solve of every (i, j) column (block::line_solve, one thread a column) and its factors, on the
// host (factor_lines) or from A's values on the device (cpr::line_block_pivots): the same bits.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "core/base/errors.hpp"
#include "core/precond/block_arith.hpp"
#include "core/precond/cpr_arith.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/precond/block_smoothers.cuh"
#include "gpu/src/precond/cpr_device.cuh"

namespace heptane::gpu {
namespace detail {
namespace {

/// Diagonals 2 and 4 of Bdia, [e][r][c][m] with e = 0 for d = 2, 1 for d = 4 (the line solve
/// reads nothing else).
struct LineBdia {
    const double* v;
    long long plane;
    int K;
    __device__ double operator()(int d, int r, int c, long long m) const {
        const int e = d == 2 ? 0 : 1;
        return v[((static_cast<long long>(e) * K + r) * K + c) * plane + m];
    }
};

/// One thread per vertical line: M^{-1} (block::line_solve) or M^{-T} (line_solve_transpose).
template <bool kTranspose>
__global__ void __launch_bounds__(kPrecondThreads)
    k_line(LineBdia A, const double* pinv, int columns, int nz, const double* r, double* z,
           const int* skip) {
    if (skip != nullptr && *skip != 0) return;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= columns) return;
    const long long m0 = static_cast<long long>(col) * nz;
    const long long kk = static_cast<long long>(A.K) * A.K;
    const auto y = [&](long long i) { return r[i]; };
    const auto out = [&](long long i) -> double& { return z[i]; };
    if (kTranspose) {
        block::line_solve_transpose(A, pinv + m0 * kk, m0, nz, y, out);
    } else {
        block::line_solve(A, pinv + m0 * kk, m0, nz, y, out);
    }
}

/// Diagonals 2 and 4 of Bdia into LineBdia's layout (M cells).
std::vector<double> line_diagonals(const GHMatrix& A) {
    const long long M = A.num_cells(), K = A.block_size();
    std::vector<double> lu(static_cast<std::size_t>(2 * K * K * M));
    for (int e = 0; e < 2; ++e) {
        const int d = e == 0 ? 2 : 4;
        for (int r = 0; r < K; ++r) {
            for (int c = 0; c < K; ++c) {
                const double* src = A.bdia().data() + A.bdia_index(d, r, c, 0);
                std::copy(src, src + M, lu.begin() + ((e * K + r) * K + c) * M);
            }
        }
    }
    return lu;
}

/// The same from A's values on the device.
__global__ void k_line_diagonals(cpr_device::ARead A, long long M, double* lu) {
    const long long kk = static_cast<long long>(A.K) * A.K;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
         i < 2 * kk * M; i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long m = i % M, q = i / M;  // q = (e K + r) K + c
        const int e = static_cast<int>(q / kk), rc = static_cast<int>(q % kk);
        lu[i] = A(e == 0 ? 2 : 4, rc / A.K, rc % A.K, m);
    }
}

/// Vertical-line Jacobi's factors from A on the device: column i's pivots by
/// cpr::line_block_pivots (factor_lines' arithmetic), then 1 / D per well; the first bad cell
/// and well into err[0], err[1] (INT_MAX: none).
__global__ void k_line_factor(cpr_device::ARead A, int columns, int nz, const double* d, int nw,
                              double* pinv, double* inv_d, int* err) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < columns) {
        const long long m0 = i * nz;
        const int k = cpr::line_block_pivots(A, A.K, m0, nz, pinv + m0 * A.K * A.K);
        if (k >= 0) atomicMin(err, static_cast<int>(m0 + k));
    } else if (i < columns + nw) {
        invert_well(d, static_cast<int>(i - columns), inv_d, err + 1);
    }
}

}  // namespace

DeviceLine::DeviceLine(const GHMatrix& A, const LineFactors& f)
    : lu_(line_diagonals(A)),
      pinv_(f.pinv),
      inv_d_(f.inv_d),
      K_(A.block_size()),
      nx_(A.nx()),
      ny_(A.ny()),
      nz_(A.nz()),
      columns_(A.nx() * A.ny()),
      cells_(A.num_cells()) {
    HEPTANE_CUDA_CHECK(cudaStreamSynchronize(nullptr));  // the host copies die here
}

void DeviceLine::update(const GHMatrix& A) {
    const LineFactors f = factor_lines(A);
    pinv_.upload(f.pinv);
    inv_d_.upload(f.inv_d);
    lu_.upload(line_diagonals(A));
    HEPTANE_CUDA_CHECK(cudaStreamSynchronize(nullptr));  // the host copies die here
}

void DeviceLine::factor_on_device(const DeviceGH& gh, cudaStream_t stream) {
    const BdiaView a = gh.view(false);
    const cpr_device::ARead read = cpr_device::read_of(gh, K_);
    const int nw = static_cast<int>(inv_d_.size());
    int* err = errors_.reset(stream);
    k_line_diagonals<<<grid_for(2LL * K_ * K_ * cells_), kPrecondThreads, 0, stream>>>(read, cells_,
                                                                                       lu_.get());
    HEPTANE_CUDA_CHECK(cudaGetLastError());
    k_line_factor<<<static_cast<unsigned>((columns_ + nw + kPrecondThreads - 1) / kPrecondThreads),
                    kPrecondThreads, 0, stream>>>(read, columns_, nz_, a.d, nw, pinv_.get(),
                                                  inv_d_.get(), err);
    HEPTANE_CUDA_CHECK(cudaGetLastError());
    errors_.check(a.d, stream, line_pivot_singular, nx_, ny_, nz_);
}

LineFactors DeviceLine::factors() const {
    LineFactors f;
    f.K = K_;
    f.cells = cells_;
    f.pinv = pinv_.download();
    f.inv_d = inv_d_.download();
    return f;
}

void DeviceLine::apply(const double* r, double* z, cudaStream_t stream, const int* skip) const {
    launch<false>(r, z, stream, skip);
}

void DeviceLine::apply_transpose(const double* r, double* z, cudaStream_t stream,
                                 const int* skip) const {
    launch<true>(r, z, stream, skip);
}

template <bool kTranspose>
void DeviceLine::launch(const double* r, double* z, cudaStream_t stream, const int* skip) const {
    const LineBdia A{lu_.get(), cells_, K_};
    k_line<kTranspose>
        <<<(columns_ + kPrecondThreads - 1) / kPrecondThreads, kPrecondThreads, 0, stream>>>(
            A, pinv_.get(), columns_, nz_, r, z, skip);
    HEPTANE_SYNC_CHECK(stream);
    launch_scale_wells(inv_d_, cells_ * K_, r, z, stream, skip);
}

}  // namespace detail

LineFactors line_factors_on_device(const GHMatrix& A, BdiaVariant variant) {
    using namespace detail;
    const DeviceGH gh(A, variant);
    LineFactors zeros;  // sizes only: the device computes every value
    zeros.pinv.assign(static_cast<std::size_t>(A.num_cells()) * A.block_size() * A.block_size(),
                      0.0);
    zeros.inv_d.assign(static_cast<std::size_t>(A.num_wells()), 0.0);
    DeviceLine line(A, zeros);
    line.factor_on_device(gh, nullptr);
    return line.factors();
}

}  // namespace heptane::gpu
