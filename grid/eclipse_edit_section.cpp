// The EDIT section's PORV and TRANX/Y/Z edits (grid/eclipse_edit_section.hpp, design decision
// 72).
#include "grid/eclipse_edit_section.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <sstream>
#include <string>

#include "core/base/errors.hpp"
#include "grid/eclipse_units.hpp"
#include "grid/transmissibility.hpp"

namespace heptane::grid::detail {
namespace {

/// One EDIT-section edit's operation (EclipseGridData::ComputedEdit::op) on a computed value
/// [SI]; `unit` converts the record's value to SI (a factor has none).
double edited(char op, double current, double value, double unit) {
    switch (op) {
        case '*':
            return current * value;
        case '+':
            return current + value * unit;
        case '>':
            return std::max(current, value * unit);
        case '<':
            return std::min(current, value * unit);
        default:
            return value * unit;
    }
}

/// "file:line: KEYWORD: ARRAY of cell (i, j, k) is V after the edit; it must be >= 0" (ADD's
/// negative constant is the one way to get there).
[[noreturn]] void negative_after_edit(const Grid3D& g, const EclipseGridSpec& spec,
                                      const EclipseGridData::ComputedEdit& e, index_t m,
                                      double value) {
    std::ostringstream v;
    v << value;
    throw InputError(spec.key, e.where + ": " + e.array + " of cell " + cell_text(g, m) + " is " +
                                   v.str() + " after the edit; it must be >= 0");
}

}  // namespace

void apply_pore_volume_edits(const Grid3D& g, const EclipseGridSpec& spec, const EclipseGridData& d,
                             const std::vector<std::uint8_t>& actnum,
                             std::vector<double>& pore_volume, std::vector<std::uint8_t>& set) {
    const double unit = pore_volume_unit(spec, d);
    for (const EclipseGridData::ComputedEdit& e : d.computed_edits) {
        if (e.array != "PORV") continue;
        if (set.empty()) set.assign(pore_volume.size(), 0);
        for (std::size_t q = 0; q < e.cells.size(); ++q) {
            const index_t m = eclipse_to_cell(g, static_cast<index_t>(e.cells[q]));
            const auto c = static_cast<std::size_t>(m);
            if (!actnum[c]) continue;
            pore_volume[c] = edited(e.op, pore_volume[c], e.value(q), unit);
            if (pore_volume[c] < 0.0) negative_after_edit(g, spec, e, m, pore_volume[c] / unit);
            if (pore_volume[c] > 0.0 && !(g.volume(m) > 0.0)) {
                throw InputError(spec.key, e.where + ": gives cell " + cell_text(g, m) +
                                               " pore volume, but the cell has no bulk volume");
            }
            set[c] = 1;
        }
    }
}

void apply_transmissibility_edits(const Grid3D& g, const EclipseGridSpec& spec,
                                  const EclipseGridData& d, RockFields& rock) {
    const auto is_tran = [](const EclipseGridData::ComputedEdit& e) { return e.array != "PORV"; };
    if (std::none_of(d.computed_edits.begin(), d.computed_edits.end(), is_tran)) return;
    const Transmissibilities computed = tpfa_transmissibilities(g, rock);
    const double unit = transmissibility_unit(spec, d);
    std::vector<double>* out[3] = {&rock.tx_edited, &rock.ty_edited, &rock.tz_edited};
    const std::vector<double>* from[3] = {&computed.tx, &computed.ty, &computed.tz};
    const int size[3] = {g.nx, g.ny, g.nz};
    const index_t step[3] = {static_cast<index_t>(g.ny) * g.nz, g.nz, 1};
    const bool corner_point = g.geometry != nullptr && g.geometry->corner_point();
    const auto shared = [&](index_t m, int axis) {  // the +axis face of m meets its neighbour
        return !corner_point ||
               g.geometry->half[6 * static_cast<std::size_t>(m) + 2 * axis + 1] > 0.0;
    };
    for (const EclipseGridData::ComputedEdit& e : d.computed_edits) {
        if (!is_tran(e)) continue;
        const int axis = e.array[4] - 'X';
        std::vector<double>& t = *out[axis];
        if (t.empty()) t.assign(from[axis]->size(), std::numeric_limits<double>::quiet_NaN());
        for (std::size_t q = 0; q < e.cells.size(); ++q) {
            const index_t m = eclipse_to_cell(g, static_cast<index_t>(e.cells[q]));
            if (g.ijk(m)[axis] + 1 >= size[axis] || !rock.is_active(m) ||
                !rock.is_active(m + step[axis]) || !shared(m, axis)) {
                continue;
            }
            const auto c = static_cast<std::size_t>(m);
            t[c] = edited(e.op, std::isnan(t[c]) ? (*from[axis])[c] : t[c], e.value(q), unit);
            if (t[c] < 0.0) negative_after_edit(g, spec, e, m, t[c] / unit);
        }
    }
}

}  // namespace heptane::grid::detail
