// Deck parsing: unit conversion of good decks, and every kind of bad input reported with
// file, line and key, exit code 2 and no output file (data-driven from bad_decks/).
#include "app/deck.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unsupported/Eigen/SparseExtra>

#include "app/cli.hpp"
#include "app/report.hpp"
#include "common/cli_runner.hpp"
#include "common/temp_file.hpp"
#include "common/test_systems.hpp"
#include "core/base/eigen_interop.hpp"
#include "core/base/units.hpp"
#include "core/matrix/formats.hpp"
#include "core/matrix/linear_operator.hpp"
#include "core/matrix/matrix_market.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;
using test::source_path;
using ::testing::HasSubstr;

using test::CliResult;
using test::run_heptane;

std::string temp_dir() {
    const fs::path dir =
        fs::path(::testing::TempDir()) / ("heptane_app_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir.string();
}

TEST(Deck, FieldUnitsAreConvertedToSI) {
    const Deck deck = load_deck(source_path("tests/app/decks/small_two_phase.yaml"));
    const wells::ModelSpec& m = deck.model;
    EXPECT_EQ(deck.title, "small two-phase test deck");
    EXPECT_EQ(m.model, wells::FluidModel::two_phase);
    EXPECT_EQ(m.grid.nx, 6);
    EXPECT_EQ(m.grid.nz, 4);
    EXPECT_DOUBLE_EQ(m.grid.dx, 20 * 0.3048);
    EXPECT_DOUBLE_EQ(m.grid.top_depth, 12000 * 0.3048);
    EXPECT_DOUBLE_EQ(m.two_phase.oil.density, 53.0 * 16.01846337396);
    EXPECT_DOUBLE_EQ(m.two_phase.water.viscosity, 0.3e-3);
    EXPECT_DOUBLE_EQ(m.two_phase.oil.compressibility, 5.0e-6 / 6894.757293168361);
    EXPECT_DOUBLE_EQ(m.two_phase.reference_pressure, 6000 * 6894.757293168361);
    EXPECT_DOUBLE_EQ(m.initial.water_saturation, 0.25);
    EXPECT_DOUBLE_EQ(m.dt, 2.0 * 86400.0);
    ASSERT_EQ(m.wells.size(), 3u);
    EXPECT_EQ(m.wells[0].type, wells::WellType::injector);
    EXPECT_DOUBLE_EQ(m.wells[0].target, 200 * 0.158987294928 / 86400.0);  // stb/day -> m^3/s
    EXPECT_EQ(m.wells[0].k_last, 3);  // default: the whole column
    EXPECT_DOUBLE_EQ(m.wells[1].target, 4000 * 6894.757293168361);
    EXPECT_EQ(m.wells[2].k_first, 3);
    EXPECT_DOUBLE_EQ(m.wells[2].radius, 0.5 * 0.3048);
    EXPECT_DOUBLE_EQ(m.wells[2].skin, 1.0);
    EXPECT_EQ(m.permeability.kind, grid::FieldKind::lognormal);
    EXPECT_DOUBLE_EQ(m.permeability.kv_kh, 0.1);
    EXPECT_EQ(deck.solver.method, Method::qmr);
    EXPECT_DOUBLE_EQ(deck.solver.tolerance, 1e-10);
    EXPECT_EQ(deck.solver.max_iterations, 300);
    EXPECT_EQ(deck.output.file, "small.h5");
    EXPECT_TRUE(deck.output.save_system);
    EXPECT_EQ(deck.lines.line_of("wells[2].radius"), 21);
    EXPECT_EQ(deck.lines.line_of("fluid.oil.density"), 14);
}

// Every deck shipped in inputs/ loads: its keys and values pass the reader's checks (a deck
// a user runs first must not fail on a typo; the heavy ones are not run here). The waterflood
// deck's CPR choices are read as it states them.
TEST(Deck, EveryShippedDeckLoads) {
    int decks = 0;
    for (const auto& e : fs::directory_iterator(source_path("inputs"))) {
        if (e.path().extension() != ".yaml") continue;
        EXPECT_NO_THROW(load_deck(e.path().string())) << e.path();
        ++decks;
    }
    EXPECT_GE(decks, 9);
    const Deck flood = load_deck(source_path("inputs/spe10_waterflood.yaml"));
    EXPECT_EQ(flood.solver.preconditioner, PreconditionerKind::cpr);
    EXPECT_EQ(flood.solver.cpr.weights, CprWeights::true_impes);
    EXPECT_EQ(flood.solver.cpr.mg.coarse_scale, 1.3);
    EXPECT_EQ(flood.schedule.newton.linear_tolerance_floor, sim::LinearFloor::criteria);
}

// inputs/spe10_eclipse.yaml reads the study's own deck (design decision 100): its PVDO oil,
// its injector on a reservoir volume rate (WCONINJE RESV 5000 rb/day, 10,000 psi) through the
// "SOLUTION ====" line, four BHP producers and 33 reports to day 2,000.
TEST(Deck, Spe10EclipseDeckReadsTheStudysFluidAndSchedule) {
    const Deck d = load_deck(source_path("inputs/spe10_eclipse.yaml"));
    EXPECT_EQ(d.model.two_phase.oil_pvt.rows, 3);
    ASSERT_EQ(d.model.wells.size(), 5u);
    const wells::WellSpec& inj = d.model.wells[0];
    EXPECT_EQ(inj.name, "INJ");
    EXPECT_EQ(inj.type, wells::WellType::injector);
    EXPECT_EQ(inj.control, wells::ControlKind::reservoir_rate);
    EXPECT_DOUBLE_EQ(inj.target, 5000.0 * units::kStockTankBarrel / units::kDay);
    EXPECT_DOUBLE_EQ(inj.max_bhp, 10000.0 * units::kPsi);
    for (std::size_t w = 1; w < 5; ++w) {
        EXPECT_EQ(d.model.wells[w].control, wells::ControlKind::bhp) << w;
        EXPECT_DOUBLE_EQ(d.model.wells[w].target, 4000.0 * units::kPsi) << w;
    }
    ASSERT_EQ(d.schedule.report_times.size(), 33u);
    EXPECT_DOUBLE_EQ(d.schedule.report_times.back(), 2000.0 * units::kDay);
}

TEST(Deck, LibraryFormatIsReadAndChecked) {
    // solver.library_format (inputs/README.md) picks the library baseline's cuSPARSE SpMV.
    const std::string deck = source_path("tests/app/decks/small_two_phase.yaml");
    EXPECT_EQ(load_deck(deck).solver.library_format, LibraryFormat::bsr);
    EXPECT_EQ(load_deck(deck, {"solver.library_format=csr"}).solver.library_format,
              LibraryFormat::csr);
    EXPECT_EQ(load_deck(deck, {"solver.library_format=bsr_legacy"}).solver.library_format,
              LibraryFormat::bsr_legacy);
    EXPECT_THROW(load_deck(deck, {"solver.library_format=ell"}), InputError);
}

TEST(Deck, KsparseSpmvIsReadAndChecked) {
    // solver.spmv: ksparse with solver.ksparse {kernel, balance, lambda}; only with the
    // multi-kernel solvers.
    const std::string deck = source_path("tests/app/decks/small_two_phase.yaml");
    const Deck d = load_deck(
        deck, {"solver.gpu_kernel=multi_kernel", "solver.spmv=ksparse", "solver.ksparse.kernel=k3",
               "solver.ksparse.balance=on", "solver.ksparse.lambda=8"});
    EXPECT_EQ(d.solver.spmv, SpmvKind::ksparse);
    EXPECT_EQ(d.solver.ksparse.kernel, KsparseKernel::k3);
    EXPECT_EQ(load_deck(deck, {"solver.gpu_kernel=multi_kernel", "solver.spmv=ksparse",
                               "solver.ksparse.kernel=k4"})
                  .solver.ksparse.kernel,
              KsparseKernel::k4);
    EXPECT_EQ(d.solver.ksparse.balance, KsparseBalance::on);
    EXPECT_EQ(d.solver.ksparse.lambda, 8);
    const Deck defaults = load_deck(deck);
    EXPECT_EQ(defaults.solver.spmv, SpmvKind::bdia);
    EXPECT_EQ(defaults.solver.ksparse.kernel, KsparseKernel::automatic);
    EXPECT_EQ(defaults.solver.ksparse.balance, KsparseBalance::automatic);
    try {
        load_deck(deck, {"solver.spmv=ksparse"});  // gpu_kernel in_kernel (the default)
        ADD_FAILURE() << "ksparse with the in-kernel solver accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("solver.spmv: ksparse runs with gpu_kernel: "
                                             "multi_kernel"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_THROW(load_deck(deck, {"solver.gpu_kernel=multi_kernel", "solver.ksparse.lambda=0"}),
                 InputError);
    EXPECT_THROW(load_deck(deck, {"solver.gpu_kernel=multi_kernel", "solver.ksparse.kernel=k5"}),
                 InputError);
    EXPECT_THROW(load_deck(deck, {"solver.gpu_kernel=multi_kernel", "solver.ksparse.kernel=k4",
                                  "solver.ksparse.balance=off"}),
                 InputError);
    EXPECT_THROW(load_deck(deck, {"solver.ksparse.nb=4"}), InputError);  // unknown key
    // A matrix deck takes the multi-kernel solver and KSPARSE by default.
    const Deck m = load_deck(source_path("inputs/sherman1.yaml"));
    EXPECT_EQ(m.solver.gpu_kernel, GpuKernel::multi_kernel);
    EXPECT_EQ(m.solver.spmv, SpmvKind::ksparse);
}

TEST(Deck, PreconditionerAndSmootherKeysAreReadAndChecked) {
    // solver.preconditioner, block_shape, omega (issue 8); defaults none, [4, 4, 4], 1.
    const std::string deck = source_path("tests/app/decks/small_two_phase.yaml");
    const Deck defaults = load_deck(deck);
    EXPECT_EQ(defaults.solver.preconditioner, PreconditionerKind::none);
    EXPECT_EQ(defaults.solver.block_shape, (std::array<int, 3>{4, 4, 4}));
    EXPECT_EQ(defaults.solver.omega, 1.0);
    const struct {
        const char* name;
        PreconditionerKind kind;
    } kinds[] = {{"none", PreconditionerKind::none},
                 {"point_block_jacobi", PreconditionerKind::point_block_jacobi},
                 {"line_jacobi", PreconditionerKind::line_jacobi},
                 {"block_jacobi", PreconditionerKind::block_jacobi}};
    for (const auto& k : kinds) {
        const Deck d = load_deck(deck, {std::string("solver.preconditioner=") + k.name});
        EXPECT_EQ(d.solver.preconditioner, k.kind) << k.name;
        EXPECT_STREQ(to_string(d.solver.preconditioner), k.name);
    }
    const Deck s = load_deck(
        deck, {"solver.method=block_gs", "solver.block_shape=[2, 3, 5]", "solver.omega=0.7"});
    EXPECT_EQ(s.solver.method, Method::block_gs);
    EXPECT_EQ(s.solver.block_shape, (std::array<int, 3>{2, 3, 5}));
    EXPECT_DOUBLE_EQ(s.solver.omega, 0.7);
    EXPECT_EQ(load_deck(deck, {"solver.method=block_jacobi"}).solver.method, Method::block_jacobi);

    // Out-of-range values and the combinations that cannot run, each at its key.
    const struct {
        std::vector<std::string> set;
        const char* message;
    } bad[] = {
        {{"solver.omega=0"}, "solver.omega: must be in (0, 2)"},
        {{"solver.omega=2"}, "solver.omega: must be in (0, 2)"},
        {{"solver.block_shape=[4, 4]"}, "solver.block_shape:"},
        {{"solver.block_shape=[1, 1, 0]"}, "solver.block_shape: every block dimension"},
        {{"solver.preconditioner=ilu0"}, "solver.preconditioner: 'ilu0' is not allowed"},
        {{"solver.method=block_jacobi", "solver.preconditioner=point_block_jacobi"},
         "solver.preconditioner: the block smoother block_jacobi takes no preconditioner"},
    };
    for (const auto& b : bad) {
        try {
            load_deck(deck, b.set);
            ADD_FAILURE() << b.set.back() << " accepted";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(b.message), std::string::npos)
                << "expected '" << b.message << "' in " << e.what();
        }
    }
    // Matrix decks have no grid: no preconditioner, no smoother.
    const std::string matrix = source_path("inputs/sherman1.yaml");
    EXPECT_NO_THROW(load_deck(matrix, {"solver.preconditioner=none"}));
    for (const char* set : {"solver.preconditioner=point_block_jacobi", "solver.method=block_gs",
                            "solver.method=block_jacobi"}) {
        try {
            load_deck(matrix, {set});
            ADD_FAILURE() << set << " accepted for a matrix deck";
        } catch (const InputError& e) {
            const std::string key(set, std::string(set).find('='));
            EXPECT_NE(std::string(e.what()).find(key + ": "), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("needs a grid deck"), std::string::npos)
                << e.what();
        }
    }
}

TEST(Deck, CprKeysAreReadAndChecked) {
    // solver.cpr (issue 21; inputs/README.md): every key, its default, and its bounds.
    const std::string deck = source_path("tests/app/decks/small_two_phase.yaml");
    const MgOptions defaults = load_deck(deck).solver.cpr.mg;
    EXPECT_EQ(defaults.cycle, MgCycle::v);
    EXPECT_EQ(defaults.smoother, MgSmoother::line_gs);
    EXPECT_EQ(defaults.factor, (std::array<int, 3>{2, 2, 1}));
    EXPECT_EQ(defaults.pre_sweeps, 1);
    EXPECT_EQ(defaults.post_sweeps, 1);
    EXPECT_EQ(defaults.coarsest_rows, 400);
    const Deck d =
        load_deck(deck, {"solver.method=bicgstab", "solver.preconditioner=cpr",
                         "solver.cpr.weights=quasi_impes", "solver.cpr.cycle=w",
                         "solver.cpr.smoother=line_jacobi", "solver.cpr.levels=3",
                         "solver.cpr.coarsening=[2, 2, 2]", "solver.cpr.sweeps=[2, 0]",
                         "solver.cpr.omega=0.7", "solver.cpr.coarse_scale=1.4",
                         "solver.cpr.coarsest_rows=2048", "solver.cpr.coarsest_sweeps=7"});
    const CprOptions& c = d.solver.cpr;
    EXPECT_EQ(d.solver.preconditioner, PreconditionerKind::cpr);
    // cpr runs on the GPU in the multi-kernel solver: its default kernel there, unless given
    EXPECT_EQ(d.solver.gpu_kernel, GpuKernel::multi_kernel);
    EXPECT_EQ(load_deck(deck).solver.gpu_kernel, GpuKernel::in_kernel);
    // Every preconditioner the in-kernel solvers do not fuse defaults to multi_kernel: line and
    // spatial-block Jacobi, and QMR's (M^-T); point-block Jacobi in BiCGStab stays fused.
    const auto kernel_of = [&](const char* method, const char* precond) {
        return load_deck(deck, {std::string("solver.method=") + method,
                                std::string("solver.preconditioner=") + precond})
            .solver.gpu_kernel;
    };
    EXPECT_EQ(kernel_of("bicgstab", "point_block_jacobi"), GpuKernel::in_kernel);
    EXPECT_EQ(kernel_of("bicgstab", "line_jacobi"), GpuKernel::multi_kernel);
    EXPECT_EQ(kernel_of("bicgstab", "block_jacobi"), GpuKernel::multi_kernel);
    EXPECT_EQ(kernel_of("qmr", "point_block_jacobi"), GpuKernel::multi_kernel);
    EXPECT_EQ(load_deck(deck, {"solver.method=bicgstab", "solver.preconditioner=cpr",
                               "solver.gpu_kernel=in_kernel"})
                  .solver.gpu_kernel,
              GpuKernel::in_kernel);
    EXPECT_EQ(c.weights, CprWeights::quasi_impes);
    EXPECT_EQ(c.mg.cycle, MgCycle::w);
    EXPECT_EQ(c.mg.smoother, MgSmoother::line_jacobi);
    EXPECT_EQ(c.mg.max_levels, 3);
    EXPECT_EQ(c.mg.factor, (std::array<int, 3>{2, 2, 2}));
    EXPECT_EQ(c.mg.pre_sweeps, 2);
    EXPECT_EQ(c.mg.post_sweeps, 0);
    EXPECT_DOUBLE_EQ(c.mg.omega, 0.7);
    EXPECT_DOUBLE_EQ(c.mg.coarse_scale, 1.4);
    EXPECT_EQ(c.mg.coarsest_rows, 2048);
    EXPECT_EQ(c.mg.coarsest_sweeps, 7);
    const auto with_cpr = [](const char* set) {
        return std::vector<std::string>{"solver.method=bicgstab", "solver.preconditioner=cpr", set};
    };
    EXPECT_EQ(load_deck(deck, with_cpr("solver.cpr.sweeps=3")).solver.cpr.mg.post_sweeps, 3);
    EXPECT_EQ(load_deck(deck, with_cpr("solver.cpr.weights=true_impes")).solver.cpr.weights,
              CprWeights::true_impes);
    const struct {
        const char* set;
        const char* message;
    } bad[] = {
        {"solver.cpr.weights=impes", "solver.cpr.weights: 'impes' is not allowed"},
        {"solver.cpr.cycle=f", "solver.cpr.cycle: 'f' is not allowed"},
        {"solver.cpr.levels=0", "solver.cpr.levels: must be in [1, 30]"},
        {"solver.cpr.coarsening=[1, 1, 1]", "solver.cpr.coarsening: at least one factor"},
        {"solver.cpr.coarsening=[2, 9, 1]", "solver.cpr.coarsening: every factor must be in"},
        {"solver.cpr.sweeps=[0, 0]", "solver.cpr.sweeps: at least one sweep"},
        {"solver.cpr.omega=2", "solver.cpr.omega: must be in (0, 2)"},
        {"solver.cpr.coarse_scale=0", "solver.cpr.coarse_scale: must be in (0, 3]"},
        {"solver.cpr.coarsest_rows=2049", "solver.cpr.coarsest_rows: must be in [1, 2048]"},
        {"solver.cpr.coarsest_sweeps=0", "solver.cpr.coarsest_sweeps: must be in [1, 1000]"},
        {"solver.cpr.smoothers=line_gs", "solver.cpr.smoothers"},  // an unknown key
    };
    for (const auto& b : bad) {
        try {
            load_deck(deck, with_cpr(b.set));
            ADD_FAILURE() << b.set << " accepted";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(b.message), std::string::npos)
                << "expected '" << b.message << "' in " << e.what();
        }
    }
    // The keys of a preconditioner the deck does not use are an error, not ignored.
    try {
        load_deck(deck, {"solver.cpr.sweeps=3"});
        ADD_FAILURE() << "solver.cpr without preconditioner cpr accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("is for solver.preconditioner: cpr"),
                  std::string::npos)
            << e.what();
    }
}

TEST(Deck, MetricUnitsAndSyntheticDefaults) {
    const Deck deck = load_deck(source_path("tests/app/decks/small_synthetic_metric.yaml"));
    const wells::ModelSpec& m = deck.model;
    EXPECT_EQ(deck.units, UnitSystem::metric);
    EXPECT_EQ(m.model, wells::FluidModel::synthetic);
    EXPECT_EQ(m.synthetic.components, 3);
    EXPECT_DOUBLE_EQ(m.synthetic.diagonal_dominance, 1.5);
    EXPECT_EQ(m.synthetic.seed, 11u);
    EXPECT_DOUBLE_EQ(m.grid.dx, 10.0);
    EXPECT_DOUBLE_EQ(m.wells[0].target, 200e5);            // bar -> Pa
    EXPECT_DOUBLE_EQ(m.wells[1].target, 100.0 / 86400.0);  // sm3/day -> m^3/s
    EXPECT_EQ(deck.solver.method, Method::bicgstab);       // defaults
    EXPECT_EQ(deck.solver.backend, Backend::automatic);
    EXPECT_EQ(deck.output.file, "small_synthetic_metric.h5");
    const wells::Model model = build_model(deck);
    EXPECT_EQ(model.system.matrix.block_size(), 3);
    EXPECT_EQ(model.system.matrix.rows(), 5 * 4 * 3 * 3 + 2);
}

TEST(Deck, ExampleDecksParse) {
    for (const char* deck : {"inputs/demo.yaml", "inputs/spe10.yaml", "inputs/sherman1.yaml"}) {
        EXPECT_NO_THROW(load_deck(source_path(deck))) << deck;
    }
}

TEST(Deck, MatrixDeckResolvesTheFileAndBuildsTheSystem) {
    const std::string path = source_path("tests/app/decks/small_matrix.yaml");
    const Deck deck = load_deck(path);
    const MatrixSystemSpec& s = deck.system;
    ASSERT_TRUE(s.present);
    // Relative to the deck's folder, not the working directory.
    EXPECT_EQ(s.matrix,
              (fs::path(path).parent_path() / "data/tiny.mtx").lexically_normal().string());
    EXPECT_EQ(s.block_size, 1);  // default
    EXPECT_EQ(s.seed, 7u);
    EXPECT_EQ(s.rhs, RhsKind::random);
    EXPECT_EQ(deck.solver.method, Method::qmr);
    EXPECT_EQ(deck.output.file, "small_matrix.h5");
    EXPECT_EQ(deck.lines.line_of("system.seed"), 6);

    // Block size 1: the file's own values.
    const MatrixSystem sys = build_matrix_system(deck);
    EXPECT_EQ(sys.rows(), 4);
    EXPECT_EQ(sys.nonzeros(), 9);
    EXPECT_EQ(sys.matrix.row_ptr, (std::vector<std::int32_t>{0, 2, 4, 6, 9}));
    EXPECT_EQ(sys.matrix.val[3], 2.0);  // (2, 4)
    ASSERT_EQ(sys.rhs.size(), 4u);
    for (double b : sys.rhs) {
        EXPECT_GE(b, -1.0);
        EXPECT_LT(b, 1.0);
    }
    EXPECT_EQ(build_matrix_system(deck).rhs, sys.rhs);  // seeded
    EXPECT_NE(build_matrix_system(load_deck(path, {"system.seed=8"})).rhs, sys.rhs);

    // Block size 3: every entry promoted to a seeded 3 x 3 block; rhs ones by default.
    const Deck promoted = load_deck(path, {"system.block_size=3", "system.rhs=ones"});
    const MatrixSystem p = build_matrix_system(promoted);
    EXPECT_EQ(p.rows(), 12);
    EXPECT_EQ(p.nonzeros(), 9 * 9);
    EXPECT_EQ(p.rhs, std::vector<double>(12, 1.0));
    const Csr pattern = read_matrix_market(s.matrix);
    EXPECT_EQ(p.matrix.val, promote_to_bsr(pattern, 3, 7).val);

    // The BSR operator: A x and A^T x agree with the scalar CSR of the same matrix.
    const BsrOperator op(p.matrix);
    const Csr scalar = to_csr(p.matrix);
    const CsrOperator ref(scalar);
    ASSERT_EQ(op.size(), 12);
    std::vector<double> x(12), y(12), y_ref(12);
    for (int i = 0; i < 12; ++i) x[i] = 0.5 + i;
    op.apply(x.data(), y.data());
    ref.apply(x.data(), y_ref.data());
    for (int i = 0; i < 12; ++i) EXPECT_NEAR(y[i], y_ref[i], 1e-12) << i;
    op.apply_transpose(x.data(), y.data());
    ref.apply_transpose(x.data(), y_ref.data());
    for (int i = 0; i < 12; ++i) EXPECT_NEAR(y[i], y_ref[i], 1e-12) << i;
    EXPECT_EQ(op.minimal_bytes(), 8.0 * 81 + 16.0 * 12);
}

TEST(Deck, MatrixDeckErrorsAreLocated) {
    const std::string path = source_path("tests/app/decks/small_matrix.yaml");
    // An rhs file whose length is not the matrix's: located at system.rhs.
    const std::string rhs = (fs::path(temp_dir()) / "short_rhs.mtx").string();
    std::ofstream(rhs) << "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n";
    try {
        build_matrix_system(load_deck(path, {"system.rhs=" + rhs}));
        ADD_FAILURE() << "no error for a 3-entry rhs";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--set system.rhs=" + rhs +
                                             ": system.rhs: the vector has 3 entries"),
                  std::string::npos)
            << e.what();
    }
    fs::remove(rhs);
    // info and export take grid decks only.
    const CliResult r = run_heptane({"info", path});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("small_matrix.yaml:3: system: a matrix deck has no grid model"),
              std::string::npos)
        << r.err;
}

/// "# expect-line: N" and "# expect: text" from the first two lines of a bad deck.
struct Expectation {
    int line = 0;
    std::string text;
};

Expectation read_expectation(const fs::path& deck) {
    std::ifstream in(deck);
    std::string l1, l2;
    std::getline(in, l1);
    std::getline(in, l2);
    const std::string p1 = "# expect-line: ", p2 = "# expect: ";
    if (l1.rfind(p1, 0) != 0 || l2.rfind(p2, 0) != 0) return {};
    return {std::stoi(l1.substr(p1.size())), l2.substr(p2.size())};
}

TEST(BadDecks, EachKindOfErrorNamesFileLineAndKeyAndExitsWith2) {
    const fs::path dir = source_path("tests/app/bad_decks");
    const std::string out_dir = temp_dir();
    int checked = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".yaml") continue;
        const fs::path deck = entry.path();
        SCOPED_TRACE(deck.filename().string());
        const Expectation expect = read_expectation(deck);
        ASSERT_GT(expect.line, 0) << "bad deck without '# expect-line:' / '# expect:' header";
        const std::string matrix = out_dir + "/" + deck.stem().string() + ".mtx";
        const CliResult r = run_heptane({"export", deck.string(), "--matrix", matrix});
        EXPECT_EQ(r.code, kExitBadInput) << r.err;
        const std::string located =
            deck.filename().string() + ":" + std::to_string(expect.line) + ": " + expect.text;
        EXPECT_NE(r.err.find(located), std::string::npos) << "expected '" << located << "' in:\n"
                                                          << r.err;
        // Nothing half-written: neither the file nor a temporary beside it.
        for (const auto& f : fs::directory_iterator(out_dir)) ADD_FAILURE() << "left " << f.path();
        ++checked;
    }
    EXPECT_GE(checked, 30);
}

TEST(Cli, UsageErrorsExitWith2AndHelpWith0) {
    EXPECT_EQ(run_heptane({}).code, kExitBadInput);
    EXPECT_EQ(run_heptane({"frobnicate"}).code, kExitBadInput);
    EXPECT_EQ(run_heptane({"info", "no_such_deck.yaml"}).code, kExitBadInput);
    EXPECT_EQ(run_heptane({"export", source_path("tests/app/decks/small_two_phase.yaml")}).code,
              kExitBadInput);  // --matrix is required
    EXPECT_EQ(run_heptane({"--help"}).code, kExitOk);
    EXPECT_EQ(run_heptane({"export", "--help"}).code, kExitOk);
    const CliResult v = run_heptane({"--version"});
    EXPECT_EQ(v.code, kExitOk);
    EXPECT_NE(v.out.find("heptane"), std::string::npos);
}

TEST(Cli, InfoReportsTheSystem) {
    const CliResult r = run_heptane({"info", source_path("tests/app/decks/small_two_phase.yaml")});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    // 6 x 5 x 4 cells, K = 2, 3 wells: 243 unknowns; H nonzeros by the Bdia formula.
    EXPECT_NE(r.out.find("6 x 5 x 4 = 120 cells"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("K = 2 (dp, dSw)"), std::string::npos);
    EXPECT_NE(r.out.find("unknowns    243 (240 cell + 3 well)"), std::string::npos) << r.out;
    const int h = (7 * 120 - 2 * 30 - 2 * 20 - 2 * 24) * 4;
    EXPECT_NE(r.out.find("(H " + with_commas(h)), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("BSR"), std::string::npos);
    EXPECT_NE(r.out.find("CSR"), std::string::npos);
    const CliResult build = run_heptane({"info"});
    EXPECT_EQ(build.code, kExitOk);
    EXPECT_NE(build.out.find("CUDA backend"), std::string::npos);
}

TEST(Cli, ExportWritesMatrixAndRhsAtomically) {
    const std::string dir = temp_dir();
    const std::string a = dir + "/A.mtx", b = dir + "/b.mtx";
    const CliResult r =
        run_heptane({"export", source_path("tests/app/decks/small_synthetic_metric.yaml"),
                     "--matrix", a, "--rhs", b});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    {
        std::ifstream in(a);
        std::string header, line;
        std::getline(in, header);
        EXPECT_EQ(header, "%%MatrixMarket matrix coordinate real general");
        while (std::getline(in, line) && line[0] == '%') {
        }
        const int n = 5 * 4 * 3 * 3 + 2;
        const long long nnz = (7LL * 60 - 2 * 20 - 2 * 12 - 2 * 15) * 9 + 2 * 3 * (3 + 1) + 2;
        EXPECT_EQ(line, std::to_string(n) + " " + std::to_string(n) + " " + std::to_string(nnz));
    }
    // An independent reader (Eigen's) reproduces the system exactly.
    const wells::Model model =
        build_model(load_deck(source_path("tests/app/decks/small_synthetic_metric.yaml")));
    Eigen::SparseMatrix<double> A;
    Eigen::VectorXd rhs;
    ASSERT_TRUE(Eigen::loadMarket(A, a));
    ASSERT_TRUE(Eigen::loadMarketVector(rhs, b));
    EXPECT_EQ((A - to_eigen(to_csr(model.system.matrix))).norm(), 0.0);
    ASSERT_EQ(rhs.size(), static_cast<Eigen::Index>(model.system.rhs.size()));
    for (Eigen::Index i = 0; i < rhs.size(); ++i) EXPECT_EQ(rhs[i], model.system.rhs[i]);
    fs::remove_all(dir);

    // A folder that does not exist: bad CLI input, nothing written.
    const CliResult bad =
        run_heptane({"export", source_path("tests/app/decks/small_synthetic_metric.yaml"),
                     "--matrix", dir + "/missing/A.mtx"});
    EXPECT_EQ(bad.code, kExitBadInput);
    EXPECT_NE(bad.err.find("--matrix"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(dir + "/missing"));
}

}  // namespace
}  // namespace heptane::app
