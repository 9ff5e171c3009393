#include "core/matrix/formats.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>

#include "core/base/errors.hpp"

namespace heptane {
namespace {

std::int32_t checked_int32(index_t value, const char* what) {
    if (value > std::numeric_limits<std::int32_t>::max()) {
        throw NotSupported(std::string(what) + " = " + std::to_string(value) +
                           " exceeds the 32-bit index range of the CSR/BSR formats");
    }
    return static_cast<std::int32_t>(value);
}

/// Perforated cell range [cell0, cell0 + count) of well w.
bool perforates(const WellArrays& wells, index_t w, index_t m) {
    return m >= wells.cell0[w] && m < wells.cell0[w] + wells.count[w];
}

/// The well whose perforations include cell m, or -1.
index_t well_at(const GHMatrix& A, index_t m) {
    if (A.num_wells() == 0) return -1;
    const index_t w = A.wells().well_of_column[m / A.nz()];
    return (w >= 0 && perforates(A.wells(), w, m)) ? w : -1;
}

/// Number of non-neighbour entries of cell m's row.
index_t nnc_count(const GHMatrix& A, index_t m) {
    return A.has_nnc() ? A.nnc().ptr[m + 1] - A.nnc().ptr[m] : 0;
}

/// Sorts entries [begin, end) of a CSR or BSR row by column, each moving with its `width`
/// values (a row with non-neighbour entries, which are written after the stencil's).
void sort_row(std::vector<std::int32_t>& col, std::vector<double>& val, index_t begin, index_t end,
              index_t width) {
    std::vector<std::pair<std::int32_t, index_t>> order;
    for (index_t p = begin; p < end; ++p) order.emplace_back(col[p], p);
    std::sort(order.begin(), order.end());
    std::vector<double> values;
    for (const auto& [c, p] : order) {
        values.insert(values.end(), val.begin() + p * width, val.begin() + (p + 1) * width);
    }
    for (index_t q = 0; q < end - begin; ++q) col[begin + q] = order[q].first;
    std::copy(values.begin(), values.end(), val.begin() + begin * width);
}

void write_comment(std::ostream& out, const std::string& comment) {
    std::istringstream lines(comment);
    for (std::string line; std::getline(lines, line);) out << '%' << line << '\n';
}

/// Appends the shortest round-trip decimal form of v.
void append_double(std::string& buf, double v) {
    char tmp[32];
    const auto res = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf.append(tmp, res.ptr);
}

}  // namespace

std::size_t Csr::storage_bytes() const {
    return val.size() * sizeof(double) + col.size() * sizeof(std::int32_t) +
           row_ptr.size() * sizeof(std::int32_t);
}

std::size_t Bsr::storage_bytes() const {
    return val.size() * sizeof(double) + col.size() * sizeof(std::int32_t) +
           row_ptr.size() * sizeof(std::int32_t);
}

index_t bsr_padded_rows(const GHMatrix& A) {
    const int K = A.block_size();
    return (A.num_cells() + (A.num_wells() + K - 1) / K) * K;
}

std::vector<double> pad_vector(const GHMatrix& A, const std::vector<double>& x) {
    std::vector<double> padded(x);
    padded.resize(static_cast<std::size_t>(bsr_padded_rows(A)), 0.0);
    return padded;
}

std::vector<double> unpad_vector(const GHMatrix& A, const std::vector<double>& x) {
    return std::vector<double>(x.begin(), x.begin() + A.rows());
}

index_t bsr_blocks(const GHMatrix& A) {
    const index_t K = A.block_size();
    const index_t well_block_rows = (A.num_wells() + K - 1) / K;
    return A.h_nonzeros() / (K * K) + A.nnc().num_entries() + 2 * A.wells().num_perforations() +
           well_block_rows;
}

std::size_t bsr_bytes(const GHMatrix& A) {
    const index_t K = A.block_size();
    const index_t blocks = bsr_blocks(A);
    const index_t block_rows = bsr_padded_rows(A) / K;
    return static_cast<std::size_t>(blocks * (K * K * 8 + 4) + (block_rows + 1) * 4);
}

std::size_t csr_bytes(const GHMatrix& A) {
    return static_cast<std::size_t>(A.nonzeros() * (8 + 4) + (A.rows() + 1) * 4);
}

Bsr to_bsr(const GHMatrix& A) {
    const int K = A.block_size();
    const index_t M = A.num_cells();
    const index_t nw = A.num_wells();
    const index_t well_block_rows = (nw + K - 1) / K;
    const index_t kk = static_cast<index_t>(K) * K;
    const WellArrays& wells = A.wells();
    const auto off = A.offsets();

    Bsr out;
    out.block_size = K;
    out.block_rows = checked_int32(M + well_block_rows, "BSR block rows");
    out.block_cols = out.block_rows;
    out.row_ptr.assign(static_cast<std::size_t>(out.block_rows) + 1, 0);

    // Count blocks per block row: stencil blocks (+1 well block for perforated cells), then
    // per well block row its wells' perforated cells plus the diagonal block.
    std::vector<std::vector<index_t>> well_block_cells(static_cast<std::size_t>(well_block_rows));
    for (index_t w = 0; w < nw; ++w) {
        for (index_t l = 0; l < wells.count[w]; ++l) {
            well_block_cells[w / K].push_back(wells.cell0[w] + l);
        }
    }
    for (auto& cells : well_block_cells) std::sort(cells.begin(), cells.end());
    index_t total = 0;
    for (index_t m = 0; m < M; ++m) {
        index_t n = 0;
        for (int d = 0; d < kStencilSize; ++d) n += A.has_neighbour(m, d) ? 1 : 0;
        total += n + nnc_count(A, m) + (well_at(A, m) >= 0 ? 1 : 0);
        out.row_ptr[m + 1] = checked_int32(total, "BSR blocks");
    }
    for (index_t b = 0; b < well_block_rows; ++b) {
        total += static_cast<index_t>(well_block_cells[b].size()) + 1;
        out.row_ptr[M + b + 1] = checked_int32(total, "BSR blocks");
    }
    out.col.resize(static_cast<std::size_t>(total));
    out.val.assign(static_cast<std::size_t>(total * kk), 0.0);

#pragma omp parallel for schedule(static)
    for (index_t m = 0; m < M; ++m) {
        index_t p = out.row_ptr[m];
        for (int d = 0; d < kStencilSize; ++d) {  // offsets increase with d: columns sorted
            if (!A.has_neighbour(m, d)) continue;
            out.col[p] = static_cast<std::int32_t>(m + off[d]);
            double* block = out.val.data() + p * kk;
            for (int r = 0; r < K; ++r)
                for (int c = 0; c < K; ++c) block[r * K + c] = A.at(d, m, r, c);
            ++p;
        }
        for (index_t e = 0; e < nnc_count(A, m); ++e, ++p) {  // then sorted in with the stencil's
            const index_t at = A.nnc().ptr[m] + e;
            out.col[p] = static_cast<std::int32_t>(A.nnc().col[at]);
            std::copy_n(A.nnc().vals.begin() + at * kk, kk, out.val.begin() + p * kk);
        }
        if (nnc_count(A, m) > 0) sort_row(out.col, out.val, out.row_ptr[m], p, kk);
        const index_t w = well_at(A, m);
        if (w >= 0) {  // column w % K of block (m, M + w / K) holds d eq_cell / d p_bh
            out.col[p] = static_cast<std::int32_t>(M + w / K);
            const index_t base = wells.first[w] + (m - wells.cell0[w]) * K;
            for (int r = 0; r < K; ++r) out.val[p * kk + r * K + w % K] = wells.wt_vals[base + r];
        }
    }
    for (index_t b = 0; b < well_block_rows; ++b) {
        index_t p = out.row_ptr[M + b];
        for (index_t m : well_block_cells[b]) {  // row w % K of block (M + b, m) is well w's row
            const index_t w = well_at(A, m);
            out.col[p] = static_cast<std::int32_t>(m);
            const index_t base = wells.first[w] + (m - wells.cell0[w]) * K;
            for (int c = 0; c < K; ++c) out.val[p * kk + (w % K) * K + c] = wells.w_vals[base + c];
            ++p;
        }
        out.col[p] = static_cast<std::int32_t>(M + b);  // diagonal: D, then 1 for padding
        for (int r = 0; r < K; ++r) {
            const index_t w = b * K + r;
            out.val[p * kk + r * K + r] = w < nw ? wells.d[w] : 1.0;
        }
    }
    return out;
}

Csr to_csr(const GHMatrix& A) {
    const int K = A.block_size();
    const index_t M = A.num_cells();
    const index_t mk = A.cell_unknowns();
    const index_t nw = A.num_wells();
    const WellArrays& wells = A.wells();
    const auto off = A.offsets();

    Csr out;
    out.rows = checked_int32(A.rows(), "CSR rows");
    out.cols = out.rows;
    checked_int32(A.nonzeros(), "CSR nonzeros");
    out.row_ptr.assign(static_cast<std::size_t>(out.rows) + 1, 0);
    for (index_t m = 0; m < M; ++m) {
        index_t n = 0;
        for (int d = 0; d < kStencilSize; ++d) n += A.has_neighbour(m, d) ? K : 0;
        n += nnc_count(A, m) * K + (well_at(A, m) >= 0 ? 1 : 0);
        for (int r = 0; r < K; ++r) out.row_ptr[m * K + r + 1] = static_cast<std::int32_t>(n);
    }
    for (index_t w = 0; w < nw; ++w) {
        out.row_ptr[mk + w + 1] = static_cast<std::int32_t>(wells.count[w] * K + 1);
    }
    for (std::size_t i = 1; i < out.row_ptr.size(); ++i) out.row_ptr[i] += out.row_ptr[i - 1];
    out.col.resize(static_cast<std::size_t>(out.row_ptr.back()));
    out.val.resize(out.col.size());

#pragma omp parallel for schedule(static)
    for (index_t m = 0; m < M; ++m) {
        const index_t w = well_at(A, m);
        for (int r = 0; r < K; ++r) {
            index_t p = out.row_ptr[m * K + r];
            for (int d = 0; d < kStencilSize; ++d) {
                if (!A.has_neighbour(m, d)) continue;
                for (int c = 0; c < K; ++c, ++p) {
                    out.col[p] = static_cast<std::int32_t>((m + off[d]) * K + c);
                    out.val[p] = A.at(d, m, r, c);
                }
            }
            for (index_t e = 0; e < nnc_count(A, m); ++e) {
                const index_t at = A.nnc().ptr[m] + e;
                for (int c = 0; c < K; ++c, ++p) {
                    out.col[p] = static_cast<std::int32_t>(A.nnc().col[at] * K + c);
                    out.val[p] = A.nnc().vals[(at * K + r) * K + c];
                }
            }
            if (nnc_count(A, m) > 0) sort_row(out.col, out.val, out.row_ptr[m * K + r], p, 1);
            if (w >= 0) {
                out.col[p] = static_cast<std::int32_t>(mk + w);
                out.val[p] = wells.wt_vals[wells.first[w] + (m - wells.cell0[w]) * K + r];
            }
        }
    }
    for (index_t w = 0; w < nw; ++w) {
        index_t p = out.row_ptr[mk + w];
        for (index_t i = 0; i < wells.count[w] * K; ++i, ++p) {
            out.col[p] = static_cast<std::int32_t>(wells.cell0[w] * K + i);
            out.val[p] = wells.w_vals[wells.first[w] + i];
        }
        out.col[p] = static_cast<std::int32_t>(mk + w);
        out.val[p] = wells.d[w];
    }
    return out;
}

Csr to_csr(const Bsr& A) {
    const int bs = A.block_size;
    const index_t bb = static_cast<index_t>(bs) * bs;
    Csr out;
    out.rows = checked_int32(static_cast<index_t>(A.block_rows) * bs, "CSR rows");
    out.cols = checked_int32(static_cast<index_t>(A.block_cols) * bs, "CSR columns");
    checked_int32(A.blocks() * bb, "CSR nonzeros");
    out.row_ptr.assign(static_cast<std::size_t>(out.rows) + 1, 0);
    for (std::int32_t br = 0; br < A.block_rows; ++br) {
        const std::int32_t n = (A.row_ptr[br + 1] - A.row_ptr[br]) * bs;
        for (int r = 0; r < bs; ++r) out.row_ptr[static_cast<index_t>(br) * bs + r + 1] = n;
    }
    for (std::size_t i = 1; i < out.row_ptr.size(); ++i) out.row_ptr[i] += out.row_ptr[i - 1];
    out.col.resize(static_cast<std::size_t>(out.row_ptr.back()));
    out.val.resize(out.col.size());
#pragma omp parallel for schedule(static)
    for (std::int32_t br = 0; br < A.block_rows; ++br) {
        for (int r = 0; r < bs; ++r) {
            index_t q = out.row_ptr[static_cast<index_t>(br) * bs + r];
            for (std::int32_t p = A.row_ptr[br]; p < A.row_ptr[br + 1]; ++p) {
                for (int c = 0; c < bs; ++c, ++q) {
                    out.col[q] = A.col[p] * bs + c;
                    out.val[q] = A.val[p * bb + r * bs + c];
                }
            }
        }
    }
    return out;
}

Bsr transpose(const Bsr& A) {
    const int bs = A.block_size;
    const std::size_t bb = static_cast<std::size_t>(bs) * bs;
    Bsr t;
    t.block_rows = A.block_cols;
    t.block_cols = A.block_rows;
    t.block_size = bs;
    t.row_ptr.assign(static_cast<std::size_t>(t.block_rows) + 1, 0);
    for (std::int32_t c : A.col) ++t.row_ptr[static_cast<std::size_t>(c) + 1];
    for (std::size_t i = 1; i < t.row_ptr.size(); ++i) t.row_ptr[i] += t.row_ptr[i - 1];
    t.col.resize(A.col.size());
    t.val.resize(A.val.size());
    std::vector<std::int32_t> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
    // Rows of A in order: each row of A^T receives its columns in increasing order.
    for (std::int32_t br = 0; br < A.block_rows; ++br) {
        for (std::int32_t p = A.row_ptr[br]; p < A.row_ptr[br + 1]; ++p) {
            const std::size_t q = static_cast<std::size_t>(next[A.col[p]]++);
            t.col[q] = br;
            for (int r = 0; r < bs; ++r) {
                for (int c = 0; c < bs; ++c)
                    t.val[q * bb + c * bs + r] = A.val[p * bb + r * bs + c];
            }
        }
    }
    return t;
}

void write_matrix_market(std::ostream& out, const Csr& A, const std::string& comment) {
    out << "%%MatrixMarket matrix coordinate real general\n";
    write_comment(out, comment);
    out << A.rows << ' ' << A.cols << ' ' << A.nonzeros() << '\n';
    std::string buf;
    buf.reserve(1 << 20);
    for (std::int32_t i = 0; i < A.rows; ++i) {
        for (std::int32_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
            buf += std::to_string(i + 1);
            buf += ' ';
            buf += std::to_string(A.col[p] + 1);
            buf += ' ';
            append_double(buf, A.val[p]);
            buf += '\n';
        }
        if (buf.size() > (1 << 20) - 256) {
            out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
            buf.clear();
        }
    }
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

void write_matrix_market(std::ostream& out, const std::vector<double>& v,
                         const std::string& comment) {
    out << "%%MatrixMarket matrix array real general\n";
    write_comment(out, comment);
    out << v.size() << " 1\n";
    std::string buf;
    for (double value : v) {
        append_double(buf, value);
        buf += '\n';
    }
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace heptane
