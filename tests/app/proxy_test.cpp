// `heptane proxy` end to end on a small problem: a VALID run and its report, each deliberately
// broken check turning the run INVALID (the --test-fault hooks), QMR's transpose check, and bad
// arguments (exit 2, nothing written).
#include "app/proxy.hpp"

#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

#include "app/cli.hpp"
#include "common/cli_runner.hpp"
#include "gpu/device.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;
using test::CliResult;
using test::run_heptane;

std::string report_path(const std::string& name) {
    return (fs::path(::testing::TempDir()) /
            ("heptane_proxy_" + name + "_" + std::to_string(::getpid()) + ".yaml"))
        .string();
}

/// A 20 x 20 x 17 run on the CPU (one pattern; the reduced problem is the problem itself)
/// with `extra` arguments.
CliResult small_run(const std::string& report, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"proxy", "--backend",     "cpu", "--dims",   "20",  "20",
                                  "17",    "--min-seconds", "0.2", "--report", report};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_heptane(args);
}

std::vector<std::string> check_names(const YAML::Node& report) {
    std::vector<std::string> names;
    for (const YAML::Node& v : report["validation"]) names.push_back(v["name"].as<std::string>());
    return names;
}

TEST(Proxy, SmallCpuRunIsValidAndItsReportSaysSo) {
    const std::string path = report_path("valid");
    const CliResult r = small_run(path);
    ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
    EXPECT_NE(r.out.find("\nVALID\n"), std::string::npos) << r.out;
    const YAML::Node y = YAML::LoadFile(path);
    EXPECT_EQ(y["schema"].as<std::string>(), "heptane-proxy-report");
    EXPECT_EQ(y["schema_version"].as<int>(), kProxyReportVersion);
    EXPECT_EQ(y["result"].as<std::string>(), "VALID");
    EXPECT_EQ(y["invalid_reasons"].size(), 0u);
    EXPECT_EQ(check_names(y),
              (std::vector<std::string>{"reference_agreement", "defined_solve_converged",
                                        "reproducibility", "true_residual"}));
    for (const YAML::Node& v : y["validation"]) EXPECT_TRUE(v["passed"].as<bool>());
    // Not official, and the report says why.
    EXPECT_FALSE(y["official"].as<bool>());
    EXPECT_GE(y["deviations"].size(), 2u);
    const YAML::Node p = y["problem"];
    EXPECT_EQ(p["cells"].as<long long>(), 20 * 20 * 17);
    EXPECT_EQ(p["wells"].as<long long>(), 2);  // one producer, one injector
    EXPECT_EQ(p["unknowns"].as<long long>(), 2 * 20 * 20 * 17 + 2);
    EXPECT_EQ(p["seed"].as<unsigned long long>(), 2001u);
    // Every timed solve took the validation's iterations; the figure of merit is its
    // definition of the report's own numbers.
    const YAML::Node t = y["phases"]["timed"];
    EXPECT_GE(t["solves"].as<int>(), 2);
    EXPECT_GE(t["seconds"].as<double>(), 0.2);
    EXPECT_EQ(t["iterations_per_solve"].as<int>(), y["solver"]["iterations"].as<int>());
    EXPECT_GT(y["solver"]["iterations"].as<int>(), 10);
    const YAML::Node f = y["figure_of_merit"];
    const double expected =
        p["unknowns"].as<double>() /
        (t["solve_seconds_median"].as<double>() +
         f["setup_seconds_charged"].as<double>() / f["setup_amortization_solves"].as<double>());
    EXPECT_NEAR(f["unknowns_per_second"].as<double>(), expected, 1e-8 * expected);
    EXPECT_GT(f["triad_gb_per_second"].as<double>(), 0.0);
    // The model: the four kernels, each measured, and the iteration.
    ASSERT_EQ(y["model"]["kernels"].size(), 4u);
    for (const YAML::Node& k : y["model"]["kernels"]) {
        EXPECT_GT(k["measured_seconds"].as<double>(), 0.0) << k["name"].as<std::string>();
        EXPECT_GT(k["predicted_seconds"].as<double>(), 0.0) << k["name"].as<std::string>();
    }
    EXPECT_GT(y["model"]["iteration"]["measured_seconds"].as<double>(), 0.0);
    // The secondary variants, each through the same checks.
    ASSERT_EQ(y["secondary"].size(), 3u);
    const std::vector<int> ks{3, 4, 8};
    for (std::size_t i = 0; i < ks.size(); ++i) {
        const YAML::Node v = y["secondary"][i];
        EXPECT_EQ(v["block_size"].as<int>(), ks[i]);
        EXPECT_EQ(v["name"].as<std::string>(), "k" + std::to_string(ks[i]));
        EXPECT_EQ(v["unknowns"].as<long long>(), ks[i] * 20 * 20 * 17 + 2);
        EXPECT_GT(v["iterations"].as<int>(), 10);  // not a few Jacobi sweeps: an M-matrix
        EXPECT_GT(v["unknowns_per_second"].as<double>(), 0.0);
        EXPECT_EQ(check_names(v), check_names(y));
        for (const YAML::Node& c : v["validation"]) EXPECT_TRUE(c["passed"].as<bool>());
    }
    EXPECT_EQ(y["ranks"].as<int>(), 1);
    EXPECT_EQ(y["halo_path"].as<std::string>(), "none");  // one process: no halo planes
    EXPECT_EQ(y["per_rank"].size(), 1u);
    EXPECT_TRUE(y["machine"]["gpu"].IsNull());
    EXPECT_FALSE(y["build"]["git_commit"].as<std::string>().empty());
    fs::remove(path);
}

TEST(Proxy, NoSecondaryIsADeviation) {
    const std::string path = report_path("no_secondary");
    const CliResult r = small_run(path, {"--no-secondary"});
    ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
    const YAML::Node y = YAML::LoadFile(path);
    EXPECT_EQ(y["secondary"].size(), 0u);
    bool listed = false;
    for (const YAML::Node& d : y["deviations"]) listed |= d.as<std::string>() == "--no-secondary";
    EXPECT_TRUE(listed);
    fs::remove(path);
}

TEST(Proxy, PerturbedSolutionIsInvalid) {
    const std::string path = report_path("perturbed");
    const CliResult r = small_run(path, {"--test-fault", "perturb_solution"});
    EXPECT_EQ(r.code, kExitFailed) << r.out << r.err;
    EXPECT_NE(r.out.find("INVALID: true_residual"), std::string::npos) << r.out;
    const YAML::Node y = YAML::LoadFile(path);
    EXPECT_EQ(y["result"].as<std::string>(), "INVALID");
    ASSERT_EQ(y["invalid_reasons"].size(), 1u);
    EXPECT_EQ(y["invalid_reasons"][0].as<std::string>().rfind("true_residual: ", 0), 0u);
    fs::remove(path);
}

TEST(Proxy, NonReproducibleSolveIsInvalid) {
    const std::string path = report_path("nonreproducible");
    const CliResult r = small_run(path, {"--test-fault", "nonreproducible", "--no-secondary"});
    EXPECT_EQ(r.code, kExitFailed) << r.out << r.err;
    EXPECT_NE(r.out.find("INVALID: reproducibility"), std::string::npos) << r.out;
    const YAML::Node y = YAML::LoadFile(path);
    EXPECT_EQ(y["result"].as<std::string>(), "INVALID");
    EXPECT_NE(y["invalid_reasons"][0].as<std::string>().find("1 differ"), std::string::npos);
    fs::remove(path);
}

TEST(Proxy, QmrChecksTheTranspose) {
    const std::string path = report_path("qmr");
    const CliResult r = small_run(path, {"--method", "qmr", "--no-secondary"});
    ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
    const YAML::Node y = YAML::LoadFile(path);
    const std::vector<std::string> names = check_names(y);
    ASSERT_NE(std::find(names.begin(), names.end(), "transpose_consistency"), names.end());
    EXPECT_EQ(y["solver"]["preconditioner"].as<std::string>(), "none");
    fs::remove(path);
}

TEST(Proxy, BadArgumentsExitTwoAndWriteNothing) {
    const std::string path = report_path("bad");
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--dims", "10", "10", "5"}, "--dims"},
        {{"--dims", "20", "20", "5", "--memory-fraction", "0.1"}, "--dims"},
        {{"--memory-fraction", "0.9"}, "--memory-fraction"},
        {{"--kernel", "library"}, "--kernel"},
        {{"--method", "block_jacobi"}, "--method"},
        {{"--test-fault", "everything"}, "--test-fault"},
    };
    for (const auto& [extra, key] : cases) {
        std::vector<std::string> args{"proxy", "--backend", "cpu", "--report", path};
        args.insert(args.end(), extra.begin(), extra.end());
        const CliResult r = run_heptane(args);
        EXPECT_EQ(r.code, kExitBadInput) << extra[0] << ": " << r.out << r.err;
        EXPECT_NE(r.err.find(key), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(path)) << extra[0];
    }
    const std::string missing =
        (fs::path(::testing::TempDir()) / "no_such_folder" / "r.yaml").string();
    const CliResult r = run_heptane({"proxy", "--backend", "cpu", "--report", missing});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("--report: cannot write"), std::string::npos) << r.err;
}

TEST(Proxy, GpuBackendWithoutADeviceIsARuntimeError) {
    if (gpu::device_count() > 0) GTEST_SKIP() << "a device is present";
    const CliResult r = run_heptane({"proxy", "--backend", "gpu", "--report", report_path("gpu")});
    EXPECT_EQ(r.code, kExitRuntime) << r.out << r.err;
}

}  // namespace
}  // namespace heptane::app
