// heptane bench assembly end to end: the host's time always; on a GPU machine the device's,
// its bytes against the triad and the host's bits (required: exit 1 otherwise); a deck that is
// not two_phase is exit 2 with nothing written.
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

std::string source(const char* relative) {
    return std::string(HEPTANE_SOURCE_DIR) + "/" + relative;
}

TEST(BenchAssembly, TimesTheHostAndOnAGpuTheDeviceWithTheHostsBits) {
    const test::TempFolder dir;
    const std::string report = dir.path() + "/assembly.yaml";
    const CliResult r =
        run_heptane({"bench", "assembly", source("tests/regression/two_phase_wells.yaml"),
                     "--repeat", "3", "--report", report});
    ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    const YAML::Node y = YAML::LoadFile(report);
    EXPECT_EQ(y["benchmark"].as<std::string>(), "assembly");
    EXPECT_GT(y["cells"].as<long long>(), 0);
    EXPECT_GT(y["host_seconds_median"].as<double>(), 0.0);
    EXPECT_GE(y["host_threads"].as<int>(), 1);
    if (gpu::device_count() > 0) {
        EXPECT_TRUE(y["same_bits_as_host"].as<bool>());
        EXPECT_GT(y["device_seconds_median"].as<double>(), 0.0);
        EXPECT_GT(y["ratio_to_triad"].as<double>(), 0.0);
    } else {
        EXPECT_FALSE(y["device_seconds_median"]);
    }
}

TEST(BenchAssembly, ADeckWithoutTheTwoPhaseModelIsBadInput) {
    const test::TempFolder dir;
    const std::string report = dir.path() + "/assembly.yaml";
    const CliResult r = run_heptane(
        {"bench", "assembly", source("tests/regression/synthetic_k3.yaml"), "--report", report});
    EXPECT_EQ(r.code, kExitBadInput) << r.err << r.out;
    EXPECT_NE(r.err.find("two_phase"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(report));
}

}  // namespace
}  // namespace heptane::app
