// `heptane proxy` on the GPU: the in-kernel, multi-kernel and auto runs are VALID (the reduced
// problem gives the CPU reference's iterations and bits), take the CPU run's iterations on
// the same problem, time every kernel of the model; QMR's A^T check runs on the device's
// transpose product; a non-reproducible solve is caught.
#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "app/cli.hpp"
#include "common/cli_runner.hpp"
#include "common/gpu_test.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;

class ProxyOnGpu : public test::GpuTest {
  protected:
    /// heptane proxy on `dims` (default 40 x 40 x 85) with `extra`; the report, and the exit
    /// code in `code`.
    YAML::Node run(const std::string& name, std::vector<std::string> extra, int& code,
                   std::vector<std::string> dims = {"40", "40", "85"}) {
        const std::string path =
            (fs::path(::testing::TempDir()) / (name + "_" + std::to_string(::getpid()) + ".yaml"))
                .string();
        std::vector<std::string> args{"proxy", "--min-seconds", "0.5", "--report", path, "--dims"};
        args.insert(args.end(), dims.begin(), dims.end());
        args.insert(args.end(), extra.begin(), extra.end());
        const test::CliResult r = test::run_heptane(args);
        std::printf("%s", r.out.c_str());
        code = r.code;
        EXPECT_TRUE(fs::exists(path)) << r.err;
        const YAML::Node y = YAML::LoadFile(path);
        fs::remove(path);
        return y;
    }
};

TEST_F(ProxyOnGpu, InKernelAndMultiKernelRunsAreValidWithTheCpuIterations) {
    int code = 0;
    const YAML::Node cpu = run("proxy_cpu", {"--backend", "cpu"}, code);
    ASSERT_EQ(code, kExitOk);
    for (const char* kernel : {"in_kernel", "multi_kernel", "auto"}) {
        const YAML::Node gpu = run(kernel, {"--backend", "gpu", "--kernel", kernel}, code);
        // auto at 272,000 rows: the in-kernel solver (sized_gpu_kernel's crossover).
        const std::string expected = std::string(kernel) == "auto" ? "in_kernel" : kernel;
        EXPECT_EQ(gpu["solver"]["kernel"].as<std::string>().rfind(expected, 0), 0u)
            << gpu["solver"]["kernel"].as<std::string>();
        EXPECT_EQ(code, kExitOk) << kernel;
        EXPECT_EQ(gpu["result"].as<std::string>(), "VALID") << kernel;
        EXPECT_EQ(gpu["solver"]["backend"].as<std::string>(), "gpu");
        EXPECT_FALSE(gpu["machine"]["gpu"].IsNull());
        EXPECT_NE(gpu["validation"][0]["detail"].as<std::string>().find("bitwise equal"),
                  std::string::npos);
        // Canonical arithmetic: the device takes the reference's iterations on the full problem.
        EXPECT_EQ(gpu["solver"]["iterations"].as<int>(), cpu["solver"]["iterations"].as<int>())
            << kernel;
        ASSERT_EQ(gpu["model"]["kernels"].size(), 4u);
        for (const YAML::Node& k : gpu["model"]["kernels"]) {
            EXPECT_GT(k["measured_seconds"].as<double>(), 0.0) << k["name"].as<std::string>();
        }
        EXPECT_GT(gpu["figure_of_merit"]["unknowns_per_second"].as<double>(), 0.0);
        // The variants: K = 3 on the multi-kernel solver (the in-kernel one fuses point-block
        // Jacobi for K a power of two only), each with the CPU run's iterations.
        ASSERT_EQ(gpu["secondary"].size(), 3u);
        for (std::size_t i = 0; i < 3; ++i) {
            const YAML::Node v = gpu["secondary"][i];
            EXPECT_EQ(v["iterations"].as<int>(), cpu["secondary"][i]["iterations"].as<int>());
            const std::string k = v["kernel"].as<std::string>();
            EXPECT_EQ(k.rfind(i == 0 ? std::string("multi_kernel") : expected, 0), 0u) << k;
        }
    }
}

TEST_F(ProxyOnGpu, AutoKernelIsTheMultiKernelSolverPastTheCrossover) {
    // 100 x 100 x 85 cells: 1.7 M rows, past the 1.5 M from which the multi-kernel BiCGStab
    // with point-block Jacobi is the faster (docs/BENCHMARKS.md, decision 54).
    int code = 0;
    const YAML::Node y =
        run("proxy_auto", {"--backend", "gpu", "--no-secondary"}, code, {"100", "100", "85"});
    EXPECT_EQ(code, kExitOk);
    EXPECT_EQ(y["result"].as<std::string>(), "VALID");
    EXPECT_EQ(y["solver"]["kernel"].as<std::string>().rfind("multi_kernel", 0), 0u)
        << y["solver"]["kernel"].as<std::string>();
}

TEST_F(ProxyOnGpu, QmrChecksTheDeviceTranspose) {
    int code = 0;
    const YAML::Node y = run("proxy_qmr", {"--backend", "gpu", "--method", "qmr", "--no-secondary"},
                             code, {"20", "20", "17"});
    EXPECT_EQ(code, kExitOk);
    bool found = false;
    for (const YAML::Node& v : y["validation"]) {
        if (v["name"].as<std::string>() == "transpose_consistency") {
            found = true;
            EXPECT_TRUE(v["passed"].as<bool>()) << v["detail"].as<std::string>();
        }
    }
    EXPECT_TRUE(found);
}

TEST_F(ProxyOnGpu, NonReproducibleSolveIsInvalid) {
    int code = 0;
    const YAML::Node y =
        run("proxy_fault",
            {"--backend", "gpu", "--test-fault", "nonreproducible", "--no-secondary"}, code);
    EXPECT_EQ(code, kExitFailed);
    EXPECT_EQ(y["result"].as<std::string>(), "INVALID");
}

}  // namespace
}  // namespace heptane::app
