#pragma once
/// @file Balanced BSR layout (seed 001, section 5.5 "Load balancing"): block rows longer than
/// lambda are split into segments of at most lambda blocks, the SpMV writes one partial
/// block-row product per segment (y_hat), and a reduction sums each row's segments into y.
/// The column and value arrays of the Bsr are reused as they are; only a new row pointer
/// (over segments) and the segment pointer segPtr are built. This file holds the host side:
/// the layout, the reference products the device kernels are checked against, the
/// row-length statistics and the automatic on/off choice (KsparseBalance::automatic).
#include <cstdint>
#include <vector>

#include "core/ksparse/ksparse_params.hpp"
#include "core/matrix/formats.hpp"

namespace heptane {

/// The segment length used when KsparseParams::lambda is 0: the paper's lambda = 16
/// (seed 001, section 6.3: balanced KSPARSE is timed with lambda = 16).
constexpr int kDefaultLambda = 16;

/// KsparseParams::lambda resolved: 0 -> kDefaultLambda, >= 1 -> itself.
/// @throws std::invalid_argument for a negative lambda.
int lambda_or_default(int lambda);

/// The balanced layout of a Bsr (seed 001, Figure 8). Block row i of the original matrix
/// (length len_i = A.row_ptr[i + 1] - A.row_ptr[i] blocks) becomes ceil(len_i / lambda)
/// consecutive segments: the first ones hold lambda blocks, the last one the rest; an empty
/// row has no segment. Segments keep the original order (row 0's first, then row 1's, ...),
/// so they address the SAME col and val arrays as the Bsr.
struct BalancedRows {
    int lambda = kDefaultLambda;  ///< the longest segment, in blocks (>= 1)
    /// segments() + 1 entries: segment s holds blocks [row_ptr[s], row_ptr[s + 1]) of the
    /// Bsr's col/val; row_ptr.back() == A.row_ptr.back().
    std::vector<std::int32_t> row_ptr;
    /// block_rows + 1 entries (the paper's segPtr): row i's segments are
    /// [seg_ptr[i], seg_ptr[i + 1]); seg_ptr[i] == seg_ptr[i + 1] for an empty row.
    std::vector<std::int32_t> seg_ptr;
    /// Number of segments (block rows of the balanced matrix, block rows of y_hat).
    int segments() const { return row_ptr.empty() ? 0 : static_cast<int>(row_ptr.size()) - 1; }
};

/// Builds the balanced layout of A (seed 001, section 5.5). With lambda >= every row length
/// the result is the identity layout: row_ptr is A.row_ptr without the repeated entries of
/// empty rows (which have no segment), and seg_ptr[i] = i when no row is empty.
/// @param[in] A  BSR with block_rows + 1 row pointers (or none when block_rows == 0)
/// @param[in] lambda  the longest segment in blocks, >= 1 (resolve 0 with lambda_or_default)
/// @return the layout; segments() = sum over rows of ceil(len_i / lambda)
/// @throws std::invalid_argument for lambda < 1 or a row_ptr of the wrong size.
BalancedRows balance_rows(const Bsr& A, int lambda);

/// y_hat = the balanced product before the reduction: for each segment s of row i,
/// y_hat[s bs + r] = sum over its blocks p (in storage order) of (block p x)_r, accumulated
/// exactly as spmv(const Bsr&) accumulates a row (block rows summed left to right, each
/// added to an accumulator that starts at 0.0). The device balanced kernel must match it.
/// @param[in] A  the matrix (row-major bs x bs blocks)
/// @param[in] b  balance_rows(A, lambda) for any lambda
/// @param[in] x  A.block_cols * bs entries
/// @param[out] y_hat  b.segments() * bs entries; must not alias x
/// @throws std::invalid_argument when b does not describe A (sizes differ).
void spmv_segments(const Bsr& A, const BalancedRows& b, const double* x, double* y_hat);

/// The reduction (seed 001, Figure 8c): y[i bs + r] = sum of y_hat[s bs + r] over row i's
/// segments s = seg_ptr[i] .. seg_ptr[i + 1] - 1, in that order, into an accumulator that
/// starts at 0.0 (so an empty row gives 0 and a one-segment row copies its segment).
/// spmv_segments followed by reduce_segments equals spmv(const Bsr&) up to the rounding of
/// the regrouped sum (bit for bit for rows of at most lambda blocks).
/// @param[in] b  the layout
/// @param[in] bs  block size, >= 1
/// @param[in] y_hat  b.segments() * bs entries
/// @param[out] y  (b.seg_ptr.size() - 1) * bs entries; must not alias y_hat
/// @throws std::invalid_argument for bs < 1.
void reduce_segments(const BalancedRows& b, int bs, const double* y_hat, double* y);

/// Histogram bin of a row length: 0 for 0, otherwise floor(log2(len)) + 1, so bin k >= 1
/// holds lengths [2^(k-1), 2^k - 1]: [0], [1], [2, 3], [4, 7], ... (seed 001, Figure 19
/// plots the row-length histogram this way).
int row_length_bin(std::int64_t length);

/// Block-row length statistics of a Bsr (lengths in blocks).
struct RowLengths {
    std::int32_t rows = 0;    ///< block rows
    std::int64_t blocks = 0;  ///< stored blocks, the sum of the lengths
    int max = 0;              ///< longest block row (0 for no rows)
    double mean = 0.0;        ///< blocks / rows (0 for no rows)
    /// histogram[k] = rows whose length has row_length_bin k; row_length_bin(max) + 1 bins.
    std::vector<long long> histogram;
};

/// Block rows of A longer than lambda blocks (the rows balance_rows splits).
long long rows_over(const Bsr& A, int lambda);

/// The block-row length statistics of A.
/// @throws std::invalid_argument for a row_ptr of the wrong size.
RowLengths row_lengths(const Bsr& A);

/// Smallest estimated speedup for which prefer_balanced takes the balanced layout (see there).
constexpr double kBalancedMinGain = 8.0;

/// The automatic choice of KsparseBalance: whether the balanced layout is worth its
/// reduction kernel.
///
/// Model (in units of "one block processed by one thread array"): the unbalanced kernel
/// gives each block row to one thread array, which walks it serially, so its time is at
/// least the longest row, max_len; with P = parallel_rows thread arrays running at once it
/// is also at least the ideal share W / P (W = stored blocks). The balanced kernel's longest
/// row is lambda. Estimated gain:
///
///     gain = max(max_len, W / P) / max(lambda, W / P)
///
/// Take the balanced layout when max_len > lambda (otherwise nothing is split and the
/// reduction is pure overhead) and gain >= kBalancedMinGain = 8.
///
/// Why 8 and not 1: the model is optimistic. It assumes P thread arrays streaming at full
/// speed, while the GPU saturates memory bandwidth well before that (and K1 reads up to
/// 32 / bs^2 blocks of a row at once), so rows a few times longer than W / P finish within
/// the time the bandwidth-bound bulk takes anyway; the balanced kernel also pays the
/// reduction and a second launch. The calibration point is lhr07 (seed 001, Figure 16:
/// balanced KSPARSE shows no clear advantage): max_len 63, W = 156,508, model gain 3.4 at
/// P = 8448 (H100: 132 SMs x 64 thread arrays) and below 63 / 16 = 3.9 for any P, so 8 is
/// twice the largest gain the model gives a matrix the paper found balanced enough. The
/// paper's shermanACb (15x measured, so a model gain of at least 15) clears it, as does
/// skewed.mtx (rows of 4,000 blocks, mean 9.2: model gain 184 at P = 8448). A uniform
/// matrix (7-point stencil: max_len 7 < lambda) never qualifies. The threshold is a
/// heuristic from one calibration point: re-check it against device timings of both
/// layouts (heptane bench ksparse) when they exist.
///
/// @param[in] h  row_lengths(A)
/// @param[in] lambda  the segment length the balanced layout would use, >= 1
/// @param[in] parallel_rows  P: thread arrays the GPU runs at once (SMs x resident thread
///   arrays per SM), >= 1
/// @return true for the balanced layout
/// @throws std::invalid_argument for lambda < 1 or parallel_rows < 1.
bool prefer_balanced(const RowLengths& h, int lambda, long long parallel_rows);

/// Resolves p.balance for A: `on` -> true, `off` -> false, `automatic` ->
/// prefer_balanced(row_lengths(A), lambda_or_default(p.lambda), parallel_rows).
/// @param[in] A  the matrix
/// @param[in] p  launch parameters (balance and lambda are read)
/// @param[in] parallel_rows  as in prefer_balanced (read only for `automatic`)
/// @throws std::invalid_argument for a negative p.lambda, or as prefer_balanced.
bool use_balanced(const Bsr& A, const KsparseParams& p, long long parallel_rows);

}  // namespace heptane
