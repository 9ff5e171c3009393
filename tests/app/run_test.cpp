// heptane run and compare through the CLI: the HDF5 layout of DESIGN section 7, the XDMF
// sidecar, exit codes, --set, and nothing half-written on failure. The preconditioners and
// smoothers through run: run_precond_test.cpp; matrix decks: run_matrix_deck_test.cpp.
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

TEST_F(RunTest, WritesTheDesignLayout) {
    const std::string out = path("small.h5");
    const CliResult r = run_heptane({"run", kSmallDeck, "-o", out, "--backend", "cpu"});
    ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    EXPECT_NE(r.out.find("converged"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("GB/s effective"), std::string::npos) << r.out;
    const h5::File f = h5::File::open(out);
    const std::vector<hsize_t> shape = {6, 5, 4};
    for (const char* d : {"/grid/permeability_x", "/grid/permeability_y", "/grid/permeability_z",
                          "/grid/porosity", "/solution/fields/dp", "/solution/fields/dSw"}) {
        EXPECT_EQ(f.read(d).dims, shape) << d;
    }
    EXPECT_EQ(f.read("/solution/x").dims, std::vector<hsize_t>{240});
    EXPECT_EQ(f.read("/solution/well_bhp").dims, std::vector<hsize_t>{3});
    EXPECT_EQ(f.read("/system/rhs").dims, std::vector<hsize_t>{243});  // save_system: true
    EXPECT_EQ(f.read("/system/bdia").dims, (std::vector<hsize_t>{7, 2, 2, 120}));
    EXPECT_EQ(f.attr_string("/grid", "ordering"), "k-fastest");
    EXPECT_EQ(f.attr_double("/grid", "K"), 2.0);
    EXPECT_EQ(f.attr_string("/solver", "status"), "converged");
    EXPECT_EQ(f.attr_string("/solver", "method"), "qmr");  // the deck's
    EXPECT_EQ(f.attr_string("/solver", "backend"), "cpu");
    const double iterations = f.attr_double("/solver", "iterations");
    EXPECT_EQ(f.read("/solver/residual_history").values.size(), iterations + 1);
    EXPECT_EQ(f.read("/solver/quasi_residual_history").values.size(), iterations + 1);
    EXPECT_LE(f.attr_double("/solver", "true_relative_residual"), 10 * 1e-10);
    EXPECT_GT(f.attr_double("/solver", "solve_seconds"), 0.0);
    // The deck text is kept whole.
    std::ifstream deck(kSmallDeck);
    std::stringstream text;
    text << deck.rdbuf();
    EXPECT_EQ(f.attr_string("/", "deck"), text.str());
    // Fields are the components of x, cell m = k + nz (j + ny i) at (i, j, k) in C order.
    const auto x = f.read("/solution/x").values;
    const auto dp = f.read("/solution/fields/dp").values;
    const auto dsw = f.read("/solution/fields/dSw").values;
    for (std::size_t m = 0; m < dp.size(); ++m) {
        ASSERT_EQ(dp[m], x[2 * m]) << m;
        ASSERT_EQ(dsw[m], x[2 * m + 1]) << m;
    }
    // Permeability in mD: the lognormal median is 100 mD.
    const auto kx = f.read("/grid/permeability_x").values;
    EXPECT_GT(*std::max_element(kx.begin(), kx.end()), 100.0);
    EXPECT_LT(*std::min_element(kx.begin(), kx.end()), 100.0);
}

TEST_F(RunTest, XdmfReferencesExistingDatasetsWithMatchingDimensions) {
    const std::string out = path("small.h5");
    ASSERT_EQ(run_heptane({"run", kSmallDeck, "-o", out}).code, kExitOk);
    std::ifstream in(path("small.xmf"));
    ASSERT_TRUE(in) << "no .xmf beside the .h5";
    std::stringstream text;
    text << in.rdbuf();
    const test::XmlElement root = test::XmlParser(text.str()).parse();
    EXPECT_EQ(root.name, "Xdmf");
    std::vector<const test::XmlElement*> topo, items, attributes;
    root.find_all("Topology", topo);
    root.find_all("DataItem", items);
    root.find_all("Attribute", attributes);
    ASSERT_EQ(topo.size(), 1u);
    EXPECT_EQ(topo[0]->attributes.at("TopologyType"), "3DCoRectMesh");
    EXPECT_EQ(topo[0]->attributes.at("Dimensions"), "7 6 5");  // nodes: cells + 1
    EXPECT_EQ(attributes.size(), 6u);  // 3 permeabilities, porosity, dp, dSw
    int hdf_items = 0;
    for (const test::XmlElement* item : items) {
        if (item->attributes.at("Format") != "HDF") continue;
        ++hdf_items;
        const std::string ref = item->text;
        const auto colon = ref.find(':');
        ASSERT_NE(colon, std::string::npos) << ref;
        const std::string file = (dir_ / ref.substr(0, colon)).string();
        const std::string dataset = ref.substr(colon + 1);
        const h5::File f = h5::File::open(file);
        ASSERT_TRUE(f.exists(dataset)) << dataset;
        const auto dims = f.read(dataset).dims;
        std::string text_dims;
        for (auto d : dims) text_dims += (text_dims.empty() ? "" : " ") + std::to_string(d);
        EXPECT_EQ(item->attributes.at("Dimensions"), text_dims) << dataset;
    }
    EXPECT_EQ(hdf_items, 6);
}

TEST_F(RunTest, CompareFindsAOneInAMillionChange) {
    const std::string a = path("a.h5"), b = path("b.h5");
    ASSERT_EQ(run_heptane({"run", kSmallDeck, "-o", a}).code, kExitOk);
    fs::copy_file(a, b);
    EXPECT_EQ(run_heptane({"compare", a, b, "--rtol", "1e-9"}).code, 0);
    perturb(b, "/solution/x", 17, 1e-6);
    const CliResult r = run_heptane({"compare", a, b, "--rtol", "1e-9"});
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_NE(r.out.find("/solution/x"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("DIFFERS (1 entries)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(17)"), std::string::npos) << r.out;  // where the worst entry is
    EXPECT_EQ(run_heptane({"compare", a, b, "--rtol", "1e-5"}).code,
              0);  // within a looser tolerance
    EXPECT_EQ(run_heptane({"compare", a, a}).code, 0);
}

TEST_F(RunTest, CompareRejectsUnreadableAndMismatchedFiles) {
    const std::string a = path("a.h5"), other = path("other.h5"), text = path("text.h5");
    ASSERT_EQ(run_heptane({"run", kSmallDeck, "-o", a}).code, kExitOk);
    std::ofstream(text) << "not HDF5\n";
    EXPECT_EQ(run_heptane({"compare", a, text}).code, kExitBadInput);
    EXPECT_EQ(run_heptane({"compare", a, path("missing.h5")}).code, kExitBadInput);
    // Another model: the datasets have other shapes.
    ASSERT_EQ(run_heptane(
                  {"run", source_path("tests/app/decks/small_synthetic_metric.yaml"), "-o", other})
                  .code,
              kExitOk);
    const CliResult r = run_heptane({"compare", a, other});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("exists in"), std::string::npos) << r.err;  // dSw vs x0, x1, x2
}

TEST_F(RunTest, CompareReportsADifferentSolverStatus) {
    const std::string a = path("a.h5"), b = path("b.h5");
    ASSERT_EQ(run_heptane({"run", kSmallDeck, "-o", a}).code, kExitOk);
    ASSERT_EQ(run_heptane({"run", kSmallDeck, "-o", b, "--set", "solver.max_iterations=2"}).code,
              1);
    const CliResult r = run_heptane({"compare", a, b, "--rtol", "1e300"});  // values "agree"
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("solver status: converged / max_iterations  DIFFERS"), std::string::npos)
        << r.out;
}

TEST_F(RunTest, NonConvergenceIsExit1AndTheResultIsWritten) {
    const std::string out = path("nc.h5");
    const CliResult r =
        run_heptane({"run", kSmallDeck, "-o", out, "--set", "solver.max_iterations=3"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("did not converge: max_iterations after 3 iterations"), std::string::npos)
        << r.err;
    const h5::File f = h5::File::open(out);
    EXPECT_EQ(f.attr_string("/solver", "status"), "max_iterations");
    EXPECT_EQ(f.attr_double("/solver", "iterations"), 3.0);
}

TEST_F(RunTest, SetOverridesDeckKeysWithTheDecksValidation) {
    const std::string out = path("set.h5");
    CliResult r =
        run_heptane({"run", kSmallDeck, "-o", out, "--set", "solver.method=bicgstab", "--set",
                     "wells[1].control={kind: bhp, value: 3500}", "--set", "timestep.dt=0.5"});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    const h5::File f = h5::File::open(out);
    EXPECT_EQ(f.attr_string("/solver", "method"), "bicgstab");
    EXPECT_FALSE(f.exists("/solver/quasi_residual_history"));
    EXPECT_NE(f.attr_string("/", "overrides").find("timestep.dt=0.5"), std::string::npos);

    const struct {
        const char* set;
        const char* message;
    } bad[] = {
        {"solver.methd=qmr", "--set solver.methd=qmr: solver.methd: unknown key"},
        {"solver.method=gmres", "--set solver.method=gmres: solver.method: 'gmres' is not allowed"},
        {"wells[7].radius=1", "--set wells[7].radius=1: wells: has no element [7]"},
        {"wells[99999999999999999999].radius=1",
         "--set wells[99999999999999999999].radius=1: wells[99999999999999999999].radius: index "
         "[99999999999999999999] is out of range"},
        {"grid.dims=[4, 0, 4]", "--set grid.dims=[4, 0, 4]: grid.dims: every dimension"},
        {"solver", "--set solver: expected key.path=value"},
        {"wells[0].control={kind: rate", "the value is not valid YAML"},
    };
    for (const auto& b : bad) {
        r = run_heptane({"run", kSmallDeck, "-o", path("bad.h5"), "--set", b.set});
        EXPECT_EQ(r.code, kExitBadInput) << b.set;
        EXPECT_NE(r.err.find(b.message), std::string::npos) << "expected '" << b.message << "' in\n"
                                                            << r.err;
    }
    EXPECT_FALSE(fs::exists(path("bad.h5")));
}

TEST_F(RunTest, BadInputLeavesNoOutputFile) {
    // Every bad deck, through `run`.
    for (const auto& entry : fs::directory_iterator(source_path("tests/app/bad_decks"))) {
        if (entry.path().extension() != ".yaml") continue;
        const CliResult r = run_heptane({"run", entry.path().string(), "-o", path("out.h5")});
        EXPECT_EQ(r.code, kExitBadInput) << entry.path() << r.err;
    }
    // An output folder that does not exist: refused before any work.
    const CliResult r = run_heptane({"run", kSmallDeck, "-o", path("no/such/folder/out.h5")});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("-o: cannot write"), std::string::npos) << r.err;
    EXPECT_TRUE(files().empty()) << files().front();
}

TEST_F(RunTest, ProgressOnATerminalOnly) {
    // (The CPU reports every iteration; the GPU solvers report at their host looks.)
    const CliResult quiet =
        run_heptane({"run", kSmallDeck, "-o", path("q.h5"), "--backend", "cpu"});
    EXPECT_EQ(quiet.err.find('\r'), std::string::npos) << "progress in a log";
    const CliResult shown =
        test::run_heptane({"run", kSmallDeck, "-o", path("t.h5"), "--backend", "cpu"}, true);
    ASSERT_EQ(shown.code, kExitOk);
    EXPECT_NE(shown.err.find("\r  iteration 0  relative residual 1.00e+00"), std::string::npos)
        << shown.err;
    EXPECT_EQ(shown.out.find('\r'), std::string::npos);  // progress goes to stderr only
    EXPECT_EQ(shown.err.back(), '\r');                   // the progress line is cleared at the end
}

TEST_F(RunTest, GpuBackendRunsOnAGpuAndIsExit3WithoutOne) {
    CliResult r = run_heptane({"run", kSmallDeck, "-o", path("gpu.h5"), "--backend", "gpu"});
    if (gpu::device_count() == 0) {
        EXPECT_EQ(r.code, kExitRuntime) << r.err;
        EXPECT_NE(r.err.find("backend gpu"), std::string::npos) << r.err;
        EXPECT_TRUE(files().empty());
        return;
    }
    // Both methods with every GPU kernel; QMR also writes its quasi-residual history.
    for (const char* method : {"qmr", "bicgstab"}) {
        for (const char* kernel : {"in_kernel", "multi_kernel", "library"}) {
            SCOPED_TRACE(std::string(method) + " " + kernel);
            r = run_heptane({"run", kSmallDeck, "-o", path("gpu.h5"), "--backend", "gpu", "--set",
                             std::string("solver.method=") + method, "--set",
                             std::string("solver.gpu_kernel=") + kernel});
            ASSERT_EQ(r.code, kExitOk) << r.err;
            const h5::File f = h5::File::open(path("gpu.h5"));
            EXPECT_EQ(f.attr_string("/solver", "backend"), "gpu");
            EXPECT_EQ(f.attr_string("/solver", "method"), method);
            EXPECT_EQ(f.attr_string("/solver", "kernel").rfind(kernel, 0), 0u);
            EXPECT_LE(f.attr_double("/solver", "true_relative_residual"), 1e-9);
            const auto iterations =
                static_cast<std::size_t>(f.attr_double("/solver", "iterations"));
            EXPECT_EQ(f.read("/solver/residual_history").values.size(), iterations + 1);
            if (std::string(method) == "qmr") {
                EXPECT_EQ(f.read("/solver/quasi_residual_history").values.size(), iterations + 1);
            }
        }
    }
}

}  // namespace
}  // namespace heptane::app
