// A Newton step's per-cell arithmetic (sim/newton_terms.hpp), shared by the host and (issue 23)
// the device: the chopping limits, the saturation bounds, the CNV term and the pore volume.
#include "sim/newton_terms.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/test_systems.hpp"
#include "wells/generator.hpp"

namespace heptane::sim {
namespace {

TEST(NewtonTerms, UpdatesAreChoppedAndSaturationsBounded) {
    const UpdateLimits u{0.1, 0.2};
    // dx in kPressureScale units: a 50 bar step from 100 bar is cut to 10 bar (10%).
    std::vector<double> p = {100.0e5, 100.0e5, 100.0e5}, sw = {0.5, 0.95, 0.1};
    const std::vector<double> dx = {50.0, 0.5, -3.0, 0.1, 0.0, -0.15};
    for (index_t m = 0; m < 3; ++m) update_cell(u, m, dx.data(), p.data(), sw.data());
    EXPECT_EQ(p[0], 110.0e5);
    EXPECT_EQ(sw[0], 0.7);    // +0.5 clamped to +0.2
    EXPECT_EQ(p[1], 97.0e5);  // -3 bar: within the limit
    EXPECT_EQ(sw[1], 1.0);    // 0.95 + 0.1 kept in [0, 1]
    EXPECT_EQ(p[2], 100.0e5);
    EXPECT_EQ(sw[2], 0.1 - 0.15 < 0.0 ? 0.0 : 0.1 - 0.15);
    EXPECT_EQ(chopped_pressure(u, -50.0e5, -100.0), -55.0e5);  // |p| sets the limit
    EXPECT_EQ(clamp(2.0, -1.0, 1.0), 1.0);
    EXPECT_TRUE(std::isnan(clamp(NAN, -1.0, 1.0)));  // as std::clamp: NaN passes through
}

TEST(NewtonTerms, CnvAndPoreVolumeFollowTheirDefinitions) {
    EXPECT_EQ(cnv_term(-2.0, 4.0, 0.5), 0.25);
    EXPECT_EQ(cnv_term(2.0, 0.0, 0.5), 0.0);  // no pore volume, no measure
    const wells::ModelSpec spec = test::two_phase_spec(4, 3, 2, {});
    const wells::Model model = wells::generate(spec, false);
    const grid::TwoPhaseCells cells(model.grid, model.rock, spec.two_phase);
    const grid::TwoPhaseCellsView v = cells.view();
    for (index_t m = 0; m < model.grid.num_cells(); ++m) {
        const double p = 150.0e5 + 1.0e5 * static_cast<double>(m);
        const double want =
            model.grid.volume(m) * grid::rock_porosity(model.rock.porosity[m],
                                                       spec.two_phase.rock_compressibility, p,
                                                       spec.two_phase.reference_pressure);
        EXPECT_EQ(grid::pore_volume(v, m, p), want) << m;
    }
}

}  // namespace
}  // namespace heptane::sim
