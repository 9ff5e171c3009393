// Regression simulations: every deck in tests/regression/simulation is run by `heptane
// simulate` on the CPU and compared with its stored result
// (reference/simulation/<deck>.h5) by `heptane compare` (/timesteps and /wells), and its
// step, Newton and linear iteration counts with the reference's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "app/cli.hpp"
#include "app/hdf5_file.hpp"
#include "common/cli_runner.hpp"
#include "common/test_systems.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;

/// As the linear regression suite (README.md): exact on the machine that made the
/// references, room for another compiler or libm amplified over the time steps.
constexpr double kRtol = 1e-6;
constexpr double kAtol = 1e-9;

std::vector<std::string> simulation_decks() {
    std::vector<std::string> decks;
    for (const auto& e : fs::directory_iterator(test::source_path("tests/regression/simulation"))) {
        if (e.path().extension() == ".yaml") decks.push_back(e.path().stem().string());
    }
    std::sort(decks.begin(), decks.end());
    return decks;
}

class SimulationRegression : public ::testing::TestWithParam<std::string> {};

TEST_P(SimulationRegression, MatchesTheStoredResult) {
    const std::string stem = GetParam();
    const std::string deck = test::source_path("tests/regression/simulation/" + stem + ".yaml");
    const std::string reference =
        test::source_path("tests/regression/reference/simulation/" + stem + ".h5");
    ASSERT_TRUE(fs::exists(reference))
        << "no reference for " << stem << " (tests/regression/regenerate.sh simulation/" << stem
        << ")";
    const std::string out =
        (fs::path(::testing::TempDir()) / (stem + "_" + std::to_string(::getpid()) + ".h5"))
            .string();
    const test::CliResult r = test::run_heptane({"simulate", deck, "-o", out, "--backend", "cpu"});
    ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
    const test::CliResult cmp =
        test::run_heptane({"compare", out, reference, "--rtol", std::to_string(kRtol), "--atol",
                           std::to_string(kAtol)});
    EXPECT_EQ(cmp.code, kExitOk) << cmp.out << cmp.err;
    const h5::File a = h5::File::open(out);
    const h5::File b = h5::File::open(reference);
    for (const char* count : {"steps", "cuts", "newton_iterations"}) {
        EXPECT_EQ(a.attr_double("/simulation", count), b.attr_double("/simulation", count))
            << count;
    }
    // Linear iterations: within 2 per Newton step, as the linear regression suite allows.
    EXPECT_NEAR(a.attr_double("/simulation", "linear_iterations"),
                b.attr_double("/simulation", "linear_iterations"),
                2.0 * b.attr_double("/simulation", "newton_iterations"));
    fs::remove(out);
    fs::remove(fs::path(out).replace_extension(".xmf"));
}

INSTANTIATE_TEST_SUITE_P(Decks, SimulationRegression, ::testing::ValuesIn(simulation_decks()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace heptane::app
