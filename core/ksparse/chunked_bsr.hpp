#pragma once
/// @file The chunked BSR layout of KSPARSE's streaming kernel K4 (design decision 39), and the
/// reference product that is its bit-for-bit specification.
///
/// K4 gives every warp a chunk: consecutive whole block rows holding at most `chunk` blocks
/// together (and at most `chunk` rows), or one segment of `chunk` blocks of a row longer than
/// that. A chunk's values are one contiguous run of the column-major blocks, so the warp
/// reads them as a stream of 32-value loads, many in flight, whatever the rows' lengths: the
/// load balance of a merge-based CSR SpMV, with block rows kept whole where they fit so that
/// only the rows longer than a chunk need a second pass (their segments' partial sums are
/// added in order by a small reduction, as in the balanced layout of seed 001, section 5.5).
///
/// K4 takes the block sizes that divide the warp and fill it: 8, 16 and 32 (k4_takes). Lane
/// l of a warp then always works on row r = l mod bs of a block, slot j = l / bs of the
/// m = 32 / bs column slots; one load of the warp reads columns j0 .. j0 + m - 1 of a block,
/// and a block takes bs / m loads.
#include <cstdint>
#include <vector>

#include "core/matrix/formats.hpp"

namespace heptane {

/// Whether K4 takes block size bs: 8, 16 or 32 (bs divides 32 and bs^2 >= 32).
bool k4_takes(int bs);

/// The chunk length (blocks) K4 uses when KsparseParams::lambda is 0: the matrix's blocks
/// spread over about kK4DefaultChunks warps, within 512 and 4,096 values per chunk (8 to 64
/// blocks at bs 8, 2 to 16 at bs 16, 1 to 4 at bs 32): long enough to stream, short enough
/// that a small matrix still gives every SM several warps. blocks = 0 gives the longest.
int k4_default_chunk(int bs, long long blocks);

/// The warps (chunks) k4_default_chunk aims at: 32 per SM of a 132-SM H100, a constant so
/// that the layout, and so the bits, do not depend on the device.
constexpr long long kK4DefaultChunks = 4096;

/// The chunked layout of a Bsr. Chunk k holds blocks [block_ptr[k], block_ptr[k + 1]) of
/// the Bsr's col and val (chunks cover the blocks in order), block rows row[k] ..
/// row[k] + rows[k] - 1, and writes them to y (slot[k] = -1) or, for a segment of a split
/// row (rows[k] = 1), to y_hat block row slot[k] >= 0.
struct ChunkedRows {
    int chunk = 0;                        ///< the most blocks (and rows) of a chunk, >= 1
    std::vector<std::int32_t> block_ptr;  ///< chunks() + 1 entries
    std::vector<std::int32_t> row;        ///< first block row of each chunk
    std::vector<std::int32_t> rows;       ///< block rows of each chunk, >= 1
    std::vector<std::int32_t> slot;       ///< -1, or the y_hat block row of a segment
    /// The rows longer than `chunk`: split_row[t] is the block row, its segments' partial
    /// sums are y_hat block rows split_ptr[t] .. split_ptr[t + 1] - 1, added in that order.
    std::vector<std::int32_t> split_row;
    std::vector<std::int32_t> split_ptr;  ///< split_row.size() + 1 entries
    int chunks() const { return static_cast<int>(row.size()); }
    int slots() const { return split_ptr.empty() ? 0 : split_ptr.back(); }
};

/// Builds the chunked layout: rows are taken in order into the current chunk while its blocks
/// stay <= chunk and its rows < chunk (empty rows included); a row longer than chunk closes
/// the current chunk and becomes ceil(len / chunk) segment chunks of its own, the first ones
/// of chunk blocks.
/// @param[in] A  BSR with block_rows + 1 row pointers (or none when block_rows == 0)
/// @param[in] chunk  blocks per chunk, >= 1
/// @throws std::invalid_argument for chunk < 1 or a row_ptr of the wrong size.
ChunkedRows chunk_rows(const Bsr& A, int chunk);

/// y = A x in K4's order, the specification the device kernel matches bit for bit. For each
/// block p and row r: lane slot j sums fma(a[r][c], x[col(p) bs + c], s) over its columns
/// c = j, j + m, j + 2m, ... (s starts at 0.0), then the slots are added pairwise as the
/// warp's butterfly adds them (slot j and j ^ 1 first, then j ^ 2, ...); the block's sums are
/// added to the row's accumulator (from 0.0) in block order, per chunk; a split row's
/// segments are then added in order (from 0.0).
/// @param[in] A  the matrix, k4_takes(A.block_size)
/// @param[in] layout  chunk_rows(A, any chunk)
/// @param[in] x  A.block_cols * bs entries
/// @param[out] y  A.block_rows * bs entries; must not alias x
/// @throws std::invalid_argument when bs is not one K4 takes or the layout is not A's.
void spmv_chunked(const Bsr& A, const ChunkedRows& layout, const double* x, double* y);

}  // namespace heptane
