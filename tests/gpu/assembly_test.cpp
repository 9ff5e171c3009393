// The two-phase residual and Jacobian assembled on the device (gpu/assembly.hpp) against the
// host assembly: the same bits for the residual, every Bdia entry, the accumulation blocks
// and the well arrays, on a perturbed state that crosses the relative-permeability end
// points, reverses flow directions and has every kind of well (BHP and rate, producer and
// injector, full and partial perforations, one shut), with and without inactive cells.
#include "gpu/assembly.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/gpu_test.hpp"
#include "common/same_bits.hpp"
#include "common/temp_file.hpp"
#include "common/test_systems.hpp"
#include "core/base/random.hpp"
#include "core/base/units.hpp"
#include "wells/generator.hpp"

namespace heptane::gpu {
namespace {

using test::same_bits;

struct State {
    grid::CellState x, x_old;
    std::vector<double> p_bh;
};

/// Equilibrium plus +-1e6 Pa and saturations over [0.05, 0.95] (past swc = sor = 0.2, so
/// the clamps and both upstream choices occur), the old state perturbed apart.
State perturbed(const wells::TwoPhaseSystem& sys, std::uint64_t seed) {
    Rng rng(seed);
    State s;
    s.x = sys.cells().equilibrium_state(2.0e7, 0.0, 0.3);
    s.x_old = s.x;
    for (std::size_t m = 0; m < s.x.p.size(); ++m) {
        s.x.p[m] += (rng.uniform() - 0.5) * 2.0e6;
        s.x.sw[m] = 0.05 + 0.9 * rng.uniform();
        s.x_old.p[m] += (rng.uniform() - 0.5) * 2.0e6;
        s.x_old.sw[m] = 0.05 + 0.9 * rng.uniform();
    }
    s.p_bh = sys.wells().initial_bhp(s.x);
    for (double& p : s.p_bh) p += (rng.uniform() - 0.5) * 1.0e6;
    return s;
}

/// Host and device assembly of the same state, compared entry by entry.
void expect_device_is_host(const wells::Model& model, const wells::ModelSpec& spec) {
    const wells::TwoPhaseSystem sys(model.grid, model.rock, spec.two_phase, spec.wells,
                                    spec.relperm_regions);
    const State s = perturbed(sys, 11);
    const double dt = 3.0 * units::kDay;
    std::vector<wells::WellControl> controls = sys.wells().initial_controls(s.x);
    ASSERT_GE(controls.size(), 4u);
    controls[3].open = false;  // a shut well keeps its unknown and has no flow

    GHMatrix J = sys.cells().zero_jacobian();
    std::vector<double> res, res_wells;
    sys.cells().assemble(s.x, s.x_old, dt, res, &J);
    sys.wells().assemble(s.x, s.p_bh, controls, res, res_wells, &J);
    res.insert(res.end(), res_wells.begin(), res_wells.end());

    DeviceTwoPhase dev(sys.cells(), sys.wells());
    EXPECT_GT(dev.assemble(s.x, s.p_bh, s.x_old, dt, controls), 0.0);
    EXPECT_TRUE(same_bits(res, dev.residual(), "residual"));
    const GHMatrix Jd = dev.jacobian();
    EXPECT_TRUE(same_bits(J.bdia(), Jd.bdia(), "bdia"));
    EXPECT_TRUE(same_bits(J.accumulation(), Jd.accumulation(), "accumulation"));
    EXPECT_TRUE(same_bits(J.wells().w_vals, Jd.wells().w_vals, "w_vals"));
    EXPECT_TRUE(same_bits(J.wells().wt_vals, Jd.wells().wt_vals, "wt_vals"));
    EXPECT_TRUE(same_bits(J.wells().d, Jd.wells().d, "d"));
    EXPECT_EQ(J.nnc().ptr, Jd.nnc().ptr);  // a faulted grid's connection blocks
    EXPECT_EQ(J.nnc().col, Jd.nnc().col);
    EXPECT_TRUE(same_bits(J.nnc().vals, Jd.nnc().vals, "nnc"));

    // The residual alone, and a comparison that can fail: another time step differs.
    dev.assemble(s.x, s.p_bh, s.x_old, dt, controls, false);
    EXPECT_TRUE(same_bits(res, dev.residual(), "residual without the Jacobian"));
    dev.assemble(s.x, s.p_bh, s.x_old, dt * (1.0 + 1e-12), controls, false);
    EXPECT_FALSE(same_bits(res, dev.residual(), "residual of another dt"));
}

class DeviceAssembly : public test::GpuTest {};

TEST_F(DeviceAssembly, TwoPhaseWithEveryKindOfWellIsTheHostsBits) {
    wells::ModelSpec spec = test::two_phase_spec(7, 6, 5, test::corner_wells(7, 6, 5));
    expect_device_is_host(wells::generate(spec, false), spec);
}

TEST_F(DeviceAssembly, TabulatedRelpermIsTheHostsBits) {
    // A relperm table (design decision 74) of 7 rows over Sw 0.2..0.8: the perturbed states'
    // saturations fall below, inside and above it, and on no row exactly.
    wells::ModelSpec spec = test::two_phase_spec(7, 6, 5, test::corner_wells(7, 6, 5));
    spec.two_phase.relperm.table = grid::relperm_table(test::relperm_rows());
    expect_device_is_host(wells::generate(spec, false), spec);
}

TEST_F(DeviceAssembly, CapillaryPressureIsTheHostsBits) {
    // The same table with a capillary pressure (design decision 76): the water's pressure and
    // density through Pc in the cells, the faces and the wells, and the three more property
    // arrays the device stores.
    wells::ModelSpec spec = test::two_phase_spec(7, 6, 5, test::corner_wells(7, 6, 5));
    spec.two_phase.relperm.table = test::capillary_relperm_table();
    expect_device_is_host(wells::generate(spec, false), spec);
}

TEST_F(DeviceAssembly, FormationVolumeFactorsAreTheHostsBits) {
    // B at the reference pressure (design decision 81) in the densities of the cells, the
    // faces and the wellbores, with the capillary table so that the water's is at p_w.
    wells::ModelSpec spec = test::two_phase_spec(7, 6, 5, test::corner_wells(7, 6, 5));
    spec.two_phase.relperm.table = test::capillary_relperm_table();
    spec.two_phase.oil.volume_factor = 1.27;
    spec.two_phase.water.volume_factor = 1.013;
    expect_device_is_host(wells::generate(spec, false), spec);
}

TEST_F(DeviceAssembly, PressureDependentPvtIsTheHostsBits) {
    // A PVDO oil and a water viscosibility (design decision 84): the table's density and
    // viscosity in the cells, the faces and the wells, and the two dmob_dp arrays the device
    // stores, with the capillary table so that the water's viscosity is at p_w.
    wells::ModelSpec spec = test::two_phase_spec(7, 6, 5, test::corner_wells(7, 6, 5));
    spec.two_phase.relperm.table = test::capillary_relperm_table();
    test::set_pressure_dependent_pvt(spec.two_phase);
    expect_device_is_host(wells::generate(spec, false), spec);
}

TEST_F(DeviceAssembly, SaturationRegionsAreTheHostsBits) {
    // Three saturation regions by layer (design decision 87): Corey's law without Pc, the
    // capillary table and the table without Pc, each cell's from its region in the cells, the
    // faces and the wells (the corner wells perforate layers of every region).
    wells::ModelSpec spec = test::two_phase_spec(7, 6, 5, test::corner_wells(7, 6, 5));
    spec.relperm_regions.resize(2);
    spec.relperm_regions[0].table = test::capillary_relperm_table();
    spec.relperm_regions[1].table = grid::relperm_table(test::relperm_rows());
    spec.saturation_regions.defaulted = false;
    spec.saturation_regions.kind = grid::FieldKind::layered;
    spec.saturation_regions.layers = {2, 1, 3, 2, 1};
    const wells::Model model = wells::generate(spec, false);
    ASSERT_FALSE(model.rock.saturation_region.empty());
    expect_device_is_host(model, spec);
}

TEST_F(DeviceAssembly, EndPointScaledCellsAreTheHostsBits) {
    // End-point scaling (design decisions 95, 98) over two saturation regions by layer: SWL by
    // layer, SWCR and SOWCR given in every other cell (the rest their table's), KRW, KRO, PCW in
    // every third, each cell's krw, kro and Pc from its own end points and factors in the
    // cells, the faces and the wells.
    wells::ModelSpec spec = test::two_phase_spec(7, 6, 5, test::corner_wells(7, 6, 5));
    spec.two_phase.relperm.table = test::capillary_relperm_table();
    spec.relperm_regions.resize(1);
    spec.relperm_regions[0].table = grid::relperm_table(test::relperm_rows());
    spec.saturation_regions.defaulted = false;
    spec.saturation_regions.kind = grid::FieldKind::layered;
    spec.saturation_regions.layers = {1, 2, 1, 2, 1};
    const auto layered = [](grid::FieldSpec& f, std::vector<double> layers) {
        f.defaulted = false;
        f.kind = grid::FieldKind::layered;
        f.layers = std::move(layers);
    };
    layered(spec.end_points[0], {0.1, 0.15, 0.2, 0.2, 0.15});  // SWL (<= the tables' SWCR, 0.2)
    wells::Model model = wells::generate(spec, false);
    model.rock.end_points[1].assign(model.rock.porosity.size(), std::nan(""));
    model.rock.end_points[3].assign(model.rock.porosity.size(), std::nan(""));
    for (std::size_t m = 0; m < model.rock.porosity.size(); m += 2) {
        model.rock.end_points[1][m] = 0.3;   // SWCR
        model.rock.end_points[3][m] = 0.12;  // SOWCR
    }
    // Vertical scaling (design decision 98): KRW, KRO and PCW in every third cell.
    for (std::size_t q = 4; q < grid::kEndPointArrays; ++q)
        model.rock.end_points[q].assign(model.rock.porosity.size(), std::nan(""));
    for (std::size_t m = 0; m < model.rock.porosity.size(); m += 3) {
        model.rock.end_points[4][m] = 0.5;                                    // KRW
        model.rock.end_points[5][m] = 0.6;                                    // KRO
        if (m % 5 % 2 == 0) model.rock.end_points[6][m] = 2.0 * units::kBar;  // PCW, region 1
    }
    expect_device_is_host(model, spec);
}

TEST_F(DeviceAssembly, PhaseRateProducersAreTheHostsBits) {
    // W2 on its oil rate and W0 on its water rate (design decision 82): their rate
    // equations' terms (W values and D) take one phase's perforation flows.
    wells::ModelSpec spec = test::two_phase_spec(7, 6, 5, test::corner_wells(7, 6, 5));
    ASSERT_EQ(spec.wells[2].control, wells::ControlKind::rate);
    spec.wells[2].control = wells::ControlKind::oil_rate;
    spec.wells[0].control = wells::ControlKind::water_rate;
    spec.wells[0].target = 1.0e-4;  // m^3/s
    expect_device_is_host(wells::generate(spec, false), spec);
}

TEST_F(DeviceAssembly, ReservoirRateWellsAreTheHostsBits) {
    // The injector W1 and the producer W2 on reservoir volume rates (design decision 100): their
    // rate equations weigh each phase's perforation flows by the factors initial_controls takes
    // at the perturbed state (B at its mean hydrocarbon pressure, not 1).
    wells::ModelSpec spec = test::two_phase_spec(7, 6, 5, test::corner_wells(7, 6, 5));
    ASSERT_EQ(spec.wells[1].control, wells::ControlKind::rate);
    ASSERT_EQ(spec.wells[2].control, wells::ControlKind::rate);
    spec.wells[1].control = wells::ControlKind::reservoir_rate;
    spec.wells[2].control = wells::ControlKind::reservoir_rate;
    expect_device_is_host(wells::generate(spec, false), spec);
}

TEST_F(DeviceAssembly, FaultedGridsConnectionsAreTheHostsBits) {
    // A fault's non-neighbour connections (design decisions 63, 65): their fluxes in the
    // residual and the diagonal blocks, and their own blocks, as the host assembles them.
    wells::ModelSpec spec = test::two_phase_spec(7, 6, 5, test::corner_wells(7, 6, 5));
    test::add_fault(spec);
    const wells::Model model = wells::generate(spec, false);
    const wells::TwoPhaseSystem sys(model.grid, model.rock, spec.two_phase, spec.wells);
    ASSERT_TRUE(sys.cells().has_nnc());
    expect_device_is_host(model, spec);
}

TEST_F(DeviceAssembly, InactiveCellsAndPerCellGeometryAreTheHostsBits) {
    const test::TempFolder folder;
    const test::ActnumPair pair = test::actnum_pair(folder.path());
    wells::ModelSpec spec = pair.spec_with_actnum;
    // Four wells in the box's columns (the pair's two plus two more).
    spec.wells.push_back(test::make_well("P2", 2, 4, 0, 2, false, true));
    spec.wells.push_back(test::make_well("I2", 4, 2, 1, 3, true, false));
    expect_device_is_host(wells::generate(spec, false), spec);
}

}  // namespace
}  // namespace heptane::gpu
