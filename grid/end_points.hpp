#pragma once
/// @file End-point scaling (design decision 95): each cell's own saturation end points SWL,
/// SWCR, SWU and SOWCR, to which its region's table is scaled (grid/relperm.hpp's
/// CellRelPerm), from the YAML deck's rock.end_points or the grid.eclipse files' PROPS arrays
/// (with RUNSPEC's ENDSCALE).
#include <array>
#include <string>
#include <vector>

#include "grid/eclipse_grid.hpp"
#include "grid/eclipse_model.hpp"
#include "grid/grid3d.hpp"
#include "grid/relperm.hpp"
#include "grid/rock.hpp"
#include "grid/two_phase.hpp"

namespace heptane::grid {

/// The end points' Eclipse keywords, in RockFields::end_points' order.
inline constexpr std::array<const char*, 4> kEndPointKeywords = {"SWL", "SWCR", "SWU", "SOWCR"};

/// Where each cell's end points come from (rock.end_points' swl, swcr, swu, sowcr: a number,
/// layered, or an Eclipse file's keyword); `defaulted` where the deck gives none.
using EndPointSpecs = std::array<FieldSpec, 4>;

/// A saturation array's cells (an end point, SWATINIT; `keyword` its Eclipse name): from
/// `spec` unless defaulted, else from the grid.eclipse files' array where they have ENDSCALE
/// (without it an array they give is passed over, said in `notes`, as Eclipse passes it
/// over), else empty. An active cell's value must be in [0, 1] (InputError at the key naming
/// the cell), NaN (a cell an Eclipse file's keyword leaves unset) allowed. Giving it both ways
/// is an InputError at the spec.
std::vector<double> build_saturation_array(const Grid3D& grid, const FieldSpec& spec,
                                           const char* keyword, const RockFields& rock,
                                           const EclipseGridSpec* files,
                                           const EclipseGridData* eclipse,
                                           std::vector<std::string>& notes);

/// Each end point's cells (RockFields::end_points; build_saturation_array of each): from its spec
/// unless defaulted, else from the grid.eclipse files' array where they have ENDSCALE (without it
/// an array they give is passed over, said in `notes`, as Eclipse passes it over), else empty. An
/// active cell's value must be in [0, 1] (InputError at the key naming the cell), NaN (a cell an
/// Eclipse file's keyword leaves unset) taking its table's. Giving one both ways is an InputError
/// at the spec.
std::array<std::vector<double>, 4> build_end_points(const Grid3D& grid, const EndPointSpecs& specs,
                                                    const RockFields& rock,
                                                    const EclipseGridSpec* files,
                                                    const EclipseGridData* eclipse,
                                                    std::vector<std::string>& notes);

/// Each cell's end points (`out`, empty where rock gives none): rock.end_points, each NaN its
/// region's table's (relperms[region], region 1 first). The text of the first refusal, else
/// empty: a cell with end points whose region's law is Corey's (only a table scales), or
/// end points end_points_error refuses ("cell (i, j, k) of saturation region r: ...").
std::string end_point_check(const Grid3D& grid, const RockFields& rock,
                            const std::vector<RelPerm>& relperms, std::vector<EndPoints>& out);

/// How SWATINIT's cells went (scale_to_swatinit).
struct SwatinitCount {
    long long honoured = 0;  ///< cells whose Pc was scaled to hold their SWATINIT
    long long kept = 0;      ///< cells with a SWATINIT that keep their equilibrium saturation
};

/// SWATINIT's vertical scaling (design decision 97, Eclipse's): each active cell with a
/// SWATINIT value sw_i (not NaN) where the capillary-gravity equilibrium of `regions` (its
/// region's, with a contact) has Pc_eq = p_o - p_w > 0, its table has a capillary pressure,
/// SWL < sw_i < SWU of the cell and its (horizontally scaled) Pc(sw_i) is above the Pc at SWU
/// gets the factor Pc_eq / Pc(sw_i) on its Pc, so its equilibrium saturation is sw_i; every
/// other cell keeps its equilibrium saturation (below the free-water level, sw_i at or beyond
/// its end points, no Pc there). Writes rock.swatinit (sw_i where honoured, NaN elsewhere) and
/// rock.pc_scale (the factor, 1 elsewhere); `cells` is the model on `rock` before (its end
/// points, no Pc factor).
SwatinitCount scale_to_swatinit(const TwoPhaseCells& cells, const std::vector<Equilibrium>& regions,
                                const std::vector<double>& swatinit, RockFields& rock);

}  // namespace heptane::grid
