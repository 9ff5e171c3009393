// The EDIT section's arrays the model computes (grid/eclipse_model.cpp, design decision 72):
// PORV and TRANX/Y/Z edits on a 3 x 2 x 2 box grid read as grid.eclipse files, against the
// same grid without them (each edited face or cell by hand, every other one bit for bit), in
// the files' units; the reader's and the model's errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "common/temp_file.hpp"
#include "core/base/units.hpp"
#include "grid/eclipse_model.hpp"
#include "grid/transmissibility.hpp"

namespace heptane::grid {
namespace {

using test::input_error_of;
using test::TempFile;
using ::testing::HasSubstr;

struct Model {
    Grid3D grid;
    RockFields rock;
    Transmissibilities t;
};

/// 3 x 2 x 2 cells of 10 x 20 x 5 m (no RUNSPEC: METRIC units), PORO 0.2, PERMX 1..12 mD in
/// Eclipse order, PERMY 50, PERMZ 5; `more` follows (GRID-section keywords, then EDIT ...).
std::string deck(const std::string& more) {
    return "DX\n 12*10 /\nDY\n 12*20 /\nDZ\n 12*5 /\nTOPS\n 6*1000 /\nPORO\n 12*0.2 /\n"
           "PERMX\n 1 2 3 4 5 6 7 8 9 10 11 12 /\nPERMY\n 12*50 /\nPERMZ\n 12*5 /\n" +
           more;
}

Model model(const std::string& text) {
    const TempFile file(text);
    Model c;
    c.grid.nx = 3, c.grid.ny = 2, c.grid.nz = 2;
    EclipseGridSpec spec;
    spec.files = {file.path()};
    const EclipseGridData d = read_grid_files(c.grid, spec);
    apply_eclipse_rock(c.grid, spec, d, false, false, c.rock);
    c.t = tpfa_transmissibilities(c.grid, c.rock);
    return c;
}

std::string error_of(const std::string& text) {
    return input_error_of([&] { model(text); });
}

/// The files' transmissibility unit, METRIC: cP m^3/day/bar in m^3.
constexpr double kTran = units::kCentiPoise / units::kDay / units::kBar;

/// heptane's cell of Eclipse's 1-based (i, j, k).
index_t cell(const Model& c, int i, int j, int k) { return c.grid.cell(i - 1, j - 1, k - 1); }

/// Every face of `axis` (0 x, 1 y, 2 z) of a and b bit for bit, but for the cells `except`.
void expect_faces_equal(const std::vector<double>& a, const std::vector<double>& b,
                        const std::vector<index_t>& except, const char* axis) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t m = 0; m < a.size(); ++m) {
        bool skipped = false;
        for (index_t e : except) skipped = skipped || e == static_cast<index_t>(m);
        if (!skipped) {
            EXPECT_EQ(a[m], b[m]) << axis << " face of cell " << m;
        }
    }
}

TEST(EditSection, MultiplyTranxChangesTheFacesOfItsBoxOnly) {
    const Model base = model(deck(""));
    const Model c = model(deck("EDIT\nMULTIPLY\n TRANX 0.5 1 1 1 2 1 2 /\n/\n"));
    std::vector<index_t> box;
    for (int j = 1; j <= 2; ++j)
        for (int k = 1; k <= 2; ++k) box.push_back(cell(c, 1, j, k));
    for (index_t m : box) {
        EXPECT_GT(base.t.tx[m], 0.0);
        EXPECT_EQ(c.t.tx[m], 0.5 * base.t.tx[m]) << m;
    }
    expect_faces_equal(c.t.tx, base.t.tx, box, "x");
    expect_faces_equal(c.t.ty, base.t.ty, {}, "y");
    expect_faces_equal(c.t.tz, base.t.tz, {}, "z");
    EXPECT_EQ(c.rock.porosity, base.rock.porosity);
}

TEST(EditSection, EqualsGivesTheValueInTheFilesUnitOnFacesThatExist) {
    const Model base = model(deck(""));
    const Model c = model(deck("EDIT\nEQUALS\n TRANY 2.5 /\n/\n"));
    for (int i = 1; i <= 3; ++i) {
        for (int k = 1; k <= 2; ++k) {
            EXPECT_EQ(c.t.ty[cell(c, i, 1, k)], 2.5 * kTran);
            EXPECT_EQ(c.t.ty[cell(c, i, 2, k)], 0.0);  // the last j layer: no face
        }
    }
    expect_faces_equal(c.t.tx, base.t.tx, {}, "x");
    expect_faces_equal(c.t.tz, base.t.tz, {}, "z");
}

TEST(EditSection, EditsOfOneFaceApplyInFileOrder) {
    // ((4 * 0.25) + 1) = 2, at most 1.5, at least 1.75: 1.75.
    const Model c = model(
        deck("EDIT\nEQUALS\n TRANZ 4 2 2 1 1 1 1 /\n/\nMULTIPLY\n TRANZ 0.25 2 2 1 1 1 1 /\n/\n"
             "ADD\n TRANZ 1 2 2 1 1 1 1 /\n/\nMAXVALUE\n TRANZ 1.5 2 2 1 1 1 1 /\n/\n"
             "MINVALUE\n TRANZ 1.75 2 2 1 1 1 1 /\n/\n"));
    EXPECT_EQ(c.t.tz[cell(c, 2, 1, 1)], 1.75 * kTran);
}

TEST(EditSection, AnArrayGivesItsCellsAndDefaultsKeepTheComputedValue) {
    const Model base = model(deck(""));
    // Eclipse order: (1,1,1) 7, (2,1,1) and (3,1,1) as computed, (1,2,1) 8, the rest computed.
    const Model c = model(deck("EDIT\nTRANX\n 7 2* 8 8* /\n"));
    EXPECT_EQ(c.t.tx[cell(c, 1, 1, 1)], 7.0 * kTran);
    EXPECT_EQ(c.t.tx[cell(c, 1, 2, 1)], 8.0 * kTran);
    expect_faces_equal(c.t.tx, base.t.tx, {cell(c, 1, 1, 1), cell(c, 1, 2, 1)}, "x");
}

TEST(EditSection, MultiregTakesTheCellsOfItsRegion) {
    const Model base = model(deck(""));
    // MULTNUM 2 on the second layer: its x faces cut.
    const Model c = model(deck("MULTNUM\n 6*1 6*2 /\nEDIT\nMULTIREG\n TRANX 0 2 /\n/\n"));
    std::vector<index_t> cut;
    for (int i = 1; i <= 3; ++i) {
        for (int j = 1; j <= 2; ++j) {
            EXPECT_EQ(c.t.tx[cell(c, i, j, 2)], 0.0);
            cut.push_back(cell(c, i, j, 2));
        }
    }
    expect_faces_equal(c.t.tx, base.t.tx, cut, "x");
}

TEST(EditSection, TheNncRecordsAddToAnEditedFace) {
    const Model c =
        model(deck("NNC\n 1 1 1 2 1 1 0.5 /\n/\nEDIT\nEQUALS\n TRANX 2 1 1 1 1 1 1 /\n/\n"));
    EXPECT_DOUBLE_EQ(c.t.tx[cell(c, 1, 1, 1)], 2.5 * kTran);
}

TEST(EditSection, AnEditOfAFaceWithAnInactiveCellChangesNothing) {
    const Model c = model(deck("ACTNUM\n 1 0 10*1 /\nEDIT\nEQUALS\n TRANX 3 1 2 1 1 1 1 /\n/\n"));
    EXPECT_EQ(c.t.tx[cell(c, 1, 1, 1)], 0.0);  // towards the inactive (2, 1, 1)
    EXPECT_EQ(c.t.tx[cell(c, 2, 1, 1)], 0.0);
}

TEST(EditSection, PorvScalesThePoreVolumeAndCanMakeCellsInactive) {
    const Model base = model(deck(""));
    const Model c = model(
        deck("MINPV\n 1 /\nEDIT\nMULTIPLY\n PORV 1000 1 1 1 1 1 1 /\n/\n"
             "EQUALS\n PORV 0 3 3 2 2 2 2 /\n PORV 50 2 2 1 1 1 1 /\n/\nMULTIPLY\n PORV 0.001 1 1 "
             "2 2 2 2 /\n/\n"));
    // (1,1,1): 1000 times 10 x 20 x 5 x 0.2 = 200 m^3; (2,1,1): 50 m^3 of 1000 m^3.
    EXPECT_DOUBLE_EQ(c.rock.porosity[cell(c, 1, 1, 1)], 200.0);
    EXPECT_DOUBLE_EQ(c.rock.porosity[cell(c, 2, 1, 1)], 0.05);
    // (3,2,2) has none; (1,2,2) 0.2 m^3, under MINPV 1: both inactive.
    EXPECT_FALSE(c.rock.is_active(cell(c, 3, 2, 2)));
    EXPECT_FALSE(c.rock.is_active(cell(c, 1, 2, 2)));
    EXPECT_EQ(c.rock.num_active(), 10);
    for (int i = 1; i <= 3; ++i) {
        for (int j = 1; j <= 2; ++j) {
            for (int k = 1; k <= 2; ++k) {
                const index_t m = cell(c, i, j, k);
                const bool edited = (j == 1 && k == 1 && i <= 2) || (j == 2 && k == 2 && i != 2);
                if (!edited) {
                    EXPECT_EQ(c.rock.porosity[m], base.rock.porosity[m]) << m;
                }
            }
        }
    }
    // Only the faces of the two inactive cells change.
    EXPECT_EQ(c.t.tx[cell(c, 1, 2, 2)], 0.0);
    EXPECT_EQ(c.t.tx[cell(c, 2, 2, 2)], 0.0);
    EXPECT_EQ(c.t.tx[cell(c, 2, 1, 1)], base.t.tx[cell(c, 2, 1, 1)]);
}

TEST(EditSection, PorvInFieldUnitsIsInReservoirBarrels) {
    const std::string field = "RUNSPEC\nDIMENS\n 3 2 2 /\nFIELD\nGRID\n";
    const Model c = model(field + deck("EDIT\nEQUALS\n PORV 1000 1 1 1 1 1 1 /\n/\n"));
    const double volume = 10 * 20 * 5 * units::kFoot * units::kFoot * units::kFoot;
    EXPECT_DOUBLE_EQ(c.rock.porosity[cell(c, 1, 1, 1)], 1000 * units::kStockTankBarrel / volume);
}

TEST(EditSection, ErrorsNameTheFileLineAndKeyword) {
    EXPECT_THAT(error_of(deck("MULTIPLY\n TRANX 0.5 /\n/\n")),
                AllOf(HasSubstr(":18: MULTIPLY: TRANX is an EDIT-section array"),
                      HasSubstr("after the EDIT keyword")));
    EXPECT_THAT(error_of(deck("PORV\n 12*1 /\n")), HasSubstr(":17: PORV: PORV is an EDIT-section"));
    EXPECT_THAT(error_of(deck("EDIT\nCOPY\n TRANX TRANY /\n/\n")),
                HasSubstr("COPY: TRANX is computed by the model; edit it with EQUALS"));
    EXPECT_THAT(error_of(deck("EDIT\nCOPY\n PERMX TRANY /\n/\n")),
                HasSubstr("COPY: TRANY is computed by the model"));
    EXPECT_THAT(error_of(deck("EDIT\nOPERATE\n PORV 1 3 1 2 1 2 MULTX PORO 2 /\n/\n")),
                HasSubstr("OPERATE: PORV is computed by the model"));
    EXPECT_THAT(error_of(deck("EDIT\nCOPYREG\n TRANX TRANZ 1 /\n/\n")),
                HasSubstr("COPYREG: TRANX is computed by the model"));
    EXPECT_THAT(error_of(deck("EDIT\nMULTIPLY\n PORV -2 /\n/\n")),
                HasSubstr(":19: MULTIPLY: the factor of PORV is '-2'; it must be finite and >= 0"));
    EXPECT_THAT(error_of(deck("EDIT\nADD\n TRANZ -1e9 2 2 2 2 1 1 /\n/\n")),
                HasSubstr(":19: ADD: TRANZ of cell (i, j, k) = (1, 1, 0) is -"));
    EXPECT_THAT(error_of(deck("EDIT\nADD\n TRANZ -1e9 2 2 2 2 1 1 /\n/\n")),
                HasSubstr("after the edit; it must be >= 0"));
    // A multiplier after a TRANX/Y/Z edit (PORV: MULTPV): Eclipse would multiply the edited value.
    EXPECT_THAT(error_of(deck("EDIT\nEQUALS\n TRANX 1 /\n/\nMULTZ\n 12*2 /\n")),
                HasSubstr(":21: MULTZ after the EDIT section's TRANX/Y/Z edits ("));
    EXPECT_THAT(error_of(deck("EDIT\nEQUALS\n TRANY 1 /\n/\nMULTIPLY\n MULTX- 2 /\n/\n")),
                HasSubstr("MULTX- after the EDIT section's TRANX/Y/Z edits"));
    EXPECT_THAT(error_of(deck("EDIT\nEQUALS\n TRANY 1 /\n/\nMULTREGT\n 1 2 0.5 /\n/\n")),
                HasSubstr("MULTREGT after the EDIT section's TRANX/Y/Z edits"));
    EXPECT_THAT(error_of(deck("EDIT\nPORV\n 12*1 /\nMULTPV\n 12*2 /\n")),
                HasSubstr(":20: MULTPV after the EDIT section's PORV edits ("));
    // Before the edits a multiplier is the GRID section's.
    EXPECT_EQ(model(deck("EDIT\nMULTZ\n 12*2 /\nEQUALS\n TRANX 1 /\n/\n")).t.tz[0],
              2.0 * model(deck("")).t.tz[0]);
    EXPECT_THAT(error_of(deck("EDIT\nTRANX\n 5*1 /\n")),
                HasSubstr("TRANX: 5 values, the box has 12 cells"));
}

}  // namespace
}  // namespace heptane::grid
