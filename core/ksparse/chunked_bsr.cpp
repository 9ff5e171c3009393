// The chunked layout of KSPARSE's K4 and its reference product (core/ksparse/chunked_bsr.hpp).
#include "core/ksparse/chunked_bsr.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace heptane {

bool k4_takes(int bs) { return bs == 8 || bs == 16 || bs == 32; }

int k4_default_chunk(int bs, long long blocks) {
    if (bs <= 0) return 1;
    const long long bb = static_cast<long long>(bs) * bs;
    const long long shortest = std::max(1LL, 512 / bb), longest = std::max(1LL, 4096 / bb);
    if (blocks <= 0) return static_cast<int>(longest);
    const long long spread = (blocks + kK4DefaultChunks - 1) / kK4DefaultChunks;
    return static_cast<int>(std::clamp(spread, shortest, longest));
}

ChunkedRows chunk_rows(const Bsr& A, int chunk) {
    if (chunk < 1) {
        throw std::invalid_argument("chunk_rows: chunk must be >= 1, got " + std::to_string(chunk));
    }
    const auto expected = static_cast<std::size_t>(A.block_rows) + 1;
    if (A.block_rows < 0 ||
        (A.row_ptr.size() != expected && !(A.block_rows == 0 && A.row_ptr.empty()))) {
        throw std::invalid_argument("chunk_rows: row_ptr has " + std::to_string(A.row_ptr.size()) +
                                    " entries for " + std::to_string(A.block_rows) + " block rows");
    }
    ChunkedRows c;
    c.chunk = chunk;
    c.split_ptr.push_back(0);
    // The chunk being filled: rows [open_row, open_row + open_rows), open_blocks blocks.
    std::int32_t open_row = 0, open_rows = 0, open_blocks = 0;
    auto close = [&] {
        if (open_rows == 0) return;
        c.block_ptr.push_back(A.row_ptr[open_row]);
        c.row.push_back(open_row);
        c.rows.push_back(open_rows);
        c.slot.push_back(-1);
        open_rows = open_blocks = 0;
    };
    for (std::int32_t i = 0; i < A.block_rows; ++i) {
        const std::int32_t len = A.row_ptr[i + 1] - A.row_ptr[i];
        if (len > chunk) {
            close();
            for (std::int32_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; p += chunk) {
                c.block_ptr.push_back(p);
                c.row.push_back(i);
                c.rows.push_back(1);
                c.slot.push_back(c.split_ptr.back() +
                                 static_cast<std::int32_t>(p - A.row_ptr[i]) / chunk);
            }
            c.split_row.push_back(i);
            c.split_ptr.push_back(c.slot.back() + 1);
            continue;
        }
        if (open_rows > 0 && (open_blocks + len > chunk || open_rows == chunk)) close();
        if (open_rows == 0) open_row = i;
        ++open_rows;
        open_blocks += len;
    }
    close();
    c.block_ptr.push_back(A.block_rows == 0 ? 0 : A.row_ptr[A.block_rows]);
    return c;
}

void spmv_chunked(const Bsr& A, const ChunkedRows& layout, const double* x, double* y) {
    const int bs = A.block_size;
    if (!k4_takes(bs)) {
        throw std::invalid_argument("spmv_chunked: K4 takes block sizes 8, 16 and 32, not " +
                                    std::to_string(bs));
    }
    if (layout.block_ptr.size() != layout.row.size() + 1 ||
        layout.block_ptr.back() != (A.block_rows == 0 ? 0 : A.row_ptr[A.block_rows])) {
        throw std::invalid_argument("spmv_chunked: the layout is not this matrix's");
    }
    const int m = 32 / bs;
    const std::size_t bb = static_cast<std::size_t>(bs) * bs;
    std::vector<double> y_hat(static_cast<std::size_t>(layout.slots()) * bs);
    for (int k = 0; k < layout.chunks(); ++k) {
        for (std::int32_t i = layout.row[k]; i < layout.row[k] + layout.rows[k]; ++i) {
            const std::int32_t begin = std::max(A.row_ptr[i], layout.block_ptr[k]);
            const std::int32_t end = std::min(A.row_ptr[i + 1], layout.block_ptr[k + 1]);
            double* out = layout.slot[k] < 0
                              ? y + static_cast<std::size_t>(i) * bs
                              : y_hat.data() + static_cast<std::size_t>(layout.slot[k]) * bs;
            for (int r = 0; r < bs; ++r) {
                double acc = 0.0;
                for (std::int32_t p = begin; p < end; ++p) {
                    const double* a = A.val.data() + static_cast<std::size_t>(p) * bb +
                                      static_cast<std::size_t>(r) * bs;  // row-major block
                    const double* xb = x + static_cast<std::size_t>(A.col[p]) * bs;
                    std::array<double, 4> slot{};  // m <= 4
                    for (int j = 0; j < m; ++j) {
                        double s = 0.0;
                        for (int c = j; c < bs; c += m) s = std::fma(a[c], xb[c], s);
                        slot[j] = s;
                    }
                    for (int h = 1; h < m; h *= 2) {
                        for (int j = 0; j < m; j += 2 * h) slot[j] = slot[j] + slot[j + h];
                    }
                    acc = acc + slot[0];
                }
                out[r] = acc;
            }
        }
    }
    for (std::size_t t = 0; t < layout.split_row.size(); ++t) {
        for (int r = 0; r < bs; ++r) {
            double acc = 0.0;
            for (std::int32_t s = layout.split_ptr[t]; s < layout.split_ptr[t + 1]; ++s) {
                acc = acc + y_hat[static_cast<std::size_t>(s) * bs + r];
            }
            y[static_cast<std::size_t>(layout.split_row[t]) * bs + r] = acc;
        }
    }
}

}  // namespace heptane
