#pragma once
/// @file End-point scaling (design decisions 95, 98): each cell's own saturation end points
/// SWL, SWCR, SWU and SOWCR, to which its region's table is scaled (grid/relperm.hpp's
/// CellRelPerm), and its largest krw, kro and Pc (KRW, KRO, PCW), to which the table's values
/// are multiplied, from the YAML deck's rock.end_points or the grid.eclipse files' PROPS arrays
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

/// The end points' Eclipse keywords, in RockFields::end_points' order: four saturations, two
/// relative permeabilities, a capillary pressure.
inline constexpr std::array<const char*, kEndPointArrays> kEndPointKeywords = {
    "SWL", "SWCR", "SWU", "SOWCR", "KRW", "KRO", "PCW"};
/// The same, as the YAML deck's rock.end_points keys and the output's /grid names.
inline constexpr std::array<const char*, kEndPointArrays> kEndPointKeys = {
    "swl", "swcr", "swu", "sowcr", "krw", "kro", "pcw"};
inline constexpr std::size_t kFirstRelPermEndPoint = 4;  ///< KRW's index
inline constexpr std::size_t kPcEndPoint = 6;            ///< PCW's index

/// Where each cell's end points come from (rock.end_points' swl, swcr, swu, sowcr, krw, kro,
/// pcw: a number, layered, or an Eclipse file's keyword); `defaulted` where the deck gives
/// none. pcw's FieldSpec::unit is the deck's pressure unit.
using EndPointSpecs = std::array<FieldSpec, kEndPointArrays>;

/// What a scaling array holds: a saturation (SWL ..., SWATINIT) or a relative permeability
/// (KRW, KRO), each in [0, 1], or a capillary pressure (PCW: finite and >= 0).
enum class ScalingQuantity { saturation, relperm, pressure };

/// A scaling array's cells (an end point, SWATINIT; `keyword` its Eclipse name): from `spec`
/// unless defaulted, else from the grid.eclipse files' array where they have ENDSCALE (without
/// it an array they give is passed over, said in `notes`, as Eclipse passes it over), else
/// empty. An active cell's value must be `what` says (InputError at the key naming the cell),
/// NaN (a cell an Eclipse file's keyword leaves unset) allowed. A pressure comes back in Pa:
/// the spec's FieldSpec::unit, the files' pressure unit (RUNSPEC FIELD psi, METRIC bar, LAB
/// atm, else the deck's). Giving it both ways is an InputError at the spec.
std::vector<double> build_scaling_array(const Grid3D& grid, const FieldSpec& spec,
                                        const char* keyword, ScalingQuantity what,
                                        const RockFields& rock, const EclipseGridSpec* files,
                                        const EclipseGridData* eclipse,
                                        std::vector<std::string>& notes);

/// Each end point's cells (RockFields::end_points; build_scaling_array of each): from its spec
/// unless defaulted, else from the grid.eclipse files' array where they have ENDSCALE (without it
/// an array they give is passed over, said in `notes`, as Eclipse passes it over), else empty. An
/// active cell's saturation or relative permeability must be in [0, 1], its PCW finite and >= 0
/// (converted to Pa: the spec's unit, the files' pressure unit) (InputError at the key naming the
/// cell), NaN (a cell an Eclipse file's keyword leaves unset) taking its table's. Giving one both
/// ways is an InputError at the spec.
std::array<std::vector<double>, kEndPointArrays> build_end_points(
    const Grid3D& grid, const EndPointSpecs& specs, const RockFields& rock,
    const EclipseGridSpec* files, const EclipseGridData* eclipse, std::vector<std::string>& notes);

/// Each cell's end points (`out`, empty where rock gives none): rock.end_points, each NaN its
/// region's table's (relperms[region], region 1 first); KRW, KRO and PCW become the factors
/// krw_scale = KRW / the table's last krw, kro_scale = KRO / its first kro, pc_scale = PCW /
/// its first Pc (1 where not given), rock.pc_scale replacing PCW's where SWATINIT scaled the
/// cell (rock.swatinit not NaN). The text of the first refusal, else empty: a cell with end
/// points whose region's law is Corey's (only a table scales), a factor of a table whose
/// largest value is 0 ("KRO 0.5, but the table's kro is 0 at SWL: nothing to scale"), or end
/// points end_points_error refuses ("cell (i, j, k) of saturation region r: ...").
std::string end_point_check(const Grid3D& grid, const RockFields& rock,
                            const std::vector<RelPerm>& relperms, std::vector<EndPoints>& out);

/// Each cell's effective end points and largest values for the output (design decisions 95,
/// 97, 98), in kEndPointKeywords' order: SWL, SWCR, SWU, SOWCR, and krw at SWU, kro at SWL, Pc
/// at SWL [Pa] with the cell's factors (KRW, KRO, PCW or SWATINIT's: Eclipse's PPCW), a cell
/// without its own the table's; empty arrays where no cell scales (end_point_check's cells
/// empty). rock and relperms as end_point_check takes them, which has accepted them.
std::array<std::vector<double>, kEndPointArrays> cell_end_point_values(
    const Grid3D& grid, const RockFields& rock, const std::vector<RelPerm>& relperms);

/// How SWATINIT's cells went (scale_to_swatinit).
struct SwatinitCount {
    long long honoured = 0;  ///< cells whose Pc was scaled to hold their SWATINIT
    long long kept = 0;      ///< cells with a SWATINIT that keep their equilibrium saturation
    long long capped = 0;    ///< cells whose factor PPCWMAX capped (below their SWATINIT)
};

/// SWATINIT's vertical scaling (design decision 97, Eclipse's): each active cell with a
/// SWATINIT value sw_i (not NaN) where the capillary-gravity equilibrium of `regions` (its
/// region's, with a contact) has Pc_eq = p_o - p_w > 0, its table has a capillary pressure,
/// SWL < sw_i < SWU of the cell and its (horizontally scaled) Pc(sw_i) is above the Pc at SWU
/// gets the factor Pc_eq / Pc(sw_i) on its Pc, so its equilibrium saturation is sw_i; every
/// other cell keeps its equilibrium saturation (below the free-water level, sw_i at or beyond
/// its end points, no Pc there). A factor that would take the table's largest Pc above its
/// law's swatinit_pc_max (PPCWMAX, design decision 99) is that cap's instead, and the cell
/// starts at the equilibrium of its capped Pc, below its SWATINIT. Writes rock.swatinit (sw_i
/// where honoured, NaN elsewhere) and rock.pc_scale (the factor where honoured or capped, NaN
/// elsewhere); `cells` is the model on `rock` before (its end points; the factor replaces a
/// PCW's, which the Pc it scales leaves out).
SwatinitCount scale_to_swatinit(const TwoPhaseCells& cells, const std::vector<Equilibrium>& regions,
                                const std::vector<double>& swatinit, RockFields& rock);

}  // namespace heptane::grid
