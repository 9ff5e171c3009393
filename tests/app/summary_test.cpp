// The summary table of `heptane simulate` (app/summary.hpp, design decision 101): the vectors
// output.summary and an Eclipse SUMMARY section ask for, under Eclipse's keys, equal to the
// file's own series; report-time rows (RPTONLY); what is not computed is a note; a well,
// region or cell that does not exist is exit 2 before anything is written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/hdf5_file.hpp"
#include "common/cli_runner.hpp"
#include "common/test_systems.hpp"
#include "simulate_test_support.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;
using test::CliResult;
using test::run_heptane;
using test::source_path;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace simulate_support;

/// A summary CSV: its '#' lines, its header's names and its columns by name.
struct Csv {
    std::vector<std::string> comments, names;
    std::map<std::string, std::vector<double>> columns;
    std::map<std::string, std::vector<std::string>> text;  ///< the cells as written
    std::size_t rows = 0;
};

Csv read_csv(const std::string& path) {
    std::ifstream in(path);
    EXPECT_TRUE(in) << path;
    Csv c;
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind('#', 0) == 0) {
            c.comments.push_back(line);
            continue;
        }
        // Cells split at commas outside double quotes (a cell's key "BPR:1,1,1" is quoted).
        std::vector<std::string> cells(1);
        bool quoted = false;
        for (char ch : line) {
            if (ch == '"') {
                quoted = !quoted;
            } else if (ch == ',' && !quoted) {
                cells.emplace_back();
            } else {
                cells.back() += ch;
            }
        }
        if (c.names.empty()) {
            c.names = cells;
            continue;
        }
        EXPECT_EQ(cells.size(), c.names.size()) << line;
        for (std::size_t k = 0; k < cells.size() && k < c.names.size(); ++k) {
            c.columns[c.names[k]].push_back(std::strtod(cells[k].c_str(), nullptr));
            c.text[c.names[k]].push_back(cells[k]);
        }
        ++c.rows;
    }
    return c;
}

/// Entries `at` of `v` (the report steps' of a per-step series).
std::vector<double> picked(const std::vector<double>& v, const std::vector<std::size_t>& at) {
    std::vector<double> out;
    for (std::size_t k : at) out.push_back(v.at(k));
    return out;
}

TEST(Summary, TheTableIsTheRunsOwnSeriesUnderEclipsesKeys) {
    const std::string dir = fresh_dir("summary");
    const std::string out = dir + "/wf.h5";
    const CliResult r = run_heptane(
        {"simulate", source_path(kDeck), "-o", out, "--set",
         "output.summary=[FOPR, FWIR, FOPT, FWCT, FPR, 'WBHP:PR', WWIR, 'WOPT:P*', 'RPR:1', "
         "'BPR:1,1,1', 'BWSAT:8,6,3', TIMESTEP, NEWTON, GOPR, FOPR]",
         "--set", "schedule.start=2019-12-31"});
    ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr("output.summary[13]: GOPR: not computed: no column"));
    EXPECT_THAT(r.out, HasSubstr(dir + "/wf.csv (16 summary vectors)"));
    const Csv c = read_csv(dir + "/wf.csv");
    // Each name once (FOPR asked twice), WWIR of every well, the pattern's wells in deck order.
    EXPECT_THAT(c.names,
                ElementsAre("TIME", "DATE", "FOPR", "FWIR", "FOPT", "FWCT", "FPR", "WBHP:PR",
                            "WWIR:INJ", "WWIR:PB", "WWIR:PR", "WOPT:PB", "WOPT:PR", "RPR:1",
                            "BPR:1,1,1", "BWSAT:8,6,3", "TIMESTEP", "NEWTON"));
    ASSERT_EQ(c.comments.size(), 2u);
    EXPECT_THAT(c.comments[1],
                HasSubstr("# units: TIME day, DATE ISO 8601, FOPR stb/day, FWIR stb/day, FOPT stb, "
                          "FWCT 1, FPR psi, WBHP:PR psi"));

    // One row per accepted step, every value the file's own (bits: the same sums, the
    // shortest text that reads back).
    const h5::File f = h5::File::open(out);
    const std::vector<double> time = f.read("/simulation/time").values;
    ASSERT_EQ(c.rows, time.size());
    EXPECT_EQ(c.columns.at("TIME"), time);
    // schedule.start's date plus TIME: the first step ends at noon, the last at day 60.
    EXPECT_EQ(c.text.at("DATE").front(), "2019-12-31T12:00:00");
    EXPECT_EQ(c.text.at("DATE").back(), "2020-02-29");
    EXPECT_EQ(c.columns.at("FOPR"), f.read("/field/oil_production_rate").values);
    EXPECT_EQ(c.columns.at("FWIR"), f.read("/field/water_injection_rate").values);
    EXPECT_EQ(c.columns.at("FOPT"), f.read("/field/oil_production_total").values);
    EXPECT_EQ(c.columns.at("FWCT"), f.read("/field/water_cut").values);
    EXPECT_EQ(c.columns.at("WBHP:PR"), f.read("/wells/PR/bhp").values);
    EXPECT_EQ(c.columns.at("WOPT:PB"), f.read("/wells/PB/oil_total").values);
    std::vector<double> injected;
    for (double q : f.read("/wells/INJ/water_rate").values) injected.push_back(0.0 - q);
    EXPECT_EQ(c.columns.at("WWIR:INJ"), injected);
    EXPECT_EQ(c.columns.at("WWIR:PB"), std::vector<double>(time.size(), 0.0));  // a producer
    EXPECT_EQ(c.columns.at("TIMESTEP"), f.read("/simulation/dt").values);
    EXPECT_EQ(c.columns.at("NEWTON"), f.read("/simulation/newton_iterations").values);
    EXPECT_EQ(c.columns.at("RPR:1"), c.columns.at("FPR"));  // no FIPNUM: region 1 is the field
    // The state's vectors at the report steps (days 20, 40, 60): the reports' fields and the
    // field's in-place pressure.
    std::vector<std::size_t> at;
    for (std::size_t s = 0; s < time.size(); ++s) {
        if (time[s] == 20.0 || time[s] == 40.0 || time[s] == 60.0) at.push_back(s);
    }
    ASSERT_EQ(at.size(), 3u);
    const std::vector<double> fpr = f.read("/field/in_place/pressure").values;  // days 0 .. 60
    EXPECT_EQ(picked(c.columns.at("FPR"), at), std::vector<double>(fpr.begin() + 1, fpr.end()));
    for (std::size_t n = 0; n < 3; ++n) {
        const std::string g = "/timesteps/0000" + std::to_string(n + 1);
        EXPECT_EQ(c.columns.at("BPR:1,1,1")[at[n]], f.read(g + "/pressure").values.front());
        EXPECT_EQ(c.columns.at("BWSAT:8,6,3")[at[n]],
                  f.read(g + "/water_saturation").values.back());
    }
    // /summary holds the same table with its units.
    EXPECT_EQ(f.read("/summary/FOPR").values, c.columns.at("FOPR"));
    EXPECT_EQ(f.read("/summary/BPR:1,1,1").values, c.columns.at("BPR:1,1,1"));
    EXPECT_EQ(f.attr_string("/summary/WOPT:PR", "units"), "stb");
    EXPECT_EQ(f.attr_string("/summary", "rows"), "accepted time steps");
}

TEST(Summary, AnEclipseSectionsVectorsAtItsReportTimes) {
    // eclipse_schedule.inc's SUMMARY: FOPR, WBHP of every well, WOPT of 'P*', GGOR (a note),
    // RPTONLY: a row at days 20, 30 and 60; output.summary adds its vectors after them, and
    // output.summary_rows: steps gives every step's row.
    const std::string dir = fresh_dir("summary_eclipse");
    const std::string deck = source_path("tests/app/decks/eclipse_schedule_sim.yaml");
    const CliResult r = run_heptane({"simulate", deck, "-o", dir + "/e.h5", "--backend", "cpu",
                                     "--set", "output.summary=[FWCT]"});
    ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    EXPECT_THAT(r.err, HasSubstr("eclipse_schedule.inc:17: GGOR: not computed: no column"));
    const Csv c = read_csv(dir + "/e.csv");
    EXPECT_THAT(c.names,
                ElementsAre("TIME", "DATE", "FOPR", "WBHP:INJ", "WBHP:P1", "WOPT:P1", "FWCT"));
    EXPECT_THAT(c.columns.at("TIME"), ElementsAre(20.0, 30.0, 60.0));
    // From START 1 JAN 2020 (a leap year: day 60 is 1 March).
    EXPECT_THAT(c.text.at("DATE"), ElementsAre("2020-01-21", "2020-01-31", "2020-03-01"));
    const h5::File f = h5::File::open(dir + "/e.h5");
    EXPECT_EQ(f.attr_string("/summary", "rows"), "report times");
    EXPECT_EQ(f.attr_string("/summary", "start_date"), "2020-01-01");
    const std::vector<double> time = f.read("/simulation/time").values;
    std::vector<std::size_t> at;
    for (std::size_t s = 0; s < time.size(); ++s) {
        if (time[s] == 20.0 || time[s] == 30.0 || time[s] == 60.0) at.push_back(s);
    }
    EXPECT_EQ(c.columns.at("WBHP:P1"), picked(f.read("/wells/P1/bhp").values, at));
    EXPECT_EQ(c.columns.at("WOPT:P1"), picked(f.read("/wells/P1/oil_total").values, at));

    const CliResult steps = run_heptane({"simulate", deck, "-o", dir + "/s.h5", "--backend", "cpu",
                                         "--set", "output.summary_rows=steps"});
    ASSERT_EQ(steps.code, kExitOk) << steps.err;
    EXPECT_EQ(read_csv(dir + "/s.csv").columns.at("TIME"), time);
    // The file's START gives the date: schedule.start beside it is exit 2.
    const CliResult both = run_heptane({"simulate", deck, "-o", dir + "/b.h5", "--backend", "cpu",
                                        "--set", "schedule.start=2020-01-01"});
    EXPECT_EQ(both.code, kExitBadInput);
    EXPECT_THAT(both.err, HasSubstr("schedule.start: schedule.eclipse's START gives it"));
    EXPECT_FALSE(fs::exists(dir + "/b.h5"));
}

TEST(Summary, AVectorOfNoWellRegionOrCellIsExit2AndWritesNothing) {
    const std::string dir = fresh_dir("summary_bad");
    const auto run = [&](const std::string& summary) {
        return run_heptane({"simulate", source_path(kDeck), "-o", dir + "/x.h5", "--set",
                            "output.summary=[FOPR, " + summary + "]"});
    };
    const struct {
        const char* summary;
        const char* message;
    } cases[] = {
        {"'WOPR:NOPE'", "output.summary[1]: 'NOPE' names no well of the deck"},
        {"'WOPR:Q*'", "output.summary[1]: the pattern 'Q*' names no well of the deck"},
        {"'RPR:2'",
         "output.summary[1]: region 2 does not exist (no FIPNUM: region 1 is the field)"},
        {"'BPR:9,1,1'", "output.summary[1]: cell (9,1,1) lies outside the grid (8, 6, 3)"},
        {"QOPR", "output.summary[1]: 'QOPR' is not a summary vector"},
        {"'FOPR:P1'", "output.summary[1]: 'FOPR:P1': FOPR takes no well, region or cell"},
    };
    for (const auto& x : cases) {
        const CliResult r = run(x.summary);
        EXPECT_EQ(r.code, kExitBadInput) << x.summary << ": " << r.err;
        EXPECT_THAT(r.err, HasSubstr(x.message)) << x.summary;
        EXPECT_THAT(r.err, HasSubstr("--set output.summary=")) << x.summary;  // where it was given
        EXPECT_TRUE(fs::is_empty(dir)) << x.summary;
    }
    // A deck that solves one system has no summary.
    const CliResult once = run_heptane({"run", source_path("inputs/demo.yaml"), "-o", dir + "/x.h5",
                                        "--set", "output.summary=[FOPR]"});
    EXPECT_EQ(once.code, kExitBadInput);
    EXPECT_THAT(once.err, HasSubstr("output.summary: only a simulation (a deck with schedule) "
                                    "has a summary"));
    EXPECT_TRUE(fs::is_empty(dir));
}

}  // namespace
}  // namespace heptane::app
