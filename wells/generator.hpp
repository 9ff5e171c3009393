#pragma once
/// @file Builds a GH system from a model description: the entry point app/ calls after
/// parsing a deck (DESIGN section 4).
#include <array>
#include <limits>
#include <string>
#include <vector>

#include "core/matrix/gh_matrix.hpp"
#include "grid/eclipse_model.hpp"
#include "grid/end_points.hpp"
#include "grid/rock.hpp"
#include "grid/synthetic.hpp"
#include "grid/two_phase.hpp"
#include "wells/two_phase_wells.hpp"
#include "wells/well.hpp"

namespace heptane::wells {

enum class FluidModel { synthetic, two_phase };

/// Initial state of a two_phase model (SI): hydrostatic oil pressure through p_datum at
/// z_datum, and a uniform water saturation or, with a water-oil contact, the capillary-gravity
/// equilibrium (design decision 77).
struct InitialState {
    double pressure = 2.0e7;   ///< [Pa] at datum_depth
    double datum_depth = 0.0;  ///< [m]
    /// Uniform; NaN: each cell's connate water (its saturation region's table's first row).
    double water_saturation = 0.0;
    bool has_contact = false;               ///< water_oil_contact given: water_saturation unused
    double water_oil_contact = 0.0;         ///< [m] depth
    double contact_capillary_pressure = 0;  ///< [Pa] Pc at the contact (EQUIL's item 4)
    int sublayers = 1;  ///< a cell's saturation averaged over this many layers (decision 78)
    /// EQUIL's gas-oil contact (initial.eclipse): no active cell may reach above it, heptane
    /// having no gas phase; -inf where none was given.
    double gas_oil_contact = -std::numeric_limits<double>::infinity();
    std::string gas_oil_contact_where;  ///< "path:line: EQUIL: ", for the message
    double eclipse_length_unit = 1.0;   ///< [m] per length unit of the EQUIL file
    /// Equilibration regions 2, 3, ... (design decision 92), each a state as this one (its
    /// own more_regions empty); this one is region 1. The cells' regions are the rock's
    /// (ModelSpec::equilibration_regions).
    std::vector<InitialState> more_regions;

    /// How many equilibration regions (records) the state has.
    int regions() const { return 1 + static_cast<int>(more_regions.size()); }
    /// Region r's record (from 0).
    const InitialState& region(int r) const { return r == 0 ? *this : more_regions[r - 1]; }
};

/// The cells' initial state (TwoPhaseCells::equilibrium_state of `init`'s regions).
grid::CellState initial_cell_state(const grid::TwoPhaseCells& cells, const InitialState& init);

/// The equilibrium records of `init`'s regions, region 1 first.
std::vector<grid::Equilibrium> equilibrium_records(const InitialState& init);

/// A region field not given (region 1 everywhere, or what the grid.eclipse files say) at `key`.
inline grid::FieldSpec defaulted_regions(const char* key) {
    grid::FieldSpec f;
    f.key = key;
    f.value = {1.0, 1.0, 1.0};
    f.defaulted = true;
    return f;
}

/// rock.end_points' specs (design decisions 95, 98), each defaulted: the grid.eclipse files'
/// array with ENDSCALE, else the cells' tables' end points.
inline grid::EndPointSpecs defaulted_end_points() {
    grid::EndPointSpecs specs;
    for (std::size_t q = 0; q < specs.size(); ++q) {
        specs[q] =
            defaulted_regions((std::string("rock.end_points.") + grid::kEndPointKeys[q]).c_str());
    }
    return specs;
}

/// Everything needed to generate a system. SI units.
struct ModelSpec {
    grid::Grid3D grid;
    grid::EclipseGridSpec eclipse;  ///< grid.eclipse: files with geometry, ACTNUM and rock
    grid::FieldSpec permeability;
    grid::FieldSpec porosity;
    FluidModel model = FluidModel::two_phase;
    grid::SyntheticParams synthetic;
    grid::TwoPhaseParams two_phase;
    /// The relative permeabilities of saturation regions 2, 3, ... (design decision 87; region
    /// 1 is two_phase.relperm); the cells' regions are the rock's (saturation_regions).
    std::vector<grid::RelPerm> relperm_regions;
    /// Where each cell's saturation region comes from (uniform, layered or an Eclipse file's
    /// SATNUM, 1-based); defaulted: grid.eclipse's SATNUM where the files give one, else 1.
    grid::FieldSpec saturation_regions = defaulted_regions("rock.saturation_regions");
    /// Where each cell's fluid-in-place region comes from (as saturation_regions, an Eclipse
    /// file's FIPNUM; design decision 89); defaulted: grid.eclipse's FIPNUM where the files
    /// give one, else none (the field's fluid in place alone).
    grid::FieldSpec fip_regions = defaulted_regions("rock.fip_regions");
    /// Where each cell's equilibration region comes from (as saturation_regions, an Eclipse
    /// file's EQLNUM; design decision 92): initial.more_regions' records are regions 2, 3, ...
    grid::FieldSpec equilibration_regions = defaulted_regions("rock.equilibration_regions");
    /// Each cell's own end points (design decisions 95, 98): SWL, SWCR, SWU, SOWCR, KRW, KRO,
    /// PCW.
    grid::EndPointSpecs end_points = defaulted_end_points();
    /// Each cell's initial water saturation its Pc is scaled to hold (design decision 97).
    grid::FieldSpec swatinit = defaulted_regions("rock.swatinit");
    InitialState initial;
    double dt = 86400.0;  ///< time step [s] (two_phase)
    std::vector<WellSpec> wells;
    std::vector<std::string> notes;  ///< what of the deck's Eclipse files was passed over
};

/// The generated system with the reservoir it came from (for reports and output).
struct Model {
    grid::Grid3D grid;  ///< with the files' geometry where grid.eclipse gave one
    grid::RockFields rock;
    /// Each cell's effective end points and largest krw, kro and Pc (grid::
    /// cell_end_point_values, for the output's /grid); empty arrays without end-point scaling.
    std::array<std::vector<double>, grid::kEndPointArrays> end_points;
    GHSystem system;
    std::vector<std::string> notes;  ///< what of the Eclipse files was not read (stderr):
                                     ///< the spec's notes, then the grid files'
};

/// Validates the spec (InputError with deck keys; an active cell above the initial state's
/// gas-oil contact among them), builds rock, wells and the system:
///   synthetic: random blocks and well couplings, diagonal dominance, b uniform(-1, 1);
///   two_phase: J = dR/dx at the initial state for one time step dt, b = -R.
/// with_system false: validated grid, rock and wells only (a simulation builds its systems).
Model generate(const ModelSpec& spec, bool with_system = true);

/// Where a window of i-planes lies in the whole grid: the model of planes [first, end) of
/// the grid, with the wells whose column is in planes [wells_first, wells_end).
struct PlaneWindow {
    int first = 0, end = 0;
    int wells_first = 0, wells_end = 0;
};

/// The system of a window of i-planes of spec's grid (a rank's slab and its halo planes, so
/// that no rank builds the whole system): the rows of the cells whose six neighbours are in
/// the window, and the rows of the window's wells, are the whole system's rows bit for bit;
/// the first and last planes' rows lack their outer faces (a slab's halo rows, which its
/// products drop). wells[w] of the result is spec.wells[global_wells[w]]. Two-phase models
/// only (NotSupported for the synthetic model: its random streams are not per cell). Fields
/// drawn per cell (uniform cells; uniform, layered or lognormal permeability) are drawn for
/// the window alone; fields from files or per-cell geometry are read for the whole grid
/// (a few values a cell, not the system's 7 K^2) and cut to the window.
/// `fields`: the whole grid's fields already read (generate(spec, false)), cut instead of
/// read again.
Model generate_planes(const ModelSpec& spec, const PlaneWindow& window,
                      std::vector<int>& global_wells, const Model* fields = nullptr);

/// The two_phase pieces, exposed so tests can evaluate the residual at any state.
class TwoPhaseSystem {
  public:
    /// more_regions: saturation regions 2, 3, ... (grid::TwoPhaseCells).
    TwoPhaseSystem(const grid::Grid3D& grid, const grid::RockFields& rock,
                   const grid::TwoPhaseParams& params, const std::vector<WellSpec>& wells,
                   const std::vector<grid::RelPerm>& more_regions = {});
    // The well part keeps a reference to the cell part: not copyable or movable.
    TwoPhaseSystem(const TwoPhaseSystem&) = delete;
    TwoPhaseSystem& operator=(const TwoPhaseSystem&) = delete;
    /// Scaled residual [cells 2 M, then wells Nw] at state (x, p_bh) for old state x_old.
    std::vector<double> residual(const grid::CellState& x, const std::vector<double>& p_bh,
                                 const grid::CellState& x_old, double dt) const;
    /// Jacobian and b = -R at (x, p_bh).
    GHSystem linearize(const grid::CellState& x, const std::vector<double>& p_bh,
                       const grid::CellState& x_old, double dt) const;

    const grid::TwoPhaseCells& cells() const { return cells_; }
    const TwoPhaseWells& wells() const { return wells_; }

  private:
    grid::TwoPhaseCells cells_;
    TwoPhaseWells wells_;
};

}  // namespace heptane::wells
