#pragma once
/// @file A reservoir as Eclipse GRID-section files describe it (deck key grid.eclipse, issue
/// 20): the cells' sizes and depths (DX, DY, DZ, TOPS), which cells are active (ACTNUM and
/// pore volume), and the rock (PERMX/Y/Z, PORO, NTG, MULTPV, the face multipliers MULTX/Y/Z,
/// MULTX-/Y-/Z- and FAULTS with MULTFLT). Design decision 35.
#include <cmath>
#include <string>
#include <vector>

#include "core/base/errors.hpp"
#include "grid/eclipse_grid.hpp"
#include "grid/grid3d.hpp"
#include "grid/rock.hpp"

namespace heptane::grid {

/// Eclipse-ordered `values` (i fastest) as a k-fastest field times `scale`. Each value of a
/// cell that `check(m)` selects must pass `rule`; the first that does not is an
/// InputError(key, "SOURCE: NAME of cell (i, j, k) = (...) is V; it must be REQUIREMENT"),
/// V "not given" for a cell no keyword set (NaN). The one conversion of grid.eclipse and of
/// the rock fields of kind eclipse.
template <class Check, class Rule>
std::vector<double> eclipse_to_cells(const Grid3D& g, const std::string& key,
                                     const std::string& source, const std::string& name,
                                     const std::vector<double>& values, double scale, Check check,
                                     Rule rule, const char* requirement) {
    std::vector<double> out(values.size());
    for (index_t n = 0; n < static_cast<index_t>(values.size()); ++n) {
        const index_t m = eclipse_to_cell(g, n);
        const double v = values[static_cast<std::size_t>(n)];
        if (check(m) && !rule(v)) {
            throw InputError(key,
                             source + ": " + name + " of cell " + cell_text(g, m) + " is " +
                                 (std::isnan(v) ? std::string("not given") : std::to_string(v)) +
                                 "; it must be " + requirement);
        }
        out[static_cast<std::size_t>(m)] = v * scale;
    }
    return out;
}

/// The deck's grid.eclipse: files read in order as one GRID section.
struct EclipseGridSpec {
    std::vector<std::string> files;
    std::string key = "grid.eclipse";
    double length_unit = 1.0;    ///< [m] per length of a file that does not say its units
    bool has_cell_size = false;  ///< the deck also gave grid.cell_size
    bool has_depth = false;      ///< the deck also gave grid.depth
    bool empty() const { return files.empty(); }
};

/// Reads spec.files for grid's dims and gives `grid` the files' geometry:
/// - DX, DY, DZ (all three or none; none: grid.cell_size) in the file's units (RUNSPEC FIELD:
///   ft, METRIC: m, LAB: cm; else the deck's), finite and >= 0 in every cell (a cell of
///   size 0 has no pore volume: inactive);
/// - TOPS (none: grid.depth): a cell's top is its TOPS, or where that is not given, the top
///   of the cell above plus its DZ; the centre is top + DZ / 2.
/// When every cell has one size and each layer one top (top + the layers above), the grid
/// stays uniform (dx, dy, dz, top_depth): results are then bitwise those of the same grid
/// given in YAML. Otherwise grid.geometry holds each cell's. Throws InputError(spec.key,
/// "file:line: ...") for file errors and for a quantity given both in a file and in the deck.
EclipseGridData read_grid_files(Grid3D& grid, const EclipseGridSpec& spec);

/// Fills `rock` from the files' arrays where they give them (see build_rock):
/// PERMX, PERMY, PERMZ (all three, mD) unless the deck gave rock.permeability, PORO unless
/// it gave rock.porosity; NTG (default 1) multiplies porosity and the horizontal
/// permeabilities (OPM's rule), MULTPV (default 1) porosity; the face multipliers are MULTX/Y/Z
/// of the face's minus-side cell times MULTX-/Y-/Z- of its plus-side cell times each MULTFLT
/// of a fault face it is (all >= 0). A cell is
/// active when ACTNUM (default 1) is not 0 and its pore volume PORO NTG MULTPV V is > 0; inactive
/// cells get permeability and porosity 0. `permeability_given` / `porosity_given`: the deck
/// gave that field, so the files may not (InputError naming both).
void apply_eclipse_rock(const Grid3D& grid, const EclipseGridSpec& spec,
                        const EclipseGridData& data, bool permeability_given, bool porosity_given,
                        RockFields& rock);

}  // namespace heptane::grid
