// Matrix decks (a MatrixMarket system, KSPARSE on the GPU) through heptane run and bench
// ksparse: solves, no mesh written, input errors.
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

TEST_F(RunTest, BenchKsparseReadsAMatrixAndRefusesMalformedFiles) {
    // A malformed MatrixMarket file: exit 2 naming the file and the line, no report.
    const std::string bad = path("bad.mtx");
    std::ofstream(bad)
        << "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n3 1 2.0\n";
    CliResult r = run_heptane({"bench", "ksparse", bad, "--report", path("bad.yaml")});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("bad.mtx:4: row index 3"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("bad.yaml")));
    r = run_heptane({"bench", "ksparse", bad, "--block-sizes", "0..3"});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("--block-sizes"), std::string::npos) << r.err;
    // A valid one: every requested block size is measured ("1..2,5" is three sizes).
    const std::string good = path("good.mtx");
    std::ofstream(good) << "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n2 1 "
                           "-1\n3 3 2\n";
    r = run_heptane({"bench", "ksparse", good, "--block-sizes", "1..2,5", "--repeat", "1",
                     "--report", path("good.yaml")});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    std::ifstream report(path("good.yaml"));
    std::stringstream text;
    text << report.rdbuf();
    for (const char* bs : {"block_size: 1", "block_size: 2", "block_size: 5"}) {
        EXPECT_NE(text.str().find(bs), std::string::npos) << bs << "\n" << text.str();
    }
    EXPECT_EQ(text.str().find("block_size: 3"), std::string::npos);
    EXPECT_EQ(parse_block_sizes({"1..3", "8"}), (std::vector<int>{1, 2, 3, 8}));
    EXPECT_THROW(parse_block_sizes({"4..2"}), InputError);
    EXPECT_THROW(parse_block_sizes({"129"}), InputError);
}

/// The matrix of tests/app/decks/data/tiny.mtx (4 x 4, nonsymmetric), row-major dense.
constexpr double kTiny[4][4] = {{4, -1, 0, 0}, {0, 5, 0, 2}, {-1, 0, 3, 0}, {0, 1, -2, 6}};

/// ||b - A x|| / ||b|| for the tiny matrix, computed here (not by the solver).
double tiny_residual(const std::vector<double>& x, const std::vector<double>& b) {
    double rr = 0.0, bb = 0.0;
    for (int i = 0; i < 4; ++i) {
        double ax = 0.0;
        for (int j = 0; j < 4; ++j) ax += kTiny[i][j] * x[j];
        rr += (b[i] - ax) * (b[i] - ax);
        bb += b[i] * b[i];
    }
    return std::sqrt(rr / bb);
}

TEST_F(RunTest, MatrixDeckSolvesAndWritesNoMesh) {
    // The deck in the test's folder, the matrix beside it (a relative path).
    std::ofstream(path("tiny.mtx")) << "%%MatrixMarket matrix coordinate real general\n4 4 9\n"
                                       "1 1 4\n1 2 -1\n2 2 5\n2 4 2\n3 1 -1\n3 3 3\n4 2 1\n"
                                       "4 3 -2\n4 4 6\n";
    std::ofstream(path("b.mtx")) << "%%MatrixMarket matrix array real general\n4 1\n1\n-2\n3\n"
                                    "0.5\n";
    std::ofstream(path("m.yaml")) << "system:\n  matrix: tiny.mtx\n  rhs: b.mtx\n"
                                     "solver:\n  tolerance: 1.0e-12\n  max_iterations: 50\n"
                                     "output:\n  save_system: true\n";
    const std::vector<double> b = {1, -2, 3, 0.5};
    for (const char* method : {"bicgstab", "qmr"}) {
        SCOPED_TRACE(method);
        const std::string out = path(std::string(method) + ".h5");
        // backend auto: the GPU (multi-kernel, KSPARSE) where there is one, else the CPU.
        const std::string where = gpu::device_count() > 0 ? "gpu" : "cpu";
        const CliResult r = run_heptane(
            {"run", path("m.yaml"), "-o", out, "--set", std::string("solver.method=") + method});
        ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
        EXPECT_NE(r.out.find("matrix " + path("tiny.mtx") + " (4 x 4, bs 1, 9 nonzeros)"),
                  std::string::npos)
            << r.out;
        EXPECT_NE(r.out.find("on the " + where), std::string::npos) << r.out;
        const h5::File f = h5::File::open(out);
        const auto x = f.read("/solution/x");
        ASSERT_EQ(x.dims, std::vector<hsize_t>{4});
        EXPECT_LE(tiny_residual(x.values, b), 1e-11);
        EXPECT_EQ(f.read("/system/rhs").values, b);
        EXPECT_FALSE(f.exists("/grid"));
        EXPECT_FALSE(f.exists("/solution/fields"));
        EXPECT_EQ(f.attr_string("/system", "matrix"), path("tiny.mtx"));
        EXPECT_EQ(f.attr_double("/system", "block_size"), 1.0);
        EXPECT_EQ(f.attr_double("/system", "rows"), 4.0);
        EXPECT_EQ(f.attr_double("/system", "nonzeros"), 9.0);
        EXPECT_EQ(f.attr_string("/system", "rhs"), "file");
        EXPECT_EQ(f.attr_string("/solver", "status"), "converged");
        EXPECT_EQ(f.attr_string("/solver", "method"), method);
        EXPECT_EQ(f.attr_string("/solver", "backend"), where);
        EXPECT_LE(f.attr_double("/solver", "true_relative_residual"), 1e-11);
        const double iterations = f.attr_double("/solver", "iterations");
        EXPECT_EQ(f.read("/solver/residual_history").values.size(), iterations + 1);
        EXPECT_NE(f.attr_string("/", "deck").find("matrix: tiny.mtx"), std::string::npos);
    }
    EXPECT_FALSE(fs::exists(path("bicgstab.xmf")));
    EXPECT_FALSE(fs::exists(path("qmr.xmf")));

    // compare reads /solution and the solver status of two matrix-deck files.
    EXPECT_EQ(run_heptane({"compare", path("bicgstab.h5"), path("qmr.h5"), "--rtol", "1e-8"}).code,
              0);
    fs::copy_file(path("qmr.h5"), path("p.h5"));
    perturb(path("p.h5"), "/solution/x", 2, 1e-6);
    const CliResult c = run_heptane({"compare", path("qmr.h5"), path("p.h5"), "--rtol", "1e-9"});
    EXPECT_EQ(c.code, 1) << c.out;
    EXPECT_NE(c.out.find("DIFFERS (1 entries)"), std::string::npos) << c.out;

    // Block size 2: the promoted (seeded) matrix, 8 unknowns.
    const CliResult p = run_heptane({"run", path("m.yaml"), "-o", path("bs2.h5"), "--set",
                                     "system.block_size=2", "--set", "system.rhs=random"});
    ASSERT_EQ(p.code, kExitOk) << p.err << p.out;
    const h5::File f = h5::File::open(path("bs2.h5"));
    EXPECT_EQ(f.read("/solution/x").dims, std::vector<hsize_t>{8});
    EXPECT_EQ(f.attr_double("/system", "nonzeros"), 36.0);
    EXPECT_LE(f.attr_double("/solver", "true_relative_residual"), 1e-11);
}

TEST_F(RunTest, MatrixDeckInputErrorsAreExit2AndWriteNothing) {
    std::ofstream(path("bad.mtx")) << "%%MatrixMarket matrix coordinate real general\n2 2 2\n"
                                      "1 1 1.0\n3 1 2.0\n";
    std::ofstream(path("wide.mtx")) << "%%MatrixMarket matrix coordinate real general\n2 3 1\n"
                                       "1 1 1.0\n";
    std::ofstream(path("bad.yaml")) << "system:\n  matrix: bad.mtx\n";
    std::ofstream(path("wide.yaml")) << "# a non-square matrix\nsystem:\n  matrix: wide.mtx\n";
    const std::string out = path("out.h5");
    // A malformed .mtx: the file and its line (MatrixMarketError), not the deck.
    CliResult r = run_heptane({"run", path("bad.yaml"), "-o", out});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find(path("bad.mtx") + ":4: row index 3"), std::string::npos) << r.err;
    // A non-square matrix: the deck key.
    r = run_heptane({"run", path("wide.yaml"), "-o", out});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("wide.yaml:3: system.matrix: the matrix is 2 x 3"), std::string::npos)
        << r.err;
    // On the GPU a matrix deck runs the multi-kernel solver with KSPARSE: another kernel or
    // the Bdia SpMV is an input error at its key.
    std::ofstream(path("tiny.mtx")) << "%%MatrixMarket matrix coordinate real general\n1 1 1\n"
                                       "1 1 2.0\n";
    std::ofstream(path("in_kernel.yaml")) << "system:\n  matrix: tiny.mtx\nsolver:\n"
                                             "  gpu_kernel: in_kernel\n";
    r = run_heptane({"run", path("in_kernel.yaml"), "-o", out});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("in_kernel.yaml:4: solver.gpu_kernel: a matrix deck runs on the GPU with "
                         "multi_kernel"),
              std::string::npos)
        << r.err;
    std::ofstream(path("bdia.yaml")) << "system:\n  matrix: tiny.mtx\nsolver:\n  spmv: bdia\n";
    r = run_heptane({"run", path("bdia.yaml"), "-o", out});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("bdia.yaml:4: solver.spmv: a matrix deck has no Bdia form"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(path("out.xmf")));
    for (const auto& f : fs::directory_iterator(dir_)) {
        EXPECT_NE(f.path().filename().string().rfind("out", 0), 0u) << "left " << f.path();
    }
    // backend gpu: solved on the GPU where there is one, else a runtime error (exit 3).
    std::ofstream(path("gpu.yaml")) << "system:\n  matrix: tiny.mtx\nsolver:\n  backend: gpu\n";
    r = run_heptane({"run", path("gpu.yaml"), "-o", out});
    if (gpu::device_count() > 0) {
        EXPECT_EQ(r.code, kExitOk) << r.err;
        EXPECT_NE(r.out.find("multi_kernel/ksparse"), std::string::npos) << r.out;
    } else {
        EXPECT_EQ(r.code, kExitRuntime) << r.err;
        EXPECT_FALSE(fs::exists(out));
    }
    // ...while --backend cpu runs the same deck.
    r = run_heptane({"run", path("gpu.yaml"), "-o", path("cpu.h5"), "--backend", "cpu"});
    EXPECT_EQ(r.code, kExitOk) << r.err;
}

TEST_F(RunTest, Sherman1DeckConverges) {
    const std::string out = path("sherman1.h5");
    const CliResult r = run_heptane({"run", source_path("inputs/sherman1.yaml"), "-o", out});
    ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    EXPECT_NE(r.out.find("(1,000 x 1,000, bs 1, 3,750 nonzeros)"), std::string::npos) << r.out;
    const h5::File f = h5::File::open(out);
    EXPECT_EQ(f.read("/solution/x").dims, std::vector<hsize_t>{1000});
    EXPECT_EQ(f.attr_string("/solver", "status"), "converged");
    EXPECT_LE(f.attr_double("/solver", "true_relative_residual"),
              10 * f.attr_double("/solver", "tolerance"));
}

}  // namespace
}  // namespace heptane::app
