// Issue 19's classes of bad input, one test each, through the CLI: output paths checked before
// any work (class 2), --set naming itself for a section it made (class 5), and the command line
// (class 6: unknown commands, the "heptane:" prefix, bench reports named after their command,
// options that do nothing without a GPU say so, CPU rows with their own minimum).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "app/cli.hpp"
#include "app/report.hpp"
#include "common/cli_runner.hpp"
#include "common/test_systems.hpp"
#include "core/base/text.hpp"
#include "core/matrix/matrix_market.hpp"
#include "gpu/device.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;
using test::CliResult;
using test::run_heptane;
using test::source_path;

const std::string kSmallDeck = source_path("tests/app/decks/small_two_phase.yaml");

/// A fresh folder per test, also the working directory while the test runs (commands that
/// write default file names write them here), removed at the end.
class Hardening : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() / ("heptane_hardening_" + std::string(info->name()) + "_" +
                                            std::to_string(::getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        cwd_ = fs::current_path();
        fs::current_path(dir_);
    }
    void TearDown() override {
        fs::current_path(cwd_);
        fs::remove_all(dir_);
    }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    std::size_t entries() const {
        return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), {}));
    }
    fs::path dir_, cwd_;
};

// Class 2: an output that is a folder or an empty path is refused up front (exit 2 naming the
// option), not after the solve at the rename (it was exit 3), and not silently replaced by the
// default (`-o ""` wrote the deck's output.file).
TEST_F(Hardening, OutputPathsAreCheckedBeforeAnyWork) {
    fs::create_directories(path("folder.h5"));
    fs::create_directories(path("folder.yaml"));
    const struct {
        std::vector<std::string> args;
        const char* message;
    } cases[] = {
        {{"run", kSmallDeck, "-o", path("folder.h5")}, "-o: cannot write"},
        {{"run", kSmallDeck, "-o", ""}, "--output: an empty path"},
        {{"simulate", source_path("inputs/buckley_leverett.yaml"), "-o", path("folder.h5")},
         "-o: cannot write"},
        {{"bench", "spmv", "--grids", "4", "--K", "1", "--report", path("folder.yaml")},
         "--report: cannot write"},
        {{"bench", "solve", "--report", ""}, "--report: an empty path"},
        {{"proxy", "--dims", "20", "20", "5", "--min-seconds", "0.1", "--no-secondary", "--report",
          path("folder.yaml")},
         "--report: cannot write"},
        {{"export", kSmallDeck, "--matrix", path("folder.h5")}, "--matrix: cannot write"},
        {{"export", kSmallDeck, "--matrix", path("a.mtx"), "--rhs", path("no/b.mtx")},
         "--rhs: cannot write"},
    };
    for (const auto& c : cases) {
        const CliResult r = run_heptane(c.args);
        EXPECT_EQ(r.code, kExitBadInput) << c.args[0] << " " << c.args.back() << ": " << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_EQ(r.out.find("iterations"), std::string::npos) << "it solved first:\n" << r.out;
    }
    EXPECT_EQ(entries(), 2u);  // the two folders, nothing written
}

// Class 5: --set of a section the deck does not have names the --set, like every other --set
// error (it blamed the deck file).
TEST_F(Hardening, SetOfAnUnknownSectionNamesTheSet) {
    const CliResult r =
        run_heptane({"run", kSmallDeck, "--set", "nosuch.key=1", "-o", path("o.h5")});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_EQ(r.err.rfind("heptane: --set nosuch.key=1: nosuch: unknown key", 0), 0u) << r.err;
    // A key of the deck's own is still the deck's.
    const CliResult own = run_heptane({"run", kSmallDeck, "--set", "solver.nosuch=1"});
    EXPECT_NE(own.err.find("--set solver.nosuch=1: solver.nosuch: unknown key"), std::string::npos)
        << own.err;
}

// Class 6: the command line's own errors.
TEST_F(Hardening, UnknownCommandsAreNamedAndEveryErrorIsPrefixed) {
    CliResult r = run_heptane({"frobnicate"});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_EQ(r.err.rfind("heptane: unknown command 'frobnicate' (commands: run, simulate", 0), 0u)
        << r.err;
    r = run_heptane({"bench", "spvm"});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_EQ(r.err.rfind("heptane: unknown command 'spvm' (commands of bench: spmv", 0), 0u)
        << r.err;
    for (const std::vector<std::string>& args : {std::vector<std::string>{"run"},
                                                 {"run", kSmallDeck, "--no-such-option"},
                                                 {"compare", "a.h5"},
                                                 {"proxy", "--min-seconds", "-1"}}) {
        r = run_heptane(args);
        EXPECT_EQ(r.code, kExitBadInput) << args.back();
        EXPECT_EQ(r.err.rfind("heptane: ", 0), 0u) << r.err;
    }
    r = run_heptane({"--version"});
    EXPECT_EQ(r.code, kExitOk);
}

TEST_F(Hardening, BenchReportsAreNamedAfterTheirCommand) {
    const CliResult r =
        run_heptane({"bench", "spmv", "--grids", "4", "--K", "1", "--repeat", "3", "--cpu"});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    EXPECT_TRUE(fs::exists(path("bench_spmv.yaml")));
    EXPECT_FALSE(fs::exists(path("bench_smoother.yaml")));  // the shared default it used to take
    // Its CPU row has a minimum of its own (it repeated the median).
    const YAML::Node y = YAML::LoadFile(path("bench_spmv.yaml"));
    bool cpu_row = false;
    for (const YAML::Node& row : y["results"]) {
        if (row["kernel"].as<std::string>() != "cpu_reference") continue;
        cpu_row = true;
        EXPECT_LE(row["min_us"].as<double>(), row["median_us"].as<double>());
    }
    EXPECT_TRUE(cpu_row) << YAML::Dump(y);
}

TEST_F(Hardening, GpuOnlyOptionsSaySoWithoutAGpu) {
    if (gpu::device_count() > 0) GTEST_SKIP() << "a GPU is present: the options apply";
    CliResult r = run_heptane({"bench", "solve", "--grids", "4", "--K", "1", "--iterations", "2",
                               "--preconditioner", "point_block_jacobi"});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    EXPECT_NE(r.out.find("note: --preconditioner applies to the GPU solvers"), std::string::npos)
        << r.out;
    r = run_heptane({"bench", "ksparse", source_path("inputs/data/matrices/sherman1.mtx"),
                     "--block-sizes", "2", "--repeat", "2", "--tune"});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    EXPECT_NE(r.out.find("note: --tune and --retune tune the GPU kernels"), std::string::npos)
        << r.out;
}

// Class 3: nan and inf options are refused at the option, with a short message (inf used to
// print a 300-digit range; nan passed every check).
TEST_F(Hardening, NonFiniteOptionsAreRefused) {
    const struct {
        std::vector<std::string> args;
        const char* message;
    } cases[] = {
        {{"compare", "a.h5", "b.h5", "--rtol", "nan"}, "--rtol: 'nan' is not a finite number >= 0"},
        {{"compare", "a.h5", "b.h5", "--atol", "inf"}, "--atol: 'inf' is not a finite number >= 0"},
        {{"proxy", "--memory-fraction", "nan"}, "--memory-fraction: 'nan' is not a finite number"},
        {{"proxy", "--min-seconds", "inf"}, "--min-seconds: 'inf' is not a finite number > 0"},
        {{"simulate", source_path("inputs/buckley_leverett.yaml"), "--max-wall-time", "nan"},
         "--max-wall-time: 'nan' is not a finite number > 0"},
    };
    for (const auto& c : cases) {
        const CliResult r = run_heptane(c.args);
        EXPECT_EQ(r.code, kExitBadInput) << c.args.back();
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_LT(r.err.size(), 200u) << r.err;
    }
    EXPECT_EQ(entries(), 0u);
}

// Class 4: a deck file with a second YAML document is refused at the document's line (the
// second document was silently ignored).
TEST_F(Hardening, ASecondYamlDocumentIsRefused) {
    {
        std::ofstream deck(path("two.yaml"));
        deck << std::ifstream(kSmallDeck).rdbuf() << "---\nsolver: {method: qmr}\n";
    }
    int lines = 0;
    {
        std::ifstream deck(path("two.yaml"));
        for (std::string line; std::getline(deck, line);) ++lines;
    }
    const CliResult r = run_heptane({"run", path("two.yaml"), "-o", path("o.h5")});
    EXPECT_EQ(r.code, kExitBadInput);
    // At the '---' line, the file's last but one.
    EXPECT_NE(r.err.find("two.yaml:" + std::to_string(lines - 1) + ": a second YAML document"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(path("o.h5")));
}

// Class 3: a permeability of 0 everywhere is refused whatever its source (a number was, an
// Eclipse file was not), and a rate well whose every perforated cell has zero permeability is
// an input error naming the well (the solve broke down with NaN).
TEST_F(Hardening, ZeroPermeabilityIsRefusedFromEverySourceAndForARateWell) {
    {
        std::ofstream zero(path("zero.inc"));
        zero << "PERMX\n 120*0 /\n";  // the small deck's 6 x 5 x 4 cells
    }
    CliResult r =
        run_heptane({"run", kSmallDeck, "-o", path("o.h5"), "--set",
                     "rock.permeability={kind: eclipse, file: " + path("zero.inc") + "}"});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("rock.permeability.file: " + path("zero.inc") +
                         ": every cell has permeability 0 in every direction"),
              std::string::npos)
        << r.err;
    // P2 (wells[2], rate-controlled) is perforated in layer 3 only.
    r = run_heptane({"run", kSmallDeck, "-o", path("o.h5"), "--set",
                     "rock.permeability={kind: layered, values: [100, 100, 100, 0]}"});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("wells[2]: well 'P2' is rate-controlled but every perforated cell has "
                         "zero horizontal permeability"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(path("o.h5")));
}

// Class 1: sizes that cannot fit are input errors at the key or line, with the bytes needed,
// before anything is allocated (they ended in std::bad_alloc, exit 3, or the out-of-memory
// killer).
TEST_F(Hardening, SizesThatCannotFitAreRefusedUpFront) {
    CliResult r = run_heptane(
        {"run", kSmallDeck, "-o", path("o.h5"), "--set", "grid.dims=[100000, 100000, 100000]"});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("grid.dims: 1000000000000000 cells with K = 2 need at least"),
              std::string::npos)
        << r.err;
    // 2e9 rows need 192 GB to be read and solved: refused where the machine has less.
    if (host_memory_bytes() >= 192e9) GTEST_SKIP() << "this machine could hold 2e9 rows";
    {
        std::ofstream mtx(path("big.mtx"));
        mtx << "%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1\n1 1 1\n";
    }
    r = run_heptane({"bench", "ksparse", path("big.mtx"), "--block-sizes", "2"});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find(path("big.mtx") + ":2: size line: reading and solving it need at least"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(path("o.h5")));
}

// Class 4: text after the deck's document is refused at its line: after a document end
// ("...": yaml-cpp's Load dropped it silently), and text the parser cannot read, which the
// fuzzer found (a first line starting with ','; Load returned an empty document and yaml-cpp
// 0.7's LoadAll allocated empty documents until out of memory).
TEST_F(Hardening, TextAfterTheDocumentIsRefused) {
    {
        std::ofstream deck(path("ended.yaml"));
        deck << std::ifstream(kSmallDeck).rdbuf() << "...\nsolver: {method: qmr}\n";
    }
    CliResult r = run_heptane({"run", path("ended.yaml"), "-o", path("o.h5")});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("a second YAML document (after '...')"), std::string::npos) << r.err;
    const std::string comma = source_path("tests/fuzz/cases/deck/leading_comma.yaml");
    r = run_heptane({"run", comma, "-o", path("o.h5")});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("leading_comma.yaml:1: text the YAML parser cannot read, on or after "
                         "', A synthetic"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(path("o.h5")));
}

// Class 8: a solve that ends unconverged returns its best iterate, not the last. The demo deck
// at tolerance 1e-12 (the case): BiCGStab passes 2.5e-11 near iteration 9,400 and
// ends at 6.8e-4. The output's /x is the best iterate: its true residual, recomputed here
// from the file's matrix and x, is the reported one and far below the last iterate's.
TEST_F(Hardening, AnUnconvergedSolveReturnsItsBestIterate) {
    const CliResult r = run_heptane({"run", source_path("inputs/demo.yaml"), "--backend", "cpu",
                                     "--set", "solver.tolerance=1e-12", "--set",
                                     "solver.max_iterations=10000", "-o", path("o.h5")});
    ASSERT_EQ(r.code, 1) << r.err;  // not converged: a result, written
    EXPECT_NE(r.out.find("  returned    iterate "), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("the output holds iterate "), std::string::npos) << r.err;
    const hid_t f = H5Fopen(path("o.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    const auto attr = [f](const char* name, auto& value, hid_t type) {
        const hid_t a = H5Aopen_by_name(f, "/solver", name, H5P_DEFAULT, H5P_DEFAULT);
        ASSERT_GE(a, 0) << name;
        H5Aread(a, type, &value);
        H5Aclose(a);
    };
    long long returned = -1, iterations = 0;
    double true_residual = 0.0, last_true = 0.0;
    attr("returned_iteration", returned, H5T_NATIVE_LLONG);
    attr("iterations", iterations, H5T_NATIVE_LLONG);
    attr("true_relative_residual", true_residual, H5T_NATIVE_DOUBLE);
    attr("last_true_relative_residual", last_true, H5T_NATIVE_DOUBLE);
    const hid_t d = H5Dopen2(f, "/solver/residual_history", H5P_DEFAULT);
    ASSERT_GE(d, 0);
    std::vector<double> history(static_cast<std::size_t>(iterations) + 1);
    const hid_t space = H5Dget_space(d);
    ASSERT_EQ(H5Sget_simple_extent_npoints(space), static_cast<hssize_t>(history.size()));
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, history.data());
    H5Sclose(space);
    H5Dclose(d);
    H5Fclose(f);
    // The returned iterate is the history's minimum, far below the last.
    ASSERT_GE(returned, 0);
    ASSERT_LT(returned, iterations);
    const auto best = std::min_element(history.begin(), history.end()) - history.begin();
    EXPECT_EQ(returned, best);
    EXPECT_LT(true_residual, 1e-9);
    EXPECT_GT(last_true, 1e3 * true_residual);
}

// Class 8: compare reports NaN entries by count and fails on them (it printed "max rel 0").
TEST_F(Hardening, CompareReportsNaNs) {
    const std::string a = path("a.h5"), b = path("b.h5");
    ASSERT_EQ(run_heptane({"run", kSmallDeck, "-o", a}).code, kExitOk);
    fs::copy_file(a, b);
    {
        const hid_t f = H5Fopen(b.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
        ASSERT_GE(f, 0);
        const hid_t d = H5Dopen2(f, "/solution/x", H5P_DEFAULT);
        const hid_t space = H5Dget_space(d);
        std::vector<double> v(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
        H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
        v[5] = v[9] = std::numeric_limits<double>::quiet_NaN();
        H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
        H5Sclose(space);
        H5Dclose(d);
        H5Fclose(f);
    }
    CliResult r = run_heptane({"compare", a, b});
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_NE(r.out.find("DIFFERS (2 entries; NaN: 0 in a, 2 in b)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(5)"), std::string::npos) << r.out;  // worst at the first NaN
    r = run_heptane({"compare", b, b});  // NaN equal to NaN is still not a valid result
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_NE(r.out.find("NaN: 2 in a, 2 in b"), std::string::npos) << r.out;
}

// Class 7: text quoted from an input is clipped, and bytes that are not printable (or not
// UTF-8) are written as \xNN: a binary file or a 300-digit number gives a one-line message.
TEST(HardeningMessages, InputTextIsQuotedAndClipped) {
    const auto message = [](const std::string& value) {
        std::istringstream in("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 " + value +
                              "\n");
        try {
            read_matrix_market(in, "m.mtx");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    const std::string digits = message(std::string(300, '9') + "x");
    EXPECT_NE(digits.find("value '" + std::string(40, '9') + "'... is not a number"),
              std::string::npos)
        << digits;
    EXPECT_LT(digits.size(), 120u) << digits;
    const std::string binary = message(std::string("\x01\xff\xfe") + "1");
    EXPECT_NE(binary.find("value '\\x01\\xff\\xfe1' is not a number"), std::string::npos) << binary;
    EXPECT_EQ(quote_input("PR\xc3\x98"
                          "D"),
              "'PR\xc3\x98"
              "D'");  // UTF-8 is kept
    EXPECT_EQ(quote_input("a\tb"), "'a\\x09b'");
}

}  // namespace
}  // namespace heptane::app
