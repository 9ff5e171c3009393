// Regression suite: every deck in tests/regression, with each Krylov method, and the
// preconditioned and smoother cases of preconditioned.txt are run through `heptane run` on the
// CPU and compared with their stored reference solutions
// (reference/<deck>.<method>[.<precond>].h5).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/cli.hpp"
#include "app/compare.hpp"
#include "app/hdf5_file.hpp"
#include "common/cli_runner.hpp"
#include "common/test_systems.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;

/// Agreement required with the stored solution: the solves are deterministic (same bits for
/// any thread count), so on the machine that made the references they agree exactly; the
/// tolerance leaves room for another compiler or libm (last-bit differences amplified by
/// the iteration) while staying far below the solver tolerance's effect on x.
constexpr double kRtol = 1e-6;
constexpr double kAtol = 1e-9;

struct Case {
    std::string deck;               ///< file name in tests/regression
    std::string method;             ///< bicgstab | qmr | block_jacobi | block_gs
    std::string preconditioner;     ///< empty: the deck's (none)
    std::vector<std::string> sets;  ///< further --set overrides

    /// reference/<stem>.<method>[.<preconditioner>].h5
    std::string reference_stem() const {
        std::string stem = fs::path(deck).stem().string() + "." + method;
        if (!preconditioner.empty() && preconditioner != "none") stem += "." + preconditioner;
        return stem;
    }
};

/// gtest prints parameters through PrintTo (otherwise as raw bytes in every ctest line).
void PrintTo(const Case& c, std::ostream* os) {
    *os << c.deck << " with " << c.method;
    if (!c.preconditioner.empty()) *os << " + " << c.preconditioner;
    for (const std::string& s : c.sets) *os << " " << s;
}

/// The cases of preconditioned.txt: "DECK METHOD PRECONDITIONER [KEY=VALUE ...]" per line.
std::vector<Case> preconditioned_cases() {
    std::vector<Case> cases;
    std::ifstream in(test::source_path("tests/regression/preconditioned.txt"));
    EXPECT_TRUE(in) << "tests/regression/preconditioned.txt is missing";
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream words(line);
        Case c;
        if (!(words >> c.deck >> c.method >> c.preconditioner)) {
            ADD_FAILURE() << "preconditioned.txt: bad line '" << line << "'";
            continue;
        }
        c.deck += ".yaml";
        for (std::string set; words >> set;) c.sets.push_back(set);
        cases.push_back(c);
    }
    return cases;
}

std::vector<Case> all_cases() {
    std::vector<Case> cases;
    for (const std::string& deck : test::regression_decks()) {
        for (const char* m : {"bicgstab", "qmr"}) cases.push_back({deck, m, "", {}});
    }
    for (const Case& c : preconditioned_cases()) cases.push_back(c);
    return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    std::string name = info.param.reference_stem();
    for (const std::string& s : info.param.sets) name += "_" + s;
    std::replace_if(
        name.begin(), name.end(), [](char c) { return !std::isalnum(c) && c != '_'; }, '_');
    return name;
}

class Regression : public ::testing::TestWithParam<Case> {};

TEST_P(Regression, MatchesTheStoredSolution) {
    const Case& c = GetParam();
    const std::string deck = test::source_path("tests/regression/" + c.deck);
    const std::string reference =
        test::source_path("tests/regression/reference/" + c.reference_stem() + ".h5");
    const std::string out =
        (fs::temp_directory_path() /
         ("heptane_regression_" + c.reference_stem() + "_" + std::to_string(::getpid()) + ".h5"))
            .string();
    std::vector<std::string> args = {
        "heptane", "run", deck, "-o", out, "--set", "solver.method=" + c.method};
    if (!c.preconditioner.empty()) {
        // The CPU reference, whatever the machine: the chaotic GPU block_gs is not
        // reproducible, and the GPU preconditioners have their own device-vs-reference tests.
        args.insert(args.end(),
                    {"--backend", "cpu", "--set", "solver.preconditioner=" + c.preconditioner});
    }
    for (const std::string& s : c.sets) args.insert(args.end(), {"--set", s});
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream o, e;
    ASSERT_EQ(run_cli(static_cast<int>(argv.size()), argv.data(), o, e), kExitOk)
        << o.str() << e.str();

    {
        const h5::File f = h5::File::open(out);
        EXPECT_EQ(f.attr_string("/solver", "status"), "converged");
        const double tol = f.attr_double("/solver", "tolerance");
        EXPECT_LE(f.attr_double("/solver", "true_relative_residual"), 10 * tol);
        ASSERT_TRUE(fs::exists(reference))
            << reference << " is missing: see tests/regression/README.md to regenerate";
        const h5::File ref = h5::File::open(reference);
        if (!c.preconditioner.empty()) {  // the reference is of the same solver
            EXPECT_EQ(ref.attr_string("/solver", "method"), c.method);
            EXPECT_EQ(ref.attr_string("/solver", "preconditioner"), c.preconditioner);
            EXPECT_EQ(f.attr_string("/solver", "preconditioner"), c.preconditioner);
        }
        EXPECT_NEAR(f.attr_double("/solver", "iterations"),
                    ref.attr_double("/solver", "iterations"), 2)
            << "iteration count moved";
    }
    std::ostringstream report;
    const int code = compare_files(out, reference, CompareOptions{kRtol, kAtol}, report);
    EXPECT_EQ(code, 0) << report.str();
    fs::remove(out);
    fs::remove(fs::path(out).replace_extension(".xmf"));
}

INSTANTIATE_TEST_SUITE_P(Decks, Regression, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace heptane::app
