#pragma once
/// @file Well definitions, validation, the Peaceman well index and the compact layout of
/// the W / W^T / D arrays (DESIGN section 3; seed 002 section 6.2).
#include <limits>
#include <string>
#include <vector>

#include "core/base/canonical.hpp"  // HEPTANE_HD
#include "core/matrix/gh_matrix.hpp"
#include "grid/grid3d.hpp"
#include "grid/rock.hpp"

namespace heptane::wells {

enum class WellType { injector, producer };
/// A well's control: a surface rate, the liquid's (oil + water; an injector's water) or one
/// phase's (a producer's oil or water: Eclipse's WCONPROD ORAT, WRAT; design decision 82),
/// its bottom-hole pressure, or the reservoir volume of its oil and water (Eclipse's RESV:
/// the surface rates times their formation volume factors at the field's mean pressure;
/// design decision 100).
enum class ControlKind { rate, bhp, oil_rate, water_rate, reservoir_rate };

/// Whether a control holds a surface rate.
HEPTANE_HD constexpr bool is_rate(ControlKind k) { return k != ControlKind::bhp; }

/// The deck's name of a control kind: rate, bhp, oil_rate, water_rate, reservoir_rate.
const char* control_kind_name(ControlKind k);

/// Surface rates whose reservoir volume a reservoir_rate control holds (Eclipse's WCONHIST
/// RESV: the observed oil and water rates; design decision 100) [m^3/s], >= 0, not both 0:
/// the target is B_o oil + B_w water at each time step's factors. `given` false: the target is
/// the control's own value.
struct VoidageOf {
    bool given = false;
    double oil = 0.0;
    double water = 0.0;
};

/// The reservoir volume of v at the factors b_oil, b_water: B_o oil + B_w water.
inline double voidage(const VoidageOf& v, double b_oil, double b_water) {
    return b_oil * v.oil + b_water * v.water;
}

/// InputError at `key` unless v (given) is rates >= 0, not both 0, of a reservoir_rate control
/// (`kind`).
void check_voidage(const VoidageOf& v, ControlKind kind, const std::string& key);

/// One layer of a well's perforated interval with its own inflow terms (Eclipse's COMPDAT
/// records; design decision 102). A NaN item is the well's (radius, skin) or computed (factor,
/// kh): the layer of a default WellConnection is the well's plain Peaceman layer.
struct WellConnection {
    /// false: the layer lies between the well's completions and is not connected (its well
    /// index is 0: a perforation through which nothing flows).
    bool open = true;
    /// [m^3] the well index given (Eclipse's connection factor, COMPDAT item 8, in SI); NaN:
    /// Peaceman's from the cell (peaceman_index).
    double factor = std::numeric_limits<double>::quiet_NaN();
    /// [m^3] the permeability-thickness k h Peaceman's index takes (COMPDAT item 10); NaN: the
    /// cell's sqrt(kx ky) dz.
    double kh = std::numeric_limits<double>::quiet_NaN();
    double radius = std::numeric_limits<double>::quiet_NaN();  ///< [m]; NaN: the well's
    double skin = std::numeric_limits<double>::quiet_NaN();    ///< NaN: the well's
    /// The well index, given or computed, times this (Eclipse's WPIMULT); >= 0.
    double multiplier = 1.0;

    /// Whether the layer is connected: open, with a factor (where given) and a multiplier not 0.
    bool connected() const { return open && factor != 0.0 && multiplier != 0.0; }
};

/// A vertical well with one contiguous perforation interval. SI units.
struct WellSpec {
    std::string name;
    WellType type = WellType::producer;
    int i = 0, j = 0;             ///< column (0-based)
    int k_first = 0, k_last = 0;  ///< perforated layers, inclusive (0 = top)
    ControlKind control = ControlKind::bhp;
    /// rate: total surface volume rate [m^3/s], > 0 (production for a producer, water
    /// injection for an injector); oil_rate, water_rate: a producer's oil or water surface
    /// rate; reservoir_rate: the reservoir volume rate [m^3/s] of its oil and water (an
    /// injector's water); bhp: bottom-hole pressure [Pa] at the well's reference depth
    /// (bhp_depth).
    double target = 0.0;
    double radius = 0.1;  ///< wellbore radius r_w [m]
    double skin = 0.0;    ///< skin factor [-]
    /// Limits of a simulation (sim/): a rate-controlled producer switches to BHP control at
    /// min_bhp when its BHP would fall below it, an injector at max_bhp when its BHP would
    /// rise above it [Pa]; 0 = no limit. A limit is a producer's (min) or an injector's (max).
    double min_bhp = 0.0;
    double max_bhp = 0.0;
    /// Economic limits of a producer (Eclipse's WECON; design decision 86), checked at the
    /// end of every time step of a simulation: the well is shut when its oil surface rate
    /// is below min_oil_rate [m^3/s] or its water cut above max_water_cut; 0 = none.
    double min_oil_rate = 0.0;
    double max_water_cut = 0.0;
    /// Well tests (Eclipse's WTEST; design decision 88): a producer its economic limits shut
    /// is opened again at the end of the first step test_interval [s] or more after its
    /// shut, and shut again if the next step's rates still break a limit, at most test_count
    /// times in a row (0: no bound); a test the well passes ends them. 0: no tests.
    double test_interval = 0.0;
    int test_count = 0;
    /// The depth [m] the well's BHP refers to (Eclipse's WELSPECS item 5; design decision 94):
    /// the wellbore pressure at a perforation is p_bh + rho_wb g (z - bhp_depth). NaN: the
    /// first perforated cell's centre. (Last: positional initialisers keep their meaning.)
    double bhp_depth = std::numeric_limits<double>::quiet_NaN();
    /// reservoir_rate given as the volume of surface rates (VoidageOf; `target` then holds
    /// their surface sum, the target each step converts being voidage's).
    VoidageOf voidage{};
    /// Empty: every layer k_first..k_last connected with the well's radius and skin; else one
    /// per layer, k_first first, each with its own terms (WellConnection).
    std::vector<WellConnection> connections{};
};

/// Throws InputError keyed "wells[n].<field>" for a column outside the grid, perforations
/// outside [0, nz) or reversed, a non-positive rate, radius or BHP, an injector under a
/// phase's rate (oil_rate, water_rate), a duplicate name, two
/// wells in one column (wells may not share a column), a negative or misplaced BHP limit
/// (min_bhp on an injector, max_bhp on a producer) or a BHP target beyond the well's limit,
/// an economic limit on an injector, a negative min_oil_rate or a max_water_cut outside
/// [0, 1), connections that are not one per perforated layer, none of them open, or a given
/// factor, kh or multiplier that is negative or not finite, a radius that is not > 0 or a skin
/// that is not finite.
void validate_wells(const grid::Grid3D& grid, const std::vector<WellSpec>& wells);

/// A well's connections (design decision 102), at `key`: none, or one per perforated layer
/// with a factor, kh and multiplier >= 0 and finite where given, a radius > 0 and a finite
/// skin where given, one of them connected.
void check_connections(const WellSpec& w, const std::string& key);

/// A well's economic limits (WellSpec::min_oil_rate, max_water_cut) or an event's: InputError
/// at rate_key or cut_key for a negative rate, a water cut outside [0, 1), or a limit on an
/// injector.
void check_economic_limits(double min_oil_rate, double max_water_cut, bool producer,
                           const std::string& rate_key, const std::string& cut_key);

/// A well's tests (WellSpec::test_interval, test_count) or an event's: InputError at
/// interval_key or count_key for a negative or non-finite interval, a negative count, or
/// tests of an injector (whose economic limits there are none to test).
void check_well_tests(double test_interval, int test_count, bool producer,
                      const std::string& interval_key, const std::string& count_key);

/// Throws InputError keyed "wells[n].perforations" when a well perforates an inactive cell
/// (rock.active), naming the well and the cell.
void validate_perforations(const grid::Grid3D& grid, const grid::RockFields& rock,
                           const std::vector<WellSpec>& wells);

/// Peaceman well index [m^3] of a vertical well in cell m (its own dx, dy, dz):
///   WI = 2 pi kh / (ln(r_o / r_w) + skin),  kh = sqrt(kx ky) dz unless given (not NaN),
///   r_o = 0.28 sqrt(sqrt(ky/kx) dx^2 + sqrt(kx/ky) dy^2) / ((ky/kx)^(1/4) + (kx/ky)^(1/4)).
/// Returns 0 if kx or ky is 0 and kh is not given (a given kh takes the isotropic r_o,
/// 0.14 sqrt(dx^2 + dy^2), there). Throws InputError if r_o <= r_w (well radius too large
/// for the cell).
double peaceman_index(const grid::Grid3D& grid, index_t m, double kx, double ky, double radius,
                      double skin, double kh = std::numeric_limits<double>::quiet_NaN());

/// The well index [m^3] of layer `layer` (0 = k_first) of well w in its cell m: 0 where the
/// connection is not open, else its multiplier times its factor where given, else times
/// peaceman_index with the connection's kh, radius and skin (the well's where NaN).
/// InputError keyed as peaceman_index's.
double connection_index(const grid::Grid3D& grid, index_t m, const grid::RockFields& rock,
                        const WellSpec& w, int layer);

/// The compact arrays for these (validated) wells with all values zero: first, cell0, count,
/// well_of_column, and w_vals / wt_vals / d sized for block size K.
WellArrays well_layout(const grid::Grid3D& grid, const std::vector<WellSpec>& wells,
                       int block_size);

}  // namespace heptane::wells
