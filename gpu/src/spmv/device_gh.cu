#include <algorithm>
#include <limits>
#include <stdexcept>

#include "core/base/errors.hpp"
#include "gpu/src/spmv/device_gh.cuh"

namespace heptane::gpu::detail {
namespace {

std::vector<int> to_int(const std::vector<index_t>& v, const char* what) {
    std::vector<int> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] > std::numeric_limits<int>::max()) {
            throw NotSupported(std::string("device well array ") + what + " exceeds 32 bits");
        }
        out[i] = static_cast<int>(v[i]);
    }
    return out;
}

/// Bdia in the device layout of `variant` (zero padding cells up to Mp).
std::vector<double> device_layout(const GHMatrix& A, BdiaVariant variant, unsigned Mp) {
    const int K = A.block_size();
    const index_t M = A.num_cells();
    const index_t entries = static_cast<index_t>(kStencilSize) * K * K;
    std::vector<double> out(static_cast<std::size_t>(entries) * Mp, 0.0);
    const std::vector<double>& src = A.bdia();
#pragma omp parallel for schedule(static)
    for (index_t e = 0; e < entries; ++e) {
        for (index_t m = 0; m < M; ++m) {
            const double v = src[e * M + m];
            if (variant == BdiaVariant::tiled) {
                out[((m / kTile) * entries + e) * kTile + m % kTile] = v;
            } else {
                out[e * Mp + m] = v;
            }
        }
    }
    return out;
}

}  // namespace

DeviceGH::DeviceGH(const GHMatrix& A, BdiaVariant variant)
    : variant_(variant),
      K_(A.block_size()),
      nx_(A.nx()),
      ny_(A.ny()),
      nz_(A.nz()),
      nw_(static_cast<int>(A.num_wells())) {
    if (A.num_cells() >= std::numeric_limits<int>::max() / 2) {
        throw NotSupported("device GH: more than 2^30 cells");
    }
    M_ = static_cast<unsigned>(A.num_cells());
    Mp_ = (M_ + kTile - 1) / kTile * kTile;
    bdia_ = Buffer<double>(device_layout(A, variant, Mp_));
    const WellArrays& w = A.wells();
    if (nw_ > 0) {
        well_of_column_ =
            Buffer<int>(std::vector<int>(w.well_of_column.begin(), w.well_of_column.end()));
        first_ = Buffer<int>(to_int(w.first, "first"));
        cell0_ = Buffer<int>(to_int(w.cell0, "cell0"));
        count_ = Buffer<int>(to_int(w.count, "count"));
        w_vals_ = Buffer<double>(w.w_vals);
        wt_vals_ = Buffer<double>(w.wt_vals);
        d_ = Buffer<double>(w.d);
    }
    if (A.has_nnc()) {
        const NncArrays& n = A.nnc();
        if (n.num_entries() >= std::numeric_limits<int>::max()) {
            throw NotSupported("device GH: 2^31 non-neighbour entries or more");
        }
        nnc_ptr_ = Buffer<int>(to_int(n.ptr, "nnc ptr"));
        nnc_col_ = Buffer<int>(to_int(n.col, "nnc col"));
        nnc_mirror_ = Buffer<int>(to_int(n.mirror, "nnc mirror"));
        nnc_vals_ = Buffer<double>(n.vals);
    }
    HEPTANE_CUDA_CHECK(cudaStreamSynchronize(nullptr));  // the host vectors die here
}

void DeviceGH::update(const GHMatrix& A) {
    if (A.block_size() != K_ || A.nx() != nx_ || A.ny() != ny_ || A.nz() != nz_ ||
        static_cast<int>(A.num_wells()) != nw_ || A.wells().w_vals.size() != w_vals_.size() ||
        A.nnc().vals.size() != nnc_vals_.size()) {
        throw std::invalid_argument("DeviceGH::update: the matrix has another structure");
    }
    if (A.has_nnc()) nnc_vals_.upload(A.nnc().vals);
    bdia_.upload(device_layout(A, variant_, Mp_));
    if (nw_ > 0) {
        w_vals_.upload(A.wells().w_vals);
        wt_vals_.upload(A.wells().wt_vals);
        d_.upload(A.wells().d);
    }
    HEPTANE_CUDA_CHECK(cudaStreamSynchronize(nullptr));  // the host vectors die here
}

namespace {

/// Bdia from GHMatrix's layout ([e][m], M cells a plane) into the tiled one.
__global__ void k_tile(const double* src, long long entries, unsigned M, double* dst) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i >= entries * M) return;
    const long long e = i / M, m = i - e * M;
    dst[((m / kTile) * entries + e) * kTile + m % kTile] = src[i];
}

}  // namespace

void DeviceGH::update(const DeviceSystemValues& A, cudaStream_t stream) {
    if (nnc_vals_.size() > 0 && A.nnc_vals == nullptr) {
        throw NotSupported("DeviceGH::update: device values without the system's connections");
    }
    const std::size_t entries = static_cast<std::size_t>(kStencilSize) * K_ * K_;
    if (variant_ == BdiaVariant::tiled) {
        const long long n = static_cast<long long>(entries) * M_;
        k_tile<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(
            A.bdia, static_cast<long long>(entries), M_, bdia_.get());
        HEPTANE_CUDA_CHECK(cudaGetLastError());
    } else {  // [e][m] with Mp cells a plane: the padding cells keep their zeros
        HEPTANE_CUDA_CHECK(cudaMemcpy2DAsync(bdia_.get(), Mp_ * sizeof(double), A.bdia,
                                             M_ * sizeof(double), M_ * sizeof(double), entries,
                                             cudaMemcpyDeviceToDevice, stream));
    }
    if (nw_ > 0) {
        HEPTANE_CUDA_CHECK(cudaMemcpyAsync(w_vals_.get(), A.w_vals, w_vals_.bytes(),
                                           cudaMemcpyDeviceToDevice, stream));
        HEPTANE_CUDA_CHECK(cudaMemcpyAsync(wt_vals_.get(), A.wt_vals, wt_vals_.bytes(),
                                           cudaMemcpyDeviceToDevice, stream));
        HEPTANE_CUDA_CHECK(
            cudaMemcpyAsync(d_.get(), A.d, d_.bytes(), cudaMemcpyDeviceToDevice, stream));
    }
    if (nnc_vals_.size() > 0) {
        HEPTANE_CUDA_CHECK(cudaMemcpyAsync(nnc_vals_.get(), A.nnc_vals, nnc_vals_.bytes(),
                                           cudaMemcpyDeviceToDevice, stream));
    }
}

BdiaView DeviceGH::view(bool transpose) const {
    BdiaView v{};
    v.bdia = bdia_.get();
    v.well_of_column = nw_ > 0 ? well_of_column_.get() : nullptr;
    v.first = first_.get();
    v.cell0 = cell0_.get();
    v.count = count_.get();
    v.well_rows = transpose ? wt_vals_.get() : w_vals_.get();
    v.well_cols = transpose ? w_vals_.get() : wt_vals_.get();
    v.d = d_.get();
    v.nx = nx_;
    v.ny = ny_;
    v.nz = nz_;
    v.M = M_;
    v.Mp = Mp_;
    v.nw = nw_;
    v.nz_div = FastDiv(static_cast<std::uint32_t>(nz_));
    v.ny_div = FastDiv(static_cast<std::uint32_t>(ny_));
    v.cell_begin = 0;
    v.cell_end = M_;
    v.with_wells = 1;
    if (nnc_vals_.size() > 0) {
        v.nnc_ptr = nnc_ptr_.get();
        v.nnc_col = nnc_col_.get();
        v.nnc_mirror = nnc_mirror_.get();
        v.nnc_vals = nnc_vals_.get();
    }
    return v;
}

void DeviceGH::apply(const double* x, double* y, bool transpose, cudaStream_t stream,
                     const int* skip) const {
    launch_bdia_spmv(view(transpose), K_, variant_, transpose, x, y, stream, skip);
}

void DeviceGH::apply_rows(const double* x, double* y, unsigned begin, unsigned end, bool wells,
                          bool transpose, cudaStream_t stream, const int* skip) const {
    if (variant_ == BdiaVariant::cell_fastest_x2 || begin > end || end > M_) {
        throw std::invalid_argument(
            "DeviceGH::apply_rows: a cell range of the cell_fastest or "
            "tiled layout");
    }
    BdiaView v = view(transpose);
    v.cell_begin = begin;
    v.cell_end = end;
    v.with_wells = wells ? 1 : 0;
    if (end > begin || wells) launch_bdia_spmv(v, K_, variant_, transpose, x, y, stream, skip);
}

}  // namespace heptane::gpu::detail

namespace heptane::gpu {

std::vector<double> spmv_rows_device(const GHMatrix& A, const std::vector<double>& x,
                                     BdiaVariant variant, index_t begin, index_t end, bool wells,
                                     std::vector<double> y, bool transpose) {
    if (static_cast<index_t>(x.size()) != A.rows() || y.size() != x.size()) {
        throw std::invalid_argument("spmv_rows_device: x or y has the wrong size");
    }
    const detail::DeviceGH gh(A, variant);
    detail::Buffer<double> dx(x), dy(y);
    gh.apply_rows(dx.get(), dy.get(), static_cast<unsigned>(begin), static_cast<unsigned>(end),
                  wells, transpose, nullptr);
    return dy.download();
}

std::vector<double> spmv_device(const GHMatrix& A, const std::vector<double>& x,
                                BdiaVariant variant, bool transpose) {
    if (static_cast<index_t>(x.size()) != A.rows()) {
        throw std::invalid_argument("spmv_device: x has the wrong size");
    }
    const detail::DeviceGH gh(A, variant);
    detail::Buffer<double> dx(x), dy(x.size());
    gh.apply(dx.get(), dy.get(), transpose, nullptr);
    return dy.download();
}

}  // namespace heptane::gpu
