#pragma once
/// @file MatrixMarket reader (matrices and right-hand sides) and the KSPARSE block promotion
/// of a scalar pattern to BSR (issue 7; seed 001, section 6). The writers are in
/// core/matrix/formats.hpp.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/base/errors.hpp"
#include "core/matrix/formats.hpp"

namespace heptane {

/// A malformed MatrixMarket file. what() is "FILE:LINE: detail" (LINE 1-based), or
/// "FILE: detail" where no line is at fault (the file cannot be opened). An InputError, so
/// the CLI exits with code 2; key() is empty, since the location is the file, not a deck key.
class MatrixMarketError : public InputError {
  public:
    /// @param[in] file  the name given to the reader (a path, or a label for a stream)
    /// @param[in] line  1-based line number, 0 if the problem is not on one line
    /// @param[in] detail  what is wrong, without the location
    MatrixMarketError(const std::string& file, std::int64_t line, const std::string& detail);
    const std::string& file() const { return file_; }
    std::int64_t line() const { return line_; }

  private:
    std::string file_;
    std::int64_t line_;
};

/// Reads a sparse matrix from a MatrixMarket file.
///
/// Accepted: the banner `%%MatrixMarket matrix coordinate FIELD SYMMETRY` (the words are
/// case-insensitive) with FIELD real, integer or pattern and SYMMETRY general, symmetric or
/// skew-symmetric; then `%` comment lines, the size line `ROWS COLS ENTRIES`, and ENTRIES
/// lines `I J [VALUE]` with 1-based indices (no VALUE for pattern). Blank lines are skipped
/// anywhere, '%' lines anywhere after the banner, and a trailing '\r' (CRLF files) is ignored.
///
/// Semantics:
/// - pattern entries get the value 1.0; integer values must be integers (stored as double);
/// - symmetric: each off-diagonal entry (i, j) also stores (j, i) with the same value;
///   skew-symmetric: (j, i) gets the negated value, and a diagonal entry is an error. The
///   files normally hold one triangle; an entry given in both triangles is summed with the
///   mirror of its partner, so the result is always L + L^T (L^T negated for skew);
/// - duplicate entries (the same (i, j) more than once, mirrors included) are summed, in
///   file order; explicit zeros are kept as structural entries;
/// - the result has each row's columns sorted ascending, no duplicates.
///
/// @param[in] path  the file
/// @return the matrix as 32-bit CSR
/// @throws MatrixMarketError ("FILE:LINE: ...") for an unreadable or malformed file: bad or
///   unsupported banner (complex, hermitian, array, a non-matrix object), a size line with
///   too few or too many fields, non-numbers or negative sizes, a non-square symmetric matrix,
///   an entry with too few or too many fields, a non-number or a non-finite value (nan, inf),
///   a non-integer value in an integer file, an index out of range, a skew diagonal entry, fewer or
///   more entries than declared (fewer: reported at the file's last line; more: at the first extra
///   entry). Rows, columns or stored nonzeros beyond the 32-bit index range of Csr are also a
///   MatrixMarketError (at the size line; found by fuzzing, issue 19: was NotSupported, exit 3).
/// @param[out] duplicates  when given: how many entries were summed into an earlier one (the
///   caller warns: the format allows duplicates, but they are often a writer's mistake)
Csr read_matrix_market(const std::string& path, std::int64_t* duplicates = nullptr);

/// As read_matrix_market(path), from a stream.
/// @param[in] in  the stream, read to its end
/// @param[in] name  the file name that error messages start with
Csr read_matrix_market(std::istream& in, const std::string& name,
                       std::int64_t* duplicates = nullptr);

/// Reads a column vector (a right-hand side) from a MatrixMarket file: either
/// `array real|integer general` with n x 1 size (`ROWS 1`, then one value per line), or
/// `coordinate real|integer|pattern general` n x 1 (entries not given are 0, duplicates are
/// summed). Same lexical rules and error messages as read_matrix_market.
/// @param[in] path  the file
/// @return the n values
/// @throws MatrixMarketError for a malformed file, a size other than n x 1, or a symmetry
///   other than general.
/// @param[out] duplicates  as for read_matrix_market
std::vector<double> read_matrix_market_vector(const std::string& path,
                                              std::int64_t* duplicates = nullptr);

/// As read_matrix_market_vector(path), from a stream.
/// @param[in] in  the stream, read to its end
/// @param[in] name  the file name that error messages start with
std::vector<double> read_matrix_market_vector(std::istream& in, const std::string& name,
                                              std::int64_t* duplicates = nullptr);

/// Largest block size promote_to_bsr accepts.
constexpr int kMaxPromotedBlockSize = 128;

/// Promotes a scalar pattern to a block matrix the way the KSPARSE paper builds its test
/// matrices (seed 001, section 6: "performance tests for a certain block size bs replace
/// each non-zero of the matrix by a bs x bs square block"): every stored entry (i, j) of
/// `pattern` (explicit zeros included; its value is ignored) becomes a dense block at block
/// position (i, j). The paper does not say what the block values are, so they are seeded
/// uniform numbers in [-1, 1): block (i, j) holds, row-major, the first bs^2 values of
/// Rng(seed, i * cols + j).uniform(-1, 1) (core/base/random.hpp). A block's values thus depend
/// only on (seed, i, j): the same for any thread count or standard library, and the same
/// block in two patterns. The result is not diagonally dominant; it is meant for SpMV
/// (the paper times only SpMV on these matrices), not for solves.
///
/// @param[in] pattern  square CSR, columns sorted within each row (as Csr promises)
/// @param[in] block_size  bs, 1..kMaxPromotedBlockSize
/// @param[in] seed  seed of the block values
/// @return BSR with block_rows = block_cols = pattern.rows, block_size = bs, row_ptr and col
///   equal to the pattern's, blocks() = pattern.nonzeros(); it needs nonzeros() * bs^2 * 8
///   bytes of values.
/// @throws InputError for a non-square pattern or a block size outside 1..128.
Bsr promote_to_bsr(const Csr& pattern, int block_size, std::uint64_t seed);

}  // namespace heptane
