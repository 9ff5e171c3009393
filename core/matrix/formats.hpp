#pragma once
/// @file General sparse formats and conversions from the GH matrix
/// (DESIGN section 3, "Conversions").
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/matrix/gh_matrix.hpp"

namespace heptane {

/// Scalar CSR with 32-bit indices (what cuSPARSE and most tools take). Conversions throw
/// NotSupported above 2^31 - 1 rows or nonzeros.
struct Csr {
    std::int32_t rows = 0;
    std::int32_t cols = 0;
    std::vector<std::int32_t> row_ptr;  ///< rows + 1 entries
    std::vector<std::int32_t> col;      ///< sorted within each row
    std::vector<double> val;
    index_t nonzeros() const { return static_cast<index_t>(val.size()); }
    std::size_t storage_bytes() const;
};

/// Block CSR with square bs x bs blocks stored row-major (block p at val[p bs^2]).
struct Bsr {
    std::int32_t block_rows = 0;
    std::int32_t block_cols = 0;
    int block_size = 1;
    std::vector<std::int32_t> row_ptr;  ///< block_rows + 1 entries
    std::vector<std::int32_t> col;      ///< block columns, sorted within each block row
    std::vector<double> val;
    index_t blocks() const { return static_cast<index_t>(col.size()); }
    std::size_t storage_bytes() const;
};

/// GH -> BSR with block size K. The well unknowns are packed K to a block row after the M
/// cell block rows (well w at scalar row M K + w, i.e. block row M + w / K, position w % K),
/// so the matrix has M + ceil(Nw / K) block rows. The padding unknowns that fill the last
/// block row get a 1 on the diagonal and nothing else, so the padded matrix is nonsingular
/// whenever GH is and its solution restricted to the first GH.rows() entries is GH's.
/// Use pad_vector / unpad_vector to move between the two numberings.
Bsr to_bsr(const GHMatrix& A);

/// Scalar rows of the BSR form of A: (M + ceil(Nw / K)) K.
index_t bsr_padded_rows(const GHMatrix& A);
/// x (A.rows() entries) followed by zeros up to bsr_padded_rows(A).
std::vector<double> pad_vector(const GHMatrix& A, const std::vector<double>& x);
/// The first A.rows() entries of a padded vector.
std::vector<double> unpad_vector(const GHMatrix& A, const std::vector<double>& x);

/// Blocks of to_bsr(A), computed without building it: H's structural blocks, one well-column
/// block per perforated cell, one well-row block per perforated cell, one diagonal block per
/// well block row.
index_t bsr_blocks(const GHMatrix& A);
/// Bytes of to_bsr(A) and to_csr(A) (values, column indices, row pointers), without building.
std::size_t bsr_bytes(const GHMatrix& A);
std::size_t csr_bytes(const GHMatrix& A);

/// GH -> scalar CSR of order A.rows(), every structural entry of GH (padding excluded,
/// explicit zeros inside stored blocks kept): nonzeros() == A.nonzeros().
Csr to_csr(const GHMatrix& A);

/// BSR -> scalar CSR, every entry of every stored block (zeros included).
Csr to_csr(const Bsr& A);

/// A^T in BSR: block (j, i) of the result is the transpose of block (i, j) of A; columns
/// stay sorted within each block row. For products with A^T on the device (GPU QMR with
/// the KSPARSE SpMV).
Bsr transpose(const Bsr& A);

/// Writes A as MatrixMarket "coordinate real general", 1-based, each value with the
/// shortest decimal form that reads back to the same double. `comment` lines are prefixed
/// with '%'.
void write_matrix_market(std::ostream& out, const Csr& A, const std::string& comment = {});

/// Writes v as a MatrixMarket "array real general" n x 1 matrix (full precision).
void write_matrix_market(std::ostream& out, const std::vector<double>& v,
                         const std::string& comment = {});

}  // namespace heptane
