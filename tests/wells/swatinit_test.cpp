// SWATINIT (design decision 97): each cell above the free-water level has its capillary pressure
// scaled so that the capillary-gravity equilibrium holds its given initial water saturation.
// Checked physically: the cells start at SWATINIT and the state is at rest (no phase flows);
// the same saturations without the factor flow. Cells below the contact, or whose SWATINIT is
// at or beyond their end points, keep their equilibrium saturation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/test_systems.hpp"
#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "grid/end_points.hpp"

namespace heptane {
namespace {

constexpr int kNx = 3, kNy = 2, kNz = 12;

/// The capillary table (Pc 3 bar at S_w 0.2 down to 0 at 0.8), the contact between layers 9
/// and 10 (2 ft layers from 12,000 ft), SWATINIT 0.25 + 0.03 k by layer k.
wells::ModelSpec swatinit_spec() {
    wells::ModelSpec spec = test::two_phase_spec(kNx, kNy, kNz, {});
    spec.two_phase.relperm.table = test::capillary_relperm_table();
    spec.initial.has_contact = true;
    spec.initial.water_oil_contact = 12019.5 * units::kFoot;
    spec.swatinit.defaulted = false;
    spec.swatinit.kind = grid::FieldKind::layered;
    for (int k = 0; k < kNz; ++k) spec.swatinit.layers.push_back(0.25 + 0.03 * k);
    return spec;
}

double worst(const std::vector<double>& r) {
    double w = 0.0;
    for (const double x : r) w = std::max(w, std::abs(x));
    return w;
}

TEST(Swatinit, EachCellStartsAtItsSwatinitAndTheStateIsAtRest) {
    const wells::ModelSpec spec = swatinit_spec();
    const wells::Model model = wells::generate(spec, false);
    const auto n = static_cast<std::size_t>(kNx * kNy * kNz);
    ASSERT_EQ(model.rock.swatinit.size(), n);
    ASSERT_EQ(model.rock.pc_scale.size(), n);
    const auto note =
        std::find_if(model.notes.begin(), model.notes.end(), [](const std::string& s) {
            return s.find("SWATINIT: 60 cells start at it") != std::string::npos;
        });
    ASSERT_NE(note, model.notes.end());
    EXPECT_NE(note->find("12 keep their equilibrium saturation"), std::string::npos);
    const wells::TwoPhaseSystem sys(model.grid, model.rock, spec.two_phase, spec.wells);
    const grid::CellState x0 = wells::initial_cell_state(sys.cells(), spec.initial);
    for (std::size_t m = 0; m < n; ++m) {
        const int k = static_cast<int>(m % kNz);
        if (k < 10) {
            EXPECT_EQ(x0.sw[m], spec.swatinit.layers[k]) << m;  // exactly: the cell's value
            EXPECT_GT(model.rock.pc_scale[m], 0.0);
            EXPECT_NE(model.rock.pc_scale[m], 1.0);
        } else {  // below the free-water level: the water zone
            EXPECT_TRUE(std::isnan(model.rock.swatinit[m])) << m;
            EXPECT_TRUE(std::isnan(model.rock.pc_scale[m])) << m;
            EXPECT_EQ(x0.sw[m], 0.8) << m;
        }
    }
    // At rest: no phase flows. A pressure disturbance of 1 bar gives the residual's scale.
    const double dt = units::kDay;
    const double rest = worst(sys.residual(x0, {}, x0, dt));
    grid::CellState y = x0;
    y.p[5] += units::kBar;
    const double scale = worst(sys.residual(y, {}, x0, dt));
    EXPECT_LE(rest, 1e-9 * scale);
    // The same saturations without the Pc factor are far from equilibrium.
    grid::RockFields unscaled = model.rock;
    unscaled.pc_scale.clear();
    unscaled.swatinit.clear();
    const wells::TwoPhaseSystem plain(model.grid, unscaled, spec.two_phase, spec.wells);
    EXPECT_GT(worst(plain.residual(x0, {}, x0, dt)), 1e-2 * scale);
}

TEST(Swatinit, ACellAtOrBeyondItsEndPointsKeepsItsEquilibriumSaturation) {
    // Layer 0 at its SWL (0.2) and layer 1 at its SWU (0.8): not scaled, their equilibrium
    // saturations (the table's inverse of their Pc); the others as before.
    wells::ModelSpec spec = swatinit_spec();
    spec.swatinit.layers[0] = 0.2;
    spec.swatinit.layers[1] = 0.8;
    const wells::Model model = wells::generate(spec, false);
    wells::ModelSpec none = swatinit_spec();
    none.swatinit = wells::ModelSpec{}.swatinit;  // defaulted: no SWATINIT
    const wells::Model equilibrium = wells::generate(none, false);
    const wells::TwoPhaseSystem a(model.grid, model.rock, spec.two_phase, spec.wells);
    const wells::TwoPhaseSystem b(equilibrium.grid, equilibrium.rock, none.two_phase, none.wells);
    const grid::CellState xa = wells::initial_cell_state(a.cells(), spec.initial);
    const grid::CellState xb = wells::initial_cell_state(b.cells(), none.initial);
    for (index_t m = 0; m < kNx * kNy * kNz; ++m) {
        const int k = static_cast<int>(m % kNz);
        if (k <= 1 || k >= 10) {
            EXPECT_EQ(xa.sw[m], xb.sw[m]) << m;
            EXPECT_TRUE(std::isnan(model.rock.pc_scale[m])) << m;
        } else {
            EXPECT_EQ(xa.sw[m], spec.swatinit.layers[k]) << m;
        }
        EXPECT_EQ(xa.p[m], xb.p[m]) << m;  // the oil's hydrostatic pressure either way
    }
    // Without a contact SWATINIT has no equilibrium to scale to.
    wells::ModelSpec flat = swatinit_spec();
    flat.initial.has_contact = false;
    EXPECT_THROW(wells::generate(flat, false), InputError);
}

// SWATINIT with PCW (design decision 98): SWATINIT's factor replaces PCW's where it scales a
// cell (the same factor and start as without PCW, bit for bit); a cell it does not scale (at
// its SWL here) keeps PCW's factor, PCW / the table's largest Pc.
TEST(Swatinit, ItsFactorReplacesPcwsWhereItScalesACell) {
    wells::ModelSpec spec = swatinit_spec();
    spec.swatinit.layers[0] = 0.2;  // layer 0 at its SWL: kept
    spec.end_points[6].defaulted = false;
    spec.end_points[6].value = {6.0 * units::kBar, 0.0, 0.0};  // twice the table's 3 bar
    const wells::Model model = wells::generate(spec, false);
    const wells::Model plain = wells::generate(swatinit_spec(), false);
    const wells::TwoPhaseSystem a(model.grid, model.rock, spec.two_phase, spec.wells);
    const grid::CellState x0 = wells::initial_cell_state(a.cells(), spec.initial);
    for (index_t m = 0; m < kNx * kNy * kNz; ++m) {
        const int k = static_cast<int>(m % kNz);
        const grid::EndPoints& e = *a.cells().relperm(m).ends;
        if (k == 0 || k >= 10) {
            EXPECT_EQ(e.pc_scale, 2.0) << m;  // PCW's
        } else {
            EXPECT_EQ(e.pc_scale, plain.rock.pc_scale[m]) << m;  // SWATINIT's, as without PCW
            EXPECT_EQ(x0.sw[m], spec.swatinit.layers[k]) << m;
        }
    }
}

// PPCWMAX (design decision 99): a factor that would take the table's largest Pc (3 bar) above
// the cap is the cap's; those cells start at the equilibrium of their capped Pc, below their
// SWATINIT (water lost, as Eclipse's), the others as without the cap, bit for bit.
TEST(Swatinit, PpcwmaxCapsTheFactorAndTheCellStartsBelowItsSwatinit) {
    const wells::ModelSpec plain_spec = swatinit_spec();
    const wells::Model plain = wells::generate(plain_spec, false);
    std::vector<double> factors;
    for (const double f : plain.rock.pc_scale) {
        if (!std::isnan(f)) factors.push_back(f);
    }
    std::sort(factors.begin(), factors.end());
    wells::ModelSpec spec = swatinit_spec();
    grid::RelPerm& law = spec.two_phase.relperm;
    law.swatinit_pc_max = factors[factors.size() / 2] * law.table.pcow[0];
    const double cap = law.swatinit_pc_max / law.table.pcow[0];
    const wells::Model model = wells::generate(spec, false);
    const wells::TwoPhaseSystem sys(model.grid, model.rock, spec.two_phase, spec.wells);
    const grid::CellState x0 = wells::initial_cell_state(sys.cells(), spec.initial);
    long long capped = 0;
    for (index_t m = 0; m < kNx * kNy * kNz; ++m) {
        const double f = plain.rock.pc_scale[m];
        const double sw_i = spec.swatinit.layers[m % kNz];
        if (std::isnan(f) || f <= cap) {  // as without the cap
            EXPECT_TRUE(model.rock.pc_scale[m] == f ||
                        (std::isnan(f) && std::isnan(model.rock.pc_scale[m])))
                << m;
            if (!std::isnan(f)) {
                EXPECT_EQ(x0.sw[m], sw_i) << m;
            }
            continue;
        }
        ++capped;
        EXPECT_EQ(model.rock.pc_scale[m], cap) << m;
        EXPECT_TRUE(std::isnan(model.rock.swatinit[m])) << m;
        EXPECT_LT(x0.sw[m], sw_i) << m;
        EXPECT_GE(x0.sw[m], 0.2) << m;  // on the capped curve (SWL where it is below Pc_eq)
    }
    EXPECT_GE(capped, 6);
    const auto note =
        std::find_if(model.notes.begin(), model.notes.end(), [&](const std::string& s) {
            return s.find("; " + std::to_string(capped) + " start below it") != std::string::npos;
        });
    EXPECT_NE(note, model.notes.end());
    // Without SWATINIT the cap changes nothing, said in a note.
    wells::ModelSpec none = spec;
    none.swatinit = wells::ModelSpec{}.swatinit;
    const wells::Model uncapped = wells::generate(none, false);
    EXPECT_NE(std::find_if(uncapped.notes.begin(), uncapped.notes.end(),
                           [](const std::string& s) {
                               return s.find("the cap changes nothing") != std::string::npos;
                           }),
              uncapped.notes.end());
}

}  // namespace
}  // namespace heptane
