// Tests of build_rock (grid/rock.hpp): every field kind, the unit conversion to SI and the
// deck keys of the InputErrors for bad specs.
#include "grid/rock.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "common/temp_file.hpp"
#include "common/test_systems.hpp"
#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "grid/eclipse_grid.hpp"
#include "grid/eclipse_model.hpp"
#include "grid/loaders.hpp"

namespace heptane::grid {
namespace {

using ::testing::HasSubstr;
using units::kMilliDarcy;

std::string data_path(const std::string& relative) {
    return test::source_path("inputs/data/" + relative);
}

using test::TempFile;

Grid3D make_grid(int nx, int ny, int nz) {
    Grid3D g;
    g.nx = nx;
    g.ny = ny;
    g.nz = nz;
    g.dx = 10.0;
    g.dy = 20.0;
    g.dz = 2.0;
    return g;
}

FieldSpec uniform_permeability(double kx, double ky, double kz) {
    FieldSpec s;
    s.kind = FieldKind::uniform;
    s.key = "rock.permeability";
    s.value = {kx, ky, kz};
    return s;
}

FieldSpec uniform_porosity(double phi) {
    FieldSpec s;
    s.kind = FieldKind::uniform;
    s.key = "rock.porosity";
    s.value = {phi, 0.0, 0.0};
    return s;
}

FieldSpec lognormal_permeability(double mean, double sigma, std::uint64_t seed) {
    FieldSpec s;
    s.kind = FieldKind::lognormal;
    s.key = "rock.permeability";
    s.mean = mean;
    s.sigma = sigma;
    s.seed = seed;
    s.kv_kh = 0.1;
    return s;
}

FieldSpec spe10_permeability(bool has_box, IndexBox box = {}) {
    FieldSpec s;
    s.kind = FieldKind::spe10;
    s.key = "rock.permeability";
    s.file = data_path("spe10/spe_perm.dat.gz");
    s.has_box = has_box;
    s.box = box;
    return s;
}

FieldSpec eclipse_spec(const std::string& key, const std::string& file) {
    FieldSpec s;
    s.kind = FieldKind::eclipse;
    s.key = key;
    s.file = file;
    return s;
}

/// Runs build_rock, which must throw InputError; returns the error.
InputError error_of(const Grid3D& grid, const FieldSpec& perm, const FieldSpec& poro) {
    try {
        build_rock(grid, perm, poro);
    } catch (const InputError& e) {
        return e;
    }
    ADD_FAILURE() << "no InputError thrown";
    return InputError("", "");
}

// ---- uniform and layered -----------------------------------------------------------------

TEST(BuildRock, UniformConvertsMilliDarcyToSquareMetres) {
    const Grid3D g = make_grid(3, 4, 5);
    const RockFields rock =
        build_rock(g, uniform_permeability(100.0, 50.0, 10.0), uniform_porosity(0.25));
    ASSERT_EQ(rock.kx.size(), 60u);
    ASSERT_EQ(rock.ky.size(), 60u);
    ASSERT_EQ(rock.kz.size(), 60u);
    ASSERT_EQ(rock.porosity.size(), 60u);
    for (std::size_t m = 0; m < 60; ++m) {
        EXPECT_DOUBLE_EQ(rock.kx[m], 100.0 * 9.869232667160129e-16);
        EXPECT_DOUBLE_EQ(rock.ky[m], 50.0 * 9.869232667160129e-16);
        EXPECT_DOUBLE_EQ(rock.kz[m], 10.0 * 9.869232667160129e-16);
        EXPECT_EQ(rock.porosity[m], 0.25);
    }
}

TEST(BuildRock, LayeredValuesLandInTheirLayer) {
    const Grid3D g = make_grid(2, 3, 4);
    FieldSpec perm;
    perm.kind = FieldKind::layered;
    perm.key = "rock.permeability";
    perm.layers = {10.0, 20.0, 0.0, 40.0};
    perm.kv_kh = 0.1;
    FieldSpec poro;
    poro.kind = FieldKind::layered;
    poro.key = "rock.porosity";
    poro.layers = {0.1, 0.2, 0.3, 0.4};
    const RockFields rock = build_rock(g, perm, poro);
    ASSERT_EQ(rock.kx.size(), 24u);
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 3; ++j) {
            for (int k = 0; k < 4; ++k) {
                const auto m = static_cast<std::size_t>(g.cell(i, j, k));
                const double expected = perm.layers[static_cast<std::size_t>(k)] * kMilliDarcy;
                EXPECT_DOUBLE_EQ(rock.kx[m], expected) << i << " " << j << " " << k;
                EXPECT_DOUBLE_EQ(rock.ky[m], expected) << i << " " << j << " " << k;
                EXPECT_DOUBLE_EQ(rock.kz[m], 0.1 * expected) << i << " " << j << " " << k;
                EXPECT_EQ(rock.porosity[m], poro.layers[static_cast<std::size_t>(k)]);
            }
        }
    }
}

// ---- lognormal ---------------------------------------------------------------------------

TEST(BuildRock, LognormalIsReproducibleAndSeedDependent) {
    const Grid3D g = make_grid(8, 9, 10);
    const RockFields a =
        build_rock(g, lognormal_permeability(100.0, 1.0, 42), uniform_porosity(0.2));
    const RockFields b =
        build_rock(g, lognormal_permeability(100.0, 1.0, 42), uniform_porosity(0.2));
    const RockFields c =
        build_rock(g, lognormal_permeability(100.0, 1.0, 43), uniform_porosity(0.2));
    ASSERT_EQ(a.kx.size(), 720u);
    EXPECT_EQ(a.kx, b.kx);
    EXPECT_EQ(a.kz, b.kz);
    std::size_t same = 0;
    for (std::size_t m = 0; m < a.kx.size(); ++m) same += a.kx[m] == c.kx[m];
    EXPECT_EQ(same, 0u);
    for (std::size_t m = 0; m < a.kx.size(); ++m) {
        EXPECT_EQ(a.ky[m], a.kx[m]);
        EXPECT_DOUBLE_EQ(a.kz[m], 0.1 * a.kx[m]);
    }
    // Different cells get different values (no repeated stream).
    EXPECT_NE(a.kx[0], a.kx[1]);
}

TEST(BuildRock, LognormalDoesNotDependOnTheThreadCount) {
#ifdef _OPENMP
    const Grid3D g = make_grid(16, 16, 16);
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const RockFields one =
        build_rock(g, lognormal_permeability(5.0, 2.0, 7), uniform_porosity(0.2));
    omp_set_num_threads(std::max(threads, 4));
    const RockFields many =
        build_rock(g, lognormal_permeability(5.0, 2.0, 7), uniform_porosity(0.2));
    omp_set_num_threads(threads);
    EXPECT_EQ(one.kx, many.kx);
    EXPECT_EQ(one.kz, many.kz);
#else
    GTEST_SKIP() << "built without OpenMP";
#endif
}

TEST(BuildRock, LognormalHasTheRequestedLogStatistics) {
    const Grid3D g = make_grid(40, 40, 40);
    const double mean = 50.0, sigma = 1.5;
    const RockFields rock =
        build_rock(g, lognormal_permeability(mean, sigma, 2024), uniform_porosity(0.2));
    const auto n = static_cast<double>(rock.kx.size());
    ASSERT_EQ(rock.kx.size(), 64000u);
    double sum = 0.0, sum_sq = 0.0;
    for (double k : rock.kx) {
        const double x = std::log(k / (mean * kMilliDarcy));  // ~ sigma N(0, 1)
        sum += x;
        sum_sq += x * x;
    }
    const double sample_mean = sum / n;
    const double sample_std = std::sqrt((sum_sq - n * sample_mean * sample_mean) / (n - 1.0));
    // Standard error of the mean sigma / sqrt(n) = 0.0059; of the std sigma / sqrt(2 n),
    // 0.28 % of sigma, so 2 % is about 7 standard errors.
    EXPECT_LT(std::abs(sample_mean), 4.0 * sigma / std::sqrt(n));
    EXPECT_NEAR(sample_std, sigma, 0.02 * sigma);
}

// ---- files -------------------------------------------------------------------------------

TEST(BuildRock, Spe10WindowEqualsTheLoaderInSquareMetres) {
    IndexBox box;
    box.i = {10, 19};
    box.j = {100, 129};
    box.k = {40, 47};
    const Grid3D g = make_grid(10, 30, 8);
    const RockFields rock = build_rock(g, spe10_permeability(true, box), uniform_porosity(0.2));
    const Spe10Window w = read_spe10(data_path("spe10/spe_perm.dat.gz"), box);
    ASSERT_EQ(rock.kx.size(), 2400u);
    ASSERT_EQ(w.kx.size(), 2400u);
    for (std::size_t m = 0; m < 2400; ++m) {
        ASSERT_DOUBLE_EQ(rock.kx[m], w.kx[m] * kMilliDarcy) << m;
        ASSERT_DOUBLE_EQ(rock.ky[m], w.ky[m] * kMilliDarcy) << m;
        ASSERT_DOUBLE_EQ(rock.kz[m], w.kz[m] * kMilliDarcy) << m;
    }
}

TEST(BuildRock, Spe10WithoutBoxIsTheWholeModel) {
    const Grid3D g = make_grid(60, 220, 85);
    const RockFields rock = build_rock(g, spe10_permeability(false), uniform_porosity(0.2));
    ASSERT_EQ(rock.kx.size(), 1122000u);
    // Values of the first and last cells in the file (see loaders_test).
    EXPECT_DOUBLE_EQ(rock.kx[static_cast<std::size_t>(g.cell(0, 0, 0))], 18.2808 * kMilliDarcy);
    EXPECT_DOUBLE_EQ(rock.kx[static_cast<std::size_t>(g.cell(1, 0, 0))], 28.5927 * kMilliDarcy);
    EXPECT_DOUBLE_EQ(rock.kz[static_cast<std::size_t>(g.cell(59, 219, 84))],
                     1.64693e-05 * kMilliDarcy);
}

/// SPE9's PERMX block alone (the file's COPY and MULTIPLY edits are refused until heptane
/// applies them; kv_kh = 0.01 below says what they say).
std::string spe9_permx_text() {
    std::ifstream in(data_path("spe9/PERMVALUES.DATA"));
    std::string text, line;
    while (std::getline(in, line) && line.rfind("COPY", 0) != 0) text += line + "\n";
    return text;
}

TEST(BuildRock, EclipseSpe9WithDerivedPermyAndPermz) {
    const Grid3D g = make_grid(24, 25, 15);
    const TempFile spe9(spe9_permx_text());
    FieldSpec perm = eclipse_spec("rock.permeability", spe9.path());
    perm.kv_kh = 0.01;
    perm.ky_kx = 1.0;
    const RockFields rock = build_rock(g, perm, uniform_porosity(0.2));
    ASSERT_EQ(rock.kx.size(), 9000u);
    // File order is i fastest: value 1 is cell (0,0,0), value 2 cell (1,0,0), value 25 is
    // cell (0,1,0); the last value is cell (23,24,14).
    EXPECT_DOUBLE_EQ(rock.kx[static_cast<std::size_t>(g.cell(0, 0, 0))], 49.29276 * kMilliDarcy);
    EXPECT_DOUBLE_EQ(rock.kx[static_cast<std::size_t>(g.cell(1, 0, 0))], 162.25308 * kMilliDarcy);
    EXPECT_DOUBLE_EQ(rock.kx[static_cast<std::size_t>(g.cell(23, 24, 14))], 47.05342 * kMilliDarcy);
    const auto permx = read_eclipse_grid(perm.file, {24, 25, 15}).arrays.at("PERMX");
    for (int k = 0; k < 15; ++k) {
        for (int j = 0; j < 25; ++j) {
            for (int i = 0; i < 24; ++i) {
                const auto n = static_cast<std::size_t>(i + 24 * (j + 25 * k));
                const auto m = static_cast<std::size_t>(g.cell(i, j, k));
                ASSERT_DOUBLE_EQ(rock.kx[m], permx[n] * kMilliDarcy) << i << " " << j << " " << k;
                ASSERT_EQ(rock.ky[m], rock.kx[m]);
                ASSERT_DOUBLE_EQ(rock.kz[m], 0.01 * rock.kx[m]);
            }
        }
    }
}

TEST(BuildRock, EclipseArraysGivenInTheFileAreUsed) {
    // 2 x 1 x 2 grid; Eclipse order (i fastest) is cells (0,0,0) (1,0,0) (0,0,1) (1,0,1).
    const TempFile file(
        "PERMX\n 1 2 3 4 /\n"
        "PERMY 5 6 7 8 /\n"
        "PERMZ\n 2*0.5 2*0.25 /\n"
        "PORO\n 0.1 0.2 0.3 0.4 /\n");
    const Grid3D g = make_grid(2, 1, 2);
    FieldSpec perm = eclipse_spec("rock.permeability", file.path());
    perm.kv_kh = 0.01;  // unused: PERMZ is given
    const RockFields rock = build_rock(g, perm, eclipse_spec("rock.porosity", file.path()));
    // k-fastest cell order: (0,0,0) (0,0,1) (1,0,0) (1,0,1).
    const std::vector<double> kx{1, 3, 2, 4}, ky{5, 7, 6, 8}, kz{0.5, 0.25, 0.5, 0.25};
    const std::vector<double> phi{0.1, 0.3, 0.2, 0.4};
    for (std::size_t m = 0; m < 4; ++m) {
        EXPECT_DOUBLE_EQ(rock.kx[m], kx[m] * kMilliDarcy) << m;
        EXPECT_DOUBLE_EQ(rock.ky[m], ky[m] * kMilliDarcy) << m;
        EXPECT_DOUBLE_EQ(rock.kz[m], kz[m] * kMilliDarcy) << m;
        EXPECT_EQ(rock.porosity[m], phi[m]) << m;
    }
}

// ---- errors ------------------------------------------------------------------------------

TEST(BuildRockErrors, InvalidGrid) {
    Grid3D g = make_grid(0, 2, 2);
    InputError e = error_of(g, uniform_permeability(1, 1, 1), uniform_porosity(0.2));
    EXPECT_EQ(e.key(), "grid.dims");
    EXPECT_THAT(e.detail(), HasSubstr("0 x 2 x 2"));
    g = make_grid(2, 2, 2);
    g.dz = 0.0;
    EXPECT_EQ(error_of(g, uniform_permeability(1, 1, 1), uniform_porosity(0.2)).key(),
              "grid.cell_size");
    g.dz = std::numeric_limits<double>::infinity();
    EXPECT_EQ(error_of(g, uniform_permeability(1, 1, 1), uniform_porosity(0.2)).key(),
              "grid.cell_size");
    g = make_grid(1 << 20, 1 << 20, 1 << 20);  // 2^60 cells x 16 unknowns overflows
    e = error_of(g, uniform_permeability(1, 1, 1), uniform_porosity(0.2));
    EXPECT_EQ(e.key(), "grid.dims");
    EXPECT_THAT(e.detail(), HasSubstr("overflow"));
}

TEST(BuildRockErrors, UniformValues) {
    const Grid3D g = make_grid(2, 2, 2);
    const auto poro = uniform_porosity(0.2);
    EXPECT_EQ(error_of(g, uniform_permeability(1, -1, 1), poro).key(), "rock.permeability.value");
    EXPECT_EQ(error_of(g, uniform_permeability(0, 0, 0), poro).key(), "rock.permeability.value");
    EXPECT_EQ(error_of(g, uniform_permeability(std::nan(""), 1, 1), poro).key(),
              "rock.permeability.value");
    const auto perm = uniform_permeability(1, 1, 1);
    EXPECT_EQ(error_of(g, perm, uniform_porosity(0.0)).key(), "rock.porosity.value");
    EXPECT_EQ(error_of(g, perm, uniform_porosity(1.5)).key(), "rock.porosity.value");
    EXPECT_NO_THROW(build_rock(g, uniform_permeability(1, 1, 0), uniform_porosity(1.0)));
}

TEST(BuildRockErrors, LayeredValues) {
    const Grid3D g = make_grid(2, 2, 5);
    FieldSpec perm;
    perm.kind = FieldKind::layered;
    perm.key = "rock.permeability";
    perm.layers = {1.0, 2.0, 3.0};
    InputError e = error_of(g, perm, uniform_porosity(0.2));
    EXPECT_EQ(e.key(), "rock.permeability.values");
    EXPECT_EQ(e.detail(), "3 values given, the grid has nz = 5 layers");

    perm.layers = {1.0, 2.0, -3.0, 4.0, 5.0};
    EXPECT_EQ(error_of(g, perm, uniform_porosity(0.2)).key(), "rock.permeability.values");
    perm.layers = {1.0, 2.0, 3.0, 4.0, 5.0};
    perm.kv_kh = -0.1;
    EXPECT_EQ(error_of(g, perm, uniform_porosity(0.2)).key(), "rock.permeability.kv_kh");

    FieldSpec poro;
    poro.kind = FieldKind::layered;
    poro.key = "rock.porosity";
    poro.layers = {0.1, 0.2, 0.3, 0.4, 1.2};
    EXPECT_EQ(error_of(g, uniform_permeability(1, 1, 1), poro).key(), "rock.porosity.values");
    poro.layers = {0.1, 0.2};
    EXPECT_EQ(error_of(g, uniform_permeability(1, 1, 1), poro).key(), "rock.porosity.values");
}

TEST(BuildRockErrors, LognormalParameters) {
    const Grid3D g = make_grid(2, 2, 2);
    const auto poro = uniform_porosity(0.2);
    EXPECT_EQ(error_of(g, lognormal_permeability(100.0, -1.0, 1), poro).key(),
              "rock.permeability.sigma");
    EXPECT_EQ(error_of(g, lognormal_permeability(0.0, 1.0, 1), poro).key(),
              "rock.permeability.mean");
    FieldSpec perm = lognormal_permeability(100.0, 1.0, 1);
    perm.kv_kh = -1.0;
    EXPECT_EQ(error_of(g, perm, poro).key(), "rock.permeability.kv_kh");
    FieldSpec lognormal_poro = lognormal_permeability(0.2, 0.1, 1);
    lognormal_poro.key = "rock.porosity";
    EXPECT_EQ(error_of(g, uniform_permeability(1, 1, 1), lognormal_poro).key(),
              "rock.porosity.kind");
}

TEST(BuildRockErrors, Spe10Specs) {
    const auto poro = uniform_porosity(0.2);
    IndexBox box;
    box.i = {0, 19};
    box.j = {0, 19};
    box.k = {0, 9};
    InputError e = error_of(make_grid(10, 10, 10), spe10_permeability(true, box), poro);
    EXPECT_EQ(e.key(), "rock.permeability.box");
    EXPECT_THAT(e.detail(), HasSubstr("box is 20 x 20 x 10 cells but grid.dims is 10 x 10 x 10"));

    e = error_of(make_grid(10, 10, 10), spe10_permeability(false), poro);
    EXPECT_EQ(e.key(), "rock.permeability.box");
    EXPECT_THAT(e.detail(), HasSubstr("60 x 220 x 85"));

    box.i = {55, 64};  // outside the 60 columns
    EXPECT_EQ(error_of(make_grid(10, 20, 10), spe10_permeability(true, box), poro).key(),
              "rock.permeability.box");

    FieldSpec missing = spe10_permeability(false);
    missing.file = data_path("spe10/missing.dat.gz");
    e = error_of(make_grid(60, 220, 85), missing, poro);
    EXPECT_EQ(e.key(), "rock.permeability.file");
    EXPECT_THAT(e.detail(), HasSubstr("missing.dat.gz"));

    // A loader error keeps its file:line detail under the .file key.
    const TempFile bad("1.0 2.0\nfoo\n");
    FieldSpec malformed = spe10_permeability(false);
    malformed.file = bad.path();
    e = error_of(make_grid(60, 220, 85), malformed, poro);
    EXPECT_EQ(e.key(), "rock.permeability.file");
    EXPECT_THAT(e.detail(), HasSubstr(bad.path() + ":2: "));

    FieldSpec spe10_poro = spe10_permeability(false);
    spe10_poro.key = "rock.porosity";
    e = error_of(make_grid(60, 220, 85), uniform_permeability(1, 1, 1), spe10_poro);
    EXPECT_EQ(e.key(), "rock.porosity.kind");
    EXPECT_EQ(e.detail(),
              "spe10 provides permeability only; give porosity as a number, layered or eclipse");
}

TEST(BuildRockErrors, EclipseSpecs) {
    const auto poro = uniform_porosity(0.2);
    // SPE9 has 9000 values; a 10 x 10 x 10 grid needs 1000.
    const TempFile spe9(spe9_permx_text());
    InputError e =
        error_of(make_grid(10, 10, 10), eclipse_spec("rock.permeability", spe9.path()), poro);
    EXPECT_EQ(e.key(), "rock.permeability.file");
    EXPECT_THAT(e.detail(), HasSubstr(":18: PERMX: more values than the grid's 1000 cells"));

    const Grid3D g = make_grid(2, 1, 2);
    const TempFile no_permx("PERMY\n 4*1.0 /\nPORO\n 4*0.2 /\n");
    e = error_of(g, eclipse_spec("rock.permeability", no_permx.path()), poro);
    EXPECT_EQ(e.key(), "rock.permeability.file");
    EXPECT_THAT(e.detail(), HasSubstr("PERMX"));

    const TempFile short_permz("PERMX\n 4*1.0 /\nPERMZ\n 3*1.0 /\n");
    e = error_of(g, eclipse_spec("rock.permeability", short_permz.path()), poro);
    EXPECT_EQ(e.key(), "rock.permeability.file");
    EXPECT_THAT(e.detail(), HasSubstr(":3: PERMZ: 3 values, the box has 4 cells"));

    const TempFile negative("PERMX\n 1.0 1.0 -1.0 1.0 /\n");
    e = error_of(g, eclipse_spec("rock.permeability", negative.path()), poro);
    EXPECT_EQ(e.key(), "rock.permeability.file");
    EXPECT_THAT(e.detail(), HasSubstr("(i, j, k) = (0, 0, 1)"));

    // "4*" leaves the cells as they are: never set, so not given.
    const TempFile unset("PERMX\n 4* /\n");
    e = error_of(g, eclipse_spec("rock.permeability", unset.path()), poro);
    EXPECT_EQ(e.key(), "rock.permeability.file");
    EXPECT_THAT(e.detail(), HasSubstr(": PERMX of cell (i, j, k) = (0, 0, 0) is not given"));

    // A file with more than the rock belongs to grid.eclipse (nothing of it skipped).
    const TempFile actnum("ACTNUM\n 4*1 /\nPERMX\n 4*1.0 /\n");
    e = error_of(g, eclipse_spec("rock.permeability", actnum.path()), poro);
    EXPECT_EQ(e.key(), "rock.permeability.file");
    EXPECT_THAT(e.detail(),
                HasSubstr("defines ACTNUM; a rock field file holds PERMX, PERMY, "
                          "PERMZ, PORO, SATNUM, FIPNUM, EQLNUM, SWL, SWCR, SWU, SOWCR, KRW, "
                          "KRO, PCW and SWATINIT only: give this file as grid.eclipse"));
    const TempFile faults("PERMX\n 4*1.0 /\nFAULTS\n F 1 1 1 1 1 1 Z /\n/\n");
    EXPECT_THAT(error_of(g, eclipse_spec("rock.permeability", faults.path()), poro).detail(),
                HasSubstr("defines FAULTS; a rock field file"));
    const TempFile gridopts("GRIDOPTS\n YES /\nPERMX\n 4*1.0 /\n");
    EXPECT_THAT(error_of(g, eclipse_spec("rock.permeability", gridopts.path()), poro).detail(),
                HasSubstr("gives GRIDOPTS; a rock field file"));
    const TempFile minpv("MINPV\n 1 /\nPERMX\n 4*1.0 /\n");
    EXPECT_THAT(error_of(g, eclipse_spec("rock.permeability", minpv.path()), poro).detail(),
                HasSubstr("gives MINPV; a rock field file"));
    const TempFile multregt("PERMX\n 4*1.0 /\nMULTREGT\n 1 2 0.5 /\n/\n");
    EXPECT_THAT(error_of(g, eclipse_spec("rock.permeability", multregt.path()), poro).detail(),
                HasSubstr("gives MULTREGT; a rock field file"));

    FieldSpec ratio = eclipse_spec("rock.permeability", no_permx.path());
    ratio.kv_kh = -1.0;
    EXPECT_EQ(error_of(g, ratio, poro).key(), "rock.permeability.kv_kh");

    const auto perm = uniform_permeability(1, 1, 1);
    EXPECT_EQ(error_of(g, perm, eclipse_spec("rock.porosity", short_permz.path())).key(),
              "rock.porosity.file");  // no PORO
    const TempFile zero_poro("PORO\n 0.2 0.0 0.2 0.2 /\n");
    e = error_of(g, perm, eclipse_spec("rock.porosity", zero_poro.path()));
    EXPECT_EQ(e.key(), "rock.porosity.file");
    EXPECT_THAT(e.detail(), HasSubstr("(i, j, k) = (1, 0, 0)"));
    EXPECT_EQ(error_of(g, perm, eclipse_spec("rock.porosity", data_path("spe9/NONE.DATA"))).key(),
              "rock.porosity.file");
}

// ---- saturation regions (design decision 87) -----------------------------------------------

/// The InputError that `build` throws (it must throw).
template <class Build>
InputError input_error_thrown(Build build) {
    try {
        build();
    } catch (const InputError& e) {
        return e;
    }
    ADD_FAILURE() << "no InputError thrown";
    return InputError("", "");
}

/// build_saturation_regions' InputError (it must throw).
InputError regions_error(const Grid3D& g, const FieldSpec& spec, int regions,
                         const RockFields& rock) {
    return input_error_thrown([&] { build_saturation_regions(g, spec, regions, rock); });
}

TEST(SaturationRegions, EachKindGivesEachCellsRegionFromZero) {
    const Grid3D g = make_grid(2, 1, 3);  // 6 cells, k fastest
    RockFields rock;
    FieldSpec spec;
    spec.key = "rock.saturation_regions";
    spec.value = {2.0, 2.0, 2.0};  // uniform
    EXPECT_EQ(build_saturation_regions(g, spec, 2, rock), std::vector<std::int32_t>(6, 1));
    spec.value = {1.0, 1.0, 1.0};  // every cell in region 1: none stored
    EXPECT_TRUE(build_saturation_regions(g, spec, 2, rock).empty());
    spec.kind = FieldKind::layered;
    spec.layers = {3, 1, 2};
    EXPECT_EQ(build_saturation_regions(g, spec, 3, rock),
              (std::vector<std::int32_t>{2, 0, 1, 2, 0, 1}));
    // An Eclipse file's SATNUM (i fastest); an inactive cell's number is not used.
    const TempFile satnum("SATNUM\n 1 2 2 1 0 2 /\n");
    rock.active = {1, 1, 0, 1, 1, 1};  // cell (0, 0, 2), Eclipse's fifth: its 0 unused
    FieldSpec file = eclipse_spec("rock.saturation_regions", satnum.path());
    EXPECT_EQ(build_saturation_regions(g, file, 2, rock),
              (std::vector<std::int32_t>{0, 1, 0, 1, 0, 1}));
}

TEST(SaturationRegions, ErrorsNameTheKeyAndTheCell) {
    const Grid3D g = make_grid(2, 1, 3);
    const RockFields rock;
    FieldSpec spec;
    spec.key = "rock.saturation_regions";
    spec.kind = FieldKind::layered;
    spec.layers = {1, 2.5, 1};
    InputError e = regions_error(g, spec, 3, rock);
    EXPECT_EQ(e.key(), "rock.saturation_regions.values");
    EXPECT_THAT(e.detail(), HasSubstr("cell (i, j, k) = (0, 0, 1) is in region 2.5; it must be an "
                                      "integer in [1, 3]"));
    spec.layers = {1, 4, 1};
    EXPECT_THAT(regions_error(g, spec, 3, rock).detail(), HasSubstr("is in region 4"));
    const TempFile satnum("SATNUM\n 1 2 2 1 3 2 /\n");
    e = regions_error(g, eclipse_spec("rock.saturation_regions", satnum.path()), 2, rock);
    EXPECT_EQ(e.key(), "rock.saturation_regions.file");
    EXPECT_THAT(e.detail(), HasSubstr("SATNUM of cell (i, j, k) = (0, 0, 2) is 3"));
    // Several regions need the cells' regions; one region does not.
    FieldSpec defaulted;
    defaulted.key = "rock.saturation_regions";
    defaulted.defaulted = true;
    EXPECT_TRUE(build_saturation_regions(g, defaulted, 1, rock).empty());
    e = regions_error(g, defaulted, 2, rock);
    EXPECT_EQ(e.key(), "rock.saturation_regions");
    EXPECT_THAT(e.detail(), HasSubstr("is required: the fluid has 2 saturation regions"));
    FieldSpec lognormal = spec;
    lognormal.kind = FieldKind::lognormal;
    EXPECT_EQ(regions_error(g, lognormal, 2, rock).key(), "rock.saturation_regions.kind");
}

// ---- fluid-in-place regions (design decision 89) -------------------------------------------

/// build_fip_regions' InputError (it must throw).
InputError fip_error(const Grid3D& g, const FieldSpec& spec, const RockFields& rock,
                     const EclipseGridSpec* files = nullptr,
                     const EclipseGridData* eclipse = nullptr) {
    return input_error_thrown([&] { build_fip_regions(g, spec, rock, files, eclipse); });
}

TEST(FipRegions, EachKindGivesEachCellsRegionAndOneRegionIsKept) {
    const Grid3D g = make_grid(2, 1, 3);  // 6 cells, k fastest
    RockFields rock;
    FieldSpec spec;
    spec.key = "rock.fip_regions";
    spec.defaulted = true;  // none given: no regions
    EXPECT_TRUE(build_fip_regions(g, spec, rock).empty());
    spec.defaulted = false;
    spec.value = {1.0, 1.0, 1.0};  // one region given: kept (its report is written)
    rock.fip_region = build_fip_regions(g, spec, rock);
    EXPECT_EQ(rock.fip_region, std::vector<std::int32_t>(6, 0));
    EXPECT_EQ(rock.num_fip_regions(), 1);
    spec.kind = FieldKind::layered;
    spec.layers = {4, 1, 2};
    rock.fip_region = build_fip_regions(g, spec, rock);
    EXPECT_EQ(rock.fip_region, (std::vector<std::int32_t>{3, 0, 1, 3, 0, 1}));
    EXPECT_EQ(rock.num_fip_regions(), 4);  // region 3 has no cell, and is counted
    // An Eclipse file's FIPNUM (i fastest); an inactive cell's number is neither used nor
    // counted.
    const TempFile fipnum("FIPNUM\n 1 2 2 1 9 2 /\n");
    rock.active = {1, 1, 0, 1, 1, 1};  // cell (0, 0, 2), Eclipse's fifth: its 9 unused
    rock.fip_region = build_fip_regions(g, eclipse_spec("rock.fip_regions", fipnum.path()), rock);
    EXPECT_EQ(rock.fip_region, (std::vector<std::int32_t>{0, 1, 0, 1, 0, 1}));
    EXPECT_EQ(rock.num_fip_regions(), 2);
    // The grid.eclipse files' FIPNUM where the deck gives none; both is an error.
    EclipseGridSpec files;
    files.key = "grid.eclipse";
    EclipseGridData data;
    data.arrays["FIPNUM"] = {3, 1, 1, 1, 1, 1};
    spec.defaulted = true;
    EXPECT_EQ(build_fip_regions(g, spec, rock, &files, &data),
              (std::vector<std::int32_t>{2, 0, 0, 0, 0, 0}));
    spec.defaulted = false;
    const InputError twice = fip_error(g, spec, rock, &files, &data);
    EXPECT_EQ(twice.key(), "rock.fip_regions");
    EXPECT_THAT(twice.detail(), HasSubstr("grid.eclipse's files give FIPNUM too"));
}

TEST(FipRegions, ErrorsNameTheKeyAndTheCell) {
    const Grid3D g = make_grid(2, 1, 3);
    const RockFields rock;
    FieldSpec spec;
    spec.key = "rock.fip_regions";
    spec.kind = FieldKind::layered;
    spec.layers = {1, 0, 1};
    InputError e = fip_error(g, spec, rock);
    EXPECT_EQ(e.key(), "rock.fip_regions.values");
    EXPECT_THAT(e.detail(), HasSubstr("cell (i, j, k) = (0, 0, 1) is in region 0; it must be an "
                                      "integer in [1, 10000] (the fluid-in-place regions)"));
    spec.layers = {1, 1, 1.5};
    EXPECT_THAT(fip_error(g, spec, rock).detail(), HasSubstr("is in region 1.5"));
    spec.layers = {1, 1, 10001};
    EXPECT_THAT(fip_error(g, spec, rock).detail(), HasSubstr("is in region 10001"));
    const TempFile fipnum("FIPNUM\n 1 2 2 1 -3 2 /\n");
    e = fip_error(g, eclipse_spec("rock.fip_regions", fipnum.path()), rock);
    EXPECT_EQ(e.key(), "rock.fip_regions.file");
    EXPECT_THAT(e.detail(), HasSubstr("FIPNUM of cell (i, j, k) = (0, 0, 2) is -3"));
    const TempFile satnum("SATNUM\n 6*1 /\n");
    e = fip_error(g, eclipse_spec("rock.fip_regions", satnum.path()), rock);
    EXPECT_THAT(e.detail(), HasSubstr("has no FIPNUM keyword"));
}

}  // namespace
}  // namespace heptane::grid
