// Balanced BSR layout, its reference products and the automatic choice
// (core/ksparse/balanced_bsr.hpp; seed 001, section 5.5).
#include "core/ksparse/balanced_bsr.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/base/vector_ops.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane {
namespace {

void check_lambda(int lambda, const char* where) {
    if (lambda < 1) {
        throw std::invalid_argument(std::string(where) + ": lambda must be >= 1, got " +
                                    std::to_string(lambda));
    }
}

/// A.row_ptr has block_rows + 1 entries (a Bsr without rows may have none).
void check_row_ptr(const Bsr& A, const char* where) {
    const auto expected = static_cast<std::size_t>(A.block_rows) + 1;
    if (A.block_rows < 0 ||
        (A.row_ptr.size() != expected && !(A.block_rows == 0 && A.row_ptr.empty()))) {
        throw std::invalid_argument(std::string(where) + ": row_ptr has " +
                                    std::to_string(A.row_ptr.size()) + " entries for " +
                                    std::to_string(A.block_rows) + " block rows");
    }
}

/// ceil(len / lambda) without overflow.
std::int32_t segments_of(std::int32_t len, int lambda) {
    return len / lambda + (len % lambda != 0 ? 1 : 0);
}

}  // namespace

int lambda_or_default(int lambda) {
    if (lambda < 0) {
        throw std::invalid_argument("KSPARSE lambda must be 0 (default " +
                                    std::to_string(kDefaultLambda) + ") or >= 1, got " +
                                    std::to_string(lambda));
    }
    return lambda == 0 ? kDefaultLambda : lambda;
}

BalancedRows balance_rows(const Bsr& A, int lambda) {
    check_lambda(lambda, "balance_rows");
    check_row_ptr(A, "balance_rows");
    const std::int32_t rows = A.block_rows;
    BalancedRows b;
    b.lambda = lambda;
    b.seg_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
    // segments <= blocks <= INT32_MAX: the counts fit the 32-bit pointers.
    for (std::int32_t i = 0; i < rows; ++i) {
        b.seg_ptr[i + 1] = b.seg_ptr[i] + segments_of(A.row_ptr[i + 1] - A.row_ptr[i], lambda);
    }
    b.row_ptr.resize(static_cast<std::size_t>(b.seg_ptr[rows]) + 1);
    b.row_ptr[0] = rows > 0 ? A.row_ptr[0] : 0;
    for (std::int32_t i = 0; i < rows; ++i) {
        std::int32_t start = A.row_ptr[i];
        for (std::int32_t s = b.seg_ptr[i]; s < b.seg_ptr[i + 1]; ++s) {
            // The first segments take lambda blocks, the last one the rest.
            start = std::min(start + lambda, A.row_ptr[i + 1]);
            b.row_ptr[s + 1] = start;
        }
    }
    return b;
}

void spmv_segments(const Bsr& A, const BalancedRows& b, const double* x, double* y_hat) {
    check_row_ptr(A, "spmv_segments");
    if (b.seg_ptr.size() != static_cast<std::size_t>(A.block_rows) + 1 || b.row_ptr.empty() ||
        b.row_ptr.back() != (A.row_ptr.empty() ? 0 : A.row_ptr.back())) {
        throw std::invalid_argument(
            "spmv_segments: the balanced layout was not built for this matrix");
    }
    const int bs = A.block_size;
    const std::int32_t segments = b.segments();
    const bool parallel = static_cast<index_t>(segments) * bs >= vec::kParallelMin;
#pragma omp parallel for schedule(static) if (parallel)
    for (std::int32_t s = 0; s < segments; ++s) {  // spmv(Bsr)'s order over each segment
        bsr_blocks_product(A, b.row_ptr[s], b.row_ptr[s + 1], x,
                           y_hat + static_cast<index_t>(s) * bs);
    }
}

void reduce_segments(const BalancedRows& b, int bs, const double* y_hat, double* y) {
    if (bs < 1) {
        throw std::invalid_argument("reduce_segments: block size must be >= 1, got " +
                                    std::to_string(bs));
    }
    const auto rows = static_cast<std::int32_t>(b.seg_ptr.empty() ? 0 : b.seg_ptr.size() - 1);
    const bool parallel = static_cast<index_t>(rows) * bs >= vec::kParallelMin;
#pragma omp parallel for schedule(static) if (parallel)
    for (std::int32_t i = 0; i < rows; ++i) {
        for (int r = 0; r < bs; ++r) {
            double acc = 0.0;
            for (std::int32_t s = b.seg_ptr[i]; s < b.seg_ptr[i + 1]; ++s) {
                acc += y_hat[static_cast<index_t>(s) * bs + r];
            }
            y[static_cast<index_t>(i) * bs + r] = acc;
        }
    }
}

int row_length_bin(std::int64_t length) {
    int bin = 0;
    for (; length > 0; length >>= 1) ++bin;
    return bin;
}

long long rows_over(const Bsr& A, int lambda) {
    check_row_ptr(A, "rows_over");
    long long n = 0;
    for (std::int32_t i = 0; i < A.block_rows; ++i) n += A.row_ptr[i + 1] - A.row_ptr[i] > lambda;
    return n;
}

RowLengths row_lengths(const Bsr& A) {
    check_row_ptr(A, "row_lengths");
    RowLengths h;
    h.rows = A.block_rows;
    for (std::int32_t i = 0; i < A.block_rows; ++i) {
        const std::int32_t len = A.row_ptr[i + 1] - A.row_ptr[i];
        h.blocks += len;
        h.max = std::max(h.max, len);
        const auto bin = static_cast<std::size_t>(row_length_bin(len));
        if (bin >= h.histogram.size()) h.histogram.resize(bin + 1, 0);
        ++h.histogram[bin];
    }
    h.mean = h.rows > 0 ? static_cast<double>(h.blocks) / h.rows : 0.0;
    if (h.histogram.empty()) h.histogram.assign(1, 0);  // row_length_bin(0) + 1 bins
    return h;
}

bool prefer_balanced(const RowLengths& h, int lambda, long long parallel_rows) {
    check_lambda(lambda, "prefer_balanced");
    if (parallel_rows < 1) {
        throw std::invalid_argument("prefer_balanced: parallel_rows must be >= 1, got " +
                                    std::to_string(parallel_rows));
    }
    // Nothing would be split: the balanced layout is the same rows plus a reduction.
    if (h.max <= lambda) return false;
    // gain = max(max_len, W / P) / max(lambda, W / P) (the model in the header).
    const double share = static_cast<double>(h.blocks) / static_cast<double>(parallel_rows);
    const double unbalanced = std::max(static_cast<double>(h.max), share);
    const double balanced = std::max(static_cast<double>(lambda), share);
    return unbalanced >= kBalancedMinGain * balanced;
}

bool use_balanced(const Bsr& A, const KsparseParams& p, long long parallel_rows) {
    const int lambda = lambda_or_default(p.lambda);
    switch (p.balance) {
        case KsparseBalance::on:
            return true;
        case KsparseBalance::off:
            return false;
        case KsparseBalance::automatic:
            break;
    }
    return prefer_balanced(row_lengths(A), lambda, parallel_rows);
}

}  // namespace heptane
