#include "core/matrix/gh_matrix.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace heptane {

index_t WellArrays::num_perforations() const {
    index_t total = 0;
    for (index_t c : count) total += c;
    return total;
}

WellArrays slab_wells(const WellArrays& whole, int ny, int nz, int K, int slab_first,
                      int slab_planes, int own_first, int own_end, std::vector<int>* global) {
    const index_t plane = static_cast<index_t>(ny) * nz, shift = slab_first * plane;
    WellArrays w;
    if (global != nullptr) global->clear();
    if (whole.num_wells() > 0)
        w.well_of_column.assign(static_cast<std::size_t>(slab_planes) * ny, -1);
    for (index_t k = 0; k < whole.num_wells(); ++k) {
        const index_t column = whole.cell0[k] / nz;
        const auto i = static_cast<int>(column / ny);
        if (i < own_first || i >= own_end) continue;
        const auto local = static_cast<std::int32_t>(w.d.size());
        w.first.push_back(static_cast<index_t>(w.w_vals.size()));
        w.cell0.push_back(whole.cell0[k] - shift);
        w.count.push_back(whole.count[k]);
        const index_t n = whole.count[k] * K;
        w.w_vals.insert(w.w_vals.end(), whole.w_vals.begin() + whole.first[k],
                        whole.w_vals.begin() + whole.first[k] + n);
        w.wt_vals.insert(w.wt_vals.end(), whole.wt_vals.begin() + whole.first[k],
                         whole.wt_vals.begin() + whole.first[k] + n);
        w.d.push_back(whole.d[k]);
        w.well_of_column[static_cast<std::size_t>(column - shift / nz)] = local;
        if (global != nullptr) global->push_back(static_cast<int>(k));
    }
    if (w.d.empty()) w.well_of_column.clear();  // no wells here
    return w;
}

NncArrays nnc_layout(index_t cells, int K, const std::vector<std::array<index_t, 2>>& pairs) {
    std::vector<std::array<index_t, 2>> entries;  // (row, column), both directions
    entries.reserve(2 * pairs.size());
    for (const auto& pr : pairs) {
        if (pr[0] < 0 || pr[1] < 0 || pr[0] >= cells || pr[1] >= cells || pr[0] == pr[1]) {
            throw std::invalid_argument("nnc_layout: connection (" + std::to_string(pr[0]) + ", " +
                                        std::to_string(pr[1]) + ") of " + std::to_string(cells) +
                                        " cells");
        }
        entries.push_back({pr[0], pr[1]});
        entries.push_back({pr[1], pr[0]});
    }
    std::sort(entries.begin(), entries.end());
    if (std::adjacent_find(entries.begin(), entries.end()) != entries.end()) {
        throw std::invalid_argument("nnc_layout: a connection given twice");
    }
    NncArrays n;
    if (entries.empty()) return n;
    n.ptr.assign(static_cast<std::size_t>(cells) + 1, 0);
    for (const auto& e : entries) ++n.ptr[e[0] + 1];
    for (index_t m = 0; m < cells; ++m) n.ptr[m + 1] += n.ptr[m];
    n.col.resize(entries.size());
    for (std::size_t e = 0; e < entries.size(); ++e) n.col[e] = entries[e][1];
    n.mirror.resize(entries.size());
    for (std::size_t e = 0; e < entries.size(); ++e) {  // entry (col, row) in row col
        const index_t row = entries[e][1];
        const auto begin = n.col.begin() + n.ptr[row], end = n.col.begin() + n.ptr[row + 1];
        n.mirror[e] = std::lower_bound(begin, end, entries[e][0]) - n.col.begin();
    }
    n.vals.assign(entries.size() * static_cast<std::size_t>(K) * K, 0.0);
    return n;
}

NncArrays nnc_window(const NncArrays& whole, int K, index_t first, index_t count,
                     std::vector<index_t>* source) {
    NncArrays w;
    if (source != nullptr) source->clear();
    if (whole.empty()) return w;
    const index_t end = first + count;
    if (first < 0 || count < 0 || end + 1 > static_cast<index_t>(whole.ptr.size())) {
        throw std::invalid_argument("nnc_window: cells [" + std::to_string(first) + ", " +
                                    std::to_string(end) + ") of " +
                                    std::to_string(whole.ptr.size() - 1));
    }
    std::vector<index_t> kept;  // the kept entries of whole, in row order
    w.ptr.assign(static_cast<std::size_t>(count) + 1, 0);
    for (index_t m = first; m < end; ++m) {
        for (index_t e = whole.ptr[m]; e < whole.ptr[m + 1]; ++e) {
            if (whole.col[e] >= first && whole.col[e] < end) kept.push_back(e);
        }
        w.ptr[m - first + 1] = static_cast<index_t>(kept.size());
    }
    if (kept.empty()) return NncArrays{};
    // Each kept entry's place, for the mirrors (a kept entry's mirror is kept: both cells lie
    // inside).
    std::vector<index_t> place(static_cast<std::size_t>(whole.num_entries()), -1);
    for (std::size_t e = 0; e < kept.size(); ++e) place[kept[e]] = static_cast<index_t>(e);
    const auto block = static_cast<std::size_t>(K) * K;
    w.col.resize(kept.size());
    w.mirror.resize(kept.size());
    w.vals.resize(kept.size() * block);
    for (std::size_t e = 0; e < kept.size(); ++e) {
        w.col[e] = whole.col[kept[e]] - first;
        w.mirror[e] = place[whole.mirror[kept[e]]];
        std::copy_n(whole.vals.begin() + kept[e] * block, block, w.vals.begin() + e * block);
    }
    if (source != nullptr) *source = std::move(kept);
    return w;
}

GHMatrix planes_of(const GHMatrix& A, int first, int count) {
    if (first < 0 || count < 1 || first + count > A.nx()) {
        throw std::invalid_argument("planes_of: planes [" + std::to_string(first) + ", " +
                                    std::to_string(first + count) + ") of " +
                                    std::to_string(A.nx()));
    }
    const int K = A.block_size();
    GHMatrix own(count, A.ny(), A.nz(), K);
    const index_t plane = static_cast<index_t>(A.ny()) * A.nz();
    const index_t Ma = A.num_cells(), Mo = own.num_cells(), shift = first * plane;
    const index_t entries = static_cast<index_t>(kStencilSize) * K * K;
    for (index_t e = 0; e < entries; ++e) {
        std::copy_n(A.bdia().begin() + e * Ma + shift, Mo, own.bdia().begin() + e * Mo);
    }
    WellArrays w = A.wells();
    for (index_t& c : w.cell0) {
        if (c < shift || c >= shift + Mo) {
            throw std::invalid_argument("planes_of: a well's column lies outside the planes");
        }
        c -= shift;
    }
    if (!w.well_of_column.empty()) {
        const auto columns = static_cast<std::ptrdiff_t>(shift / A.nz());
        w.well_of_column.erase(w.well_of_column.begin(), w.well_of_column.begin() + columns);
        w.well_of_column.resize(static_cast<std::size_t>(count) * A.ny());
    }
    own.set_wells(std::move(w));
    return own;
}

GHMatrix::GHMatrix(int nx, int ny, int nz, int block_size)
    : nx_(nx), ny_(ny), nz_(nz), k_(block_size) {
    // Internal invariants: decks are validated where their values are read (Grid3D,
    // the generators), so these are programming errors, not input errors.
    if (nx < 1 || ny < 1 || nz < 1 || block_size < 1 || block_size > kMaxBlockSize) {
        throw std::invalid_argument(
            "GHMatrix: grid " + std::to_string(nx) + " x " + std::to_string(ny) + " x " +
            std::to_string(nz) + ", K = " + std::to_string(block_size) +
            " (need >= 1 cells, K in 1.." + std::to_string(kMaxBlockSize) + ")");
    }
    bdia_.assign(static_cast<std::size_t>(kStencilSize) * k_ * k_ * num_cells(), 0.0);
}

void GHMatrix::set_wells(WellArrays wells) {
    const index_t nw = wells.num_wells();
    auto fail = [](const std::string& what) {
        throw std::invalid_argument("GHMatrix::set_wells: " + what);
    };
    if (static_cast<index_t>(wells.first.size()) != nw ||
        static_cast<index_t>(wells.cell0.size()) != nw ||
        static_cast<index_t>(wells.count.size()) != nw) {
        fail("well arrays first/cell0/count/d have different lengths");
    }
    const index_t values = wells.num_perforations() * k_;
    if (static_cast<index_t>(wells.w_vals.size()) != values ||
        static_cast<index_t>(wells.wt_vals.size()) != values) {
        fail("w_vals/wt_vals must hold K values per perforated cell");
    }
    const index_t columns = static_cast<index_t>(nx_) * ny_;
    if (nw > 0 && static_cast<index_t>(wells.well_of_column.size()) != columns) {
        fail("well_of_column must have nx ny entries");
    }
    for (index_t w = 0; w < nw; ++w) {
        const index_t c0 = wells.cell0[w], n = wells.count[w];
        if (n < 1 || c0 < 0 || c0 + n > num_cells() || c0 / nz_ != (c0 + n - 1) / nz_) {
            fail("well " + std::to_string(w) + " must perforate 1..nz cells of one column");
        }
        if (wells.first[w] < 0 || wells.first[w] + n * k_ > values) {
            fail("well " + std::to_string(w) + " values lie outside w_vals");
        }
        if (wells.well_of_column[c0 / nz_] != w) {
            fail("well_of_column does not map the column of well " + std::to_string(w));
        }
    }
    wells_ = std::move(wells);
}

void GHMatrix::set_nnc(NncArrays nnc) {
    auto fail = [](const std::string& what) {
        throw std::invalid_argument("GHMatrix::set_nnc: " + what);
    };
    const index_t M = num_cells(), entries = nnc.num_entries();
    if (entries == 0) {
        if (!nnc.ptr.empty() || !nnc.mirror.empty() || !nnc.vals.empty()) fail("stray arrays");
        nnc_ = NncArrays{};
        return;
    }
    if (static_cast<index_t>(nnc.ptr.size()) != M + 1 || nnc.ptr[0] != 0 || nnc.ptr[M] != entries ||
        static_cast<index_t>(nnc.mirror.size()) != entries ||
        static_cast<index_t>(nnc.vals.size()) != entries * k_ * k_) {
        fail("ptr must have M + 1 offsets to col's entries, mirror one and vals K K an entry");
    }
    const auto off = offsets();
    for (index_t m = 0; m < M; ++m) {
        if (nnc.ptr[m + 1] < nnc.ptr[m]) fail("ptr decreases at cell " + std::to_string(m));
        for (index_t e = nnc.ptr[m]; e < nnc.ptr[m + 1]; ++e) {
            const index_t n = nnc.col[e];
            if (n < 0 || n >= M || (e > nnc.ptr[m] && n <= nnc.col[e - 1])) {
                fail("row " + std::to_string(m) + "'s columns are not ascending cells");
            }
            for (int d = 0; d < kStencilSize; ++d) {
                if (has_neighbour(m, d) && n == m + off[d]) {
                    fail("entry (" + std::to_string(m) + ", " + std::to_string(n) +
                         ") is a stencil block");
                }
            }
            const index_t t = nnc.mirror[e];
            if (t < nnc.ptr[n] || t >= nnc.ptr[n + 1] || nnc.col[t] != m || nnc.mirror[t] != e) {
                fail("entry (" + std::to_string(m) + ", " + std::to_string(n) + ") has no mirror");
            }
        }
    }
    nnc_ = std::move(nnc);
}

index_t GHMatrix::h_nonzeros() const { return nonzeros(nx_, ny_, nz_, k_, 0, 0); }

index_t GHMatrix::nonzeros() const {
    return nonzeros(nx_, ny_, nz_, k_, wells_.num_perforations(), num_wells()) +
           nnc_.num_entries() * k_ * k_;
}

index_t GHMatrix::nonzeros(index_t x, index_t y, index_t z, int K, index_t perforations,
                           index_t wells) {
    return (7 * x * y * z - 2 * x * y - 2 * y * z - 2 * x * z) * K * K + 2 * K * perforations +
           wells;
}

std::vector<double>& GHMatrix::accumulation_for_writing() {
    accumulation_.resize(static_cast<std::size_t>(num_cells() * k_ * k_), 0.0);
    return accumulation_;
}

std::size_t GHMatrix::storage_bytes() const {
    const std::size_t nw = static_cast<std::size_t>(num_wells());
    return bdia_.size() * sizeof(double) + (wells_.w_vals.size() + wells_.wt_vals.size()) * 8 +
           nw * (3 * sizeof(index_t) + sizeof(double)) +
           wells_.well_of_column.size() * sizeof(std::int32_t) +
           (nnc_.ptr.size() + nnc_.col.size() + nnc_.mirror.size()) * sizeof(index_t) +
           nnc_.vals.size() * sizeof(double);
}

GHStructure::GHStructure(const GHMatrix& A)
    : nx(A.nx()),
      ny(A.ny()),
      nz(A.nz()),
      K(A.block_size()),
      first(A.wells().first),
      cell0(A.wells().cell0),
      count(A.wells().count),
      well_of_column(A.wells().well_of_column),
      nnc_ptr(A.nnc().ptr),
      nnc_col(A.nnc().col) {}

bool GHStructure::matches(const GHMatrix& A) const {
    const WellArrays& w = A.wells();
    return nx == A.nx() && ny == A.ny() && nz == A.nz() && K == A.block_size() &&
           first == w.first && cell0 == w.cell0 && count == w.count &&
           well_of_column == w.well_of_column && nnc_ptr == A.nnc().ptr && nnc_col == A.nnc().col;
}

void GHStructure::check(const GHMatrix& A, const char* who) const {
    if (!matches(A)) {
        throw std::invalid_argument(std::string(who) +
                                    ": the new matrix has another structure (grid, K, wells or "
                                    "non-neighbour connections) "
                                    "than the one the solver was set up for");
    }
}

bool same_structure(const GHMatrix& a, const GHMatrix& b) { return GHStructure(a).matches(b); }

void check_same_structure(const GHMatrix& a, const GHMatrix& b, const char* who) {
    GHStructure(a).check(b, who);
}

}  // namespace heptane
