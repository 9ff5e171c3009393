// Wells: validation keys and messages, Peaceman index, compact layout, synthetic couplings.
#include "wells/well.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "common/test_systems.hpp"
#include "core/base/errors.hpp"
#include "core/matrix/formats.hpp"

namespace heptane::wells {
namespace {

grid::Grid3D grid_of(int nx, int ny, int nz) {
    grid::Grid3D g;
    g.nx = nx;
    g.ny = ny;
    g.nz = nz;
    return g;
}

/// The InputError of validate_wells, or a failure if none.
InputError validation_error(const grid::Grid3D& g, const std::vector<WellSpec>& w) {
    try {
        validate_wells(g, w);
    } catch (const InputError& e) {
        return e;
    }
    ADD_FAILURE() << "validate_wells accepted invalid wells";
    return InputError("");
}

TEST(ValidateWells, ReportsKeyAndReason) {
    const auto g = grid_of(32, 10, 5);
    auto w = test::make_well("P1", 1, 1, 0, 4);
    EXPECT_NO_THROW(validate_wells(g, {w}));

    auto bad = w;
    bad.name = "P2";
    bad.i = 40;
    auto e = validation_error(g, {w, bad});
    EXPECT_EQ(e.key(), "wells[1].column");
    EXPECT_STREQ(e.what(), "wells[1].column: i = 40 is outside the grid (nx = 32)");

    bad = test::make_well("P2", 1, 1, 0, 0);  // same column as P1
    e = validation_error(g, {w, bad});
    EXPECT_EQ(e.key(), "wells[1].column");
    EXPECT_NE(std::string(e.what()).find("may not share a column"), std::string::npos);

    bad = test::make_well("P2", 2, 2, 3, 1);
    EXPECT_EQ(validation_error(g, {w, bad}).key(), "wells[1].perforations");
    bad = test::make_well("P2", 2, 2, 0, 5);
    EXPECT_EQ(validation_error(g, {w, bad}).key(), "wells[1].perforations");
    bad = test::make_well("P1", 2, 2, 0, 1);
    EXPECT_EQ(validation_error(g, {w, bad}).key(), "wells[1].name");
    bad = test::make_well("P2", 2, 2, 0, 1, false, true);
    bad.target = -1.0;
    EXPECT_EQ(validation_error(g, {w, bad}).key(), "wells[1].control.value");
    bad = test::make_well("P2", 2, 2, 0, 1);
    bad.radius = 0.0;
    EXPECT_EQ(validation_error(g, {w, bad}).key(), "wells[1].radius");
}

TEST(PeacemanIndex, HandComputedValues) {
    grid::Grid3D g = grid_of(1, 1, 1);
    g.dx = g.dy = 10.0;
    g.dz = 2.0;
    // Isotropic: r_o = 0.28 sqrt(200) / 2 = 1.97990 m; WI = 2 pi 1e-13 2 / ln(19.7990).
    EXPECT_NEAR(peaceman_index(g, 0, 1e-13, 1e-13, 0.1, 0.0), 4.20895e-13, 1e-17);
    // Anisotropic kx = 4 ky, 20 x 10 x 3 m cell, r_w 0.2, skin 1.5: r_o = 2.63987 m.
    g.dx = 20.0;
    g.dz = 3.0;
    EXPECT_NEAR(peaceman_index(g, 0, 4e-13, 1e-13, 0.2, 1.5), 9.23960e-13, 1e-17);
    EXPECT_EQ(peaceman_index(g, 0, 0.0, 1e-13, 0.2, 0.0), 0.0);
    EXPECT_THROW(peaceman_index(g, 0, 1e-13, 1e-13, 5.0, 0.0), InputError);  // r_w > r_o
}

TEST(WellLayout, CompactArraysPointAtTheColumns) {
    const auto g = grid_of(4, 3, 5);
    const std::vector<WellSpec> w = {test::make_well("A", 0, 2, 1, 3),
                                     test::make_well("B", 3, 0, 4, 4)};
    const WellArrays a = well_layout(g, w, 3);
    EXPECT_EQ(a.first, (std::vector<index_t>{0, 9}));
    EXPECT_EQ(a.cell0, (std::vector<index_t>{g.cell(0, 2, 1), g.cell(3, 0, 4)}));
    EXPECT_EQ(a.count, (std::vector<index_t>{3, 1}));
    EXPECT_EQ(a.w_vals.size(), 12u);
    ASSERT_EQ(a.well_of_column.size(), 12u);
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 3; ++j) {
            const int expect = (i == 0 && j == 2) ? 0 : (i == 3 && j == 0) ? 1 : -1;
            EXPECT_EQ(a.well_of_column[i * 3 + j], expect) << i << "," << j;
        }
    }
}

TEST(SyntheticSystem, DiagonalDominanceAndReproducibility) {
    const double delta = 1.7;
    const auto model = test::synthetic_model(4, 3, 5, 3, test::corner_wells(4, 3, 5), 21, delta);
    const GHMatrix& A = model.system.matrix;
    const Csr csr = to_csr(A);
    for (std::int32_t i = 0; i < csr.rows; ++i) {
        double diag = 0.0, off = 0.0;
        for (std::int32_t p = csr.row_ptr[i]; p < csr.row_ptr[i + 1]; ++p) {
            (csr.col[p] == i ? diag : off) += std::abs(csr.val[p]);
        }
        EXPECT_NEAR(diag, delta * off, 1e-12 * diag) << "row " << i;
    }
    const auto again = test::synthetic_model(4, 3, 5, 3, test::corner_wells(4, 3, 5), 21, delta);
    EXPECT_EQ(again.system.matrix.bdia(), A.bdia());
    EXPECT_EQ(again.system.matrix.wells().w_vals, A.wells().w_vals);
    EXPECT_EQ(again.system.rhs, model.system.rhs);
    const auto other = test::synthetic_model(4, 3, 5, 3, test::corner_wells(4, 3, 5), 22, delta);
    EXPECT_NE(other.system.matrix.bdia(), A.bdia());
}

}  // namespace
}  // namespace heptane::wells
