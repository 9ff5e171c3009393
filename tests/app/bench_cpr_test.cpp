// heptane bench cpr end to end on the regression SPE10 window: a factor per level but the
// inverted coarsest, each a convergence; on a GPU machine the device's time per level too,
// without one --backend gpu is a runtime error; bad input is exit 2 with nothing written.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>

#include "app/cli.hpp"
#include "common/cli_runner.hpp"
#include "common/temp_file.hpp"
#include "gpu/device.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;
using test::CliResult;
using test::run_heptane;

const std::string kDeck = std::string(HEPTANE_SOURCE_DIR) + "/tests/regression/spe10_window.yaml";

TEST(BenchCpr, ReportsAFactorPerLevel) {
    const test::TempFolder dir;
    const std::string report = dir.path() + "/cpr.yaml";
    // The deck does not name CPR; its keys still come through --set.
    const CliResult r = run_heptane({"bench", "cpr", kDeck, "--cycles", "12", "--set",
                                     "solver.cpr.cycle=w", "--report", report});
    ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    EXPECT_NE(r.out.find("inverted (coarsest)"), std::string::npos) << r.out;
    const YAML::Node y = YAML::LoadFile(report);
    EXPECT_EQ(y["benchmark"].as<std::string>(), "cpr");
    EXPECT_FALSE(y["date"].as<std::string>().empty());
    EXPECT_FALSE(y["heptane_version"].as<std::string>().empty());
    EXPECT_NE(y["command"].as<std::string>().find("solver.cpr.cycle=w"), std::string::npos);
    EXPECT_EQ(y["cycle"].as<std::string>(), "w");
    EXPECT_EQ(y["cycles"].as<int>(), 12);
    const YAML::Node levels = y["levels"];
    ASSERT_GE(levels.size(), 2u);
    EXPECT_EQ(levels[0]["rows"].as<int>(), 12 * 12 * 6 + 2);  // the pressure system, 2 wells
    for (std::size_t l = 0; l + 1 < levels.size(); ++l) {
        const double factor = levels[l]["factor"].as<double>();
        EXPECT_GT(factor, 0.0) << "level " << l;
        EXPECT_LT(factor, 1.0) << "level " << l;
        EXPECT_EQ(levels[l]["ratios"].size(), 12u);
    }
    EXPECT_FALSE(levels[levels.size() - 1]["factor"]);
    EXPECT_EQ(levels[levels.size() - 1]["solve"].as<std::string>(), "inverted");
    EXPECT_GT(y["cycle_seconds"].as<double>(), 0.0);
    EXPECT_EQ(y["bicgstab"]["status"].as<std::string>(), "converged");
    EXPECT_LE(y["bicgstab"]["true_relative_residual"].as<double>(),
              2.0 * y["bicgstab"]["tolerance"].as<double>());
    // --backend auto: the device's cycle from every level where there is a GPU, else nothing.
    if (gpu::compiled_with_cuda() && gpu::device_count() > 0) {
        const YAML::Node g = y["gpu"];
        ASSERT_TRUE(g) << r.out;
        ASSERT_EQ(g["cycle_seconds"].size(), levels.size());
        ASSERT_EQ(g["cycle_kernels"].size(), levels.size());
        for (std::size_t l = 0; l < levels.size(); ++l) {
            EXPECT_GT(g["cycle_seconds"][l].as<double>(), 0.0) << "level " << l;
            EXPECT_GE(g["cycle_kernels"][l].as<int>(), 1) << "level " << l;
        }
        // a cycle from a level runs the cycles below it: more kernels than any of them
        EXPECT_GT(g["cycle_kernels"][0].as<int>(), g["cycle_kernels"][1].as<int>());
        EXPECT_GT(g["apply_kernels"].as<int>(), g["cycle_kernels"][0].as<int>());
        EXPECT_GT(g["setup_seconds"].as<double>(), 0.0);
    } else {
        EXPECT_FALSE(y["gpu"]);
        const CliResult no_gpu = run_heptane({"bench", "cpr", kDeck, "--cycles", "5", "--backend",
                                              "gpu", "--report", dir.path() + "/gpu.yaml"});
        EXPECT_EQ(no_gpu.code, kExitRuntime) << no_gpu.err;
        EXPECT_FALSE(fs::exists(dir.path() + "/gpu.yaml"));
    }
}

TEST(BenchCpr, BadInputIsExit2) {
    const test::TempFolder dir;
    const std::string report = dir.path() + "/bad.yaml";
    CliResult r =
        run_heptane({"bench", "cpr", kDeck, "--set", "solver.cpr.cycle=x", "--report", report});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("solver.cpr.cycle"), std::string::npos) << r.err;
    r = run_heptane({"bench", "cpr", kDeck, "--cycles", "4", "--report", report});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_FALSE(fs::exists(report));
}

}  // namespace
}  // namespace heptane::app
