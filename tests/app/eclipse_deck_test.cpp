// Decks on Eclipse files through the CLI (issue 20): grid.eclipse with per-cell geometry and
// inactive cells, the output's active mask, NaN-blanked fields and hexahedral XDMF mesh,
// compare's rule for blanks, the Egg model read from its own files, and the deck errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/hdf5_file.hpp"
#include "app/solver_setup.hpp"
#include "common/cli_runner.hpp"
#include "common/mini_xml.hpp"
#include "common/temp_file.hpp"
#include "common/test_systems.hpp"
#include "core/base/units.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;
using test::CliResult;
using test::run_heptane;
using test::source_path;
using ::testing::HasSubstr;

class EclipseDeck : public ::testing::Test {
  protected:
    std::string path(const std::string& name) const { return dir_.path() + "/" + name; }
    /// Writes satnum_regions.DATA with `arrays` after its SATNUM, and `yaml` (a deck of
    /// tests/app/decks that reads it) as deck.yaml, into the test's folder; returns deck.yaml.
    std::string satnum_deck_with(const std::string& arrays, const std::string& yaml) const {
        std::ifstream in(source_path("tests/app/decks/satnum_regions.DATA"));
        std::stringstream text;
        text << in.rdbuf();
        std::string data = text.str();
        const std::string satnum = "SATNUM\n 60*1 60*2 /\n";
        data.replace(data.find(satnum), satnum.size(), satnum + arrays);
        std::ofstream(path("satnum_regions.DATA")) << data;
        std::filesystem::copy_file(source_path("tests/app/decks/" + yaml), path("deck.yaml"),
                                   std::filesystem::copy_options::overwrite_existing);
        return path("deck.yaml");
    }
    test::TempFolder dir_;
};

const std::string kDeck = source_path("tests/app/decks/eclipse_actnum.yaml");

// The test file: the last i plane (20 cells) and one corner cell without pore volume.
constexpr int kInactive = 21;

TEST_F(EclipseDeck, RunWritesTheMaskBlanksAndTheCellMesh) {
    const std::string out = path("ecl.h5");
    const CliResult r = run_heptane({"run", kDeck, "-o", out, "--backend", "cpu"});
    ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    EXPECT_THAT(r.out, HasSubstr("6 x 5 x 4 cells (99 active), K = 2"));
    const h5::File f = h5::File::open(out);
    EXPECT_EQ(f.attr_double("/grid", "active_cells"), 120 - kInactive);
    const h5::Dataset active = f.read("/grid/active");
    ASSERT_EQ(active.dims, (std::vector<hsize_t>{6, 5, 4}));
    const h5::Dataset dp = f.read("/solution/fields/dp");
    const h5::Dataset phi = f.read("/grid/porosity");
    int blanks = 0;
    for (std::size_t m = 0; m < active.values.size(); ++m) {
        const bool on = active.values[m] != 0.0;
        blanks += on ? 0 : 1;
        EXPECT_EQ(std::isnan(dp.values[m]), !on) << m;
        EXPECT_EQ(std::isnan(phi.values[m]), !on) << m;
    }
    EXPECT_EQ(blanks, kInactive);
    // The solver's own vector keeps exact zeros there.
    const h5::Dataset x = f.read("/solution/x");
    for (std::size_t m = 0; m < active.values.size(); ++m) {
        if (active.values[m] == 0.0) {
            EXPECT_EQ(x.values[2 * m], 0.0);
        }
    }
    // Per-cell geometry: sizes, centre depths and one hexahedron per cell. Cell (0, 0, 1):
    // top 12000 + 2 ft, 3 ft thick: centre 12003.5 ft.
    const h5::Dataset depth = f.read("/grid/cell_depth");
    EXPECT_NEAR(depth.values[1], 12003.5 * 0.3048, 1e-9);
    const h5::Dataset nodes = f.read("/grid/mesh/nodes");
    ASSERT_EQ(nodes.dims, (std::vector<hsize_t>{960, 3}));
    EXPECT_NEAR(nodes.values[3 * 8 + 0], 12002.0 * 0.3048, 1e-9);  // cell 1's first corner: top
    std::ifstream xmf(path("ecl.xmf"));
    std::stringstream text;
    text << xmf.rdbuf();
    const test::XmlElement doc = test::XmlParser(text.str()).parse();
    std::vector<const test::XmlElement*> topology;
    doc.find_all("Topology", topology);
    ASSERT_EQ(topology.size(), 1u);
    EXPECT_EQ(topology[0]->attributes.at("TopologyType"), "Hexahedron");
    EXPECT_EQ(topology[0]->attributes.at("NumberOfElements"), "120");
}

// The same reservoir in corner-point geometry (COORD, ZCORN: layers dipping 1 ft a column):
// the run converges on the same active cells, and the mesh is each cell's own corners.
TEST_F(EclipseDeck, CornerPointDeckRunsAndWritesItsCorners) {
    const std::string out = path("corner.h5");
    const CliResult r = run_heptane(
        {"run", source_path("tests/app/decks/eclipse_corner.yaml"), "-o", out, "--backend", "cpu"});
    ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    EXPECT_THAT(r.out, HasSubstr("6 x 5 x 4 cells (99 active), K = 2"));
    EXPECT_THAT(r.out, HasSubstr("converged"));
    const h5::File f = h5::File::open(out);
    // Cell (0, 0, 1): top corners at 12002 and 12003 ft (pillars 0 and 1), bottom 3 ft
    // lower: centre 12004 ft.
    const h5::Dataset depth = f.read("/grid/cell_depth");
    EXPECT_NEAR(depth.values[1], 12004.0 * 0.3048, 1e-9);
    // Its hexahedron: vertex 0 the top corner on pillar (0, 0), vertex 1 (one step in depth)
    // the bottom one, vertex 4 (one step in x: the mesh's Z) the top corner on pillar (1, 0).
    const h5::Dataset nodes = f.read("/grid/mesh/nodes");
    ASSERT_EQ(nodes.dims, (std::vector<hsize_t>{960, 3}));
    const std::size_t cell = 8 * 3;  // cell 1's first node, 3 values a node
    EXPECT_NEAR(nodes.values[cell + 0], 12002.0 * 0.3048, 1e-9);
    EXPECT_NEAR(nodes.values[cell + 3], 12005.0 * 0.3048, 1e-9);
    EXPECT_NEAR(nodes.values[cell + 12 + 0], 12003.0 * 0.3048, 1e-9);
    EXPECT_NEAR(nodes.values[cell + 12 + 2], 20.0 * 0.3048, 1e-9);
}

// A fault's throw of 2.5 ft (eclipse_fault.grdecl) puts each of the 5 rows of faces across it
// against other layers: layers 2 - 1, 3 - 2, 4 - 2 and 4 - 3 (1-based, the thrown side second)
// overlap, 4 connections a row, 20 in all. The CPU solves the system with them (the true
// residual is recomputed with them) and saves them with the system; that the GPU's plan keeps
// them (plan_for_model) is checked here, the GPU's bits in tests/gpu/simulate_test.cpp and
// block_smoothers_vs_ref_test.cpp.
TEST_F(EclipseDeck, FaultedDeckRunsWithItsConnections) {
    const std::string deck_path = source_path("tests/app/decks/eclipse_fault.yaml");
    const std::string out = path("fault.h5");
    const CliResult r = run_heptane(
        {"run", deck_path, "-o", out, "--backend", "cpu", "--set", "output.save_system=true"});
    ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    EXPECT_THAT(r.out,
                HasSubstr("6 x 5 x 4 cells (99 active, 20 non-neighbour connections), K = 2"));
    const h5::File f = h5::File::open(out);  // the saved system has them, in both rows
    EXPECT_EQ(f.read("/system/nnc/ptr").dims, (std::vector<hsize_t>{121}));
    EXPECT_EQ(f.read("/system/nnc/vals").dims, (std::vector<hsize_t>{40, 2, 2}));
    EXPECT_THAT(r.out, HasSubstr("converged"));
    // 2,958 nonzeros: the corner-point deck's 2,798 and 4 per direction of each connection.
    EXPECT_THAT(r.out, HasSubstr("2,958 nonzeros"));

    // The GPU: every solver takes them (the in-kernel and multi-kernel ones since design
    // decision 68, the block smoothers since 71): the plan stays as it is, with nothing said.
    const wells::Model model = build_model(load_deck(deck_path), false);
    Plan gpu;
    gpu.gpu = true;
    gpu.backend = "gpu";
    gpu.kernel = GpuKernel::in_kernel;
    for (const std::vector<std::string>& set :
         {std::vector<std::string>{"solver.backend=gpu", "solver.gpu_kernel=in_kernel"},
          std::vector<std::string>{"solver.method=block_gs", "solver.preconditioner=none",
                                   "solver.backend=gpu"}}) {
        std::ostringstream err;
        const Plan taken = plan_for_model(load_deck(deck_path, set), gpu, model, err);
        EXPECT_TRUE(taken.gpu);
        EXPECT_EQ(taken.backend, "gpu");
        EXPECT_EQ(taken.kernel, GpuKernel::in_kernel);
        EXPECT_EQ(err.str(), "");
    }
}

/// From the output file `out` of eclipse_fault_sim.yaml (or a variant) alone: the fluid in
/// place (each cell's pore volume from its file sizes, the deck's compressibilities) has
/// changed by minus the wells' cumulatives at every report, per phase, within the per-step
/// material-balance tolerance summed over the steps.
void expect_mass_balance(const std::string& out) {
    const h5::File f = h5::File::open(out);
    const double psi = 6894.757293168361, stb = 0.158987294928;
    const double c_rock = 1e-6 / psi, c_oil = 5e-6 / psi, c_water = 3e-6 / psi;
    const double p_ref = 6000.0 * psi;
    const std::vector<double> phi = f.read("/grid/porosity").values;
    const std::vector<double> dx = f.read("/grid/cell_dx").values;
    const std::vector<double> dy = f.read("/grid/cell_dy").values;
    const std::vector<double> dz = f.read("/grid/cell_dz").values;
    double pore_volume = 0.0;
    for (std::size_t m = 0; m < phi.size(); ++m) {
        if (!std::isnan(phi[m])) pore_volume += phi[m] * dx[m] * dy[m] * dz[m] / stb;
    }
    const auto fluid_in_place = [&](const std::string& report) {
        const auto p = f.read(report + "/pressure").values;
        const auto sw = f.read(report + "/water_saturation").values;
        std::array<double, 2> fip{0.0, 0.0};  // stb at reference density
        for (std::size_t m = 0; m < p.size(); ++m) {
            if (std::isnan(phi[m])) continue;  // inactive
            const double dp = p[m] * psi - p_ref;
            const double pv = dx[m] * dy[m] * dz[m] * phi[m] * std::exp(c_rock * dp) / stb;
            fip[0] += pv * std::exp(c_oil * dp) * (1.0 - sw[m]);
            fip[1] += pv * std::exp(c_water * dp) * sw[m];
        }
        return fip;
    };
    const std::array<double, 2> initial = fluid_in_place("/timesteps/00000");
    const std::vector<double> step_times = f.read("/simulation/time").values;
    for (const char* report : {"/timesteps/00001", "/timesteps/00002"}) {
        const double t = f.read(std::string(report) + "/time").values[0];
        std::size_t steps = 0;  // steps up to t
        while (steps < step_times.size() && step_times[steps] <= t) ++steps;
        ASSERT_GT(steps, 0u);
        const std::array<double, 2> now = fluid_in_place(report);
        std::array<double, 2> produced{0.0, 0.0};
        for (const char* w : {"INJ", "P1"}) {
            produced[0] += f.read(std::string("/wells/") + w + "/oil_total").values[steps - 1];
            produced[1] += f.read(std::string("/wells/") + w + "/water_total").values[steps - 1];
        }
        EXPECT_LT(f.read("/wells/INJ/water_total").values[steps - 1], -5000.0);  // injected
        for (int a = 0; a < 2; ++a) {
            const double error = std::abs(now[a] - initial[a] + produced[a]) / pore_volume;
            EXPECT_LE(error, static_cast<double>(steps) * 1e-7 * 1.05)
                << "day " << t << ", phase " << a << " (" << steps << " steps)";
        }
    }
}

// The faulted deck simulated (water injected next to the fault for 60 days): mass balances
// from the output file alone (expect_mass_balance): the connections' fluxes leave one cell
// and enter the other.
TEST_F(EclipseDeck, FaultedDeckSimulationConservesMassFromItsFile) {
    const std::string out = path("fault_sim.h5");
    const CliResult r =
        run_heptane({"simulate", source_path("tests/app/decks/eclipse_fault_sim.yaml"), "-o", out,
                     "--backend", "cpu"});
    ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    EXPECT_THAT(r.out, HasSubstr("(99 active, 20 non-neighbour connections)"));
    expect_mass_balance(out);
}

// PINCH (eclipse_pinch.inc): layer 3 of the thrown columns i = 4, 5 is inactive for its pore
// volume, so the 5 fault connections between layer 4 of i = 3 and layer 3 of i = 4 go, and 10
// pinch-out connections join layers 2 and 4 of those columns: 25 in all. The simulation
// conserves mass through them; without PINCH the columns' upper layers are cut off from the
// lower ones there (15 connections), and the pressures differ.
TEST_F(EclipseDeck, PinchedDeckSimulationConservesMassThroughItsConnections) {
    const std::string deck = source_path("tests/app/decks/eclipse_fault_sim.yaml");
    const std::string files = "grid.eclipse=[eclipse_fault.grdecl, eclipse_pinch.inc]";
    const std::string out = path("pinch_sim.h5");
    const CliResult r =
        run_heptane({"simulate", deck, "-o", out, "--backend", "cpu", "--set", files});
    ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    EXPECT_THAT(r.out, HasSubstr("(89 active, 25 non-neighbour connections)"));
    EXPECT_THAT(r.err, HasSubstr("eclipse_pinch.inc:10: PINCH: 10 pinch-out connections"));
    expect_mass_balance(out);
    // Without PINCH (MINPV alone): 15 connections, another result.
    const test::TempFile minpv("EQUALS\n PORO 0.002 4 5 1 5 3 3 /\n/\nMINPV\n 1 /\n");
    const std::string apart = path("apart_sim.h5");
    const CliResult q =
        run_heptane({"simulate", deck, "-o", apart, "--backend", "cpu", "--set",
                     "grid.eclipse=[" + source_path("tests/app/decks/eclipse_fault.grdecl") + ", " +
                         minpv.path() + "]"});
    ASSERT_EQ(q.code, kExitOk) << q.err << q.out;
    EXPECT_THAT(q.out, HasSubstr("(89 active, 15 non-neighbour connections)"));
    const CliResult differ = run_heptane({"compare", out, apart});
    EXPECT_EQ(differ.code, 1) << differ.out;
}

// The EDIT section (eclipse_edit.inc: TRANX a tenth between two columns, TRANZ 0 between two
// layers, PORV five times in column i = 5) on the faulted deck: the simulation conserves
// mass with the edited pore volumes (its file's porosity holds them), and differs from the
// deck without the edits.
TEST_F(EclipseDeck, EditSectionDeckSimulationConservesMassWithItsPoreVolumes) {
    const std::string deck = source_path("tests/app/decks/eclipse_fault_sim.yaml");
    const std::string out = path("edit_sim.h5");
    const CliResult r = run_heptane({"simulate", deck, "-o", out, "--backend", "cpu", "--set",
                                     "grid.eclipse=[eclipse_fault.grdecl, eclipse_edit.inc]"});
    ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    EXPECT_THAT(r.out, HasSubstr("(99 active, 20 non-neighbour connections)"));
    expect_mass_balance(out);
    const h5::File f = h5::File::open(out);
    const std::vector<double> phi = f.read("/grid/porosity").values;
    ASSERT_EQ(phi.size(), 120u);
    const std::string plain = path("plain_sim.h5");
    const CliResult q = run_heptane({"simulate", deck, "-o", plain, "--backend", "cpu"});
    ASSERT_EQ(q.code, kExitOk) << q.err << q.out;
    const std::vector<double> base = h5::File::open(plain).read("/grid/porosity").values;
    int scaled = 0;  // column i = 5's cells (i slowest: values 80..99)
    for (std::size_t m = 0; m < phi.size(); ++m) {
        if (std::isnan(base[m])) {  // inactive in both
            EXPECT_TRUE(std::isnan(phi[m])) << m;
        } else if (m >= 80 && m < 100) {
            EXPECT_DOUBLE_EQ(phi[m], 5.0 * base[m]) << m;
            ++scaled;
        } else {
            EXPECT_EQ(phi[m], base[m]) << m;
        }
    }
    EXPECT_EQ(scaled, 20);
    const CliResult differ = run_heptane({"compare", out, plain});
    EXPECT_EQ(differ.code, 1) << differ.out;
}

// NaN in an inactive cell of both files is the blank; anywhere else it is a difference.
TEST_F(EclipseDeck, CompareAcceptsBlanksOnlyInInactiveCells) {
    const std::string a = path("a.h5"), b = path("b.h5");
    ASSERT_EQ(run_heptane({"run", kDeck, "-o", a, "--backend", "cpu"}).code, kExitOk);
    ASSERT_EQ(run_heptane({"run", kDeck, "-o", b, "--backend", "cpu"}).code, kExitOk);
    const CliResult same = run_heptane({"compare", a, b});
    EXPECT_EQ(same.code, kExitOk) << same.out << same.err;
    // An active cell blanked in b: a difference, counted as a NaN.
    {
        const hid_t file = H5Fopen(b.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
        ASSERT_GE(file, 0);
        const hid_t set = H5Dopen2(file, "/solution/fields/dp", H5P_DEFAULT);
        std::vector<double> v(120);
        H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
        ASSERT_FALSE(std::isnan(v[0]));
        v[0] = NAN;
        H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
        H5Dclose(set);
        H5Fclose(file);
    }
    const CliResult differs = run_heptane({"compare", a, b});
    EXPECT_EQ(differs.code, 1) << differs.out;
    EXPECT_THAT(differs.out, HasSubstr("NaN: 0 in a, 1 in b"));
}

// The Egg model (inputs/data/egg) from its own files, unchanged: 18,553 of 25,200 cells
// active, its COPY and MULTIPLY applied, the notes on stderr.
TEST_F(EclipseDeck, EggModelReadsFromItsOwnFiles) {
    const CliResult r = run_heptane({"info", source_path("inputs/egg_system.yaml")});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    EXPECT_THAT(r.out, HasSubstr("25,200 cells (18,553 active, 6,647 inactive) of 8 x 8 x 4 m, "
                                 "top at 4000 m"));
    EXPECT_THAT(
        r.err,
        HasSubstr("Egg_Model_ECL.DATA:92: PROPS: grid.eclipse reads only the end-point arrays"));
    EXPECT_THAT(r.err, HasSubstr("RUNSPEC: not used (the YAML deck says what they describe): "
                                 "TITLE, UNIFOUT, OIL, WATER, NUMRES, TABDIMS"));
}

// schedule.eclipse (design decision 79): eclipse_schedule_sim.yaml's wells, controls and
// report times from eclipse_schedule.inc give bit for bit the run of the same schedule
// written in YAML (a control change and a shut well at day 30 as events that set every
// control and limit, as an Eclipse record does), and the output controls are notes.
TEST_F(EclipseDeck, AnEclipseScheduleIsTheScheduleWrittenOut) {
    const std::string deck = source_path("tests/app/decks/eclipse_schedule_sim.yaml");
    const std::string a = path("eclipse_schedule.h5"), b = path("yaml_schedule.h5");
    const CliResult ra = run_heptane({"simulate", deck, "-o", a, "--backend", "cpu"});
    ASSERT_EQ(ra.code, kExitOk) << ra.err << ra.out;
    EXPECT_THAT(ra.err, HasSubstr("eclipse_schedule.inc:22: RPTSCHED: not read"));
    const CliResult rb = run_heptane(
        {"simulate", deck, "-o", b, "--backend", "cpu", "--set",
         "wells=[{name: INJ, type: injector, column: [2, 2], radius: 0.25, "
         "control: {kind: rate, value: 200}, max_bhp: 9000}, "
         "{name: P1, type: producer, column: [1, 1], perforations: [0, 2], radius: 0.25, "
         "skin: 1.5, control: {kind: bhp, value: 4000}}]",
         "--set",
         "schedule={report_times: [20, 30, 60], dt_initial: 1, dt_max: 10, events: ["
         "{time: 30, well: INJ, status: shut, control: {kind: rate, value: 200}, max_bhp: 0}, "
         "{time: 30, well: P1, status: open, control: {kind: rate, value: 150}, "
         "min_bhp: 3000}]}"});
    ASSERT_EQ(rb.code, kExitOk) << rb.err << rb.out;
    const h5::File fa = h5::File::open(a), fb = h5::File::open(b);
    const auto same_bits = [&](const std::string& d) {  // NaN in inactive cells: bits, not ==
        const std::vector<double> x = fa.read(d).values, y = fb.read(d).values;
        return x.size() == y.size() && !x.empty() &&
               std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
    };
    for (const char* report : {"00001", "00002", "00003"}) {
        for (const char* field : {"/pressure", "/water_saturation"}) {
            const std::string d = std::string("/timesteps/") + report + field;
            EXPECT_TRUE(same_bits(d)) << d;
        }
    }
    EXPECT_FALSE(fa.exists("/timesteps/00004"));
    for (const char* d : {"/wells/INJ/bhp", "/wells/P1/bhp"}) EXPECT_TRUE(same_bits(d)) << d;
    // The producer's rate control took over at day 30 (its BHP no longer 4000 psi).
    const std::vector<double> bhp = fa.read("/wells/P1/bhp").values;
    EXPECT_NE(bhp.back(), bhp.front());
}

// Saturation regions (design decision 87): satnum_regions.yaml reads SATNUM from its file's
// REGIONS section, the two SWOF tables (TABDIMS 2) and EQUIL from the same file; its run is
// bit for bit the run of satnum_regions_yaml.yaml, the same model written in YAML (the relperm
// a list of the two tables, the regions by layer). The regions matter: every cell in region 2
// gives another run.
TEST_F(EclipseDeck, SaturationRegionsFromSatnumAreTheRegionsWrittenOut) {
    const std::string a = path("satnum.h5"), b = path("satnum_yaml.h5"), c = path("one.h5");
    const CliResult ra =
        run_heptane({"simulate", source_path("tests/app/decks/satnum_regions.yaml"), "-o", a,
                     "--backend", "cpu"});
    ASSERT_EQ(ra.code, kExitOk) << ra.err << ra.out;
    EXPECT_THAT(ra.err, HasSubstr("satnum_regions.DATA:31: PROPS: grid.eclipse reads only the "
                                  "end-point arrays SWL, SWCR, SWU, SOWCR, KRW, KRO, PCW, "
                                  "SWATINIT and their edits from here on until REGIONS"));
    const CliResult info =
        run_heptane({"info", source_path("tests/app/decks/satnum_regions.yaml")});
    EXPECT_THAT(info.out, HasSubstr("two_phase, K = 2 (dp, dSw), 2 saturation regions"));
    const std::string yaml = source_path("tests/app/decks/satnum_regions_yaml.yaml");
    const CliResult rb = run_heptane({"simulate", yaml, "-o", b, "--backend", "cpu"});
    ASSERT_EQ(rb.code, kExitOk) << rb.err << rb.out;
    const CliResult same = run_heptane({"compare", a, b, "--rtol", "0", "--atol", "0"});
    EXPECT_EQ(same.code, kExitOk) << same.out;
    // The cells' regions in the file (k fastest: layers 0 and 1 in region 1), for ParaView.
    const std::vector<double> region = h5::File::open(a).read("/grid/saturation_region").values;
    ASSERT_EQ(region.size(), 120u);
    for (std::size_t m = 0; m < region.size(); ++m) EXPECT_EQ(region[m], m % 4 < 2 ? 1 : 2) << m;
    const CliResult rc = run_heptane(
        {"simulate", yaml, "-o", c, "--backend", "cpu", "--set", "rock.saturation_regions=2"});
    ASSERT_EQ(rc.code, kExitOk) << rc.err << rc.out;
    EXPECT_EQ(run_heptane({"compare", a, c}).code, 1);
    EXPECT_FALSE(h5::File::open(c).exists("/grid/swl"));  // no end points: none written
}

// The other region arrays of REGIONS (design decision 87): IMBNUM is said in a note, FIPNUM
// read (decision 89), PVTNUM of 1 is accepted, another number is an error naming
// the cell.
TEST_F(EclipseDeck, RegionArraysBesideSatnumAreCheckedOrNoted) {
    const auto run_with = [&](const std::string& arrays) {
        const std::string deck = satnum_deck_with(arrays, "satnum_regions_system.yaml");
        return run_heptane({"run", deck, "-o", path("x.h5"), "--backend", "cpu"});
    };
    const CliResult noted = run_with("FIPNUM\n 120*3 /\nIMBNUM\n 120*2 /\nPVTNUM\n 120*1 /\n");
    ASSERT_EQ(noted.code, kExitOk) << noted.err;
    EXPECT_THAT(noted.err, ::testing::Not(HasSubstr("FIPNUM")));
    EXPECT_THAT(noted.err, HasSubstr("IMBNUM: heptane has no hysteresis"));
    const CliResult refused = run_with("PVTNUM\n 119*1 2 /\n");
    EXPECT_EQ(refused.code, kExitBadInput);
    EXPECT_THAT(refused.err, HasSubstr("grid.eclipse: grid.eclipse's files: PVTNUM of cell (i, j, "
                                       "k) = (5, 4, 3) is 2.000000; it must be 1: heptane's "
                                       "fluid has one PVT region"));
    // EQLNUM numbers EQUIL's records (decision 92): this deck has one.
    const CliResult beyond = run_with("EQLNUM\n 119*1 2 /\n");
    EXPECT_EQ(beyond.code, kExitBadInput);
    EXPECT_THAT(beyond.err, HasSubstr("EQLNUM of cell (i, j, k) = (5, 4, 3) is 2.000000; it must "
                                      "be an integer in [1, 1] (the initial state's "
                                      "equilibration regions)"));
}

// End-point scaling (design decisions 95, 98): ENDSCALE in RUNSPEC and PROPS' SWL (by layer
// pair), SWCR (by layer pair), SOWCR (EQUALS), KRW, KRO and PCW (psi) scale each cell's SWOF
// table; the run is bit for bit the run of the same end points in YAML (rock.end_points), and
// another run than the tables' own or the saturations' alone. Without ENDSCALE the arrays are
// passed over with a note (as Eclipse passes them over), and the run is the unscaled deck's;
// the arrays and rock.end_points both are an error.
TEST_F(EclipseDeck, EndscaleScalesEachCellsTableAsTheEndPointsWrittenOut) {
    const auto deck_with = [&](const std::string& runspec, const std::string& more = "") {
        std::ifstream in(source_path("tests/app/decks/satnum_regions.DATA"));
        std::stringstream text;
        text << in.rdbuf();
        std::string data = text.str();
        const std::string tabdims = "TABDIMS\n", regions = "REGIONS\n";
        data.replace(data.find(tabdims), tabdims.size(), runspec + tabdims);
        data.replace(data.find(regions), regions.size(),
                     "SWL\n 60*0.2 60*0.1 /\nSWCR\n 60*0.25 60*0.2 /\n"
                     "EQUALS\n SOWCR 0.15 /\n/\nSWATINIT\n 120*0.5 /\n"
                     "KRW\n 60*0.6 60*0.5 /\nKRO\n 60*0.7 60*0.8 /\nPCW\n 60*0 60*9 /\n" +
                         more + regions);
        std::ofstream(path("satnum_regions.DATA")) << data;
        std::filesystem::copy_file(source_path("tests/app/decks/satnum_regions.yaml"),
                                   path("deck.yaml"),
                                   std::filesystem::copy_options::overwrite_existing);
        return path("deck.yaml");
    };
    const std::string a = path("endscale.h5"), b = path("end_yaml.h5"), c = path("tables.h5");
    const std::string deck = deck_with("ENDSCALE\n/\n");
    const CliResult ra = run_heptane({"simulate", deck, "-o", a, "--backend", "cpu"});
    ASSERT_EQ(ra.code, kExitOk) << ra.err << ra.out;
    const std::string saturations =
        "swl: {kind: layered, values: [0.2, 0.2, 0.1, 0.1]}, swcr: {kind: layered, values: "
        "[0.25, 0.25, 0.2, 0.2]}, sowcr: 0.15";
    // KRW, KRO and PCW (design decision 98; PCW 9 psi in region 2, whose table's largest Pc
    // is 6 psi: its cells below the contact, SWATINIT does not scale them).
    const std::string end_points =
        "rock.end_points={" + saturations +
        ", krw: {kind: layered, values: [0.6, 0.6, 0.5, 0.5]}, kro: {kind: layered, values: "
        "[0.7, 0.7, 0.8, 0.8]}, pcw: {kind: layered, values: [0, 0, 9, 9]}}";
    // SWATINIT (design decision 97): region 1's table has no Pc (its cells keep their
    // equilibrium saturation), region 2's cells above the contact start at 0.5.
    const std::string yaml = source_path("tests/app/decks/satnum_regions_yaml.yaml");
    const CliResult rb = run_heptane({"simulate", yaml, "-o", b, "--backend", "cpu", "--set",
                                      end_points, "--set", "rock.swatinit=0.5"});
    ASSERT_EQ(rb.code, kExitOk) << rb.err << rb.out;
    const CliResult same = run_heptane({"compare", a, b, "--rtol", "0", "--atol", "0"});
    EXPECT_EQ(same.code, kExitOk) << same.out;
    EXPECT_THAT(ra.err, HasSubstr("SWATINIT: 30 cells start at it"));
    const std::vector<double> sw0 =
        h5::File::open(a).read("/timesteps/00000/water_saturation").values;
    ASSERT_EQ(sw0.size(), 120u);
    EXPECT_EQ(sw0[2], 0.5);  // cell (0, 0, 2): region 2, above the contact
    EXPECT_NE(sw0[0], 0.5);  // cell (0, 0, 0): region 1, no Pc
    // /grid holds each cell's effective end points and largest values (Eclipse's PPCW in bar:
    // region 1 without Pc 0, region 2's SWATINIT-scaled above the contact, PCW below).
    const h5::File out = h5::File::open(a);
    const auto grid = [&](const char* name) {
        return out.read(std::string("/grid/") + name).values;
    };
    EXPECT_EQ(grid("swl")[0], 0.2);
    EXPECT_EQ(grid("swl")[3], 0.1);
    EXPECT_EQ(grid("swcr")[3], 0.2);
    EXPECT_EQ(grid("sowcr")[1], 0.15);
    EXPECT_EQ(grid("swu")[0], 0.8);   // region 1's table's
    EXPECT_EQ(grid("swu")[3], 0.85);  // region 2's
    EXPECT_EQ(grid("krw")[0], 0.6);
    EXPECT_EQ(grid("kro")[3], 0.8);
    EXPECT_EQ(grid("pcw")[0], 0.0);
    EXPECT_DOUBLE_EQ(grid("pcw")[3], 9.0 * units::kPsi / units::kBar);
    EXPECT_GT(grid("pcw")[2], 0.0);
    EXPECT_NE(grid("pcw")[2], 6.0 * units::kPsi / units::kBar);
    const CliResult rc = run_heptane({"simulate", yaml, "-o", c, "--backend", "cpu"});
    ASSERT_EQ(rc.code, kExitOk) << rc.err << rc.out;
    EXPECT_EQ(run_heptane({"compare", a, c}).code, 1);
    EXPECT_FALSE(h5::File::open(c).exists("/grid/swl"));  // no end points: none written
    // Without KRW, KRO and PCW: another run.
    const std::string d = path("saturations.h5");
    const CliResult rd =
        run_heptane({"simulate", yaml, "-o", d, "--backend", "cpu", "--set",
                     "rock.end_points={" + saturations + "}", "--set", "rock.swatinit=0.5"});
    ASSERT_EQ(rd.code, kExitOk) << rd.err << rd.out;
    EXPECT_EQ(run_heptane({"compare", a, d}).code, 1);
    // Without ENDSCALE: a note, and the tables' own run.
    const std::string plain = deck_with("");
    const CliResult rp =
        run_heptane({"simulate", plain, "-o", path("plain.h5"), "--backend", "cpu"});
    ASSERT_EQ(rp.code, kExitOk) << rp.err;
    EXPECT_THAT(rp.err, HasSubstr("grid.eclipse: SWL: passed over, as Eclipse passes it over: "
                                  "end-point scaling needs ENDSCALE in RUNSPEC"));
    EXPECT_EQ(run_heptane({"compare", path("plain.h5"), c, "--rtol", "0", "--atol", "0"}).code,
              kExitOk);
    const CliResult twice =
        run_heptane({"simulate", deck_with("ENDSCALE\n/\n"), "-o", path("twice.h5"), "--backend",
                     "cpu", "--set", "rock.end_points={swl: 0.2}"});
    EXPECT_EQ(twice.code, kExitBadInput);
    EXPECT_THAT(twice.err, HasSubstr("rock.end_points.swl: grid.eclipse's files give SWL too"));
    // PPCWMAX (design decision 99): region 2's cap at half the largest Pc SWATINIT gave cell
    // (0, 0, 2), in the DATA file and as fluid.relperm[1].ppcwmax, bit for bit; the cell's
    // factor is the cap's and it starts below its SWATINIT.
    char cap[32];
    std::snprintf(cap, sizeof cap, "%.17g", grid("pcw")[2] * units::kBar / units::kPsi / 2.0);
    const std::string ca = path("capped.h5"), cb = path("capped_yaml.h5");
    const CliResult rca = run_heptane(
        {"simulate", deck_with("ENDSCALE\n/\n", "PPCWMAX\n 1* /\n " + std::string(cap) + " NO /\n"),
         "-o", ca, "--backend", "cpu"});
    ASSERT_EQ(rca.code, kExitOk) << rca.err << rca.out;
    EXPECT_THAT(rca.err, HasSubstr("start below it, their capillary pressure capped at their "
                                   "table's PPCWMAX"));
    const CliResult rcb =
        run_heptane({"simulate", yaml, "-o", cb, "--backend", "cpu", "--set", end_points, "--set",
                     "rock.swatinit=0.5", "--set", "fluid.relperm[1].ppcwmax=" + std::string(cap)});
    ASSERT_EQ(rcb.code, kExitOk) << rcb.err << rcb.out;
    EXPECT_EQ(run_heptane({"compare", ca, cb, "--rtol", "0", "--atol", "0"}).code, kExitOk);
    const h5::File capped = h5::File::open(ca);
    EXPECT_LT(capped.read("/timesteps/00000/water_saturation").values[2], 0.5);
    EXPECT_NEAR(capped.read("/grid/pcw").values[2], std::atof(cap) * units::kPsi / units::kBar,
                1e-12);
}

// Equilibration regions (design decision 92): EQLDIMS 2, EQLNUM putting the top layer in
// region 1 and the three below in region 2, and a second EQUIL record (100 psi more, its
// contact 20 ft higher) give the run's /grid/equilibration_region and every report's state,
// bit for bit those of the same regions in YAML (rock.equilibration_regions by layer,
// initial.regions); EQLNUM beside rock.equilibration_regions is an error at the key.
TEST_F(EclipseDeck, EqlnumGivesEachRegionItsEquilRecord) {
    std::string deck = satnum_deck_with("EQLNUM\n 30*1 90*2 /\n", "satnum_regions.yaml");
    {
        std::ifstream in(path("satnum_regions.DATA"));
        std::stringstream text;
        text << in.rdbuf();
        std::string data = text.str();
        const std::string tabdims = "TABDIMS\n", equil = " 12000 6000 12070 0 /\n";
        data.replace(data.find(tabdims), tabdims.size(), "EQLDIMS\n 2 /\n" + tabdims);
        data.replace(data.find(equil), equil.size(), equil + " 12000 6100 12050 0 /\n");
        std::ofstream(path("satnum_regions.DATA")) << data;
    }
    const std::string a = path("eqlnum.h5"), b = path("eql_yaml.h5");
    const CliResult ra = run_heptane({"simulate", deck, "-o", a, "--backend", "cpu"});
    ASSERT_EQ(ra.code, kExitOk) << ra.err << ra.out;
    EXPECT_THAT(run_heptane({"info", deck}).out, HasSubstr(", 2 equilibration regions"));
    const std::string layered = "rock.equilibration_regions={kind: layered, values: [1, 2, 2, 2]}";
    const std::string records =
        "initial={regions: [{pressure: 6000, datum_depth: 12000, water_oil_contact: 12070, "
        "sublayers: 10}, {pressure: 6100, datum_depth: 12000, water_oil_contact: 12050, "
        "sublayers: 10}]}";
    const CliResult rb =
        run_heptane({"simulate", source_path("tests/app/decks/satnum_regions_yaml.yaml"), "-o", b,
                     "--backend", "cpu", "--set", layered, "--set", records});
    ASSERT_EQ(rb.code, kExitOk) << rb.err << rb.out;
    const h5::File fa = h5::File::open(a), fb = h5::File::open(b);
    const std::vector<double> region = fa.read("/grid/equilibration_region").values;
    ASSERT_EQ(region.size(), 120u);
    for (std::size_t m = 0; m < region.size(); ++m) EXPECT_EQ(region[m], m % 4 == 0 ? 1 : 2) << m;
    EXPECT_EQ(fb.read("/grid/equilibration_region").values, region);
    for (const char* step : {"00000", "00002"}) {  // days 0 and 60
        for (const char* name : {"pressure", "water_saturation"}) {
            const std::string d = std::string("/timesteps/") + step + "/" + name;
            EXPECT_EQ(fa.read(d).values, fb.read(d).values) << d;
        }
    }
    // Below the top layer region 2's record: 100 psi more at the datum, and the oil's 0.37
    // psi/ft over the 20 ft between the centres of layers 0 and 1 (psi, the deck's unit).
    const std::vector<double> p0 = fa.read("/timesteps/00000/pressure").values;
    EXPECT_NEAR(p0[1] - p0[0], 100.0 + 53.0 / 144.0 * 20.0, 0.1);
    const CliResult both = run_heptane(
        {"simulate", deck, "-o", path("both.h5"), "--backend", "cpu", "--set", layered});
    EXPECT_EQ(both.code, kExitBadInput);
    EXPECT_THAT(both.err,
                HasSubstr("rock.equilibration_regions: grid.eclipse's files give EQLNUM too"));
}

// Fluid-in-place regions (design decision 89): FIPNUM in the deck's REGIONS (the top layer
// region 1, the next region 2, the two lower region 3) gives the run's /grid/fip_region and
// /regions/in_place, bit for bit those of the same regions written in YAML
// (rock.fip_regions by layer); FIPNUM beside rock.fip_regions is an error at the key.
TEST_F(EclipseDeck, FipnumGivesTheRegionsOfTheFluidInPlace) {
    const std::string fipnum = "FIPNUM\n 30*1 30*2 60*3 /\n";
    const std::string a = path("fipnum.h5"), b = path("fip_yaml.h5");
    const CliResult ra = run_heptane(
        {"simulate", satnum_deck_with(fipnum, "satnum_regions.yaml"), "-o", a, "--backend", "cpu"});
    ASSERT_EQ(ra.code, kExitOk) << ra.err << ra.out;
    EXPECT_THAT(ra.out, HasSubstr("  regions     3 fluid-in-place regions"));
    const std::string layered = "rock.fip_regions={kind: layered, values: [1, 2, 3, 3]}";
    const CliResult rb =
        run_heptane({"simulate", source_path("tests/app/decks/satnum_regions_yaml.yaml"), "-o", b,
                     "--backend", "cpu", "--set", layered});
    ASSERT_EQ(rb.code, kExitOk) << rb.err << rb.out;
    const h5::File fa = h5::File::open(a), fb = h5::File::open(b);
    const std::vector<double> region = fa.read("/grid/fip_region").values;
    ASSERT_EQ(region.size(), 120u);
    for (std::size_t m = 0; m < region.size(); ++m)
        EXPECT_EQ(region[m], m % 4 == 0 ? 1 : m % 4 == 1 ? 2 : 3) << m;
    EXPECT_EQ(fb.read("/grid/fip_region").values, region);
    for (const char* name : {"oil", "water", "pressure", "pore_volume"}) {
        const std::string d = std::string("/regions/in_place/") + name;
        const h5::Dataset x = fa.read(d), y = fb.read(d);
        EXPECT_EQ(x.dims, (std::vector<hsize_t>{3, 3})) << d;  // days 0, 30, 60
        EXPECT_EQ(x.values, y.values) << d;
    }
    const CliResult both = run_heptane({"simulate", path("deck.yaml"), "-o", path("both.h5"),
                                        "--backend", "cpu", "--set", layered});
    EXPECT_EQ(both.code, kExitBadInput);
    EXPECT_THAT(both.err, HasSubstr("rock.fip_regions: grid.eclipse's files give FIPNUM too"));
}

TEST_F(EclipseDeck, DeckErrorsNameTheKey) {
    const auto error = [&](const std::string& grid_lines) {
        std::ifstream in(kDeck);
        std::stringstream s;
        s << in.rdbuf();
        std::string text = s.str();
        const std::string grid = "  eclipse: eclipse_actnum.grdecl\n";
        text.replace(text.find(grid), grid.size(), grid_lines);
        const std::string deck = path("deck.yaml");
        fs::copy_file(source_path("tests/app/decks/eclipse_actnum.grdecl"),
                      path("eclipse_actnum.grdecl"), fs::copy_options::overwrite_existing);
        std::ofstream(deck) << text;
        const CliResult r = run_heptane({"run", deck, "-o", path("x.h5"), "--backend", "cpu"});
        EXPECT_EQ(r.code, kExitBadInput) << r.out;
        EXPECT_FALSE(fs::exists(path("x.h5")));
        return r.err;
    };
    EXPECT_THAT(error("  eclipse: missing.grdecl\n"),
                HasSubstr("deck.yaml:7: grid.eclipse: no such file"));
    EXPECT_THAT(error("  eclipse: []\n"), HasSubstr("grid.eclipse: give a file or a list"));
    EXPECT_THAT(error("  eclipse: eclipse_actnum.grdecl\n  cell_size: [1, 1, 1]\n"),
                HasSubstr("deck.yaml:8: grid.cell_size: the files of grid.eclipse give DX, DY "
                          "and DZ: remove grid.cell_size"));
    EXPECT_THAT(error("  eclipse: [eclipse_actnum.grdecl, missing.grdecl]\n"),
                HasSubstr("deck.yaml:7: grid.eclipse[1]: no such file"));
}

}  // namespace
}  // namespace heptane::app
