#pragma once
/// @file The generalized hepta-diagonal (GH) matrix: Bdia + compact well arrays
/// (DESIGN section 3; seed 002 sections 5.3, 6.1 and 6.2).
///
///     GH = [ H    W^T ]   H:     (M K) x (M K), 7 block diagonals of K x K blocks
///          [ W    D   ]   W:     Nw x (M K),   the well rows
///                         W^T:   (M K) x Nw,   the well columns (not the transpose of W:
///                                              its values are d eq_cell / d p_bh)
///                         D:     Nw x Nw diagonal
///
/// Unknowns: the M K cell unknowns (cell m, component c at m K + c), then Nw well unknowns.
/// H may also hold blocks outside the stencil, the non-neighbour connections of a faulted
/// grid (NncArrays, design decision 63).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/canonical.hpp"  // HEPTANE_HD
#include "core/base/types.hpp"

namespace heptane {

/// Whether cell m of an nx x ny x nz grid (k-fastest numbering) has a neighbour across
/// stencil diagonal d (0..6: -i, -j, -k, self, +k, +j, +i). The one boundary test every
/// module uses: Bdia blocks without a neighbour are padding.
HEPTANE_HD inline bool stencil_has_neighbour(int nx, int ny, int nz, index_t m, int d) {
    switch (d) {
        case 0:
            return m >= static_cast<index_t>(nz) * ny;
        case 1:
            return (m / nz) % ny > 0;
        case 2:
            return m % nz > 0;
        case 3:
            return true;
        case 4:
            return m % nz < nz - 1;
        case 5:
            return (m / nz) % ny < ny - 1;
        case 6:
            return m < (static_cast<index_t>(nx) - 1) * nz * ny;
        default:
            return false;
    }
}

/// stencil_has_neighbour for all seven diagonals at once: bit d set where there is a
/// neighbour. One division chain a cell (a kernel's 64-bit divisions are costly).
HEPTANE_HD inline unsigned stencil_neighbour_mask(int nx, int ny, int nz, index_t m) {
    const index_t column = m / nz, i = column / ny;
    const index_t k = m - column * nz, j = column - i * ny;
    unsigned mask = 1u << kCenter;
    if (i > 0) mask |= 1u << 0;
    if (j > 0) mask |= 1u << 1;
    if (k > 0) mask |= 1u << 2;
    if (k < nz - 1) mask |= 1u << 4;
    if (j < ny - 1) mask |= 1u << 5;
    if (i < nx - 1) mask |= 1u << 6;
    return mask;
}

/// Block-column offsets of the 7 diagonals: (-nz ny, -nz, -1, 0, +1, +nz, +nz ny).
inline std::array<index_t, kStencilSize> stencil_offsets(int ny, int nz) {
    const index_t col = static_cast<index_t>(nz) * ny;
    return {-col, -static_cast<index_t>(nz), -1, 0, 1, static_cast<index_t>(nz), col};
}

/// Compact storage of the well parts (seed 002 section 6.2). Each well is vertical with one
/// contiguous perforation interval, so its perforated cells are consecutive (k-fastest
/// ordering). For well w and its l-th perforated cell (cell0[w] + l), component c:
///   w_vals [first[w] + l K + c] = d eq_w / d x(cell0[w] + l, c)       (row of W)
///   wt_vals[first[w] + l K + c] = d eq(cell0[w] + l, c) / d p_bh(w)   (column of W^T)
///   d[w]                        = d eq_w / d p_bh(w)
/// A cell row finds its well in O(1): well_of_column[m / nz] (= i ny + j) is the well id of
/// the cell's (i, j) column or -1; wells may not share a column.
struct WellArrays {
    std::vector<index_t> first;                ///< offset of well w's values (in values)
    std::vector<index_t> cell0;                ///< first perforated cell of well w
    std::vector<index_t> count;                ///< number of perforated cells of well w
    std::vector<double> w_vals;                ///< K values per perforated cell (row of W)
    std::vector<double> wt_vals;               ///< K values per perforated cell (col of W^T)
    std::vector<double> d;                     ///< diagonal D, one per well
    std::vector<std::int32_t> well_of_column;  ///< nx ny entries (empty when Nw = 0)

    index_t num_wells() const { return static_cast<index_t>(d.size()); }
    /// Total perforated cells over all wells.
    index_t num_perforations() const;
};

/// Non-neighbour connections (design decision 63): cell-to-cell blocks outside the 7-point
/// stencil, where a fault's throw puts a cell against cells of other layers of the next
/// column (grid/corner_point.hpp). Stored by cell row, each connection in both of its rows:
/// row m's entries e in [ptr[m], ptr[m + 1]) with columns col[e] ascending, the K x K block of
/// entry e at vals[e K K], (r, c) at vals[(e K + r) K + c]; mirror[e] is the entry of the
/// same connection in row col[e] (what the transposed product reads). A cell's row sums add
/// these terms after its stencil terms and before its well term.
struct NncArrays {
    std::vector<index_t> ptr;     ///< M + 1 offsets into col (empty: no connections)
    std::vector<index_t> col;     ///< the other cell of each entry
    std::vector<index_t> mirror;  ///< the entry (col[e], m) of entry e = (m, col[e])
    std::vector<double> vals;     ///< K K values an entry

    index_t num_entries() const { return static_cast<index_t>(col.size()); }
    bool empty() const { return col.empty(); }
};

/// The layout of the connections between the cell pairs `pairs` (each pair once, in either
/// order and any sequence) of an M-cell system with K x K blocks, its values zero
/// (std::invalid_argument for a cell out of range, a cell paired with itself or a pair twice).
NncArrays nnc_layout(index_t cells, int K, const std::vector<std::array<index_t, 2>>& pairs);

/// The connections of `whole` (K x K blocks) between the cells [first, first + count), their
/// cells renumbered from `first`: a window of i-planes (a rank's slab). Every kept entry keeps
/// its place in its row's order and its values; `source` (when not null) receives each kept
/// entry's entry in `whole`. Empty when no connection lies inside.
NncArrays nnc_window(const NncArrays& whole, int K, index_t first, index_t count,
                     std::vector<index_t>* source = nullptr);

/// The wells of a slab of i-planes (a rank's part of a distributed system): of `whole` (a
/// grid of ny x nz cells a plane, K values a perforated cell), the wells whose column lies in
/// the planes [own_first, own_end), in their global order, their cells shifted to a slab that
/// starts at plane `slab_first` and has `slab_planes` planes (well_of_column over its columns,
/// empty without wells). `global` (when not null) receives their global numbers.
WellArrays slab_wells(const WellArrays& whole, int ny, int nz, int K, int slab_first,
                      int slab_planes, int own_first, int own_end, std::vector<int>* global);

/// Bdia + wells. Bdia layout (DESIGN section 3): value (row r, col c) of the block of
/// diagonal d at block row m is bdia()[((d K + r) K + c) M + m] - cell fastest, so a warp
/// reading one (d, r, c) entry for 32 consecutive cells is coalesced. Blocks whose neighbour
/// lies outside the grid are zero padding and are never read by the reference kernels.
class GHMatrix {
  public:
    GHMatrix() = default;
    /// Zero matrix on an nx x ny x nz grid with K x K blocks and no wells
    /// (std::invalid_argument for an empty grid or K outside 1..kMaxBlockSize).
    GHMatrix(int nx, int ny, int nz, int block_size);

    int nx() const { return nx_; }
    int ny() const { return ny_; }
    int nz() const { return nz_; }
    int block_size() const { return k_; }
    index_t num_cells() const { return static_cast<index_t>(nx_) * ny_ * nz_; }
    index_t num_wells() const { return wells_.num_wells(); }
    /// M K: the number of cell unknowns.
    index_t cell_unknowns() const { return num_cells() * k_; }
    /// M K + Nw: the order of GH.
    index_t rows() const { return cell_unknowns() + num_wells(); }

    /// Block-column offsets of the 7 diagonals: (-nz ny, -nz, -1, 0, +1, +nz, +nz ny).
    std::array<index_t, kStencilSize> offsets() const { return stencil_offsets(ny_, nz_); }
    /// Whether block (m, m + offsets()[d]) lies inside the grid (not padding).
    bool has_neighbour(index_t m, int d) const {
        return stencil_has_neighbour(nx_, ny_, nz_, m, d);
    }

    index_t bdia_index(int d, int r, int c, index_t m) const {
        return ((static_cast<index_t>(d) * k_ + r) * k_ + c) * num_cells() + m;
    }
    double& at(int d, index_t m, int r, int c) { return bdia_[bdia_index(d, r, c, m)]; }
    double at(int d, index_t m, int r, int c) const { return bdia_[bdia_index(d, r, c, m)]; }

    std::vector<double>& bdia() { return bdia_; }
    const std::vector<double>& bdia() const { return bdia_; }
    const WellArrays& wells() const { return wells_; }
    /// Mutable well arrays: change values (w_vals, wt_vals, d) in place; change the layout
    /// only through set_wells, which checks it.
    WellArrays& wells() { return wells_; }
    /// Installs the well arrays after checking their sizes and ranges
    /// (std::invalid_argument: inconsistent arrays are a programming error).
    void set_wells(WellArrays wells);

    /// The non-neighbour connections (empty for a 7-point system). Values change in place;
    /// the layout only through set_nnc, which checks it.
    bool has_nnc() const { return !nnc_.empty(); }
    const NncArrays& nnc() const { return nnc_; }
    NncArrays& nnc() { return nnc_; }
    /// Installs connections after checking their layout (nnc_layout's; std::invalid_argument
    /// for arrays of other sizes, an entry on a stencil block or a mirror that is not one).
    void set_nnc(NncArrays nnc);

    /// The accumulation term's part of each cell's diagonal block (d acc_m / d x_m, scaled as
    /// the residual; flux and well terms excluded), for CPR's true-IMPES weights (design
    /// decision 36). Same layout as the centre diagonal of Bdia: (r, c) of cell m at
    /// ((r K + c) M + m). Empty unless the system's assembler knows it (the two-phase model
    /// does; synthetic systems and systems read from files do not).
    bool has_accumulation() const { return !accumulation_.empty(); }
    const std::vector<double>& accumulation() const { return accumulation_; }
    double accumulation_at(index_t m, int r, int c) const {
        return accumulation_[(static_cast<index_t>(r) * k_ + c) * num_cells() + m];
    }
    /// Sizes the accumulation blocks (M K^2 zeros) on first use; returns them for writing.
    std::vector<double>& accumulation_for_writing();

    /// Structural nonzeros of H (padding excluded): (7 nx ny nz - 2 nx ny - 2 ny nz
    /// - 2 nx nz) K^2 (seed 002 section 5.3).
    index_t h_nonzeros() const;
    /// Structural nonzeros of GH: h_nonzeros() + 2 K (perforated cells) + Nw + K^2 (entries
    /// of the non-neighbour connections).
    index_t nonzeros() const;
    /// The same for a system of these dimensions, perforations and wells (one a distributed
    /// run holds no rank of whole).
    static index_t nonzeros(index_t nx, index_t ny, index_t nz, int K, index_t perforations,
                            index_t wells);
    /// Bytes of Bdia (padding included) plus the compact well arrays (8-byte values and
    /// indices, 4-byte column map) and the connections' arrays.
    std::size_t storage_bytes() const;

  private:
    int nx_ = 0, ny_ = 0, nz_ = 0, k_ = 0;
    std::vector<double> bdia_;
    WellArrays wells_;
    NncArrays nnc_;
    std::vector<double> accumulation_;
};

/// The i-planes [first, first + count) of A as a matrix of their own, with every one of A's
/// wells (std::invalid_argument when a well's column lies outside them). The blocks that
/// couple the planes to those left out stay in Bdia, where nothing reads them (a grid's
/// boundary blocks are padding): what a preconditioner whose blocks lie inside the planes is
/// factored on (a rank's owned planes, without its halo planes). A's non-neighbour
/// connections are not copied (such factors read the stencil's blocks only).
GHMatrix planes_of(const GHMatrix& A, int first, int count);

/// The structure of a GH matrix: grid, K, well layout (first, cell0, count,
/// well_of_column) and the connections' layout (ptr, col), everything but the values. A solver set
/// up for one matrix runs on any matrix of the same structure (GPU solvers keep this, not the
/// matrix).
struct GHStructure {
    int nx = 0, ny = 0, nz = 0, K = 0;
    std::vector<index_t> first, cell0, count;
    std::vector<std::int32_t> well_of_column;
    std::vector<index_t> nnc_ptr, nnc_col;

    explicit GHStructure(const GHMatrix& A);
    bool matches(const GHMatrix& A) const;
    /// std::invalid_argument naming `who` unless matches(A).
    void check(const GHMatrix& A, const char* who) const;
};

/// Whether a and b have the same structure (GHStructure): only their values may differ.
bool same_structure(const GHMatrix& a, const GHMatrix& b);
/// std::invalid_argument naming `who` unless same_structure(a, b).
void check_same_structure(const GHMatrix& a, const GHMatrix& b, const char* who);

/// A linear system GH x = b with the names that give its unknowns meaning.
struct GHSystem {
    GHMatrix matrix;
    std::vector<double> rhs;                   ///< b, size matrix.rows()
    std::vector<std::string> component_names;  ///< K names of the cell unknowns (e.g. dp, dSw)
    std::vector<std::string> well_names;       ///< Nw names
};

}  // namespace heptane
