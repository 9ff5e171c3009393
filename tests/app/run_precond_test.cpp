// heptane run with the preconditioners and the block smoothers: convergence on the CPU, the
// input errors at their keys (exit 2, nothing written), singular blocks, the GPU's exit 3
// without a device and the auto backend's choice.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/bench.hpp"
#include "app/cli.hpp"
#include "app/hdf5_file.hpp"
#include "common/cli_runner.hpp"
#include "common/mini_xml.hpp"
#include "common/test_systems.hpp"
#include "core/base/errors.hpp"
#include "gpu/device.hpp"
#include "run_fixture.hpp"

namespace heptane::app {
namespace {

/// /solver's `block_shape` attribute (3 integers), empty when the file has none.
std::vector<long long> block_shape_attr(const std::string& file) {
    std::vector<long long> shape;
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return shape;
    if (H5Aexists_by_name(f, "/solver", "block_shape", H5P_DEFAULT) > 0) {
        const hid_t a = H5Aopen_by_name(f, "/solver", "block_shape", H5P_DEFAULT, H5P_DEFAULT);
        const hid_t space = H5Aget_space(a);
        shape.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
        H5Aread(a, H5T_NATIVE_LLONG, shape.data());
        H5Sclose(space);
        H5Aclose(a);
    }
    H5Fclose(f);
    return shape;
}

/// Whether /solver has the attribute `name`.
bool has_solver_attr(const std::string& file, const char* name) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return false;
    const bool has = H5Aexists_by_name(f, "/solver", name, H5P_DEFAULT) > 0;
    H5Fclose(f);
    return has;
}

const std::string kSyntheticDeck = source_path("tests/app/decks/small_synthetic_metric.yaml");

TEST_F(RunTest, EveryPreconditionerConvergesOnTheCpu) {
    // Both Krylov methods with each preconditioner on the two-phase deck (K = 2, wells).
    // Measured: BiCGStab 132 iterations unpreconditioned, 56 / 31 / 19 with point-block,
    // line and 4 x 4 x 4 block Jacobi; QMR 161, 70 / 42 / 28.
    for (const char* method : {"bicgstab", "qmr"}) {
        double unpreconditioned = 0.0;
        for (const char* kind : {"none", "point_block_jacobi", "line_jacobi", "block_jacobi"}) {
            SCOPED_TRACE(std::string(method) + " + " + kind);
            const std::string out = path(std::string(method) + "_" + kind + ".h5");
            const CliResult r =
                run_heptane({"run", kSmallDeck, "-o", out, "--backend", "cpu", "--set",
                             std::string("solver.method=") + method, "--set",
                             std::string("solver.preconditioner=") + kind});
            ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
            EXPECT_NE(r.out.find(std::string("  precond     ") + kind), std::string::npos) << r.out;
            const h5::File f = h5::File::open(out);
            EXPECT_EQ(f.attr_string("/solver", "status"), "converged");
            EXPECT_EQ(f.attr_string("/solver", "method"), method);
            EXPECT_EQ(f.attr_string("/solver", "preconditioner"), kind);
            // The residual the solvers stop on is the true one (right preconditioning).
            EXPECT_LE(f.attr_double("/solver", "true_relative_residual"), 10 * 1e-10);
            const auto iterations =
                static_cast<std::size_t>(f.attr_double("/solver", "iterations"));
            EXPECT_EQ(f.read("/solver/residual_history").values.size(), iterations + 1);
            if (std::string(kind) == "none") {
                unpreconditioned = static_cast<double>(iterations);
            } else {  // the preconditioner is applied: each cuts the iterations
                EXPECT_LT(static_cast<double>(iterations), 0.6 * unpreconditioned);
            }
            if (std::string(kind) == "block_jacobi") {
                EXPECT_EQ(block_shape_attr(out), (std::vector<long long>{4, 4, 4}));
            } else {
                EXPECT_TRUE(block_shape_attr(out).empty());
            }
            EXPECT_FALSE(has_solver_attr(out, "omega"));
        }
    }
    // A block shape of the deck's own choosing is recorded.
    const std::string out = path("shape.h5");
    const CliResult r = run_heptane({"run", kSmallDeck, "-o", out, "--backend", "cpu", "--set",
                                     "solver.preconditioner=block_jacobi", "--set",
                                     "solver.block_shape=[3, 5, 2]"});
    ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    EXPECT_NE(r.out.find("block_jacobi (right), blocks of 3 x 5 x 2 cells"), std::string::npos)
        << r.out;
    EXPECT_EQ(block_shape_attr(out), (std::vector<long long>{3, 5, 2}));
}

TEST_F(RunTest, BlockSmoothersConvergeOnTheCpu) {
    // The smoothers as solvers on a diagonally dominant synthetic deck (K = 3, two wells):
    // blocks clipped at the grid's edges (5 x 4 x 3 cells in 2 x 2 x 2 blocks), damped Jacobi.
    double sweeps[2] = {0, 0};
    int i = 0;
    for (const char* method : {"block_jacobi", "block_gs"}) {
        SCOPED_TRACE(method);
        const std::string out = path(std::string(method) + ".h5");
        const CliResult r = run_heptane({"run", kSyntheticDeck, "-o", out, "--backend", "cpu",
                                         "--set", std::string("solver.method=") + method, "--set",
                                         "solver.block_shape=[2, 2, 2]", "--set",
                                         "solver.omega=0.9", "--set", "solver.tolerance=1e-9"});
        ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
        EXPECT_NE(r.out.find(std::string("the ") + method +
                             " sweeps invert blocks of 2 x 2 x 2 cells, omega 0.9"),
                  std::string::npos)
            << r.out;
        const h5::File f = h5::File::open(out);
        EXPECT_EQ(f.attr_string("/solver", "status"), "converged");
        EXPECT_EQ(f.attr_string("/solver", "method"), method);
        EXPECT_EQ(f.attr_string("/solver", "preconditioner"), "none");
        EXPECT_EQ(f.attr_string("/solver", "backend"), "cpu");
        EXPECT_EQ(f.attr_double("/solver", "omega"), 0.9);
        EXPECT_EQ(block_shape_attr(out), (std::vector<long long>{2, 2, 2}));
        EXPECT_LE(f.attr_double("/solver", "true_relative_residual"), 1e-9);
        sweeps[i] = f.attr_double("/solver", "iterations");
        EXPECT_GT(sweeps[i], 1.0);
        EXPECT_EQ(f.read("/solver/residual_history").values.size(), sweeps[i] + 1);
        ++i;
    }
    // Gauss-Seidel uses the blocks already updated in its sweep: fewer sweeps than Jacobi.
    EXPECT_LT(sweeps[1], sweeps[0]);
}

TEST_F(RunTest, PreconditionerInputErrorsAreExit2AtTheirKeyAndWriteNothing) {
    const std::string out = path("out.h5");
    const struct {
        std::string deck;
        std::vector<std::string> args;
        const char* message;
    } bad[] = {
        // The smoothers take no preconditioner.
        {kSyntheticDeck,
         {"--set", "solver.method=block_gs", "--set", "solver.preconditioner=line_jacobi"},
         "--set solver.preconditioner=line_jacobi: solver.preconditioner: the block smoother "
         "block_gs takes no preconditioner"},
        // Matrix decks have no grid.
        {source_path("tests/app/decks/small_matrix.yaml"),
         {"--set", "solver.preconditioner=block_jacobi", "--backend", "cpu"},
         "solver.preconditioner: the preconditioner block_jacobi needs a grid deck"},
        {source_path("tests/app/decks/small_matrix.yaml"),
         {"--set", "solver.method=block_jacobi"},
         "solver.method: block_jacobi needs a grid deck"},
        // Combinations the GPU solvers lack, with backend gpu: input errors on any machine
        // (checked before the device is looked for).
        {kSmallDeck,
         {"--backend", "gpu", "--set", "solver.method=qmr", "--set",
          "solver.preconditioner=point_block_jacobi", "--set", "solver.gpu_kernel=in_kernel"},
         "solver.preconditioner: the preconditioner point_block_jacobi is not fused into the "
         "in-kernel QMR"},
        {kSmallDeck,
         {"--backend", "gpu", "--set", "solver.method=bicgstab", "--set",
          "solver.preconditioner=line_jacobi", "--set", "solver.gpu_kernel=in_kernel"},
         "solver.preconditioner: the preconditioner line_jacobi is not local to a thread block"},
        {kSmallDeck,
         {"--backend", "gpu", "--set", "solver.method=bicgstab", "--set",
          "solver.gpu_kernel=library", "--set", "solver.preconditioner=block_jacobi"},
         "solver.preconditioner: the preconditioner block_jacobi is not in the library baseline"},
        {kSmallDeck,
         {"--backend", "gpu", "--set", "solver.method=bicgstab", "--set",
          "solver.gpu_kernel=multi_kernel", "--set", "solver.spmv=ksparse", "--set",
          "solver.preconditioner=point_block_jacobi"},
         "needs the Bdia SpMV"},
        {kSyntheticDeck,  // K = 3: cells straddle the in-kernel solver's row ranges
         {"--backend", "gpu", "--set", "solver.preconditioner=point_block_jacobi"},
         "K a power of two only (K = 3"},
    };
    for (const auto& b : bad) {
        std::vector<std::string> args = {"run", b.deck, "-o", out};
        args.insert(args.end(), b.args.begin(), b.args.end());
        const CliResult r = run_heptane(args);
        EXPECT_EQ(r.code, kExitBadInput) << b.message << "\n" << r.err << r.out;
        EXPECT_NE(r.err.find(b.message), std::string::npos) << "expected '" << b.message << "' in\n"
                                                            << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    // The deck line of the key when the deck sets it.
    std::ofstream(path("gs.yaml")) << "grid: {dims: [4, 4, 4], cell_size: [1, 1, 1]}\n"
                                      "fluid: {model: synthetic, components: 2}\n"
                                      "solver:\n  method: bicgstab\n  preconditioner: "
                                      "line_jacobi\n  gpu_kernel: library\n";
    const CliResult r = run_heptane({"run", path("gs.yaml"), "-o", out, "--backend", "gpu"});
    EXPECT_EQ(r.code, kExitBadInput) << r.err;
    EXPECT_NE(r.err.find("gs.yaml:5: solver.preconditioner: the preconditioner line_jacobi is "
                         "not in the library baseline"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out));
    for (const auto& f : files()) EXPECT_NE(f.rfind("out", 0), 0u) << "left " << f;
}

TEST_F(RunTest, ASingularBlockIsAnInputErrorAtTheDeckKey) {
    // One two-phase cell without compressibility or neighbours: its accumulation terms do not
    // depend on the pressure, so the cell's block has a zero pressure column and every block
    // the preconditioners and smoothers invert is singular.
    std::ofstream(path("singular.yaml"))
        << "grid: {dims: [1, 1, 1], cell_size: [10, 10, 2]}\n"
           "rock: {permeability: 100, porosity: 0.2, compressibility: 0}\n"
           "fluid:\n"
           "  model: two_phase\n"
           "  oil: {compressibility: 0}\n"
           "  water: {compressibility: 0}\n"
           "  gravity: false\n"
           "solver:\n"
           "  method: bicgstab\n"
           "  preconditioner: point_block_jacobi\n";
    const std::string out = path("out.h5");
    CliResult r = run_heptane({"run", path("singular.yaml"), "-o", out, "--backend", "cpu"});
    EXPECT_EQ(r.code, kExitBadInput) << r.err << r.out;
    EXPECT_NE(r.err.find("singular.yaml:10: solver.preconditioner: the diagonal block of cell "
                         "(0, 0, 0) is singular"),
              std::string::npos)
        << r.err;
    // A line's pivot: at the key set on the command line.
    r = run_heptane({"run", path("singular.yaml"), "-o", out, "--backend", "cpu", "--set",
                     "solver.preconditioner=line_jacobi"});
    EXPECT_EQ(r.code, kExitBadInput) << r.err << r.out;
    EXPECT_NE(r.err.find("--set solver.preconditioner=line_jacobi: solver.preconditioner: "),
              std::string::npos)
        << r.err;
    // Spatial blocks (preconditioner or smoother): at solver.block_shape, which the deck does
    // not set, so at its parent's line.
    for (const std::vector<std::string>& set :
         {std::vector<std::string>{"solver.preconditioner=block_jacobi"},
          std::vector<std::string>{"solver.method=block_gs", "solver.preconditioner=none"}}) {
        std::vector<std::string> args = {"run", path("singular.yaml"), "-o",
                                         out,   "--backend",           "cpu"};
        for (const std::string& x : set) args.insert(args.end(), {"--set", x});
        r = run_heptane(args);
        EXPECT_EQ(r.code, kExitBadInput) << set[0] << r.err << r.out;
        EXPECT_NE(r.err.find("singular.yaml:8: solver.block_shape: "), std::string::npos) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    EXPECT_EQ(files(), std::vector<std::string>{"singular.yaml"});
}

TEST_F(RunTest, GpuPreconditionersRunOnAGpuAndAreExit3WithoutOne) {
    CliResult r = run_heptane({"run", kSmallDeck, "-o", path("gpu.h5"), "--backend", "gpu", "--set",
                               "solver.method=bicgstab", "--set",
                               "solver.preconditioner=point_block_jacobi"});
    if (gpu::device_count() == 0) {
        EXPECT_EQ(r.code, kExitRuntime) << r.err;
        EXPECT_TRUE(files().empty());
        return;
    }
    ASSERT_EQ(r.code, kExitOk) << r.err;
    struct Combo {
        const char *method, *kernel, *kind;
    };
    const Combo combos[] = {{"bicgstab", "in_kernel", "point_block_jacobi"},
                            {"bicgstab", "multi_kernel", "point_block_jacobi"},
                            {"bicgstab", "multi_kernel", "line_jacobi"},
                            {"bicgstab", "multi_kernel", "block_jacobi"},
                            {"block_jacobi", "in_kernel", "none"},
                            {"block_gs", "in_kernel", "none"}};
    for (const Combo& c : combos) {
        SCOPED_TRACE(std::string(c.method) + " " + c.kernel + " " + c.kind);
        const bool smoother = std::string(c.method).rfind("block_", 0) == 0;
        r = run_heptane({"run", smoother ? kSyntheticDeck : kSmallDeck, "-o", path("gpu.h5"),
                         "--backend", "gpu", "--set", std::string("solver.method=") + c.method,
                         "--set", std::string("solver.gpu_kernel=") + c.kernel, "--set",
                         std::string("solver.preconditioner=") + c.kind});
        ASSERT_EQ(r.code, kExitOk) << r.err;
        const h5::File f = h5::File::open(path("gpu.h5"));
        EXPECT_EQ(f.attr_string("/solver", "backend"), "gpu");
        EXPECT_EQ(f.attr_string("/solver", "preconditioner"), c.kind);
        EXPECT_EQ(
            f.attr_string("/solver", "kernel").rfind(smoother ? "block_smoother" : c.kernel, 0),
            0u);
        EXPECT_LE(f.attr_double("/solver", "true_relative_residual"),
                  10 * f.attr_double("/solver", "tolerance"));
    }
}

TEST_F(RunTest, AutoBackendRunsOnTheCpuWhatTheGpuCannotTake) {
    // QMR with a preconditioner is CPU-only: backend auto solves on the CPU and, when a GPU
    // is there, says why.
    const std::string out = path("auto.h5");
    const CliResult r = run_heptane(
        {"run", kSmallDeck, "-o", out, "--set", "solver.preconditioner=point_block_jacobi"});
    ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    const h5::File f = h5::File::open(out);
    EXPECT_EQ(f.attr_string("/solver", "backend"), "cpu");
    EXPECT_EQ(f.attr_string("/solver", "method"), "qmr");
    const bool said = r.err.find(
                          "backend auto: solving on the CPU, the GPU solver cannot take "
                          "this deck: the preconditioner point_block_jacobi is not "
                          "available in the GPU QMR") != std::string::npos;
    EXPECT_EQ(said, gpu::compiled_with_cuda() && gpu::device_count() > 0) << r.err;
}

TEST_F(RunTest, DemoDeckPreconditionersCutBiCGStabIterations) {
    // inputs/demo.yaml (24 x 24 x 8 SPE10 window, K = 2), CPU BiCGStab to 1e-6.
    const std::string demo = source_path("inputs/demo.yaml");
    const auto iterations = [&](const char* kind) {
        const std::string out = path(std::string(kind) + ".h5");
        const CliResult r = run_heptane({"run", demo, "-o", out, "--backend", "cpu", "--set",
                                         "solver.method=bicgstab", "--set",
                                         std::string("solver.preconditioner=") + kind});
        EXPECT_EQ(r.code, kExitOk) << kind << "\n" << r.err << r.out;
        if (r.code != kExitOk) return -1.0;
        const h5::File f = h5::File::open(out);
        EXPECT_LE(f.attr_double("/solver", "true_relative_residual"), 10 * 1e-6) << kind;
        return f.attr_double("/solver", "iterations");
    };
    const double none = iterations("none");
    const double point = iterations("point_block_jacobi");
    const double line = iterations("line_jacobi");
    const double block = iterations("block_jacobi");
    // Measured: 2,660 / 683 / 535 / 210. BiCGStab is erratic on this window: point-block
    // Jacobi took 440 iterations until its factors became the Gaussian elimination the
    // device shares (design decision 48), a change in the last bits of the inverses that
    // costs it a shadow-residual restart here (the regression decks' counts went down by
    // 2-4). Every preconditioner cuts the iterations at least 3.5x; the line <=
    // point holds now (535 against 683), with line within 1.5x of point either way.
    EXPECT_LT(3.5 * point, none);
    EXPECT_LT(4 * line, none);
    EXPECT_LT(4 * block, none);
    EXPECT_LT(line, 1.5 * point);
    EXPECT_GT(line, 0.0);
}

}  // namespace
}  // namespace heptane::app
