// Issue 19's classes of bad input, one test each, through the CLI: output paths checked before
// any work (class 2), --set naming itself for a section it made (class 5), and the command line
// (class 6: unknown commands, the "heptane:" prefix, bench reports named after their command,
// options that do nothing without a GPU say so, CPU rows with their own minimum).
#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>

#include "app/cli.hpp"
#include "app/report.hpp"
#include "common/cli_runner.hpp"
#include "common/test_systems.hpp"
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
    const CliResult r = run_heptane({"bench", "spmv", "--grids", "4", "--K", "1", "--repeat", "3"});
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
    EXPECT_NE(r.err.find("two.yaml:" + std::to_string(lines) + ": a second YAML document"),
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

}  // namespace
}  // namespace heptane::app
