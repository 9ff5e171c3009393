#pragma once
/// @file What the CPU CPR's two translation units share (core/precond/cpr.cpp: the pressure
/// system and the two stages; structured_mg.cpp: the multigrid): the part of a level a rank
/// works on, the agreement on setup errors, the first singular cell's error. Internal.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/base/canonical.hpp"
#include "core/base/errors.hpp"
#include "core/base/vector_ops.hpp"
#include "core/precond/cpr.hpp"

namespace heptane::cpr_detail {

// The canonical operations every loop of both files uses (`using namespace cpr_detail`).
using canonical::add;
using canonical::mul;
using canonical::sub;

inline bool parallel_for(index_t n) { return n >= vec::kParallelMin; }

/// The part of a level a cycle works on: every cell, column and well, or one rank's planes of
/// a split level (CprPlanes) and, on level 0, its wells; `read` the cells whose x it reads
/// (with the halo planes).
struct Part {
    index_t col0, col1;             ///< columns (i ny + j)
    index_t cell0, cell1;           ///< cells
    index_t read0, read1;           ///< cells read: the part and its halo planes
    const std::vector<int>* wells;  ///< null: all of them
    const CprLevelPart* split;      ///< null: the whole level
    /// The whole level's numbers of the vectors' cell 0, column 0 and wells (a rank's slab),
    /// which the setup's errors name.
    index_t cell_base = 0, col_base = 0;
    const std::vector<int>* well_numbers = nullptr;  ///< null: a well's index is its number
    Part(const GHMatrix& A, const CprPlanes* p, int level = 0)
        : split(p != nullptr ? p->part(level) : nullptr) {
        const index_t ny = A.ny(), plane = ny * A.nz();
        const int first = split != nullptr ? split->first_plane : 0;
        const int end = split != nullptr ? split->end_plane : A.nx();
        col0 = first * ny, col1 = end * ny;
        cell0 = first * plane, cell1 = end * plane;
        read0 = std::max(first - 1, 0) * plane, read1 = std::min(end + 1, A.nx()) * plane;
        wells = split != nullptr && level == 0 ? &p->wells : nullptr;
        if (split != nullptr) {
            cell_base = split->origin * plane, col_base = split->origin * ny;
            if (level == 0) well_numbers = &p->global_wells;
        }
    }
    /// Well w's number in the whole system.
    int well_number(int w) const {
        return well_numbers != nullptr ? (*well_numbers)[static_cast<std::size_t>(w)] : w;
    }
    template <class F>
    void each_well(int nw, F f) const {
        if (wells == nullptr) {
            for (int w = 0; w < nw; ++w) f(w);
        } else {
            for (int w : *wells) f(w);
        }
    }
    /// The halo planes of a vector of this level from the neighbouring ranks (split levels).
    void exchange(double* x) const {
        if (split != nullptr) split->exchange(x);
    }
    /// The coarse cells of this part's planes on the next level (g: this level's grid), in
    /// the indexing of the next level's vectors (`all`: their cells).
    std::array<index_t, 2> coarse_cells(const cpr::LevelGrid& g, index_t all) const {
        if (split == nullptr) return {0, all};
        const index_t coarse_plane = static_cast<index_t>(g.cy) * g.cz;
        return {(split->first_plane + g.sx) / g.fx * coarse_plane,
                (split->end_plane + g.sx + g.fx - 1) / g.fx * coarse_plane};
    }
};

/// A's connections as cpr_arith.hpp reads them (ptr null where A has none).
inline cpr::NncRef<index_t> nnc_ref(const GHMatrix& A) {
    if (!A.has_nnc()) return {nullptr, nullptr, nullptr};
    return {A.nnc().ptr.data(), A.nnc().col.data(), A.nnc().vals.data()};
}

/// Runs f; on one rank of a distributed setup (planes), every rank then learns of an
/// InputError any rank met (CprPlanes::agree throws it on all of them).
template <class F>
void agreed(const CprPlanes* planes, F f) {
    if (planes == nullptr) return f();
    std::optional<InputError> error;
    try {
        f();
    } catch (const InputError& e) {
        error = e;
    }
    planes->agree(error ? &*error : nullptr);
}

/// Throws the InputError of the first (lowest) cell `bad` marks (base: the whole level's
/// number of bad[0]).
inline void throw_first(const std::vector<char>& bad, const std::string& what, index_t base = 0) {
    const auto it = std::find(bad.begin(), bad.end(), 1);
    if (it == bad.end()) return;
    throw InputError(
        "solver.preconditioner",
        "cpr: " + what + " of cell " + std::to_string(base + (it - bad.begin())) + " is singular");
}

}  // namespace heptane::cpr_detail
