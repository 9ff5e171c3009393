// wells::generate_planes: a window of i-planes of a two-phase model (what a rank of a
// distributed run generates instead of the whole system) has the whole system's rows, bit for
// bit, for every cell whose neighbours are all in the window and for the wells it keeps;
// also where the fields come from Eclipse files (per-cell geometry, ACTNUM: the whole grid's
// fields are read and cut); the synthetic model is refused.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "common/temp_file.hpp"
#include "common/test_systems.hpp"
#include "core/base/errors.hpp"
#include "wells/generator.hpp"

namespace heptane {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Wells in planes 0, 2, 3 and 6 of a 7-plane grid (producers at BHP, injectors at rate).
std::vector<wells::WellSpec> wells_along_i() {
    return {test::make_well("P0", 0, 1, 0, 3), test::make_well("I2", 2, 3, 1, 3, true),
            test::make_well("P3", 3, 0, 0, 2), test::make_well("I6", 6, 2, 0, 3, true)};
}

/// Every entry of the window's rows for cells of planes [own0, own1) and its wells against the
/// whole system's: the same bits.
void expect_window_rows(const wells::ModelSpec& spec, int first, int end, int own0, int own1,
                        const wells::Model* fields = nullptr) {
    SCOPED_TRACE("window [" + std::to_string(first) + ", " + std::to_string(end) + "), own [" +
                 std::to_string(own0) + ", " + std::to_string(own1) + ")");
    const wells::Model whole = wells::generate(spec);
    std::vector<int> kept;
    const wells::Model part = wells::generate_planes(spec, {first, end, own0, own1}, kept, fields);
    const GHMatrix& A = whole.system.matrix;
    const GHMatrix& W = part.system.matrix;
    const index_t plane = static_cast<index_t>(spec.grid.ny) * spec.grid.nz;
    const index_t M = A.num_cells(), Mw = W.num_cells(), K = A.block_size();
    ASSERT_EQ(W.nx(), end - first);
    int compared = 0;
    for (index_t e = 0; e < kStencilSize * K * K; ++e) {
        for (index_t m = (own0 - first) * plane; m < (own1 - first) * plane; ++m) {
            const index_t g = m + first * plane;
            ASSERT_TRUE(same_bits(W.bdia()[e * Mw + m], A.bdia()[e * M + g]))
                << "entry " << e << " of cell " << g;
            ++compared;
        }
    }
    for (index_t r = 0; r < (own1 - own0) * plane * K; ++r) {
        const index_t g = r + own0 * plane * K;
        ASSERT_TRUE(
            same_bits(part.system.rhs[r + (own0 - first) * plane * K], whole.system.rhs[g]));
    }
    // The wells of the owned planes, in global order, with their rows and columns.
    std::vector<int> expected;
    for (std::size_t n = 0; n < spec.wells.size(); ++n) {
        if (spec.wells[n].i >= own0 && spec.wells[n].i < own1)
            expected.push_back(static_cast<int>(n));
    }
    ASSERT_EQ(kept, expected);
    const WellArrays& aw = A.wells();
    const WellArrays& ww = W.wells();
    for (std::size_t j = 0; j < kept.size(); ++j) {
        const auto k = static_cast<std::size_t>(kept[j]);
        EXPECT_EQ(ww.cell0[j] + first * plane, aw.cell0[k]);
        ASSERT_EQ(ww.count[j], aw.count[k]);
        EXPECT_TRUE(same_bits(ww.d[j], aw.d[k]));
        for (index_t v = 0; v < aw.count[k] * K; ++v) {
            EXPECT_TRUE(same_bits(ww.w_vals[ww.first[j] + v], aw.w_vals[aw.first[k] + v]));
            EXPECT_TRUE(same_bits(ww.wt_vals[ww.first[j] + v], aw.wt_vals[aw.first[k] + v]));
        }
        EXPECT_TRUE(same_bits(part.system.rhs[W.cell_unknowns() + j],
                              whole.system.rhs[A.cell_unknowns() + kept[j]]));
    }
    EXPECT_GT(compared, 0);
}

TEST(PlaneWindow, OwnedRowsAreTheWholeSystemsBits) {
    const wells::ModelSpec spec = test::two_phase_spec(7, 4, 4, wells_along_i());
    expect_window_rows(spec, 0, 4, 0, 3);  // the first rank of two: a halo plane above
    expect_window_rows(spec, 2, 7, 3, 7);  // the last: a halo plane below
    expect_window_rows(spec, 1, 5, 2, 4);  // a middle rank
    expect_window_rows(spec, 0, 7, 0, 7);  // the whole grid
}

// An Eclipse-file model (DX, DY, DZ, TOPS, PERMX, PORO and ACTNUM per cell, 7 x 6 x 5 with
// inactive cells around a box, an injector in plane 1 and a producer in plane 5).
TEST(PlaneWindow, FilesFieldsAreCutToTheWindow) {
    const test::TempFolder folder;
    const wells::ModelSpec spec = test::actnum_pair(folder.path()).spec_with_actnum;
    ASSERT_FALSE(spec.eclipse.empty());
    expect_window_rows(spec, 0, 4, 0, 3);
    expect_window_rows(spec, 2, 7, 3, 7);
    expect_window_rows(spec, 1, 6, 2, 5);
    expect_window_rows(spec, 0, 7, 0, 7);
    // The fields read once and given (what a rank of `heptane run` does).
    const wells::Model fields = wells::generate(spec, false);
    expect_window_rows(spec, 2, 7, 3, 7, &fields);
    expect_window_rows(spec, 1, 6, 2, 5, &fields);
}

TEST(PlaneWindow, TheHaloPlanesRowsLackTheirOuterFaces) {
    // Why a window's edge planes are halo only: their rows differ from the whole system's
    // (no face to the plane beyond, no well of a neighbour's column).
    const wells::ModelSpec spec = test::two_phase_spec(7, 4, 4, wells_along_i());
    const wells::Model whole = wells::generate(spec);
    std::vector<int> kept;
    const wells::Model part = wells::generate_planes(spec, {1, 5, 2, 4}, kept);
    const index_t plane = 16, centre = kStencilSize / 2;
    const GHMatrix& A = whole.system.matrix;
    const GHMatrix& W = part.system.matrix;
    const double whole_diag = A.bdia()[A.bdia_index(centre, 0, 0, 0) + 1 * plane];
    const double window_diag = W.bdia()[W.bdia_index(centre, 0, 0, 0)];
    EXPECT_FALSE(same_bits(whole_diag, window_diag));
}

TEST(PlaneWindow, SyntheticModelsAndWindowsOutsideTheGridAreRefused) {
    std::vector<int> kept;
    wells::ModelSpec synthetic = test::two_phase_spec(7, 4, 4, wells_along_i());
    synthetic.model = wells::FluidModel::synthetic;
    EXPECT_THROW(wells::generate_planes(synthetic, {0, 4, 0, 3}, kept), NotSupported);
    wells::ModelSpec spec = test::two_phase_spec(7, 4, 4, wells_along_i());
    EXPECT_THROW(wells::generate_planes(spec, {3, 8, 4, 7}, kept), std::invalid_argument);
    EXPECT_THROW(wells::generate_planes(spec, {2, 6, 1, 5}, kept), std::invalid_argument);
}

}  // namespace
}  // namespace heptane
