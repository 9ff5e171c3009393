#pragma once
/// @file What the `heptane simulate` tests share (simulate_test.cpp, simulate_restart_test.cpp):
/// their deck, a fresh folder per test, and the comparison of two runs' statistics.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "app/hdf5_file.hpp"

namespace heptane::app::simulate_support {

/// The regression waterflood (8 x 6 x 3, three wells, events, 60 days).
inline const std::string kDeck = "tests/regression/simulation/waterflood.yaml";

/// An empty folder of its own for one test.
inline std::string fresh_dir(const std::string& name) {
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::path(::testing::TempDir()) / ("heptane_sim_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir.string();
}

/// Every /simulation per-step and per-solve array of `a` equals `b`'s, entry for entry, and
/// /field/in_place and /regions/in_place (where `b` has it) to 1e-12 (a restart computes its
/// file's reports' again from their fields, which the file holds in the deck's units).
inline void expect_same_statistics(const std::string& a, const std::string& b) {
    const h5::File fa = h5::File::open(a), fb = h5::File::open(b);
    for (const std::string group : {"/field/in_place/", "/regions/in_place/"}) {
        EXPECT_EQ(fa.exists(group + "time"), fb.exists(group + "time")) << group;
        if (!fb.exists(group + "time")) continue;
        EXPECT_EQ(fa.read(group + "time").values, fb.read(group + "time").values);
        for (const char* name : {"oil", "water", "pressure", "pore_volume"}) {
            const std::string path = group + name;
            const std::vector<double> x = fa.read(path).values, y = fb.read(path).values;
            ASSERT_EQ(x.size(), y.size()) << path;
            for (std::size_t k = 0; k < x.size(); ++k)
                EXPECT_NEAR(x[k], y[k], 1e-12 * std::abs(y[k])) << path << "[" << k << "]";
        }
    }
    for (const char* name :
         {"time", "dt", "newton_iterations", "linear_iterations", "cuts", "cnv", "mb",
          "newton/attempt", "newton/step", "newton/linear_iterations", "newton/converged",
          "newton/cnv", "newton/mb", "newton/linear_tolerance"}) {
        const std::string path = std::string("/simulation/") + name;
        EXPECT_EQ(fa.read(path).values, fb.read(path).values) << path;
    }
    for (const char* name : {"steps", "cuts", "newton_iterations", "linear_iterations"}) {
        EXPECT_EQ(fa.attr_double("/simulation", name), fb.attr_double("/simulation", name)) << name;
    }
}

}  // namespace heptane::app::simulate_support
