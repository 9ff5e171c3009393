// heptane bench smoother: the convergence study of seed 003 (section 3, Fig. 4) on the CPU
// reference, through the function the CLI uses, and the subcommand end to end.
#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "app/bench.hpp"
#include "app/cli.hpp"
#include "common/cli_runner.hpp"
#include "core/base/errors.hpp"
#include "gpu/device.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;
using test::CliResult;
using test::run_heptane;

/// The study on the 8^3 Poisson problem with the default shapes (2x2x2 .. 8x8x8, the last
/// one the whole grid): small enough for a unit test, and the same code path as the CLI.
SmootherStudyOptions small_study() {
    SmootherStudyOptions o;
    o.grid = 8;
    o.sweeps = 3;
    o.asymptotic_sweeps = 40;
    o.window = 10;
    o.seed = 7;
    return o;
}

const SmootherConvergenceRow& find(const std::vector<SmootherConvergenceRow>& rows, Method method,
                                   const std::array<int, 3>& shape) {
    for (const auto& r : rows) {
        if (r.method == method && r.shape == shape) return r;
    }
    throw Error("no row for the shape");
}

bool whole_grid(const std::array<int, 3>& shape, int g) {
    return shape[0] >= g && shape[1] >= g && shape[2] >= g;
}

TEST(BenchSmoother, ConvergenceStudyOnTheCpu) {
    const SmootherStudyOptions o = small_study();
    int reported = 0;
    const std::vector<SmootherConvergenceRow> rows =
        smoother_convergence_cpu(o, [&](const SmootherConvergenceRow&) { ++reported; });
    ASSERT_EQ(rows.size(), 2 * o.shapes.size());
    EXPECT_EQ(reported, static_cast<int>(rows.size()));
    for (const auto& r : rows) {
        SCOPED_TRACE(std::string(to_string(r.method)) + " " + std::to_string(r.shape[0]) + "x" +
                     std::to_string(r.shape[1]) + "x" + std::to_string(r.shape[2]));
        EXPECT_EQ(r.backend, "cpu");
        EXPECT_EQ(r.omega, r.method == Method::block_jacobi ? 0.8 : 1.0);
        ASSERT_EQ(r.history.size(), static_cast<std::size_t>(r.sweeps_run) + 1);
        EXPECT_EQ(r.history[0], 1.0);
        ASSERT_GE(r.sweeps_run, o.sweeps);
        EXPECT_EQ(r.relative_error, r.history[3]);
        EXPECT_LT(r.relative_error, 1.0);
        if (whole_grid(r.shape, o.grid)) continue;
        // Every error mode converges, none is solved exactly.
        EXPECT_EQ(r.sweeps_run, o.asymptotic_sweeps);
        EXPECT_GT(r.factor, 0.0);
        EXPECT_LT(r.factor, 1.0);
        EXPECT_EQ(r.window_last, o.asymptotic_sweeps);
        EXPECT_EQ(r.window_first, o.asymptotic_sweeps - o.window);
    }
    for (const auto& shape : o.shapes) {
        // Gauss-Seidel (omega 1, each block sees its predecessors' new values) beats damped
        // Jacobi on every shape.
        EXPECT_LT(find(rows, Method::block_gs, shape).relative_error,
                  find(rows, Method::block_jacobi, shape).relative_error);
    }
    // The seed's "monotonic improvement by increasing the block size": the default shapes are
    // nested (each block a union of the previous shape's), and every step gains here.
    for (Method m : {Method::block_jacobi, Method::block_gs}) {
        for (std::size_t s = 1; s < o.shapes.size(); ++s) {
            EXPECT_LT(find(rows, m, o.shapes[s]).relative_error,
                      find(rows, m, o.shapes[s - 1]).relative_error)
                << to_string(m) << " shape " << s;
        }
        EXPECT_LT(find(rows, m, o.shapes[o.shapes.size() - 2]).factor,
                  find(rows, m, o.shapes.front()).factor);
    }
}

TEST(BenchSmoother, WholeGridBlockIsAnExactSolve) {
    const SmootherStudyOptions o = small_study();
    const std::vector<SmootherConvergenceRow> rows = smoother_convergence_cpu(o);
    // One block = A: Gauss-Seidel solves in one sweep (to rounding, which the next sweeps
    // shrink again by ~1e-16 each), so it stops at the floor with a factor of ~eps.
    const SmootherConvergenceRow gs = find(rows, Method::block_gs, {8, 8, 8});
    EXPECT_LT(gs.history[1], 1e-12);
    EXPECT_LT(gs.relative_error, 1e-30);
    EXPECT_LT(gs.sweeps_run, o.asymptotic_sweeps);
    EXPECT_LT(gs.history.back(), kSmootherResidualFloor);
    EXPECT_LT(gs.factor, 1e-12);
    // Damped Jacobi: x_k = (1 - omega)^k x_0 exactly but for rounding.
    const SmootherConvergenceRow jacobi = find(rows, Method::block_jacobi, {8, 8, 8});
    EXPECT_NEAR(jacobi.relative_error, 0.2 * 0.2 * 0.2, 1e-12);
    EXPECT_NEAR(jacobi.factor, 0.2, 1e-12);
    // With omega = 1 Jacobi is the exact solve too.
    SmootherStudyOptions undamped = o;
    undamped.jacobi_omega = 1.0;
    undamped.shapes = {{8, 8, 8}};
    undamped.asymptotic_sweeps = 5;
    EXPECT_LT(smoother_convergence_cpu(undamped).at(0).history[1], 1e-12);
    // A shape larger than the grid is clipped to it.
    undamped.shapes = {{16, 9, 8}};
    for (const auto& r : smoother_convergence_cpu(undamped)) EXPECT_LT(r.history[1], 1e-12);
}

TEST(BenchSmoother, WindowFactor) {
    SmootherConvergenceRow r;
    for (int k = 0; k <= 10; ++k) r.history.push_back(std::pow(0.5, k));
    set_window_factor(r, 4);
    EXPECT_NEAR(r.factor, 0.5, 1e-15);
    EXPECT_EQ(r.window_first, 6);
    EXPECT_EQ(r.window_last, 10);
    // A window longer than the run: from sweep 0.
    set_window_factor(r, 100);
    EXPECT_EQ(r.window_first, 0);
    EXPECT_NEAR(r.factor, 0.5, 1e-15);
    // The window ends at the last sweep above the floor (zero, subnormal, or non-finite).
    r.history = {1.0, 0.25, 0.0625, 0.0, 1.0};
    set_window_factor(r, 4);
    EXPECT_EQ(r.window_last, 2);
    EXPECT_NEAR(r.factor, 0.25, 1e-15);
    r.history = {1.0, 2.0, 4.0, std::numeric_limits<double>::infinity()};
    set_window_factor(r, 1);
    EXPECT_EQ(r.window_first, 1);
    EXPECT_EQ(r.window_last, 2);
    EXPECT_NEAR(r.factor, 2.0, 1e-15);  // divergence shows as a factor above 1
    r.history = {1.0, 1e-300, 1e-310};
    set_window_factor(r, 4);
    EXPECT_EQ(r.factor, 0.0);  // solved by the first sweep
    EXPECT_EQ(r.window_last, 0);
}

TEST(BenchSmoother, ParsesShapes) {
    EXPECT_EQ(parse_shapes({"2x2x4", "8x8x8"}),
              (std::vector<std::array<int, 3>>{{2, 2, 4}, {8, 8, 8}}));
    for (const char* bad :
         {"2x2", "2x2x2x2", "0x1x1", "ax2x2", "2x-1x2", "", "x2x2", "2x2x2x", "2x2x99999", "4"}) {
        EXPECT_THROW(parse_shapes({bad}), InputError) << bad;
    }
    EXPECT_THROW(parse_shapes({}), InputError);
}

TEST(BenchSmoother, InitialGuessIsSeeded) {
    const auto a = smoother_initial_guess(1000, 1), b = smoother_initial_guess(1000, 1);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, smoother_initial_guess(1000, 2));
    for (double v : a) {
        EXPECT_GE(v, -1.0);
        EXPECT_LT(v, 1.0);
    }
}

/// A fresh folder per test, removed at the end.
class BenchSmootherCli : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() / ("heptane_bench_smoother_" + std::string(info->name()) +
                                            "_" + std::to_string(::getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    fs::path dir_;
};

TEST_F(BenchSmootherCli, CpuStudyWritesItsReport) {
    const std::string report = path("smoother.yaml");
    const CliResult r =
        run_heptane({"bench", "smoother", "--backend", "cpu", "--grid", "8", "--asymptotic-sweeps",
                     "20", "--repeat", "2", "--report", report});
    ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    EXPECT_NE(r.out.find("block_gs"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("sweep_block_jacobi"), std::string::npos) << r.out;
    ASSERT_TRUE(fs::exists(report));
    const YAML::Node y = YAML::LoadFile(report);
    EXPECT_EQ(y["benchmark"].as<std::string>(), "smoother");
    EXPECT_FALSE(y["date"].as<std::string>().empty());
    EXPECT_GT(y["triad_gb_s"].as<double>(), 0.0);
    EXPECT_EQ(y["convergence"]["problem"]["grid"].as<int>(), 8);
    const YAML::Node results = y["convergence"]["results"];
    ASSERT_EQ(results.size(), 14u);  // 7 shapes x 2 methods
    for (const auto& row : results) {
        EXPECT_EQ(row["backend"].as<std::string>(), "cpu");
        EXPECT_EQ(row["asymptotic_sweeps"].as<int>(), 20);
        EXPECT_LT(row["relative_error"].as<double>(), 1.0);
        EXPECT_EQ(row["residual_history"].size(), row["sweeps_run"].as<std::size_t>() + 1);
    }
    // CPU throughput: point-block and line once, then 3 kinds per shape.
    const YAML::Node timings = y["throughput"]["results"];
    ASSERT_EQ(timings.size(), 2u + 3u * 7u);
    for (const auto& t : timings) {
        EXPECT_FALSE(t["skipped"]) << t["kernel"].as<std::string>();
        EXPECT_GT(t["effective_gb_s"].as<double>(), 0.0);
        EXPECT_GT(t["cells_per_second"].as<double>(), 0.0);
    }
}

TEST_F(BenchSmootherCli, BadShapesAreInputErrors) {
    const std::string report = path("bad.yaml");
    const CliResult r = run_heptane({"bench", "smoother", "--backend", "cpu", "--grid", "8",
                                     "--shapes", "2x2x2,4x4", "--report", report});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("--shapes"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("'4x4'"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(report));
}

TEST_F(BenchSmootherCli, GpuPartsAreSkippedWithoutADevice) {
    if (gpu::device_count() > 0) GTEST_SKIP() << "a device exists";
    const std::string report = path("gpu.yaml");
    const CliResult r =
        run_heptane({"bench", "smoother", "--backend", "both", "--grid", "4", "--shapes", "2x2x2",
                     "--asymptotic-sweeps", "5", "--repeat", "1", "--report", report});
    ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    EXPECT_NE(r.out.find("GPU convergence study and throughput are skipped"), std::string::npos)
        << r.out;
    const YAML::Node y = YAML::LoadFile(report);
    EXPECT_EQ(y["convergence"]["results"].size(), 2u);  // the CPU study still runs
    EXPECT_FALSE(y["throughput"]);  // GPU throughput asked for, CPU's not (--cpu)
}

}  // namespace
}  // namespace heptane::app
