// Wells: validation keys and messages, Peaceman index, compact layout, synthetic couplings.
#include "wells/well.hpp"

#include <gmock/gmock.h>
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

// Design decision 102: a layer's own terms. A closed layer 0, a given factor as given, a given
// kh in place of sqrt(kx ky) dz (Peaceman's value where it is the cell's), the connection's
// radius and skin over the well's; a given kh in a cell without horizontal permeability takes
// the isotropic r_o.
TEST(ConnectionIndex, EachLayersOwnTerms) {
    grid::Grid3D g = grid_of(1, 1, 3);
    g.dx = 20.0;
    g.dy = 10.0;
    g.dz = 3.0;
    grid::RockFields rock;
    rock.kx = {4e-13, 4e-13, 0.0};
    rock.ky = {1e-13, 1e-13, 0.0};
    WellSpec w = test::make_well("P1", 0, 0, 0, 2);
    w.radius = 0.2;
    w.skin = 1.5;
    EXPECT_EQ(connection_index(g, 1, rock, w, 1), peaceman_index(g, 1, 4e-13, 1e-13, 0.2, 1.5));
    w.connections.resize(3);
    EXPECT_EQ(connection_index(g, 0, rock, w, 0), peaceman_index(g, 0, 4e-13, 1e-13, 0.2, 1.5));
    EXPECT_NEAR(connection_index(g, 0, rock, w, 0), 9.23960e-13, 1e-17);  // as PeacemanIndex's
    w.connections[0].kh = 2e-13 * 3.0;  // sqrt(kx ky) dz: the cell's own
    EXPECT_NEAR(connection_index(g, 0, rock, w, 0), 9.23960e-13, 1e-17);
    w.connections[0].kh = 1e-12;
    EXPECT_NEAR(connection_index(g, 0, rock, w, 0), 9.23960e-13 * 1e-12 / 6e-13, 1e-17);
    w.connections[0].factor = 3e-12;
    EXPECT_EQ(connection_index(g, 0, rock, w, 0), 3e-12);
    w.connections[0].multiplier = 0.5;  // WPIMULT's, on a given factor and on Peaceman's
    EXPECT_EQ(connection_index(g, 0, rock, w, 0), 1.5e-12);
    w.connections[1].multiplier = 4.0;
    EXPECT_EQ(connection_index(g, 1, rock, w, 1),
              4.0 * peaceman_index(g, 1, 4e-13, 1e-13, 0.2, 1.5));
    w.connections[1].multiplier = 1.0;
    w.connections[0].open = false;
    EXPECT_EQ(connection_index(g, 0, rock, w, 0), 0.0);
    w.connections[1].radius = 0.1;
    w.connections[1].skin = 0.0;
    EXPECT_EQ(connection_index(g, 1, rock, w, 1), peaceman_index(g, 1, 4e-13, 1e-13, 0.1, 0.0));
    EXPECT_EQ(connection_index(g, 2, rock, w, 2), 0.0);  // no permeability, no kh
    w.connections[2].kh = 6e-13;                         // r_o = 0.14 sqrt(500) = 3.13050 m
    EXPECT_NEAR(connection_index(g, 2, rock, w, 2),
                2.0 * M_PI * 6e-13 / (std::log(0.14 * std::sqrt(500.0) / 0.2) + 1.5), 1e-25);
}

TEST(ValidateWells, ConnectionsOnePerLayerOneOpen) {
    const auto g = grid_of(4, 4, 5);
    WellSpec w = test::make_well("P1", 1, 1, 1, 3);
    w.connections.resize(2);
    InputError e = validation_error(g, {w});
    EXPECT_EQ(e.key(), "wells[0].connection_factors");
    EXPECT_THAT(std::string(e.what()), ::testing::HasSubstr("2 connections for the perforated "
                                                            "layers 1..3: give one per layer"));
    w.connections.resize(3);
    EXPECT_NO_THROW(validate_wells(g, {w}));
    for (auto& c : w.connections) c.factor = 0.0;
    EXPECT_THAT(std::string(validation_error(g, {w}).what()),
                ::testing::HasSubstr("well 'P1' has no open connection"));
    w.connections[1].factor = -1.0;
    EXPECT_THAT(std::string(validation_error(g, {w}).what()),
                ::testing::HasSubstr("layer 2: the connection factor must be >= 0"));
    w.connections[1] = WellConnection{};
    w.connections[2].kh = std::nan("");
    w.connections[2].radius = -0.1;
    EXPECT_THAT(std::string(validation_error(g, {w}).what()),
                ::testing::HasSubstr("layer 3: the radius must be > 0"));
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
