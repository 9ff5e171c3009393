// MatrixMarket reader: every field and symmetry against hand-written matrices, exact round
// trips through write_matrix_market, "file:line: detail" for each kind of malformed file;
// and the KSPARSE block promotion (structure, determinism, thread independence).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/temp_file.hpp"
#include "common/test_systems.hpp"
#include "core/base/random.hpp"
#include "core/matrix/formats.hpp"
#include "core/matrix/matrix_market.hpp"

namespace heptane {
namespace {

constexpr const char* kName = "t.mtx";

Csr read(const std::string& text) {
    std::istringstream in(text);
    return read_matrix_market(in, kName);
}

std::vector<double> read_vector(const std::string& text) {
    std::istringstream in(text);
    return read_matrix_market_vector(in, kName);
}

void expect_csr(const Csr& a, std::int32_t rows, std::int32_t cols,
                const std::vector<std::int32_t>& row_ptr, const std::vector<std::int32_t>& col,
                const std::vector<double>& val) {
    EXPECT_EQ(a.rows, rows);
    EXPECT_EQ(a.cols, cols);
    EXPECT_EQ(a.row_ptr, row_ptr);
    EXPECT_EQ(a.col, col);
    EXPECT_EQ(a.val, val);
}

void expect_same(const Csr& a, const Csr& b) {
    expect_csr(a, b.rows, b.cols, b.row_ptr, b.col, b.val);
}

// ---- accepted formats -----------------------------------------------------------------

// 4 x 3 with an empty row (row 3), entries out of order: sorted columns, 0-based.
TEST(MatrixMarketReader, RealGeneral) {
    const Csr a = read(
        "%%MatrixMarket matrix coordinate real general\n"
        "% a comment\n"
        "%\n"
        "4 3 5\n"
        "2 3 -1.5e2\n"
        "1 1 0.25\n"
        "4 3 7\n"
        "2 1 +3\n"
        "1 2 -0\n");
    expect_csr(a, 4, 3, {0, 2, 4, 4, 5}, {0, 1, 0, 2, 2}, {0.25, -0.0, 3.0, -150.0, 7.0});
}

TEST(MatrixMarketReader, BannerIsCaseInsensitiveAndCrlfAndBlankLinesAreAccepted) {
    const Csr a = read(
        "%%matrixmarket MATRIX Coordinate REAL General\r\n"
        "\r\n"
        "2 2 2\r\n"
        "\r\n"
        "  1\t1   1.5  \r\n"
        "2 2 2.5\r\n"
        "\n");
    expect_csr(a, 2, 2, {0, 1, 2}, {0, 1}, {1.5, 2.5});
}

TEST(MatrixMarketReader, Integer) {
    const Csr a = read(
        "%%MatrixMarket matrix coordinate integer general\n"
        "2 2 3\n"
        "1 2 -4\n"
        "2 1 5\n"
        "2 2 0\n");
    expect_csr(a, 2, 2, {0, 1, 3}, {1, 0, 1}, {-4.0, 5.0, 0.0});
}

TEST(MatrixMarketReader, PatternGetsOnes) {
    const Csr a = read(
        "%%MatrixMarket matrix coordinate pattern general\n"
        "3 3 3\n"
        "3 1\n"
        "1 3\n"
        "1 1\n");
    expect_csr(a, 3, 3, {0, 2, 2, 3}, {0, 2, 0}, {1.0, 1.0, 1.0});
}

// Lower triangle of [[4 1 0] [1 5 2] [0 2 6]].
TEST(MatrixMarketReader, SymmetricMirrorsTheLowerTriangle) {
    const Csr a = read(
        "%%MatrixMarket matrix coordinate real symmetric\n"
        "3 3 5\n"
        "1 1 4\n"
        "2 1 1\n"
        "2 2 5\n"
        "3 2 2\n"
        "3 3 6\n");
    expect_csr(a, 3, 3, {0, 2, 5, 7}, {0, 1, 0, 1, 2, 1, 2}, {4, 1, 1, 5, 2, 2, 6});
}

TEST(MatrixMarketReader, SymmetricPattern) {
    const Csr a = read(
        "%%MatrixMarket matrix coordinate pattern symmetric\n"
        "2 2 2\n"
        "2 1\n"
        "2 2\n");
    expect_csr(a, 2, 2, {0, 1, 3}, {1, 0, 1}, {1.0, 1.0, 1.0});
}

// Lower triangle of [[0 -1 -2] [1 0 -3] [2 3 0]].
TEST(MatrixMarketReader, SkewSymmetricNegatesTheMirror) {
    const Csr a = read(
        "%%MatrixMarket matrix coordinate real skew-symmetric\n"
        "3 3 3\n"
        "2 1 1\n"
        "3 1 2\n"
        "3 2 3\n");
    expect_csr(a, 3, 3, {0, 2, 4, 6}, {1, 2, 0, 2, 0, 1}, {-1, -2, 1, -3, 2, 3});
}

TEST(MatrixMarketReader, SkewSymmetricInteger) {
    const Csr a = read(
        "%%MatrixMarket matrix coordinate integer skew-symmetric\n"
        "2 2 1\n"
        "2 1 7\n");
    expect_csr(a, 2, 2, {0, 1, 2}, {1, 0}, {-7.0, 7.0});
}

TEST(MatrixMarketReader, DuplicatesAreSummed) {
    const Csr a = read(
        "%%MatrixMarket matrix coordinate real general\n"
        "2 2 4\n"
        "1 2 1.5\n"
        "2 2 1\n"
        "1 2 2.25\n"
        "1 2 -0.5\n");
    expect_csr(a, 2, 2, {0, 1, 2}, {1, 1}, {3.25, 1.0});
    // ... and counted, for the caller's warning (issue 19, class 4).
    std::istringstream in(
        "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 2 1.5\n"
        "2 2 1\n1 2 2.25\n1 2 -0.5\n");
    std::int64_t duplicates = -1;
    read_matrix_market(in, kName, &duplicates);
    EXPECT_EQ(duplicates, 2);
    std::istringstream none("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1\n2 2 1\n");
    read_matrix_market(none, kName, &duplicates);
    EXPECT_EQ(duplicates, 0);
    std::istringstream vec(
        "%%MatrixMarket matrix coordinate real general\n4 1 3\n3 1 2.5\n"
        "1 1 1\n3 1 0.5\n");
    read_matrix_market_vector(vec, kName, &duplicates);
    EXPECT_EQ(duplicates, 1);
}

// A symmetric file that also stores the upper entry: both entries and both mirrors summed.
TEST(MatrixMarketReader, SymmetricEntryInBothTrianglesIsSummedWithItsMirror) {
    const Csr a = read(
        "%%MatrixMarket matrix coordinate real symmetric\n"
        "2 2 2\n"
        "2 1 1\n"
        "1 2 10\n");
    expect_csr(a, 2, 2, {0, 1, 2}, {1, 0}, {11.0, 11.0});
}

TEST(MatrixMarketReader, OneRowAndEmptyShapes) {
    expect_csr(read("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 -2\n"), 1, 1, {0, 1},
               {0}, {-2.0});
    expect_csr(read("%%MatrixMarket matrix coordinate real general\n1 4 2\n1 4 1\n1 2 2\n"), 1, 4,
               {0, 2}, {1, 3}, {2.0, 1.0});
    expect_csr(read("%%MatrixMarket matrix coordinate real general\n3 3 0\n"), 3, 3, {0, 0, 0, 0},
               {}, {});
    expect_csr(read("%%MatrixMarket matrix coordinate real general\n0 0 0\n"), 0, 0, {0}, {}, {});
}

TEST(MatrixMarketReader, ReadsAFileByPath) {
    const test::TempFile file("%%MatrixMarket matrix coordinate real general\n2 2 1\n2 1 3.5\n");
    expect_csr(read_matrix_market(file.path()), 2, 2, {0, 0, 1}, {0}, {3.5});
}

TEST(MatrixMarketReader, MissingFileNamesThePath) {
    const test::TempFile file;  // path reserved, nothing created
    try {
        read_matrix_market(file.path());
        FAIL() << "no exception";
    } catch (const MatrixMarketError& e) {
        EXPECT_EQ(std::string(e.what()).rfind(file.path() + ": cannot open", 0), 0u) << e.what();
        EXPECT_EQ(e.line(), 0);
    }
}

// ---- round trips through write_matrix_market -------------------------------------------

TEST(MatrixMarketReader, WriterRoundTripIsExact) {
    // 7 x 5, rows 0 and 4 empty, values over the whole double range (subnormal included).
    Csr a;
    a.rows = 7;
    a.cols = 5;
    a.row_ptr = {0};
    Rng rng(11);
    const std::vector<double> special{0.1, -1e-300, 4.9e-324, 1.7976931348623157e308, -0.0, 3.0};
    std::size_t s = 0;
    for (std::int32_t i = 0; i < a.rows; ++i) {
        for (std::int32_t j = 0; j < a.cols; ++j) {
            if (i == 0 || i == 4 || rng.uniform() < 0.4) continue;
            a.col.push_back(j);
            a.val.push_back(s < special.size() ? special[s++] : rng.normal() * 1e5);
        }
        a.row_ptr.push_back(static_cast<std::int32_t>(a.col.size()));
    }
    ASSERT_EQ(s, special.size());
    std::stringstream text;
    write_matrix_market(text, a, "round trip");
    expect_same(read(text.str()), a);
}

TEST(MatrixMarketReader, GHSystemRoundTripIsExact) {
    const auto model = wells::generate(test::two_phase_spec(4, 3, 5, test::corner_wells(4, 3, 5)));
    const Csr a = to_csr(model.system.matrix);
    const test::TempFile a_file, b_file;
    {
        std::ofstream out_a(a_file.path()), out_b(b_file.path());
        write_matrix_market(out_a, a, "GH system");
        write_matrix_market(out_b, model.system.rhs, "rhs");
    }
    expect_same(read_matrix_market(a_file.path()), a);
    EXPECT_EQ(read_matrix_market_vector(b_file.path()), model.system.rhs);
}

// ---- vectors ----------------------------------------------------------------------------

TEST(MatrixMarketReaderVector, ArrayRealGeneral) {
    // Layout of the SuiteSparse right-hand sides (sherman1_rhs1.mtx): indented, Fortran E.
    EXPECT_EQ(read_vector("%%MatrixMarket matrix array real general\n"
                          "% RBKey: X\n"
                          "3 1\n"
                          "  0.22540000E-04\n"
                          "  -1\n"
                          "  0.5\n"),
              (std::vector<double>{0.2254e-4, -1.0, 0.5}));
    EXPECT_EQ(read_vector("%%MatrixMarket matrix array integer general\n2 1\n3\n-4\n"),
              (std::vector<double>{3.0, -4.0}));
    EXPECT_TRUE(read_vector("%%MatrixMarket matrix array real general\n0 1\n").empty());
}

TEST(MatrixMarketReaderVector, CoordinateColumn) {
    EXPECT_EQ(read_vector("%%MatrixMarket matrix coordinate real general\n"
                          "4 1 3\n"
                          "3 1 2.5\n"
                          "1 1 1\n"
                          "3 1 0.5\n"),
              (std::vector<double>{1.0, 0.0, 3.0, 0.0}));
}

// ---- malformed files: "t.mtx:LINE: detail" -----------------------------------------------

struct BadCase {
    const char* text;
    std::int64_t line;
    const char* detail;  ///< substring of the message after "t.mtx:LINE: "
};

template <typename Read>
void expect_errors(const std::vector<BadCase>& cases, Read&& reader) {
    for (const BadCase& c : cases) {
        SCOPED_TRACE(c.text);
        try {
            reader(c.text);
            ADD_FAILURE() << "no exception";
        } catch (const MatrixMarketError& e) {
            const std::string what = e.what();
            const std::string prefix = std::string(kName) + ":" + std::to_string(c.line) + ": ";
            EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
            EXPECT_NE(what.find(c.detail), std::string::npos) << what;
            EXPECT_EQ(e.line(), c.line);
            EXPECT_EQ(e.file(), kName);
        }
    }
}

TEST(MatrixMarketReaderErrors, BannerErrorsOnLineOne) {
    expect_errors(
        {
            {"", 1, "empty file"},
            {"\n3 3 0\n", 1, "expected the banner"},
            {"% just a comment\n3 3 0\n", 1, "expected the banner"},
            {"MatrixMarket matrix coordinate real general\n3 3 0\n", 1, "expected the banner"},
            {"%%MatrixMarket matrix coordinate real\n3 3 0\n", 1, "needs 4 words"},
            {"%%MatrixMarket matrix coordinate real general extra\n3 3 0\n", 1, "needs 4 words"},
            {"%%MatrixMarket vector coordinate real general\n3 3 0\n", 1, "object 'vector'"},
            {"%%MatrixMarket matrix sparse real general\n3 3 0\n", 1, "unknown format 'sparse'"},
            {"%%MatrixMarket matrix coordinate complex general\n3 3 0\n", 1,
             "'complex' is not supported"},
            {"%%MatrixMarket matrix coordinate float general\n3 3 0\n", 1, "unknown field 'float'"},
            {"%%MatrixMarket matrix coordinate real hermitian\n3 3 0\n", 1,
             "'hermitian' is not supported"},
            {"%%MatrixMarket matrix coordinate real lower\n3 3 0\n", 1, "unknown symmetry 'lower'"},
            {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1,
             "array (dense) format is not supported for a matrix"},
        },
        [](const std::string& text) { read(text); });
}

// Issue 19, class 3: nan and inf parse as numbers but are refused at their line, in a matrix
// and in a right-hand side (they were accepted and broke the solve later).
TEST(MatrixMarketReaderErrors, NonFiniteValuesAreRefusedAtTheirLine) {
    expect_errors(
        {
            {"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 nan\n", 4,
             "value 'nan' is not finite"},
            {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 inf\n", 3,
             "value 'inf' is not finite"},
            {"%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n2 1 -inf\n", 3,
             "value '-inf' is not finite"},
        },
        [](const std::string& text) { read(text); });
    expect_errors(
        {
            {"%%MatrixMarket matrix array real general\n2 1\n1\nNaN\n", 4,
             "value 'NaN' is not finite"},
            {"%%MatrixMarket matrix coordinate real general\n2 1 1\n2 1 1e999\n", 3,
             "value '1e999'"},
        },
        [](const std::string& text) {
            std::istringstream in(text);
            read_matrix_market_vector(in, kName);
        });
}

TEST(MatrixMarketReaderErrors, SizeLineErrors) {
    expect_errors(
        {
            {"%%MatrixMarket matrix coordinate real general\n% c\n", 2,
             "ends before the size line"},
            {"%%MatrixMarket matrix coordinate real general\n% c\n3 3\n", 3,
             "expected 'ROWS COLS ENTRIES', got 2 fields"},
            {"%%MatrixMarket matrix coordinate real general\n% c\n3 3 1 1\n", 3,
             "expected 'ROWS COLS ENTRIES', got 4 fields"},
            {"%%MatrixMarket matrix coordinate real general\n% c\n\n3 x 1\n", 4,
             "COLS 'x' is not an integer"},
            {"%%MatrixMarket matrix coordinate real general\n% c\n3 3 1.5\n", 3,
             "ENTRIES '1.5' is not an integer"},
            {"%%MatrixMarket matrix coordinate real general\n% c\n-3 3 0\n", 3,
             "ROWS is negative (-3)"},
            {"%%MatrixMarket matrix coordinate real general\n% c\n3 3 -1\n", 3,
             "ENTRIES is negative (-1)"},
            {"%%MatrixMarket matrix coordinate real symmetric\n% c\n3 2 0\n", 3,
             "must be square, the size line gives 3 x 2"},
            // beyond 32-bit indices: bad input at the line (was NotSupported, exit 3; fuzzing)
            {"%%MatrixMarket matrix coordinate real general\n1 88888888888888 250\n", 2,
             "88888888888888 columns exceed the 32-bit index range"},
            {"%%MatrixMarket matrix coordinate real general\n3000000000 3 1\n", 2,
             "3000000000 rows exceed the 32-bit index range"},
        },
        [](const std::string& text) { read(text); });
}

TEST(MatrixMarketReaderErrors, EntryErrors) {
    // Lines: 1 banner, 2 size, 3 first entry, 4 second entry.
    const std::string real = "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n";
    const std::vector<std::string> texts{
        real + "2\n",
        real + "2 2\n",
        real + "2 2 1 1\n",
        real + "a 2 1\n",
        real + "2 2.0 1\n",
        real + "2 2 abc\n",
        real + "2 2 1.5x\n",
        real + "4 1 1\n",
        real + "0 1 1\n",
        real + "1 4 1\n",
        real + "1 -1 1\n",
        "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 1\n2 2 1\n",
        "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 1 1\n2 2 1.5\n",
        "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n3 3 1\n",
    };
    const std::vector<const char*> details{
        "expected 'I J VALUE', got 1 field",    "expected 'I J VALUE', got 2 fields",
        "expected 'I J VALUE', got 4 fields",   "row index 'a' is not an integer",
        "column index '2.0' is not an integer", "value 'abc' is not a number",
        "value '1.5x' is not a number",         "row index 4 is outside 1..3",
        "row index 0 is outside 1..3",          "column index 4 is outside 1..3",
        "column index -1 is outside 1..3",      "expected 'I J', got 3 fields",
        "value '1.5' is not an integer",        "diagonal entry (3, 3) in a skew-symmetric matrix",
    };
    std::vector<BadCase> cases;
    for (std::size_t k = 0; k < texts.size(); ++k)
        cases.push_back({texts[k].c_str(), 4, details[k]});
    expect_errors(cases, [](const std::string& text) { read(text); });
}

TEST(MatrixMarketReaderErrors, EntryCountErrors) {
    expect_errors(
        {
            // Fewer: reported at the last line of the file.
            {"%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 2\n", 4,
             "ends after 2 of the 3 entries declared on line 2"},
            {"%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n\n% c\n", 5,
             "ends after 1 of the 3 entries declared on line 2"},
            {"%%MatrixMarket matrix coordinate real general\n3 3 1\n", 2,
             "ends after 0 of the 1 entries"},
            // More: reported at the first entry too many.
            {"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n\n2 2 2\n3 3 3\n", 5,
             "more entries than the 1 declared on line 2"},
            {"%%MatrixMarket matrix coordinate real general\n3 3 0\n1 1 1\n", 3,
             "more entries than the 0 declared"},
        },
        [](const std::string& text) { read(text); });
}

TEST(MatrixMarketReaderErrors, VectorErrors) {
    expect_errors(
        {
            {"%%MatrixMarket matrix array real symmetric\n2 1\n1\n2\n", 1,
             "must have the symmetry 'general'"},
            {"%%MatrixMarket matrix array pattern general\n2 1\n", 1, "'pattern' is not valid"},
            {"%%MatrixMarket matrix array real general\n2\n1\n2\n", 2,
             "expected 'ROWS COLS', got 1 field"},
            {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 2,
             "expected an n x 1 vector, the size line gives 2 x 2"},
            {"%%MatrixMarket matrix array real general\n3 1\n1\n2\n", 4,
             "ends after 2 of the 3 values declared on line 2"},
            {"%%MatrixMarket matrix array real general\n1 1\n1\n2\n", 4,
             "more values than the 1 declared on line 2"},
            {"%%MatrixMarket matrix array real general\n2 1\n1 2\n", 3,
             "one value per line, got 2 fields"},
            {"%%MatrixMarket matrix array real general\n2 1\n1\n1,5\n", 4,
             "value '1,5' is not a number"},
            {"%%MatrixMarket matrix coordinate real general\n3 1 1\n2 2 1\n", 3,
             "column index 2 is outside 1..1"},
        },
        [](const std::string& text) { read_vector(text); });
}

TEST(MatrixMarketReaderErrors, IsAnInputErrorWithoutKey) {
    try {
        read("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n");
        FAIL() << "no exception";
    } catch (const InputError& e) {  // the CLI maps InputError to exit code 2
        EXPECT_STREQ(e.what(), "t.mtx:3: row index 3 is outside 1..2");
        EXPECT_EQ(e.key(), "");
        EXPECT_EQ(e.detail(), "row index 3 is outside 1..2");
    }
}

// ---- block promotion ---------------------------------------------------------------------

// 5 x 5, row 2 empty.
Csr small_pattern() {
    return read(
        "%%MatrixMarket matrix coordinate pattern general\n5 5 8\n"
        "1 1\n1 4\n2 2\n2 5\n4 1\n4 4\n5 3\n5 5\n");
}

/// A random square pattern (about `density` of the entries), diagonal included.
Csr random_pattern(std::int32_t n, double density, std::uint64_t seed) {
    Csr a;
    a.rows = a.cols = n;
    a.row_ptr = {0};
    Rng rng(seed);
    for (std::int32_t i = 0; i < n; ++i) {
        for (std::int32_t j = 0; j < n; ++j) {
            if (i != j && rng.uniform() >= density) continue;
            a.col.push_back(j);
            a.val.push_back(1.0);
        }
        a.row_ptr.push_back(static_cast<std::int32_t>(a.col.size()));
    }
    return a;
}

TEST(PromoteToBsr, StructureIsThePatterns) {
    const Csr p = small_pattern();
    for (int bs : {1, 2, 3, 7, 16, 128}) {
        SCOPED_TRACE(bs);
        const Bsr b = promote_to_bsr(p, bs, 42);
        EXPECT_EQ(b.block_rows, 5);
        EXPECT_EQ(b.block_cols, 5);
        EXPECT_EQ(b.block_size, bs);
        EXPECT_EQ(b.blocks(), p.nonzeros());
        EXPECT_EQ(b.row_ptr, p.row_ptr);
        EXPECT_EQ(b.col, p.col);
        ASSERT_EQ(b.val.size(), static_cast<std::size_t>(p.nonzeros()) * bs * bs);
        for (double v : b.val) {
            EXPECT_GE(v, -1.0);
            EXPECT_LT(v, 1.0);
        }
        // Dense blocks: the scalar CSR has bs^2 entries per pattern entry.
        const Csr s = to_csr(b);
        EXPECT_EQ(s.rows, 5 * bs);
        EXPECT_EQ(s.nonzeros(), p.nonzeros() * bs * bs);
        EXPECT_EQ(s.row_ptr[2 * bs], s.row_ptr[3 * bs]);  // empty row 2 stays empty
    }
}

TEST(PromoteToBsr, BlockSizeOneKeepsThePatternsStructure) {
    const Csr p = small_pattern();
    const Csr s = to_csr(promote_to_bsr(p, 1, 5));
    EXPECT_EQ(s.rows, p.rows);
    EXPECT_EQ(s.cols, p.cols);
    EXPECT_EQ(s.row_ptr, p.row_ptr);
    EXPECT_EQ(s.col, p.col);
}

TEST(PromoteToBsr, SeedDeterminesTheValues) {
    const Csr p = small_pattern();
    const Bsr a = promote_to_bsr(p, 3, 1234);
    const Bsr b = promote_to_bsr(p, 3, 1234);
    const Bsr c = promote_to_bsr(p, 3, 1235);
    EXPECT_EQ(a.val, b.val);
    ASSERT_EQ(a.val.size(), c.val.size());
    std::size_t same = 0;
    for (std::size_t k = 0; k < a.val.size(); ++k) same += a.val[k] == c.val[k] ? 1 : 0;
    EXPECT_EQ(same, 0u);
    // Blocks differ from each other too (each draws its own stream).
    EXPECT_NE(std::vector<double>(a.val.begin(), a.val.begin() + 9),
              std::vector<double>(a.val.begin() + 9, a.val.begin() + 18));
}

TEST(PromoteToBsr, BlockValuesDependOnlyOnSeedAndPosition) {
    // Block (3, 3) (0-based) of the small pattern is also in a pattern holding only it.
    const Bsr full = promote_to_bsr(small_pattern(), 4, 9);
    const Bsr single = promote_to_bsr(
        read("%%MatrixMarket matrix coordinate pattern general\n5 5 1\n4 4\n"), 4, 9);
    const std::size_t p = 5;  // position of (3, 3) in small_pattern()
    ASSERT_EQ(full.col[p], 3);
    EXPECT_EQ(std::vector<double>(full.val.begin() + p * 16, full.val.begin() + (p + 1) * 16),
              single.val);
}

TEST(PromoteToBsr, IndependentOfThreadCount) {
    const Csr p = random_pattern(300, 0.03, 7);
    const int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    const Bsr one = promote_to_bsr(p, 5, 77);
    omp_set_num_threads(3);
    const Bsr three = promote_to_bsr(p, 5, 77);
    omp_set_num_threads(saved);
    EXPECT_EQ(one.val, three.val);
}

TEST(PromoteToBsr, OneRowAndEmptyMatrices) {
    const Bsr one = promote_to_bsr(read("%%MatrixMarket matrix coordinate real general\n"
                                        "1 1 1\n1 1 5\n"),
                                   6, 3);
    EXPECT_EQ(one.block_rows, 1);
    EXPECT_EQ(one.row_ptr, (std::vector<std::int32_t>{0, 1}));
    EXPECT_EQ(one.val.size(), 36u);

    const Bsr empty_rows =
        promote_to_bsr(read("%%MatrixMarket matrix coordinate real general\n3 3 0\n"), 2, 3);
    EXPECT_EQ(empty_rows.row_ptr, (std::vector<std::int32_t>{0, 0, 0, 0}));
    EXPECT_TRUE(empty_rows.val.empty());

    const Bsr none = promote_to_bsr(Csr{}, 2, 3);
    EXPECT_EQ(none.block_rows, 0);
    EXPECT_EQ(none.row_ptr, (std::vector<std::int32_t>{0}));
}

TEST(PromoteToBsr, RejectsBadBlockSizesAndNonSquarePatterns) {
    const Csr p = small_pattern();
    EXPECT_THROW(promote_to_bsr(p, 0, 1), InputError);
    EXPECT_THROW(promote_to_bsr(p, kMaxPromotedBlockSize + 1, 1), InputError);
    EXPECT_NO_THROW(promote_to_bsr(p, kMaxPromotedBlockSize, 1));
    const Csr wide = read("%%MatrixMarket matrix coordinate real general\n2 3 1\n1 3 1\n");
    try {
        promote_to_bsr(wide, 2, 1);
        FAIL() << "no exception";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("must be square, it is 2 x 3"), std::string::npos)
            << e.what();
    }
}

TEST(BsrTranspose, IsTheEntrywiseTransposeAndAnInvolution) {
    const Csr p = small_pattern();
    for (int bs : {1, 3, 4}) {
        SCOPED_TRACE(bs);
        const Bsr a = promote_to_bsr(p, bs, 17);
        const Bsr t = transpose(a);
        EXPECT_EQ(t.block_rows, a.block_cols);
        EXPECT_EQ(t.blocks(), a.blocks());
        // Entry (i, j) of A is entry (j, i) of A^T, through the scalar CSR of each.
        const Csr sa = to_csr(a), st = to_csr(t);
        auto entry = [](const Csr& m, int i, int j) {
            for (int q = m.row_ptr[i]; q < m.row_ptr[i + 1]; ++q) {
                if (m.col[q] == j) return m.val[q];
            }
            return 0.0;
        };
        for (int i = 0; i < sa.rows; ++i) {
            for (int q = sa.row_ptr[i]; q < sa.row_ptr[i + 1]; ++q) {
                EXPECT_EQ(entry(st, sa.col[q], i), sa.val[q]) << i << "," << sa.col[q];
            }
        }
        for (int br = 0; br < t.block_rows; ++br) {  // columns sorted in every block row
            EXPECT_TRUE(
                std::is_sorted(t.col.begin() + t.row_ptr[br], t.col.begin() + t.row_ptr[br + 1]));
        }
        const Bsr back = transpose(t);
        EXPECT_EQ(back.row_ptr, a.row_ptr);
        EXPECT_EQ(back.col, a.col);
        EXPECT_EQ(back.val, a.val);
    }
}

}  // namespace
}  // namespace heptane
