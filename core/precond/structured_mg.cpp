/// @file The CPU's structured multigrid of CPR's first stage (StructuredMg, core/precond/cpr.hpp):
/// the level grids, the Galerkin operators, the set-up of each level, the line smoothers and
/// the cycle, on the whole hierarchy or on a rank's planes of its split levels.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/base/errors.hpp"
#include "core/base/vector_ops.hpp"
#include "core/precond/block_arith.hpp"
#include "core/precond/cpr.hpp"
#include "core/precond/cpr_part.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane {

using namespace cpr_detail;  // Part, agreed, throw_first, parallel_for, add, mul, sub

// ---- structured multigrid ----------------------------------------------------------------

std::array<int, 3> coarse_dims(int nx, int ny, int nz, const std::array<int, 3>& f) {
    return {(nx + f[0] - 1) / f[0], (ny + f[1] - 1) / f[1], (nz + f[2] - 1) / f[2]};
}

std::vector<cpr::LevelGrid> mg_grids(int nx, int ny, int nz, const MgOptions& options) {
    std::vector<cpr::LevelGrid> grids;
    int n[3] = {nx, ny, nz};
    for (;;) {
        const long long cells = static_cast<long long>(n[0]) * n[1] * n[2];
        // level 0 (the only one with wells) is never inverted: a device kernel assembles the
        // dense coarsest from the 7 diagonals alone
        const bool small = !grids.empty() && cells <= options.coarsest_rows;
        const bool column = n[0] == 1 && n[1] == 1 && (options.factor[2] == 1 || n[2] == 1);
        cpr::LevelGrid g{n[0], n[1], n[2], 1, 1, 1, n[0], n[1], n[2]};
        if (small || column || static_cast<int>(grids.size()) + 1 >= options.max_levels) {
            grids.push_back(g);
            return grids;
        }
        int f[3];
        bool shrinks = false;
        for (int a = 0; a < 3; ++a) {
            f[a] = n[a] > 1 ? options.factor[a] : 1;
            shrinks |= f[a] > 1;
        }
        if (!shrinks) {  // one column and factor 1 in k: halve the column
            f[2] = 2;
        }
        g.fx = f[0], g.fy = f[1], g.fz = f[2];
        const auto c = coarse_dims(n[0], n[1], n[2], {f[0], f[1], f[2]});
        g.cx = c[0], g.cy = c[1], g.cz = c[2];
        grids.push_back(g);
        n[0] = c[0], n[1] = c[1], n[2] = c[2];
    }
}

namespace {

/// galerkin_coarse of A on grid g (its factors and coarse grid: A's and C's sizes) on the
/// coarse cells [c0, c1) (the others' rows are left as they are).
void galerkin_on(const GHMatrix& A, const cpr::LevelGrid& g, GHMatrix& C, index_t c0, index_t c1) {
    if (A.block_size() != 1 || C.block_size() != 1 || A.nx() != g.nx || A.ny() != g.ny ||
        A.nz() != g.nz || C.nx() != g.cx || C.ny() != g.cy || C.nz() != g.cz) {
        throw std::invalid_argument("galerkin_coarse: K = 1 and the level's grids expected");
    }
    const auto a = [&](int d, long long m) { return A.at(d, m, 0, 0); };
    const cpr::NncRef<index_t> nnc = nnc_ref(A);
#pragma omp parallel for schedule(static) if (parallel_for(c1 - c0))
    for (index_t mc = c0; mc < c1; ++mc) {
        double v[kStencilSize];
        cpr::galerkin_row(g, mc, a, nnc, v);
        for (int d = 0; d < kStencilSize; ++d)
            C.at(d, mc, 0, 0) = C.has_neighbour(mc, d) ? v[d] : 0.0;
    }
}

}  // namespace

void galerkin_coarse(const GHMatrix& A, const std::array<int, 3>& f, GHMatrix& C) {
    const auto dims = coarse_dims(A.nx(), A.ny(), A.nz(), f);
    const cpr::LevelGrid g{A.nx(), A.ny(), A.nz(), f[0], f[1], f[2], dims[0], dims[1], dims[2]};
    galerkin_on(A, g, C, 0, C.num_cells());
}

std::vector<cpr::LevelGrid> mg_slab_grids(const CprPlanes& planes, int ny, int nz,
                                          const MgOptions& options) {
    if (planes.nx <= 0) throw std::invalid_argument("mg_slab_grids: planes.nx not set");
    std::vector<cpr::LevelGrid> grids = mg_grids(planes.nx, ny, nz, options);
    const auto split = static_cast<int>(planes.levels.size());
    if (split >= static_cast<int>(grids.size())) {
        throw std::invalid_argument("StructuredMg: the coarsest level must run whole");
    }
    const auto slab_planes = [&](int l) {  // the planes of level l's slab
        const CprLevelPart& p = planes.levels[static_cast<std::size_t>(l)];
        return std::min(p.end_plane + p.origin + 1, grids[static_cast<std::size_t>(l)].nx) -
               p.origin;
    };
    for (int l = 0; l < split; ++l) {
        cpr::LevelGrid& g = grids[static_cast<std::size_t>(l)];
        const int origin = planes.levels[static_cast<std::size_t>(l)].origin;
        const int coarse_origin =
            l + 1 < split ? planes.levels[static_cast<std::size_t>(l) + 1].origin : 0;
        g.sx = origin - coarse_origin * g.fx;
        if (g.sx < 0) throw std::invalid_argument("StructuredMg: slabs not nested");
        g.nx = slab_planes(l);
        if (l + 1 < split) g.cx = slab_planes(l + 1);
    }
    return grids;
}

struct StructuredMg::Level {
    GHMatrix own;                            ///< the operator (levels > 0)
    const GHMatrix* A = nullptr;             ///< the operator of this level
    cpr::LevelGrid grid{};                   ///< its sizes and its factor to the next level
    std::vector<double> pinv;                ///< line pivot inverses, one per cell
    std::vector<double> inv_d;               ///< 1 / D per well (level 0)
    mutable std::vector<double> b, x, r, z;  ///< b, x: this level's problem (levels > 0)
    mutable std::vector<double> rc, dc;      ///< W-cycle: the second coarse problem
    std::vector<double> dense;               ///< coarsest: the inverse (row-major), or empty
    bool colour_coupled = false;             ///< nnc_joins_one_colour (level 0)
};

bool nnc_joins_one_colour(const GHMatrix& A) {
    const NncArrays& n = A.nnc();
    if (n.empty()) return false;
    const index_t nz = A.nz(), ny = A.ny();
    const auto colour = [&](index_t m) { return (m / nz / ny + m / nz % ny) % 2; };
    for (index_t m = 0; m < A.num_cells(); ++m) {
        for (index_t e = n.ptr[m]; e < n.ptr[m + 1]; ++e) {
            if (n.col[e] / nz != m / nz && colour(n.col[e]) == colour(m)) return true;
        }
    }
    return false;
}

StructuredMg::~StructuredMg() = default;
StructuredMg::StructuredMg(StructuredMg&&) noexcept = default;

StructuredMg::StructuredMg(const GHMatrix& A, const MgOptions& options, const CprPlanes* planes)
    : options_(options) {
    if (A.block_size() != 1) throw std::invalid_argument("StructuredMg: K = 1 expected");
    const auto grids = planes != nullptr ? mg_slab_grids(*planes, A.ny(), A.nz(), options_)
                                         : mg_grids(A.nx(), A.ny(), A.nz(), options_);
    if (grids[0].nx != A.nx()) throw std::invalid_argument("StructuredMg: not level 0's slab");
    for (std::size_t l = 0; l < grids.size(); ++l) {
        auto L = std::make_unique<Level>();
        L->grid = grids[l];
        if (l == 0) {
            L->A = &A;
            L->colour_coupled = nnc_joins_one_colour(A);
        } else {
            L->own = GHMatrix(grids[l].nx, grids[l].ny, grids[l].nz, 1);
            L->A = &L->own;  // the Level lives on the heap: the address stays
        }
        const auto rows = static_cast<std::size_t>(L->A->rows());
        L->r.assign(rows, 0.0);
        L->z.assign(rows, 0.0);
        L->pinv.assign(static_cast<std::size_t>(L->A->num_cells()), 0.0);
        if (l > 0) {
            L->b.assign(rows, 0.0);
            L->x.assign(rows, 0.0);
            if (options_.cycle == MgCycle::w) {
                L->rc.assign(rows, 0.0);
                L->dc.assign(rows, 0.0);
            }
        }
        levels_.push_back(std::move(L));
    }
    update(A, planes);
}

void StructuredMg::update(const GHMatrix& A, const CprPlanes* planes) {
    check_same_structure(*levels_[0]->A, A, "StructuredMg::update");
    levels_[0]->A = &A;
    // The split levels each rank's part (its columns and wells; the next level's operator
    // rows of its planes, the first whole level's gathered), then the whole levels' factors.
    const auto split = [&](int l) { return planes != nullptr && planes->part(l) != nullptr; };
    if (split(0)) agreed(planes, [&] { set_up_level(0, planes); });
    for (int l = 1; l < levels(); ++l) {
        const Level& F = *levels_[static_cast<std::size_t>(l) - 1];
        GHMatrix& C = levels_[static_cast<std::size_t>(l)]->own;
        if (!split(l - 1)) {
            galerkin_on(*F.A, F.grid, C, 0, C.num_cells());
            continue;
        }
        const auto cells = Part(*F.A, planes, l - 1).coarse_cells(F.grid, C.num_cells());
        galerkin_on(*F.A, F.grid, C, cells[0], cells[1]);
        if (split(l)) {
            agreed(planes, [&] { set_up_level(l, planes); });
        } else {
            for (int d = 0; d < kStencilSize; ++d)
                planes->gather(C.bdia().data() + d * C.num_cells());
        }
    }
    for (int l = 0; l < levels(); ++l) {
        if (!split(l)) set_up_level(l, nullptr);
    }
}

void StructuredMg::set_up_level(int l, const CprPlanes* planes) {
    Level& L = *levels_[static_cast<std::size_t>(l)];
    const GHMatrix& B = *L.A;
    const int nz = B.nz();
    const Part part(B, planes, l);
    const index_t columns = static_cast<index_t>(B.nx()) * B.ny();
    const auto a = [&](int d, long long m) { return B.at(d, m, 0, 0); };
    std::vector<char> bad(static_cast<std::size_t>(columns), 0);
#pragma omp parallel for schedule(static) if (parallel_for(part.cell1 - part.cell0))
    for (index_t col = part.col0; col < part.col1; ++col) {
        bad[col] = cpr::line_pivots(a, col * nz, nz, &L.pinv[col * nz]) ? 0 : 1;
    }
    const auto it = std::find(bad.begin(), bad.end(), 1);
    if (it != bad.end()) {
        throw InputError("solver.preconditioner",
                         "cpr: the line solve of multigrid level " + std::to_string(l) +
                             " has an unusable pivot in column " +
                             std::to_string(part.col_base + (it - bad.begin())));
    }
    if (l > 0 && l + 1 == levels() && B.rows() <= options_.coarsest_rows) {
        const auto n = static_cast<int>(B.rows());
        std::vector<double> a(static_cast<std::size_t>(n) * n, 0.0);
        const auto off = B.offsets();
        for (int i = 0; i < n; ++i)
            for (int d = 0; d < kStencilSize; ++d)
                if (B.has_neighbour(i, d))
                    a[static_cast<std::size_t>(i) * n + i + off[d]] = B.at(d, i, 0, 0);
        L.dense.resize(a.size());
        if (!cpr::dense_inverse(a.data(), L.dense.data(), n)) {
            throw InputError("solver.preconditioner", "cpr: the coarsest multigrid level (" +
                                                          std::to_string(l) + ") is singular");
        }
    }
    L.inv_d.resize(B.wells().d.size());
    part.each_well(static_cast<int>(L.inv_d.size()), [&](int w) {
        if (!cpr::usable_pivot(B.wells().d[w])) {
            throw InputError(
                "solver.preconditioner",
                "cpr: well " + std::to_string(part.well_number(w)) + " has a zero diagonal");
        }
        L.inv_d[w] = 1.0 / B.wells().d[w];
    });
}

const GHMatrix& StructuredMg::level(int l) const {
    return *levels_.at(static_cast<std::size_t>(l))->A;
}
const std::vector<double>& StructuredMg::pivots(int l) const {
    return levels_.at(static_cast<std::size_t>(l))->pinv;
}
const std::vector<double>& StructuredMg::well_inverses(int l) const {
    return levels_.at(static_cast<std::size_t>(l))->inv_d;
}

const std::vector<double>& StructuredMg::coarsest_inverse() const { return levels_.back()->dense; }

void StructuredMg::vcycle(const double* b, double* x) const { cycle(0, b, x); }

void StructuredMg::cycle_from(int l, const double* b, double* x) const {
    if (l < 0 || l >= levels()) throw std::invalid_argument("StructuredMg::cycle_from: no level");
    cycle(l, b, x);
}

namespace {

cpr::WellsRef<index_t> wells_ref(const GHMatrix& A) {
    const WellArrays& w = A.wells();
    if (A.num_wells() == 0)
        return {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0};
    return {
        w.well_of_column.data(), w.cell0.data(),   w.count.data(), w.first.data(),
        w.w_vals.data(),         w.wt_vals.data(), w.d.data(),     static_cast<int>(A.num_wells())};
}

}  // namespace

void StructuredMg::smooth(int l, const double* b, double* x, bool from_zero, double* r) const {
    sweep(l, b, x, from_zero, r, nullptr);
}

/// Columns whose line solves a CPU sweep runs side by side (2-core VM, docs/BENCHMARKS.md,
/// issue 24).
constexpr index_t kCprLineColumns = 4;

void StructuredMg::sweep(int l, const double* b, double* x, bool from_zero, double* r,
                         const CprPlanes* planes) const {
    const Level& L = *levels_.at(static_cast<std::size_t>(l));
    const GHMatrix& A = *L.A;
    const index_t M = A.num_cells();
    const int nx = A.nx(), ny = A.ny(), nz = A.nz();
    const Part part(A, planes, l);
    const bool parallel = parallel_for(part.cell1 - part.cell0);
    const bool coarsest = l + 1 == levels();
    const double omega = coarsest ? 1.0 : smoother_omega(options_);
    const double* lower = A.bdia().data() + 2 * M;  // diagonals 2 and 4 (K = 1)
    const double* upper = A.bdia().data() + 4 * M;
    const double* bd = A.bdia().data();
    const auto a = [bd, M](int d, long long m) { return bd[d * M + m]; };  // K = 1
    const cpr::WellsRef<index_t> wells = wells_ref(A);
    const cpr::NncRef<index_t> nnc = nnc_ref(A);
    long long off[7];
    cpr::stencil_offsets7(ny, nz, off);
    const auto halo = [&] { part.exchange(x); };  // a rank's neighbours' planes of x
    // x_col += omega T^{-1} r_col on the columns of `color` (-1: all); with `own_residual`,
    // r_col = b - A x computed first from the x of now (Gauss-Seidel), else r as it is. The
    // columns go in groups of up to kCprLineColumns of the colour: their rows, then their
    // line solves side by side (each a chain of dependent operations; cpr::line_solve1's
    // steps per column), then their x.
    const auto residual_rows = [&](index_t col) {  // cpr::cell_row's rows of column col
        bool has[7];
        cpr::stencil_has(nx, ny, nz, static_cast<int>(col / ny), static_cast<int>(col % ny), 0,
                         has);
        const int w = wells.well_of_column != nullptr ? wells.well_of_column[col] : -1;
        for (int k = 0; k < nz; ++k) {
            has[2] = k > 0, has[4] = k < nz - 1;
            const index_t m = col * nz + k;
            r[m] = sub(b[m], cpr::cell_row_at(a, off, has, m, x, wells, w, M, nnc));
        }
    };
    const auto in_colour = [&](index_t col, int color) {
        // the colour of the whole level's column (a slab's planes start at its origin)
        const index_t whole_col = part.col_base + col;
        return color < 0 || ((whole_col / ny) + (whole_col % ny)) % 2 == color;
    };
    const auto update = [&](int color, bool own_residual) {
        if (own_residual && L.colour_coupled) {  // the colour's rows first, then its columns
#pragma omp parallel for schedule(static) if (parallel)
            for (index_t col = part.col0; col < part.col1; ++col) {
                if (in_colour(col, color)) residual_rows(col);
            }
            own_residual = false;
        }
        constexpr index_t G = kCprLineColumns;
        const index_t blocks = (part.col1 - part.col0 + 2 * G - 1) / (2 * G);
        double* z = L.z.data();
        const double* pinv = L.pinv.data();
#pragma omp parallel for schedule(static) if (parallel)
        for (index_t blk = 0; blk < blocks; ++blk) {
            const index_t first = part.col0 + blk * 2 * G;
            const index_t last = std::min(part.col1, first + 2 * G);
            index_t cols[2 * G];
            int n = 0;
            for (index_t col = first; col < last; ++col) {
                if (in_colour(col, color)) cols[n++] = col;
            }
            for (int g0 = 0; g0 < n; g0 += static_cast<int>(G)) {
                const int g1 = std::min(n, g0 + static_cast<int>(G));
                if (own_residual) {
                    for (int q = g0; q < g1; ++q) residual_rows(cols[q]);
                }
                double g[G];
                for (int q = g0; q < g1; ++q) {
                    const index_t m = cols[q] * nz;
                    g[q - g0] = z[m] = cpr::line1_top(pinv[m], r[m]);
                }
                for (int k = 1; k < nz; ++k) {
                    for (int q = g0; q < g1; ++q) {
                        const index_t m = cols[q] * nz + k;
                        g[q - g0] = z[m] = cpr::line1_down(pinv[m], r[m], lower[m], g[q - g0]);
                    }
                }
                for (int k = nz - 2; k >= 0; --k) {
                    for (int q = g0; q < g1; ++q) {
                        const index_t m = cols[q] * nz + k;
                        g[q - g0] = z[m] = cpr::line1_up(z[m], pinv[m], upper[m], g[q - g0]);
                    }
                }
                for (int q = g0; q < g1; ++q) {
                    for (index_t m = cols[q] * nz; m < (cols[q] + 1) * nz; ++m) {
                        x[m] = add(x[m], mul(omega, z[m]));
                    }
                }
            }
        }
    };
    const auto update_wells = [&](bool own_residual) {  // x_w += omega r_w / D_w
        part.each_well(wells.nw, [&](int w) {
            const index_t q = M + w;
            if (own_residual) r[q] = sub(b[q], cpr::well_row(wells, w, M, x));
            x[q] = add(x[q], mul(omega, mul(L.inv_d[w], r[q])));
        });
    };
    if (from_zero) {
        std::fill(x + part.read0, x + part.read1, 0.0);
        part.each_well(wells.nw, [&](int w) { x[M + w] = 0.0; });
    }
    if (options_.smoother == MgSmoother::line_jacobi || coarsest) {
        // Jacobi: every column and well from the residual of the x before the sweep.
        if (from_zero) {
            std::copy(b + part.cell0, b + part.cell1, r + part.cell0);
            part.each_well(wells.nw, [&](int w) { r[M + w] = b[M + w]; });
        } else if (part.split == nullptr) {
            spmv(A, x, r);
#pragma omp parallel for schedule(static) if (parallel)
            for (index_t i = 0; i < A.rows(); ++i) r[i] = sub(b[i], r[i]);
        } else {  // the rank's rows, as spmv sums them
            halo();
#pragma omp parallel for schedule(static) if (parallel)
            for (index_t m = part.cell0; m < part.cell1; ++m)
                r[m] = sub(b[m], cpr::cell_row(a, nx, ny, nz, m, x, wells, nnc));
            part.each_well(wells.nw,
                           [&](int w) { r[M + w] = sub(b[M + w], cpr::well_row(wells, w, M, x)); });
        }
        update(-1, false);
        update_wells(false);
        return;
    }
    // Red-black Gauss-Seidel: the columns with i + j even, then the odd ones, then the wells,
    // each from the residual of the x of its turn (its own column's rows; a column's
    // neighbours across i and j have the other colour).
    if (!from_zero) halo();
    update(0, true);
    halo();
    update(1, true);
    update_wells(true);
}

void StructuredMg::vcycle(const double* b, double* x, const CprPlanes& planes) const {
    if (planes.levels.empty() || static_cast<int>(planes.levels.size()) >= levels()) {
        throw std::invalid_argument("StructuredMg::vcycle: the coarsest level must run whole");
    }
    cycle(0, b, x, &planes);
}

void StructuredMg::cycle(int l, const double* b, double* x, const CprPlanes* planes) const {
    const Level& L = *levels_[static_cast<std::size_t>(l)];
    const GHMatrix& A = *L.A;
    const index_t n = A.rows();
    double* r = L.r.data();
    if (!L.dense.empty()) {  // the coarsest, inverted
        const int rows = static_cast<int>(n);
#pragma omp parallel for schedule(static) if (parallel_for(n * n))
        for (int i = 0; i < rows; ++i) x[i] = cpr::dense_row(L.dense.data(), rows, i, b);
        return;
    }
    if (l + 1 == levels()) {  // one column: one exact line solve; else coarsest_sweeps
        const bool exact = A.nx() * A.ny() == 1 && A.num_wells() == 0;
        const int sweeps = exact ? 1 : options_.coarsest_sweeps;
        for (int s = 0; s < sweeps; ++s) smooth(l, b, x, s == 0, r);
        return;
    }
    const Part part(A, planes, l);
    const bool parallel = parallel_for(part.cell1 - part.cell0);
    for (int s = 0; s < options_.pre_sweeps; ++s) sweep(l, b, x, s == 0, r, planes);
    if (options_.pre_sweeps == 0) {
        std::fill(x + part.read0, x + part.read1, 0.0);
        part.each_well(A.num_wells(), [&](int w) { x[A.num_cells() + w] = 0.0; });
    }
    part.exchange(x);  // the rows below read the halo planes
    // Restrict the cells' residual (the wells stay on level 0): each aggregate's sum of
    // b - A x, the rows computed there; a rank its own planes' aggregates.
    const Level& C = *levels_[static_cast<std::size_t>(l) + 1];
    const cpr::LevelGrid& g = L.grid;
    const index_t nc = C.A->num_cells();
    // Not a structured binding: OpenMP's outlined region captures c0, c1, and capturing a
    // binding is C++20 (clang refuses it in C++17).
    const std::array<index_t, 2> coarse = part.coarse_cells(g, nc);
    const index_t c0 = coarse[0], c1 = coarse[1];
    double* bc = C.b.data();
    const double* bd = A.bdia().data();
    const index_t M = A.num_cells();
    const auto a = [bd, M](int d, long long m) { return bd[d * M + m]; };  // K = 1
    const cpr::WellsRef<index_t> wells = wells_ref(A);
    const cpr::NncRef<index_t> nnc = nnc_ref(A);
    long long off[7];
    cpr::stencil_offsets7(g.ny, g.nz, off);
#pragma omp parallel for schedule(static) if (parallel)
    for (index_t c = c0; c < c1; ++c) {
        const int kc = static_cast<int>(c % g.cz), jc = static_cast<int>((c / g.cz) % g.cy);
        const int ic = static_cast<int>(c / (static_cast<index_t>(g.cz) * g.cy));
        double v = 0.0;
        cpr::each_member(g, ic, jc, kc, [&](int i, int j, int k) {  // cpr::cell_row's rows
            const long long m = cpr::cell_index(i, j, k, g.ny, g.nz);
            bool has[7];
            cpr::stencil_has(g.nx, g.ny, g.nz, i, j, k, has);
            const int w = wells.well_of_column != nullptr
                              ? wells.well_of_column[static_cast<index_t>(i) * g.ny + j]
                              : -1;
            v = add(v, sub(b[m], cpr::cell_row_at(a, off, has, m, x, wells, w, M, nnc)));
        });
        bc[c] = v;
    }
    // The next level split too, or the first whole one: the other ranks' planes gathered.
    const bool coarse_split = planes != nullptr && planes->part(l + 1) != nullptr;
    if (part.split != nullptr && !coarse_split) planes->gather(bc);
    double* xc = C.x.data();
    cycle(l + 1, bc, xc, coarse_split ? planes : nullptr);
    if (options_.cycle == MgCycle::w && l + 2 < levels()) {  // the coarse problem again
        if (coarse_split) throw std::logic_error("StructuredMg: a W-cycle splits level 0 only");
        double* rc = C.rc.data();
        double* dc = C.dc.data();
        spmv(*C.A, xc, rc);
        for (index_t i = 0; i < nc; ++i) rc[i] = sub(bc[i], rc[i]);
        cycle(l + 1, rc, dc);
        for (index_t i = 0; i < nc; ++i) xc[i] = add(xc[i], dc[i]);
    }
    const double alpha = options_.coarse_scale;
#pragma omp parallel for schedule(static) if (parallel)
    for (index_t col = part.col0; col < part.col1; ++col) {  // x += alpha P x_c, a column a time
        const int i = static_cast<int>(col / g.ny), j = static_cast<int>(col % g.ny);
        const long long c0 = cpr::coarse_of(g, i, j, 0);  // the column's coarse cells: c0 + k / fz
        for (int k = 0; k < g.nz; ++k) {
            const index_t m = col * g.nz + k;
            x[m] = add(x[m], mul(alpha, xc[c0 + k / g.fz]));
        }
    }
    for (int s = 0; s < options_.post_sweeps; ++s) sweep(l, b, x, false, r, planes);
}

}  // namespace heptane
