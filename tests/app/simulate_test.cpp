// `heptane simulate`: the result file (/timesteps, /wells, /field, /simulation), its temporal
// XDMF, the terminal output, exit codes, bad schedules (exit 2, nothing written) and a failed
// run (exit 1, every good step written); restarts: simulate_restart_test.cpp.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "app/cli.hpp"
#include "app/hdf5_file.hpp"
#include "common/cli_runner.hpp"
#include "common/mini_xml.hpp"
#include "common/test_systems.hpp"
#include "simulate_test_support.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;
using test::CliResult;
using test::run_heptane;
using test::source_path;
using namespace simulate_support;

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(Simulate, WritesFieldsWellSeriesStatisticsAndATemporalXdmf) {
    const std::string dir = fresh_dir("file");
    const std::string out = dir + "/wf.h5";
    const CliResult r = run_heptane({"simulate", source_path(kDeck), "-o", out});
    ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
    // The log names the switches and events; the summary has every well and the time split.
    EXPECT_NE(r.out.find("PR -> BHP 3450 psi (BHP limit reached)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("PR -> rate 120 stb/day (rate target reachable again)"),
              std::string::npos);
    EXPECT_NE(r.out.find("PB -> shut (schedule event)"), std::string::npos);
    EXPECT_NE(r.out.find("report 3/3  day 60.00"), std::string::npos);
    for (const char* w : {"INJ ", "PB ", "PR "})
        EXPECT_NE(r.out.find(std::string("    ") + w), std::string::npos);
    EXPECT_NE(r.out.find("linear solve"), std::string::npos);

    const h5::File f = h5::File::open(out);
    EXPECT_EQ(f.attr_string("/", "kind"), "simulation");
    EXPECT_EQ(f.attr_string("/", "status"), "completed");
    EXPECT_EQ(f.attr_string("/", "unit_system"), "field");
    // Reports at 0, 20, 40 and 60 days.
    for (int n = 0; n < 4; ++n) {
        const std::string g = "/timesteps/0000" + std::to_string(n);
        EXPECT_EQ(f.read(g + "/time").values, std::vector<double>{20.0 * n});
        EXPECT_EQ(f.read(g + "/dt").values.size(), 1u);
        const h5::Dataset p = f.read(g + "/pressure");
        EXPECT_EQ(p.dims, (std::vector<hsize_t>{8, 6, 3}));
        EXPECT_EQ(f.read(g + "/water_saturation").dims, p.dims);
        EXPECT_EQ(f.attr_string(g + "/pressure", "units"), "psi");
    }
    EXPECT_FALSE(f.exists("/timesteps/00004"));
    // The initial state: hydrostatic about 4000 psi at the datum, S_w = 0.2.
    for (double sw : f.read("/timesteps/00000/water_saturation").values) EXPECT_EQ(sw, 0.2);

    const h5::Dataset time = f.read("/simulation/time");
    const std::size_t steps = time.values.size();
    ASSERT_GE(steps, 6u);
    EXPECT_EQ(time.values.back(), 60.0);
    EXPECT_EQ(static_cast<std::size_t>(f.attr_double("/simulation", "steps")), steps);
    double sum_dt = 0.0;
    for (double dt : f.read("/simulation/dt").values) sum_dt += dt;
    EXPECT_NEAR(sum_dt, 60.0, 1e-9);
    for (const char* name :
         {"newton_iterations", "linear_iterations", "cuts", "cnv", "mb", "assembly_seconds",
          "linear_setup_seconds", "linear_solve_seconds", "other_seconds"}) {
        EXPECT_EQ(f.read(std::string("/simulation/") + name).values.size(), steps) << name;
    }
    for (double mb : f.read("/simulation/mb").values) EXPECT_LE(mb, 1e-7);
    long long newton = 0;
    for (double n : f.read("/simulation/newton_iterations").values)
        newton += static_cast<long long>(n);
    EXPECT_EQ(static_cast<long long>(f.attr_double("/simulation", "newton_iterations")), newton);
    EXPECT_EQ(f.read("/simulation/newton/linear_iterations").values.size(),
              static_cast<std::size_t>(newton));  // no cut in this run
    // One solver object: made for the first Jacobian, given the values of the others.
    EXPECT_EQ(f.attr_double("/simulation", "solver_matrix_uploads"), static_cast<double>(newton));
    EXPECT_EQ(f.attr_double("/simulation", "solver_factorizations"), static_cast<double>(newton));

    for (const char* well : {"INJ", "PB", "PR"}) {
        const std::string g = std::string("/wells/") + well;
        for (const char* name : {"time", "bhp", "oil_rate", "water_rate", "water_cut", "oil_total",
                                 "water_total", "control"}) {
            EXPECT_EQ(f.read(g + "/" + name).values.size(), steps) << g << "/" << name;
        }
        EXPECT_EQ(f.read(g + "/time").values, time.values);
    }
    // INJ injects 150 stb/day, then 250 from day 40, to the Newton tolerance of its well
    // equation (schedule.newton.tolerance_well, 1e-6 relative).
    const auto inj = f.read("/wells/INJ/water_rate").values;
    const auto control = f.read("/wells/PB/control").values;
    for (std::size_t s = 0; s < steps; ++s) {
        const double t = time.values[s];
        const double target = t > 40.0 ? 250.0 : 150.0;
        EXPECT_NEAR(-inj[s], target, 1e-6 * target) << "day " << t;
        EXPECT_EQ(control[s], t > 15.0 && t <= 25.0 ? 0.0 : 2.0) << "day " << t;  // shut, bhp
    }
    // Cumulative = sum of rate x dt.
    const auto dt = f.read("/simulation/dt").values;
    double total = 0.0;
    for (std::size_t s = 0; s < steps; ++s) total += inj[s] * dt[s];
    EXPECT_NEAR(f.read("/wells/INJ/water_total").values.back(), total, 1e-9 * std::abs(total));
    // /field: the producers' rates and totals summed (PB, PR), the injector's water apart,
    // positive (FOPR, FWPR, FWIR, FWCT, FOPT, FWPT, FWIT); the summary's FIELD rows.
    EXPECT_EQ(f.read("/field/time").values, time.values);
    const auto field = [&](const char* name) {
        return f.read(std::string("/field/") + name).values;
    };
    const auto well = [&](const char* w, const char* name) {
        return f.read(std::string("/wells/") + w + "/" + name).values;
    };
    for (const auto& [sum, part] : {std::pair{"oil_production_rate", "oil_rate"},
                                    {"water_production_rate", "water_rate"},
                                    {"oil_production_total", "oil_total"},
                                    {"water_production_total", "water_total"}}) {
        const auto a = field(sum), pb = well("PB", part), pr = well("PR", part);
        ASSERT_EQ(a.size(), steps) << sum;
        for (std::size_t s = 0; s < steps; ++s)
            EXPECT_NEAR(a[s], pb[s] + pr[s], 1e-12 * std::abs(pb[s] + pr[s]) + 1e-300) << sum;
    }
    const auto injection = field("water_injection_rate"), cut = field("water_cut");
    const auto oil = field("oil_production_rate"), water = field("water_production_rate");
    for (std::size_t s = 0; s < steps; ++s) {
        EXPECT_EQ(injection[s], -inj[s]);
        EXPECT_DOUBLE_EQ(cut[s], water[s] > 0.0 ? water[s] / (oil[s] + water[s]) : 0.0);
    }
    EXPECT_NEAR(field("water_injection_total").back(), -total, 1e-9 * std::abs(total));
    EXPECT_NE(r.out.find("    FIELD    producers"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("    FIELD    injectors"), std::string::npos) << r.out;

    // XDMF: a temporal collection of the 4 report times, each with the grid and the fields.
    const test::XmlElement xdmf = test::XmlParser(read_text(dir + "/wf.xmf")).parse();
    std::vector<const test::XmlElement*> grids, times;
    xdmf.find_all("Grid", grids);
    xdmf.find_all("Time", times);
    ASSERT_EQ(grids.size(), 5u);  // the collection and its 4 frames
    EXPECT_EQ(grids[0]->attributes.at("CollectionType"), "Temporal");
    ASSERT_EQ(times.size(), 4u);
    EXPECT_EQ(times[3]->attributes.at("Value"), "60");
    std::vector<const test::XmlElement*> items;
    grids[4]->find_all("DataItem", items);
    EXPECT_NE(read_text(dir + "/wf.xmf").find("wf.h5:/timesteps/00003/water_saturation"),
              std::string::npos);

    // compare reads /timesteps and /wells: a file agrees with itself.
    const CliResult cmp = run_heptane({"compare", out, out, "--rtol", "0"});
    EXPECT_EQ(cmp.code, kExitOk) << cmp.out;
    EXPECT_NE(cmp.out.find("/wells/PR/bhp"), std::string::npos) << cmp.out;
    // The shadow the reports took turns with is gone: the folder holds the two files.
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"wf.h5", "wf.xmf"}));
}

// Each report's fields are appended (design decision 67): the file grows by a report's
// fields a report, not by the rewritten history (/restart holds a state as large as a
// report's fields) each write. 2,880 cells, 2 reports against 61.
TEST(Simulate, TheFileGrowsWithItsReportsNotWithItsWrites) {
    const std::string dir = fresh_dir("growth");
    const auto run = [&](int interval) {
        const std::string out = dir + "/r" + std::to_string(interval) + ".h5";
        const CliResult r = run_heptane({"simulate", source_path(kDeck), "-o", out, "--set",
                                         "grid.dims=[16, 12, 15]", "--set",
                                         "schedule.report_interval=" + std::to_string(interval)});
        EXPECT_EQ(r.code, kExitOk) << r.err;
        EXPECT_TRUE(h5::File::open(out).exists("/timesteps/" +
                                               std::string(interval == 1 ? "00060" : "00001")));
        return static_cast<double>(fs::file_size(out));
    };
    const double few = run(60), many = run(1);
    const double frame = 2.0 * 8.0 * 2880;  // pressure and saturation, 8 bytes a cell
    const double per_report = (many - few) / 59.0;
    EXPECT_GT(per_report, frame);
    // Group, attributes and the longer per-step series: a few KB a report (measured 1.06x).
    EXPECT_LT(per_report, 1.2 * frame) << "the file lost space at each write";
}

// Where the folder takes no hard link (here: the name the last file keeps is a folder) each
// write copies the last file and appends to the copy: the same file, and no file left over.
TEST(Simulate, WithoutHardLinksTheReportsWriteTheSameFile) {
    const std::string dir = fresh_dir("nolink");
    const std::string linked = dir + "/linked.h5", copied = dir + "/copied.h5";
    ASSERT_EQ(run_heptane({"simulate", source_path(kDeck), "-o", linked}).code, kExitOk);
    const std::string blocker = copied + ".previous-" + std::to_string(::getpid());
    fs::create_directories(blocker + "/x");  // this process runs the command: its pid
    const CliResult r = run_heptane({"simulate", source_path(kDeck), "-o", copied});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    EXPECT_TRUE(fs::is_directory(blocker + "/x"));
    EXPECT_FALSE(fs::exists(copied + ".shadow-" + std::to_string(::getpid())));
    const CliResult same = run_heptane({"compare", copied, linked, "--rtol", "0", "--atol", "0"});
    EXPECT_EQ(same.code, kExitOk) << same.out;
    expect_same_statistics(copied, linked);
    EXPECT_EQ(h5::File::open(copied).attr_string("/", "status"), "completed");
}

TEST(Simulate, FiveSpotConservesMassFromItsFileAlone) {
    // The five-spot of ./run.sh (SPE10 window, gravity, 5 wells, events), checked from its
    // output file alone: at every report time the fluid in place, computed here from the
    // pressure and saturation fields and the deck's laws, has changed by minus what the
    // wells' cumulatives say left, per phase, within the per-step material-balance tolerance
    // summed over the steps (schedule.newton.tolerance_mb = 1e-7 of the pore volume each);
    // and it is the file's /field/in_place (FOIP, FWIP and the FPR).
    const std::string dir = fresh_dir("five_spot");
    const std::string out = dir + "/fs.h5";
    const CliResult r = run_heptane(
        {"simulate", source_path("inputs/five_spot.yaml"), "-o", out, "--backend", "cpu"});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    const h5::File f = h5::File::open(out);
    const double psi = 6894.757293168361, stb = 0.158987294928, ft3 = 0.028316846592;
    const double volume = 20.0 * 10.0 * 2.0 * ft3;  // m^3, the deck's cells
    const double c_rock = 1e-6 / psi, c_oil = 5e-6 / psi, c_water = 3e-6 / psi;
    const double p_ref = 6000.0 * psi;
    const std::vector<double> phi = f.read("/grid/porosity").values;
    double pore_volume = 0.0;
    for (double x : phi) pore_volume += x * volume / stb;
    double fpr = 0.0;  // the last report's pressure weighted by hydrocarbon pore volume
    const auto fluid_in_place = [&](const std::string& report) {
        const auto p = f.read(report + "/pressure").values;
        const auto sw = f.read(report + "/water_saturation").values;
        std::array<double, 2> fip{0.0, 0.0};  // stb at reference density
        double hcpv = 0.0;
        fpr = 0.0;
        for (std::size_t m = 0; m < p.size(); ++m) {
            const double dp = p[m] * psi - p_ref;
            const double pv = volume * phi[m] * std::exp(c_rock * dp) / stb;
            fip[0] += pv * std::exp(c_oil * dp) * (1.0 - sw[m]);
            fip[1] += pv * std::exp(c_water * dp) * sw[m];
            hcpv += pv * (1.0 - sw[m]);
            fpr += p[m] * pv * (1.0 - sw[m]);
        }
        fpr /= hcpv;
        return fip;
    };
    // /field/in_place: the same fluid in place (and FPR) at every report, from the state
    // before it was rounded to the file's fields' units (a few ulps of psi apart).
    const auto in_place_time = f.read("/field/in_place/time").values;
    const auto in_place_oil = f.read("/field/in_place/oil").values;
    const auto in_place_water = f.read("/field/in_place/water").values;
    const auto in_place_pressure = f.read("/field/in_place/pressure").values;
    ASSERT_EQ(in_place_time.size(), 11u);  // day 0 and the 10 reports
    EXPECT_EQ(f.attr_string("/field/in_place/oil", "units"), "stb");
    EXPECT_EQ(f.attr_string("/field/in_place/pressure", "units"), "psi");
    for (std::size_t k = 0; k < in_place_time.size(); ++k) {
        const std::string group =
            "/timesteps/" + std::string(k < 10 ? "0000" : "000") + std::to_string(k);
        EXPECT_EQ(f.read(group + "/time").values[0], in_place_time[k]);
        const std::array<double, 2> fip = fluid_in_place(group);
        EXPECT_NEAR(in_place_oil[k], fip[0], 1e-12 * fip[0]) << group;
        EXPECT_NEAR(in_place_water[k], fip[1], 1e-12 * fip[1]) << group;
        EXPECT_NEAR(in_place_pressure[k], fpr, 1e-12 * fpr) << group;
    }
    EXPECT_LT(in_place_pressure.back(), in_place_pressure.front());  // produced: depleted
    EXPECT_NE(r.out.find("  in place    day 0.00: oil "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("oil recovered "), std::string::npos) << r.out;
    const std::array<double, 2> initial = fluid_in_place("/timesteps/00000");
    const auto step_times = f.read("/simulation/time").values;
    int checked = 0;
    for (const std::string& report : f.datasets("/timesteps")) {
        if (report.find("/pressure") == std::string::npos) continue;
        const std::string group = report.substr(0, report.rfind('/'));
        const double t = f.read(group + "/time").values[0];
        if (t == 0.0) continue;
        std::size_t steps = 0;  // steps up to t
        while (steps < step_times.size() && step_times[steps] <= t) ++steps;
        ASSERT_GT(steps, 0u);
        std::array<double, 2> produced{0.0, 0.0};
        for (const char* w : {"INJ", "P1", "P2", "P3", "P4"}) {
            produced[0] += f.read(std::string("/wells/") + w + "/oil_total").values[steps - 1];
            produced[1] += f.read(std::string("/wells/") + w + "/water_total").values[steps - 1];
        }
        const std::array<double, 2> now = fluid_in_place(group);
        for (int a = 0; a < 2; ++a) {
            const double error = std::abs(now[a] - initial[a] + produced[a]) / pore_volume;
            EXPECT_LE(error, static_cast<double>(steps) * 1e-7 * 1.05)
                << "day " << t << ", phase " << a << " (" << steps << " steps)";
        }
        ++checked;
    }
    EXPECT_EQ(checked, 10);
}

// Design decision 89: rock.fip_regions (by layer: the middle layer region 1, the others region
// 2) gives each report's fluid in place by region, /regions/in_place (one row a report, one
// column a region), which is the count of the region's cells from the report's fields and the
// deck's laws, and adds up to the field's; /grid/fip_region has the regions for ParaView; the
// summary and `info` say them. Fails with the columns swapped or a layer in the wrong region.
TEST(Simulate, FipRegionsGiveTheFluidInPlaceOfEachRegion) {
    const std::string dir = fresh_dir("fip_regions");
    const std::string out = dir + "/fip.h5", deck = dir + "/fip.yaml";
    std::string text = read_text(source_path(kDeck));
    const std::string porosity = "  porosity: 0.2\n";
    ASSERT_NE(text.find(porosity), std::string::npos);
    text.replace(text.find(porosity), porosity.size(),
                 porosity + "  fip_regions: {kind: layered, values: [2, 1, 2]}\n");
    std::ofstream(deck) << text;
    const CliResult r = run_heptane({"simulate", deck, "-o", out});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    EXPECT_NE(r.out.find("  regions     2 fluid-in-place regions, day 0.00 -> day 60.00:\n"
                         "              1: oil "),
              std::string::npos)
        << r.out;
    const CliResult info = run_heptane({"info", deck});
    EXPECT_NE(info.out.find("(dp, dSw), 2 fluid-in-place regions"), std::string::npos) << info.out;
    const h5::File f = h5::File::open(out);
    const std::vector<double> region = f.read("/grid/fip_region").values;
    ASSERT_EQ(region.size(), 8u * 6u * 3u);
    for (std::size_t m = 0; m < region.size(); ++m) EXPECT_EQ(region[m], m % 3 == 1 ? 1 : 2) << m;
    // The deck's laws: no Pc, B = 1, exponential compressibilities about 4000 psi.
    const double psi = 6894.757293168361, stb = 0.158987294928, ft3 = 0.028316846592;
    const double volume = 40.0 * 40.0 * 10.0 * ft3 / stb, phi = 0.2;
    const double c_rock = 3e-6 / psi, c_oil = 1e-5 / psi, c_water = 3e-6 / psi;
    const h5::Dataset oil = f.read("/regions/in_place/oil"),
                      water = f.read("/regions/in_place/water");
    const h5::Dataset pressure = f.read("/regions/in_place/pressure");
    const h5::Dataset pore = f.read("/regions/in_place/pore_volume");
    const std::vector<double> time = f.read("/regions/in_place/time").values;
    ASSERT_EQ(time, f.read("/field/in_place/time").values);
    ASSERT_EQ(time.size(), 4u);  // day 0 and the 3 reports
    for (const h5::Dataset* d : {&oil, &water, &pressure, &pore}) {
        EXPECT_EQ(d->dims, (std::vector<hsize_t>{4, 2}));
    }
    EXPECT_EQ(f.attr_string("/regions/in_place/oil", "units"), "stb");
    EXPECT_EQ(f.attr_string("/regions/in_place/pressure", "units"), "psi");
    const std::vector<double> field_oil = f.read("/field/in_place/oil").values;
    const std::vector<double> field_water = f.read("/field/in_place/water").values;
    for (std::size_t k = 0; k < time.size(); ++k) {
        const std::string group = "/timesteps/0000" + std::to_string(k);
        const std::vector<double> p = f.read(group + "/pressure").values;
        const std::vector<double> sw = f.read(group + "/water_saturation").values;
        std::array<double, 2> o{}, w{}, pv{}, p_hcpv{}, hcpv{};
        for (std::size_t m = 0; m < p.size(); ++m) {
            const std::size_t g = static_cast<std::size_t>(region[m]) - 1;
            const double dp = (p[m] - 4000.0) * psi;
            const double v = volume * phi * std::exp(c_rock * dp);
            o[g] += v * std::exp(c_oil * dp) * (1.0 - sw[m]);
            w[g] += v * std::exp(c_water * dp) * sw[m];
            pv[g] += v;
            hcpv[g] += v * (1.0 - sw[m]);
            p_hcpv[g] += p[m] * v * (1.0 - sw[m]);
        }
        for (std::size_t g = 0; g < 2; ++g) {
            const std::size_t at = 2 * k + g;
            EXPECT_NEAR(oil.values[at], o[g], 1e-12 * o[g]) << group << " region " << g + 1;
            EXPECT_NEAR(water.values[at], w[g], 1e-12 * w[g]) << group << " region " << g + 1;
            EXPECT_NEAR(pore.values[at], pv[g], 1e-12 * pv[g]) << group << " region " << g + 1;
            const double fpr = p_hcpv[g] / hcpv[g];
            EXPECT_NEAR(pressure.values[at], fpr, 1e-12 * fpr) << group << " region " << g + 1;
        }
        EXPECT_NEAR(oil.values[2 * k] + oil.values[2 * k + 1], field_oil[k], 1e-12 * field_oil[k]);
        EXPECT_NEAR(water.values[2 * k] + water.values[2 * k + 1], field_water[k],
                    1e-12 * field_water[k]);
    }
    // Without regions the file has none.
    const std::string plain = dir + "/plain.h5";
    ASSERT_EQ(run_heptane({"simulate", source_path(kDeck), "-o", plain}).code, kExitOk);
    EXPECT_FALSE(h5::File::open(plain).exists("/regions"));
    EXPECT_FALSE(h5::File::open(plain).exists("/grid/fip_region"));
}

// A BHP reference depth (design decision 94): PB of the regression waterflood with its BHP at
// 100 ft above its first perforation's centre (8,005 ft) and its target lowered by the oil's
// head over them (53 lb/ft^3: 100 * 53 / 144 psi) is the same well: the run's fields and rates
// agree with the deck's to 1e-5 (the Newton and linear tolerances: the arithmetic differs; the
// head left out moves PB's rates by up to 23%), and its BHP series is the deck's less the head.
TEST(Simulate, ABhpReferenceDepthIsTheWellWithItsTargetMovedByTheHead) {
    const std::string dir = ::testing::TempDir(), deck = source_path(kDeck);
    const std::string a = dir + "/bhp_base.h5", b = dir + "/bhp_depth.h5";
    const double head = 100.0 * 53.0 / 144.0;  // psi
    ASSERT_EQ(run_heptane({"simulate", deck, "-o", a, "--backend", "cpu"}).code, kExitOk);
    const CliResult r = run_heptane({"simulate", deck, "-o", b, "--backend", "cpu", "--set",
                                     "wells[1].bhp_depth=7905", "--set",
                                     "wells[1].control.value=" + std::to_string(3500.0 - head)});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    const h5::File fa = h5::File::open(a), fb = h5::File::open(b);
    for (const char* d : {"/timesteps/00003/pressure", "/timesteps/00003/water_saturation",
                          "/wells/PB/oil_rate", "/wells/PB/water_rate", "/wells/PR/bhp"}) {
        const std::vector<double> x = fa.read(d).values, y = fb.read(d).values;
        ASSERT_EQ(x.size(), y.size()) << d;
        for (std::size_t k = 0; k < x.size(); ++k)
            EXPECT_NEAR(y[k], x[k], 1e-5 * std::abs(x[k]) + 1e-9) << d << "[" << k << "]";
    }
    const std::vector<double> pa = fa.read("/wells/PB/bhp").values,
                              pb = fb.read("/wells/PB/bhp").values;
    ASSERT_EQ(pa.size(), pb.size());
    for (std::size_t k = 0; k < pa.size(); ++k) EXPECT_NEAR(pa[k] - pb[k], head, 1e-3) << k;
}

// A tabulated relperm (design decision 74) of Corey's law with exponents 1 is that law, a line:
// the faulted deck's simulation with its two-row table agrees with the Corey run to rounding
// (the arithmetic differs), the same table read from an SWOF file gives the YAML table's bits,
// and the deck's own (quadratic) law gives another result, so the table is what ran.
TEST(Simulate, ATableOfALinearCoreyLawIsThatLaw) {
    const std::string dir = fresh_dir("relperm_table");
    const std::string deck = source_path("tests/app/decks/eclipse_fault_sim.yaml");
    const auto simulate = [&](const std::string& name, const std::string& relperm) {
        const std::string out = dir + "/" + name + ".h5";
        std::vector<std::string> args = {"simulate", deck, "-o", out, "--backend", "cpu"};
        if (!relperm.empty()) args.insert(args.end(), {"--set", "fluid.relperm=" + relperm});
        const CliResult r = run_heptane(args);
        EXPECT_EQ(r.code, kExitOk) << name << ": " << r.err;
        return out;
    };
    std::ofstream(dir + "/swof.inc") << "SWOF\n 0.2 0 1 0\n 0.8 1 0 0 /\n";
    const std::string corey = simulate("corey", "{swc: 0.2, sor: 0.2, nw: 1, no: 1}");
    const std::string table = simulate("table", "{table: [[0.2, 0, 1], [0.8, 1, 0]]}");
    const std::string swof = simulate("swof", "{swof: " + dir + "/swof.inc}");
    const std::string quadratic = simulate("quadratic", "");
    const auto compare = [](const std::string& a, const std::string& b, const char* rtol) {
        return run_heptane({"compare", a, b, "--rtol", rtol, "--atol", "0"}).code;
    };
    EXPECT_EQ(compare(corey, table, "1e-6"), kExitOk);
    EXPECT_EQ(compare(table, swof, "0"), kExitOk);
    EXPECT_NE(compare(table, quadratic, "1e-3"), kExitOk);
    // A capillary pressure rising with Sw is refused at the file's line, under the deck's key.
    std::ofstream(dir + "/pc.inc") << "SWOF\n 0.2 0 1 0\n 0.8 1 0 0.5 /\n";
    const CliResult bad = run_heptane({"simulate", deck, "-o", dir + "/pc.h5", "--set",
                                       "fluid.relperm={swof: " + dir + "/pc.inc}"});
    EXPECT_EQ(bad.code, kExitBadInput);
    EXPECT_NE(bad.err.find("fluid.relperm.swof: " + dir +
                           "/pc.inc:1: SWOF: row 2: the capillary pressure must not increase"),
              std::string::npos)
        << bad.err;
}

/// Whether `path` is an HDF5 file with report `group` (false while it is being replaced).
bool has_report(const std::string& path, const std::string& group) {
    try {
        return h5::File::open(path).exists(group);
    } catch (const std::exception&) {
        return false;
    }
}

TEST(Simulate, AKilledRunLeavesItsLastCheckpoint) {
    // The five-spot in a child process, killed (SIGKILL: no clean-up) once its third report
    // is on disk. The file it leaves is whole and readable: the last report time's
    // checkpoint, status "running", every step up to there.
    const std::string dir = fresh_dir("killed");
    const std::string out = dir + "/k.h5";
    const std::string deck = source_path("inputs/five_spot.yaml");
    const char* argv[] = {HEPTANE_EXECUTABLE, "simulate",  deck.c_str(), "-o",
                          out.c_str(),        "--backend", "cpu",        nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    pid_t child = 0;
    ASSERT_EQ(posix_spawn(&child, argv[0], &actions, nullptr, const_cast<char**>(argv), environ),
              0);
    posix_spawn_file_actions_destroy(&actions);
    const auto start = std::chrono::steady_clock::now();
    while (!has_report(out, "/timesteps/00002") &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(120)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it was killed";
    const h5::File f = h5::File::open(out);
    EXPECT_EQ(f.attr_string("/", "status"), "running");
    EXPECT_TRUE(f.exists("/timesteps/00002/water_saturation"));
    const std::size_t steps = f.read("/simulation/time").values.size();
    EXPECT_GT(steps, 0u);
    EXPECT_EQ(f.read("/wells/P1/bhp").values.size(), steps);
    EXPECT_LE(f.read("/simulation/time").values.back(), 150.0);
}

TEST(Simulate, ShowsAProgressLineOnATerminal) {
    const std::string dir = fresh_dir("tty");
    const CliResult r =
        run_heptane({"simulate", source_path(kDeck), "-o", dir + "/wf.h5"}, /*terminal=*/true);
    ASSERT_EQ(r.code, kExitOk) << r.err;
    EXPECT_NE(r.err.find("day "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(" / 60.00  dt "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ETA"), std::string::npos) << r.err;
    const CliResult quiet = run_heptane({"simulate", source_path(kDeck), "-o", dir + "/q.h5"});
    EXPECT_EQ(quiet.err.find("ETA"), std::string::npos);
}

TEST(Simulate, RunAndSimulateKeepToTheirDecks) {
    const std::string dir = fresh_dir("kinds");
    const CliResult run = run_heptane({"run", source_path(kDeck), "-o", dir + "/r.h5"});
    EXPECT_EQ(run.code, kExitBadInput);
    EXPECT_NE(run.err.find("waterflood.yaml:27: schedule: this deck describes a simulation"),
              std::string::npos)
        << run.err;
    const CliResult sim = run_heptane(
        {"simulate", source_path("tests/app/decks/small_two_phase.yaml"), "-o", dir + "/s.h5"});
    EXPECT_EQ(sim.code, kExitBadInput);
    EXPECT_NE(sim.err.find("schedule: heptane simulate needs a schedule section"),
              std::string::npos)
        << sim.err;
    EXPECT_TRUE(fs::is_empty(dir));
}

TEST(Simulate, BadSchedulesExitWith2AndWriteNothing) {
    const std::string dir = fresh_dir("bad");
    int checked = 0;
    for (const auto& e : fs::directory_iterator(source_path("tests/app/bad_decks"))) {
        const std::string name = e.path().filename().string();
        if (name.rfind("schedule_", 0) != 0 && name.rfind("well_", 0) != 0) continue;
        const CliResult r = run_heptane({"simulate", e.path().string(), "-o", dir + "/x.h5"});
        EXPECT_EQ(r.code, kExitBadInput) << name << ": " << r.err;
        EXPECT_NE(r.err.find(name + ":"), std::string::npos) << r.err;
        EXPECT_TRUE(fs::is_empty(dir)) << name;
        ++checked;
    }
    EXPECT_GE(checked, 10);
}

TEST(Simulate, StateKeyChoosesWhereTheNewtonLoopRuns) {
    // --state host on the CPU: the run's file says where its state lived. --state device
    // needs the gpu backend: exit 2 naming the option, nothing written.
    const std::string dir = fresh_dir("state");
    const std::string out = dir + "/s.h5";
    const CliResult host = run_heptane(
        {"simulate", source_path(kDeck), "-o", out, "--backend", "cpu", "--state", "host"});
    ASSERT_EQ(host.code, kExitOk) << host.err;
    EXPECT_EQ(h5::File::open(out).attr_string("/simulation", "state"), "host");
    EXPECT_NE(host.out.find("state on the host"), std::string::npos) << host.out;
    fs::remove(out);
    fs::remove(dir + "/s.xmf");
    const CliResult device = run_heptane(
        {"simulate", source_path(kDeck), "-o", out, "--backend", "cpu", "--state", "device"});
    EXPECT_EQ(device.code, kExitBadInput) << device.err;
    EXPECT_NE(device.err.find("--state: device needs the gpu backend"), std::string::npos)
        << device.err;
    EXPECT_TRUE(fs::is_empty(dir));
}

TEST(Simulate, AFailedRunExitsWith1AndKeepsTheGoodSteps) {
    // One BiCGStab iteration per solve: the first step cannot be completed at any dt.
    const std::string dir = fresh_dir("failed");
    const std::string out = dir + "/f.h5";
    const CliResult r = run_heptane({"simulate", source_path(kDeck), "-o", out, "--set",
                                     "solver.max_iterations=1", "--set", "schedule.max_cuts=2"});
    EXPECT_EQ(r.code, kExitFailed) << r.err;
    EXPECT_NE(r.err.find("simulation stopped at day 0.00"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("more than schedule.max_cuts"), std::string::npos) << r.err;
    const h5::File f = h5::File::open(out);
    EXPECT_EQ(f.attr_string("/", "status"), "failed");
    EXPECT_NE(f.attr_string("/", "message").find("linear solver"), std::string::npos);
    EXPECT_TRUE(f.exists("/timesteps/00000/pressure"));  // the initial state
    EXPECT_TRUE(f.read("/simulation/time").values.empty());
    EXPECT_EQ(f.read("/simulation/newton/step").values.size(), 3u);  // 3 attempts, 1 solve each
    for (double s : f.read("/simulation/newton/step").values) EXPECT_EQ(s, -1.0);
}

TEST(Simulate, StopsAtTheWallClockLimitWithItsStepsWritten) {
    const std::string dir = fresh_dir("wall");
    const std::string out = dir + "/w.h5";
    const CliResult r =
        run_heptane({"simulate", source_path(kDeck), "-o", out, "--max-wall-time", "1e-9"});
    EXPECT_EQ(r.code, kExitFailed) << r.err;
    EXPECT_NE(r.err.find("the wall-clock limit (--max-wall-time 1e-09 s) was reached"),
              std::string::npos)
        << r.err;
    const h5::File f = h5::File::open(out);
    EXPECT_EQ(f.attr_string("/", "status"), "stopped");
    EXPECT_EQ(f.read("/simulation/time").values.size(), 1u);  // the step that crossed it
    EXPECT_EQ(f.read("/wells/PR/bhp").values.size(), 1u);
}

}  // namespace
}  // namespace heptane::app
