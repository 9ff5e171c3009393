#pragma once
/// @file Bdia + wells SpMV kernels (seed 002 sections 6.1-6.2) in three variants, templated
/// on K. Every variant sums each row in the canonical order of core/base/canonical.hpp (over d,
/// then c, then the non-neighbour connections, then the well term, no fused multiply-add), so all
/// of them - and the CPU reference - produce the same bits. The instantiations are spread over
/// bdia_spmv_k*.cu so they compile in parallel; bdia_spmv.cu dispatches on K.
#include <cuda_runtime.h>

#include "core/base/canonical.hpp"
#include "core/base/errors.hpp"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/spmv/device_gh.cuh"

namespace heptane::gpu::detail {

constexpr int kThreads = 256;  // used by the kernels and their launchers

/// Up to this K the row's loads are all issued before its arithmetic (enough bytes in
/// flight for small blocks; larger blocks have K^2 loads per neighbour already). Measured on
/// an H200 at 128^3: +1.7% at K = 3, none at K = 2, -6% at K = 4 (register pressure).
constexpr int kHoistMaxK = 3;

/// The block sizes with a kernel (one list drives the instantiations and the switch).
#define HEPTANE_FOR_EACH_K(X) \
    X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)

template <int K>
void launch_k(const BdiaView& v, BdiaVariant variant, bool transpose, const double* x, double* y,
              cudaStream_t stream, const int* skip);

template <BdiaVariant V>
__device__ __forceinline__ size_t bdia_index(int K, int d, int r, int c, unsigned m, unsigned Mp) {
    const size_t entry = (static_cast<size_t>(d) * K + r) * K + c;
    if constexpr (V == BdiaVariant::tiled) {
        return ((static_cast<size_t>(m >> 5) * (7 * K * K) + entry) << 5) + (m & 31u);
    } else {
        return entry * Mp + m;
    }
}

/// Stencil neighbours of cell m that exist (bit d), and their offsets.
struct Stencil {
    unsigned mask;
    int off[7];
};

__device__ __forceinline__ Stencil stencil(const BdiaView& v, unsigned m) {
    const unsigned col = v.nz_div.div(m);
    const unsigned k = m - col * v.nz;
    const unsigned i = v.ny_div.div(col);
    const unsigned j = col - i * v.ny;
    const int col_stride = v.nz * v.ny;
    Stencil s;
    s.mask = (i > 0 ? 1u : 0u) | (j > 0 ? 2u : 0u) | (k > 0 ? 4u : 0u) | 8u |
             (k + 1 < static_cast<unsigned>(v.nz) ? 16u : 0u) |
             (j + 1 < static_cast<unsigned>(v.ny) ? 32u : 0u) |
             (i + 1 < static_cast<unsigned>(v.nx) ? 64u : 0u);
    s.off[0] = -col_stride;
    s.off[1] = -v.nz;
    s.off[2] = -1;
    s.off[3] = 0;
    s.off[4] = 1;
    s.off[5] = v.nz;
    s.off[6] = col_stride;
    return s;
}

/// The well coupling of cell m: the value index base in well_cols and the well, or -1.
__device__ __forceinline__ int well_of(const BdiaView& v, unsigned m, int K, int& base) {
    if (v.well_of_column == nullptr) return -1;
    const int w = v.well_of_column[v.nz_div.div(m)];
    if (w < 0) return -1;
    const int l = static_cast<int>(m) - v.cell0[w];
    if (l < 0 || l >= v.count[w]) return -1;
    base = v.first[w] + l * K;
    return w;
}

/// sum_{j < n} term(j) added in j order (canonical add), by a whole warp: the lanes form
/// kBatch x 32 terms at a time and every lane adds them in order, so one load latency covers
/// kBatch x 32 terms, where one thread alone waited a latency every few terms. All 32 lanes
/// must call it; each gets the sum.
template <int kBatch, class Term>
__device__ __forceinline__ double warp_ordered_sum(int n, Term term) {
    using namespace heptane::canonical;
    const int lane = threadIdx.x & 31;
    double sum = 0.0;
    for (int j0 = 0; j0 < n; j0 += 32 * kBatch) {
        double p[kBatch];
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
            const int j = j0 + 32 * b + lane;
            p[b] = j < n ? term(j) : 0.0;
        }
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
            for (int l = 0; l < 32; ++l) {
                const double t = __shfl_sync(0xffffffffu, p[b], l);
                if (j0 + 32 * b + l < n) sum = add(sum, t);
            }
        }
    }
    return sum;
}

/// Well row w: the perforated cells' terms in order, then D (the reference's order), by a
/// whole warp (warp_ordered_sum); lane 0 stores the row. One thread a row made the well rows
/// the kernel's tail: at 128^3 with 16 wells of 128 perforations, a load latency every few
/// of the row's 128 K terms.
/// (Measured on an H200, earlier: moving the well rows to the front of the grid-stride loop
/// made every K 5-7% slower - it shifts the cells off warp alignment - so they stay after
/// the cells.)
template <int K>
__device__ void well_row_warp(const BdiaView& v, int w, const double* __restrict__ x,
                              double* __restrict__ y) {
    using namespace heptane::canonical;
    const double* xc = x + static_cast<size_t>(v.cell0[w]) * K;
    const double* vals = v.well_rows + v.first[w];
    const double sum = warp_ordered_sum<4>(
        v.count[w] * K, [&](int j) { return mul(__ldg(vals + j), __ldg(xc + j)); });
    if ((threadIdx.x & 31) == 0) {
        const size_t mk = static_cast<size_t>(v.M) * K;
        y[mk + w] = mul_add(v.d[w], __ldg(x + mk + w), sum);
    }
}

/// The well rows after a kernel's cells, a warp each (every lane of the grid calls this).
template <int K>
__device__ __forceinline__ void well_rows_warps(const BdiaView& v, const double* __restrict__ x,
                                                double* __restrict__ y) {
    const unsigned warps = gridDim.x * (blockDim.x / 32);
    for (unsigned w = (blockIdx.x * blockDim.x + threadIdx.x) / 32; w < static_cast<unsigned>(v.nw);
         w += warps) {
        well_row_warp<K>(v, static_cast<int>(w), x, y);
    }
}

/// Adds cell m's non-neighbour terms and its well coupling to acc and stores the row (the
/// reference's order: the connections in entry order, each over c, then the well term).
template <int K, bool kTranspose = false>
__device__ __forceinline__ void finish_cell(const BdiaView& v, unsigned m, double (&acc)[K],
                                            const double* __restrict__ x, double* __restrict__ y) {
    using namespace heptane::canonical;
    if (v.nnc_ptr != nullptr) {
        for (int e = v.nnc_ptr[m]; e < v.nnc_ptr[m + 1]; ++e) {
            const double* xn = x + static_cast<size_t>(v.nnc_col[e]) * K;
            const int entry = kTranspose ? v.nnc_mirror[e] : e;  // the block (row, col)
            const double* block = v.nnc_vals + static_cast<size_t>(entry) * K * K;
#pragma unroll
            for (int r = 0; r < K; ++r) {
#pragma unroll
                for (int c = 0; c < K; ++c) {
                    acc[r] = mul_add(__ldg(block + (kTranspose ? c * K + r : r * K + c)),
                                     __ldg(xn + c), acc[r]);
                }
            }
        }
    }
    int base = 0;
    const int w = well_of(v, m, K, base);
    if (w >= 0) {
        const double xw = __ldg(x + static_cast<size_t>(v.M) * K + w);
#pragma unroll
        for (int r = 0; r < K; ++r) acc[r] = mul_add(v.well_cols[base + r], xw, acc[r]);
    }
#pragma unroll
    for (int r = 0; r < K; ++r) y[static_cast<size_t>(m) * K + r] = acc[r];
}

/// One cell per thread: y(m) = sum_d sum_c B_d(m)[:, c] x(m + off_d, c) + well term.
template <int K, BdiaVariant V, bool kTranspose>
__global__ void __launch_bounds__(kThreads)
    bdia_spmv_cell(BdiaView v, const double* __restrict__ x, double* __restrict__ y,
                   const int* __restrict__ skip) {
    using namespace heptane::canonical;
    if (skip != nullptr && *skip != 0) return;
    for (unsigned m = v.cell_begin + blockIdx.x * blockDim.x + threadIdx.x; m < v.cell_end;
         m += gridDim.x * blockDim.x) {
        const Stencil s = stencil(v, m);
        double acc[K];
#pragma unroll
        for (int r = 0; r < K; ++r) acc[r] = 0.0;
        if constexpr (K <= kHoistMaxK) {
            // Small blocks: issue every load of the row first (7 K^2 + 7 K in flight per
            // thread), then add the terms of the existing neighbours in the canonical order.
            // A missing neighbour reads cell m itself (a valid address; the value is unused).
            double a[7][K][K], xv[7][K];
#pragma unroll
            for (int d = 0; d < 7; ++d) {
                const unsigned n = (s.mask & (1u << d)) ? m + s.off[d] : m;
#pragma unroll
                for (int c = 0; c < K; ++c) {
                    xv[d][c] = __ldg(x + static_cast<size_t>(n) * K + c);
#pragma unroll
                    for (int r = 0; r < K; ++r) {
                        a[d][r][c] =
                            __ldg(v.bdia + (kTranspose ? bdia_index<V>(K, 6 - d, c, r, n, v.Mp)
                                                       : bdia_index<V>(K, d, r, c, m, v.Mp)));
                    }
                }
            }
#pragma unroll
            for (int d = 0; d < 7; ++d) {
                if (!(s.mask & (1u << d))) continue;
#pragma unroll
                for (int c = 0; c < K; ++c) {
#pragma unroll
                    for (int r = 0; r < K; ++r) acc[r] = mul_add(a[d][r][c], xv[d][c], acc[r]);
                }
            }
        } else {
#pragma unroll
            for (int d = 0; d < 7; ++d) {
                if (!(s.mask & (1u << d))) continue;
                const unsigned n = m + s.off[d];
                const double* xn = x + static_cast<size_t>(n) * K;
#pragma unroll
                for (int c = 0; c < K; ++c) {
                    const double xv = __ldg(xn + c);
#pragma unroll
                    for (int r = 0; r < K; ++r) {
                        // The transpose reads block (n, m) of H, diagonal 6 - d, entry (c, r).
                        const size_t idx = kTranspose ? bdia_index<V>(K, 6 - d, c, r, n, v.Mp)
                                                      : bdia_index<V>(K, d, r, c, m, v.Mp);
                        acc[r] = mul_add(__ldg(v.bdia + idx), xv, acc[r]);
                    }
                }
            }
        }
        finish_cell<K, kTranspose>(v, m, acc, x, y);
    }
    if (v.with_wells) well_rows_warps<K>(v, x, y);
}

/// Two consecutive cells per thread with 16-byte loads of the cell_fastest layout (Mp is
/// even and planes start 16-byte aligned). Same per-cell arithmetic as bdia_spmv_cell.
template <int K>
__global__ void __launch_bounds__(kThreads)
    bdia_spmv_pair(BdiaView v, const double* __restrict__ x, double* __restrict__ y,
                   const int* __restrict__ skip) {
    using namespace heptane::canonical;
    if (skip != nullptr && *skip != 0) return;
    const unsigned pairs = (v.M + 1) / 2;
    for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < pairs;
         t += gridDim.x * blockDim.x) {
        const unsigned m0 = 2 * t;
        const bool second = m0 + 1 < v.M;
        const Stencil s0 = stencil(v, m0);
        const Stencil s1 = second ? stencil(v, m0 + 1) : Stencil{0u, {0, 0, 0, 0, 0, 0, 0}};
        double a0[K], a1[K];
#pragma unroll
        for (int r = 0; r < K; ++r) a0[r] = a1[r] = 0.0;
#pragma unroll
        for (int d = 0; d < 7; ++d) {
            const bool e0 = s0.mask & (1u << d), e1 = s1.mask & (1u << d);
            if (!e0 && !e1) continue;
            const int off = s0.off[d];
            const double* xn = x + static_cast<size_t>(static_cast<int>(m0) + off) * K;
#pragma unroll
            for (int c = 0; c < K; ++c) {
                const double x0 = e0 ? __ldg(xn + c) : 0.0;
                const double x1 = e1 ? __ldg(xn + K + c) : 0.0;
#pragma unroll
                for (int r = 0; r < K; ++r) {
                    const size_t idx = bdia_index<BdiaVariant::cell_fastest>(K, d, r, c, m0, v.Mp);
                    const double2 a = __ldg(reinterpret_cast<const double2*>(v.bdia + idx));
                    if (e0) a0[r] = mul_add(a.x, x0, a0[r]);
                    if (e1) a1[r] = mul_add(a.y, x1, a1[r]);
                }
            }
        }
        finish_cell<K>(v, m0, a0, x, y);
        if (second) finish_cell<K>(v, m0 + 1, a1, x, y);
    }
    well_rows_warps<K>(v, x, y);
}

/// Grid of blocks that are all resident at once (grid-stride loops cover the rest).
template <class Kernel>
int resident_grid(Kernel kernel, unsigned items) {
    static int sms = [] {
        int dev = 0, n = 0;
        HEPTANE_CUDA_CHECK(cudaGetDevice(&dev));
        HEPTANE_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
        return n;
    }();
    int per_sm = 0;
    HEPTANE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
    const unsigned needed = (items + kThreads - 1) / kThreads;
    const unsigned resident = static_cast<unsigned>(per_sm > 0 ? per_sm : 1) * sms;
    return static_cast<int>(needed < resident ? (needed > 0 ? needed : 1) : resident);
}

/// Launches the kernel of `variant` for block size K (instantiated in bdia_spmv_k*.cu).
template <int K>
void launch_k(const BdiaView& v, BdiaVariant variant, bool transpose, const double* x, double* y,
              cudaStream_t stream, const int* skip) {
    const unsigned rows =
        v.cell_end - v.cell_begin + (v.with_wells ? static_cast<unsigned>(v.nw) : 0u);
    auto run = [&](auto kernel, unsigned items) {
        kernel<<<resident_grid(kernel, items), kThreads, 0, stream>>>(v, x, y, skip);
        HEPTANE_SYNC_CHECK(stream);
    };
    if (variant == BdiaVariant::cell_fastest_x2 && !transpose) {
        run(bdia_spmv_pair<K>, (v.M + 1) / 2 + static_cast<unsigned>(v.nw));
    } else if (variant == BdiaVariant::tiled) {
        transpose ? run(bdia_spmv_cell<K, BdiaVariant::tiled, true>, rows)
                  : run(bdia_spmv_cell<K, BdiaVariant::tiled, false>, rows);
    } else {  // cell_fastest (and the transpose of cell_fastest_x2: same layout)
        transpose ? run(bdia_spmv_cell<K, BdiaVariant::cell_fastest, true>, rows)
                  : run(bdia_spmv_cell<K, BdiaVariant::cell_fastest, false>, rows);
    }
}

}  // namespace heptane::gpu::detail
