// Wells of an Eclipse deck through the CLI (design decision 102): COMPDAT's connection factors,
// SHUT layers and layers no record names are the wells written out in YAML with
// `connection_factors`, and a layer that is not connected is no layer at all.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/hdf5_file.hpp"
#include "common/cli_runner.hpp"
#include "common/temp_file.hpp"
#include "common/test_systems.hpp"

namespace heptane::app {
namespace {

using test::CliResult;
using test::run_heptane;
using test::source_path;

class EclipseWells : public ::testing::Test {
  protected:
    std::string path(const std::string& name) const { return dir_.path() + "/" + name; }
    /// Runs tests/app/decks/eclipse_schedule_sim.yaml (a faulted 6 x 5 x 4 model, FIELD) on the
    /// CPU into `out` with these --set arguments.
    void simulate(const std::string& out, const std::vector<std::string>& sets) const {
        std::vector<std::string> args = {
            "simulate",  source_path("tests/app/decks/eclipse_schedule_sim.yaml"),
            "-o",        path(out),
            "--backend", "cpu"};
        for (const std::string& s : sets) {
            args.push_back("--set");
            args.push_back(s);
        }
        const CliResult r = run_heptane(args);
        ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    }
    /// Whether dataset d holds the same bits in a and b (b's d_b where given).
    static bool same_bits(const std::string& a, const std::string& b, const std::string& d,
                          const std::string& d_b = "") {
        const std::vector<double> x = h5::File::open(a).read(d).values;
        const std::vector<double> y = h5::File::open(b).read(d_b.empty() ? d : d_b).values;
        return x.size() == y.size() && !x.empty() &&
               std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
    }
    test::TempFolder dir_;
};

/// eclipse_schedule.inc's events in YAML (and `more`), and its wells with these perforations
/// and factors.
std::vector<std::string> yaml_wells(const std::string& inj, const std::string& p1,
                                    const std::string& more = "") {
    return {"wells=[{name: INJ, type: injector, column: [2, 2], " + inj +
                ", control: {kind: rate, value: 200}, max_bhp: 9000}, "
                "{name: P1, type: producer, column: [1, 1], " +
                p1 + ", control: {kind: bhp, value: 4000}}]",
            "schedule={report_times: [20, 30, 60], dt_initial: 1, dt_max: 10, events: ["
            "{time: 30, well: INJ, status: shut, control: {kind: rate, value: 200}, max_bhp: 0}, "
            "{time: 30, well: P1, status: open, control: {kind: rate, value: 150}, "
            "min_bhp: 3000}" +
                more + "]}"};
}

const char* const kFields[] = {"/pressure", "/water_saturation"};

/// tests/app/decks/eclipse_compdat.inc's text, for the tests that rewrite its schedule.
std::string compdat_schedule() {
    std::ifstream in(source_path("tests/app/decks/eclipse_compdat.inc"));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// eclipse_compdat.inc's COMPDAT (factors 20 with layer 2 SHUT, 8 and 12 with layer 2 unnamed)
// is bit for bit the YAML wells with connection_factors [20, 0, 20, 20] and [8, 0, 12]; and
// the factors matter: the run differs from the Peaceman wells of eclipse_schedule.inc.
TEST_F(EclipseWells, CompdatFactorsAreTheConnectionFactorsWrittenOut) {
    simulate("compdat.h5",
             {"schedule.eclipse=" + source_path("tests/app/decks/eclipse_compdat.inc")});
    simulate("yaml.h5", yaml_wells("perforations: [0, 3], connection_factors: [20, 0, 20, 20]",
                                   "perforations: [0, 2], connection_factors: [8, 0, 12]"));
    simulate("peaceman.h5", {});
    const std::string a = path("compdat.h5"), b = path("yaml.h5"), c = path("peaceman.h5");
    for (const char* report : {"00001", "00002", "00003"}) {
        for (const char* field : kFields) {
            const std::string d = std::string("/timesteps/") + report + field;
            EXPECT_TRUE(same_bits(a, b, d)) << d;
            EXPECT_FALSE(same_bits(a, c, d)) << d;
        }
    }
    for (const char* d : {"/wells/INJ/bhp", "/wells/P1/bhp"}) EXPECT_TRUE(same_bits(a, b, d)) << d;
    // The output's factors, per perforated layer in the file's unit: the deck's back.
    const h5::File fa = h5::File::open(a);
    const h5::Dataset inj = fa.read("/wells/INJ/connection_factors");
    EXPECT_EQ(fa.attr_string("/wells/INJ/connection_factors", "units"), "cP rb/day/psi");
    ASSERT_EQ(inj.values.size(), 4u);
    for (std::size_t l = 0; l < 4; ++l) {
        EXPECT_NEAR(inj.values[l], l == 1 ? 0.0 : 20.0, 1e-12) << l;
    }
    const std::vector<double> p1 = fa.read("/wells/P1/connection_factors").values;
    ASSERT_EQ(p1.size(), 3u);
    EXPECT_NEAR(p1[0], 8.0, 1e-12);
    EXPECT_EQ(p1[1], 0.0);
    EXPECT_NEAR(p1[2], 12.0, 1e-12);
}

// WPIMULT (design decision 102) on eclipse_compdat.inc: P1's factors times 2, INJ's layer 3
// times 0.5, is bit for bit the YAML wells with those factors ([16, 0, 24], [20, 0, 10, 20]).
TEST_F(EclipseWells, WpimultIsTheFactorsMultiplied) {
    std::string schedule = compdat_schedule();
    schedule.insert(schedule.find("WCONINJE"), "WPIMULT\n 'P1' 2 /\n 'INJ' 0.5 2* 3 /\n/\n");
    std::ofstream(path("wpimult.inc")) << schedule;
    simulate("wpimult.h5", {"schedule.eclipse=" + path("wpimult.inc")});
    simulate("yaml.h5", yaml_wells("perforations: [0, 3], connection_factors: [20, 0, 10, 20]",
                                   "perforations: [0, 2], connection_factors: [16, 0, 24]"));
    const std::string a = path("wpimult.h5"), b = path("yaml.h5");
    for (const char* field : kFields) {
        const std::string d = std::string("/timesteps/00003") + field;
        EXPECT_TRUE(same_bits(a, b, d)) << d;
    }
    EXPECT_TRUE(same_bits(a, b, "/wells/INJ/connection_factors"));
    EXPECT_TRUE(same_bits(a, b, "/wells/P1/connection_factors"));
}

// Workovers (design decision 103) on eclipse_compdat.inc: on day 30 P1's unnamed layer 2
// opened at 4 and INJ's layer 3 halved by WPIMULT, then on day 40 P1's layer 3 SHUT, is bit for
// bit the YAML events with connection_factors [8, 4, 12], [20, 0, 10, 20] and [8, 4, 0]; and
// they matter: the run differs from the one without them from day 30 on, not before.
TEST_F(EclipseWells, LaterCompdatIsTheEventsConnectionFactors) {
    std::string schedule = compdat_schedule();
    const std::string last = "TSTEP\n 30 /\n";
    schedule.replace(schedule.find(last), last.size(),
                     "COMPDAT\n 'P1' 2* 2 2 'OPEN' 1* 4 /\n/\n"
                     "WPIMULT\n 'INJ' 0.5 2* 3 /\n/\nTSTEP\n 10 /\n"
                     "COMPDAT\n 'P1' 2* 3 3 'SHUT' 1* 12 /\n/\nTSTEP\n 20 /\n");
    std::ofstream(path("workover.inc")) << schedule;
    simulate("workover.h5", {"schedule.eclipse=" + path("workover.inc")});
    simulate("yaml.h5", yaml_wells("perforations: [0, 3], connection_factors: [20, 0, 20, 20]",
                                   "perforations: [0, 2], connection_factors: [8, 0, 12]",
                                   ", {time: 30, well: P1, connection_factors: [8, 4, 12]}, "
                                   "{time: 30, well: INJ, connection_factors: [20, 0, 10, 20]}, "
                                   "{time: 40, well: P1, connection_factors: [8, 4, 0]}"));
    simulate("compdat.h5",
             {"schedule.eclipse=" + source_path("tests/app/decks/eclipse_compdat.inc")});
    const std::string a = path("workover.h5"), b = path("yaml.h5"), c = path("compdat.h5");
    for (const char* field : kFields) {  // day 60: the Eclipse run reports on day 40 too
        const std::string end = std::string("/timesteps/00004") + field;
        const std::string yaml_end = std::string("/timesteps/00003") + field;
        EXPECT_TRUE(same_bits(a, b, end, yaml_end)) << end;
        EXPECT_FALSE(same_bits(a, c, end, yaml_end)) << end;  // compdat.h5's day 60
        const std::string day30 = std::string("/timesteps/00002") + field;
        EXPECT_TRUE(same_bits(a, c, day30)) << day30;
    }
    EXPECT_TRUE(same_bits(a, b, "/wells/P1/bhp"));
}

// Design decision 105: a COMPDAT that shuts every connection of P1 on day 30 is a WELOPEN SHUT
// there; a WCONPROD OPEN on day 35 is read as SHUT; on day 40 layer 3 opens again and
// WELOPEN opens the well: the run is the one that says so with WELOPEN SHUT and WCONPROD SHUT,
// bit for bit. Without the day-40 WELOPEN the well stays shut (opening a connection does not
// open the well).
TEST_F(EclipseWells, ShuttingEveryConnectionShutsTheWell) {
    const std::string base = compdat_schedule(), last = "TSTEP\n 30 /\n";
    const auto deck = [&](const std::string& name, const std::string& tail) {
        std::string schedule = base;
        schedule.replace(schedule.find(last), last.size(), tail);
        std::ofstream(path(name)) << schedule;
        simulate(name + ".h5", {"schedule.eclipse=" + path(name)});
        return path(name + ".h5");
    };
    const std::string day35 =
        "TSTEP\n 5 /\nWCONPROD\n 'P1' 'OPEN' 'BHP' 5* 4000 /\n/\nTSTEP\n 5 /\n";
    const std::string reopen = "COMPDAT\n 'P1' 2* 3 3 'OPEN' 1* 12 /\n/\n";
    const std::string welopen = "WELOPEN\n 'P1' 'OPEN' /\n/\n", end = "TSTEP\n 20 /\n";
    const std::string a = deck("all_shut.inc", "COMPDAT\n 'P1' 2* 1 3 'SHUT' 1* 8 /\n/\n" + day35 +
                                                   reopen + welopen + end);
    const std::string b = deck("welopen.inc",
                               "WELOPEN\n 'P1' 'SHUT' /\n/\nTSTEP\n 5 /\n"
                               "WCONPROD\n 'P1' 'SHUT' 'BHP' 5* 4000 /\n/\nTSTEP\n 5 /\n"
                               "COMPDAT\n 'P1' 2* 1 1 'SHUT' 1* 8 /\n/\n" +
                                   welopen + end);
    const std::string c =
        deck("stays_shut.inc", "COMPDAT\n 'P1' 2* 1 3 'SHUT' 1* 8 /\n/\n" + day35 + reopen + end);
    for (const char* field : kFields) {
        const std::string d = std::string("/timesteps/00005") + field;  // day 60
        EXPECT_TRUE(same_bits(a, b, d)) << d;
        EXPECT_FALSE(same_bits(a, c, d)) << d;
    }
    EXPECT_TRUE(same_bits(a, b, "/wells/P1/oil_rate"));
    EXPECT_TRUE(same_bits(a, b, "/wells/P1/bhp"));
}

// A layer with factor 0 below the well's last open one changes nothing: P1 on [0, 2] with
// factors [8, 0, 0] is P1 on [0, 0] with [8], bit for bit (its perforations' flows, its BHP's
// reference depth, the linear solves), and compare finds no difference.
TEST_F(EclipseWells, AClosedLayerIsNoLayer) {
    const std::string inj = "perforations: [0, 3], connection_factors: [20, 20, 20, 20]";
    simulate("closed.h5", yaml_wells(inj, "perforations: [0, 2], connection_factors: [8, 0, 0]"));
    simulate("short.h5", yaml_wells(inj, "perforations: [0, 0], connection_factors: [8]"));
    simulate("open.h5", yaml_wells(inj, "perforations: [0, 2], connection_factors: [8, 8, 8]"));
    const std::string a = path("closed.h5"), b = path("short.h5"), c = path("open.h5");
    for (const char* field : kFields) {
        const std::string d = std::string("/timesteps/00003") + field;
        EXPECT_TRUE(same_bits(a, b, d)) << d;
        EXPECT_FALSE(same_bits(a, c, d)) << d;
    }
    EXPECT_TRUE(same_bits(a, b, "/wells/P1/bhp"));
    EXPECT_TRUE(same_bits(a, b, "/simulation/linear_iterations"));
    // compare reads results: the factors (3 against 1 here) are the deck's, passed over.
    const CliResult same = run_heptane({"compare", a, b, "--rtol", "0", "--atol", "0"});
    EXPECT_EQ(same.code, kExitOk) << same.err << same.out;
}

}  // namespace
}  // namespace heptane::app
