// `heptane simulate --restart` (design decision 57): a restarted run is the uninterrupted
// run bit for bit, with phase-rate controls and economic limits in the checkpoint (decisions
// 82, 86), as a chain of jobs, rescuing a failed run, extending a completed one; a restart
// that does not fit its deck exits 2 and writes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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
using namespace simulate_support;

/// The waterflood deck with `sets` run whole (full.h5), to day 20 (day20.h5) and from that
/// file to the end (restarted.h5) in a fresh folder `name`: the restarted file is the whole
/// run's bit for bit (compare, no tolerance). The whole run's and the restart's outputs.
struct RestartedRun {
    std::string full;  ///< the whole run's file
    CliResult whole, restart;
};
RestartedRun expect_the_restart_is_the_whole_run(const std::string& name,
                                                 const std::vector<std::string>& sets) {
    const std::string dir = fresh_dir(name);
    const auto simulate = [&](const std::string& out, std::vector<std::string> more) {
        std::vector<std::string> args = {"simulate", source_path(kDeck), "-o", out};
        args.insert(args.end(), sets.begin(), sets.end());
        args.insert(args.end(), more.begin(), more.end());
        return run_heptane(args);
    };
    RestartedRun r{dir + "/full.h5", simulate(dir + "/full.h5", {}), {}};
    EXPECT_EQ(r.whole.code, kExitOk) << r.whole.out << r.whole.err;
    const std::string day20 = dir + "/day20.h5", restarted = dir + "/restarted.h5";
    EXPECT_EQ(simulate(day20, {"--set", "schedule.end_time=20"}).code, kExitOk);
    r.restart = simulate(restarted, {"--restart", day20});
    EXPECT_EQ(r.restart.code, kExitOk) << r.restart.out << r.restart.err;
    EXPECT_EQ(run_heptane({"compare", restarted, r.full, "--rtol", "0", "--atol", "0"}).code,
              kExitOk);
    return r;
}

// Design decision 86: an event at day 10 gives PR a maximum water cut that its first water
// (day 50) breaks: the run shuts PR there, and a run stopped at day 20 and restarted, whose
// checkpoint must carry the limit, is the uninterrupted run bit for bit.
TEST(Simulate, ARestartKeepsEconomicLimits) {
    const RestartedRun r = expect_the_restart_is_the_whole_run(
        "restart_economic",
        {"--set", "schedule.events=[{time: 10, well: PR, max_water_cut: 0.00005}]"});
    // The event's log line names the limit it sets.
    EXPECT_NE(r.whole.out.find("day 10.00: PR -> BHP 3450 psi (schedule event; max_water_cut "
                               "5e-05)"),
              std::string::npos)
        << r.whole.out;
    for (const CliResult* run : {&r.whole, &r.restart}) {
        EXPECT_NE(run->out.find("day 50.00: PR -> shut (economic limit: oil "), std::string::npos)
            << run->out;
    }
    const h5::File f = h5::File::open(r.full);
    EXPECT_EQ(f.read("/wells/PR/control").values.back(), 0.0);             // shut in the last step
    EXPECT_EQ(f.read("/restart/wells/max_water_cut").values[2], 0.00005);  // PR
}

// Design decision 88: an event at day 10 gives PR an oil-rate limit no step reaches and well
// tests every 3 days, at most 2: PR is shut at day 15, opened by its first test at day 20 and
// shut again, opened by its second and shut for good. The checkpoint of day 20 must carry
// when it was shut and its tests, so the restarted run (whose second test is its own) is the
// uninterrupted run bit for bit.
TEST(Simulate, ARestartKeepsWellTests) {
    const RestartedRun r = expect_the_restart_is_the_whole_run(
        "restart_well_tests",
        {"--set",
         "schedule.events=[{time: 10, well: PR, min_oil_rate: 100000, test_interval: 3, "
         "test_count: 2}]"});
    EXPECT_NE(r.whole.out.find("test_interval 3 days; test_count 2)"), std::string::npos)
        << r.whole.out;
    EXPECT_NE(r.whole.out.find("day 20.00: PR -> BHP 3450 psi (well test 1 of 2, 5.00 days after "
                               "the economic limit shut it)"),
              std::string::npos)
        << r.whole.out;
    for (const CliResult* run : {&r.whole, &r.restart}) {
        EXPECT_NE(run->out.find("(well test 2 of 2, "), std::string::npos) << run->out;
        EXPECT_EQ(run->out.find("(well test 3"), std::string::npos) << run->out;
    }
    const h5::File f = h5::File::open(r.full);
    EXPECT_EQ(f.read("/wells/PR/control").values.back(), 0.0);  // shut after its tests
    EXPECT_EQ(f.read("/restart/wells/tests").values[2], 2.0);   // PR's failed tests
}

// Design decision 101: the summary's vectors of the cells (FPR, RPR, BPR) are sampled at every
// step; the checkpoint carries the samples of the steps before day 20 (/restart/summary_state),
// so the restarted run's table is the whole run's, text for text; without them (the file's
// samples removed) the rows before the restart are nan.
TEST(Simulate, ARestartKeepsTheSummarysSamples) {
    const RestartedRun r = expect_the_restart_is_the_whole_run(
        "restart_summary", {"--set", "output.summary=[FPR, 'RPR:1', 'BPR:2,2,2', FOPT, 'WBHP:PR']",
                            "--set", "schedule.events=[{time: 15, well: PB, status: shut}]"});
    const fs::path dir = fs::path(r.full).parent_path();
    const auto text = [](const fs::path& p) {
        std::ifstream in(p);
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    };
    const std::string whole = text(dir / "full.csv");
    EXPECT_NE(whole.find("TIME,FPR,RPR:1,\"BPR:2,2,2\",FOPT,WBHP:PR\n"), std::string::npos)
        << whole;
    EXPECT_EQ(text(dir / "restarted.csv"), whole);
    EXPECT_EQ(whole.find("nan"), std::string::npos);
    // The day-20 file without its samples: the restart's first rows are nan.
    {
        h5::File f = h5::File::append((dir / "day20.h5").string());
        f.remove("/restart/summary_state");
        f.close();
    }
    const std::string again = (dir / "again.h5").string();
    ASSERT_EQ(run_heptane({"simulate", source_path(kDeck), "-o", again, "--restart",
                           (dir / "day20.h5").string(), "--set",
                           "output.summary=[FPR, 'RPR:1', 'BPR:2,2,2', FOPT, 'WBHP:PR']", "--set",
                           "schedule.events=[{time: 15, well: PB, status: shut}]"})
                  .code,
              kExitOk);
    const std::string partial = text(dir / "again.csv");
    EXPECT_NE(partial.find("\n0.5,nan,nan,nan,"), std::string::npos) << partial;
    EXPECT_EQ(partial.substr(partial.rfind('\n', partial.size() - 2)),
              whole.substr(whole.rfind('\n', whole.size() - 2)));  // the last row
}

// Design decision 89: a restart computes its file's earlier reports' fluid in place by region
// again from their fields, so a deck given FIP regions on restart has the whole series: a run
// without regions stopped after its first step (its file has the day-0 report), restarted with
// them, is the uninterrupted run with them (and it fails with the file's reports' regions left
// out).
TEST(Simulate, ARestartGivesTheRegionsFluidInPlaceOfTheWholeRun) {
    const std::string dir = fresh_dir("restart_fip");
    const std::string deck = source_path(kDeck);
    const std::string regions = "rock.fip_regions={kind: layered, values: [1, 2, 2]}";
    const std::string full = dir + "/full.h5", day20 = dir + "/day20.h5", out = dir + "/out.h5";
    ASSERT_EQ(run_heptane({"simulate", deck, "-o", full, "--set", regions}).code, kExitOk);
    ASSERT_EQ(run_heptane({"simulate", deck, "-o", day20, "--max-wall-time", "1e-9"}).code,
              kExitFailed);
    EXPECT_FALSE(h5::File::open(day20).exists("/regions"));
    const CliResult r =
        run_heptane({"simulate", deck, "-o", out, "--restart", day20, "--set", regions});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    EXPECT_EQ(run_heptane({"compare", out, full, "--rtol", "0", "--atol", "0"}).code, kExitOk);
    expect_same_statistics(out, full);
    EXPECT_EQ(h5::File::open(out).read("/regions/in_place/oil").dims, (std::vector<hsize_t>{4, 2}));
}

// Design decision 82: the checkpoint keeps a phase-rate control (PR on its oil rate until
// its limit at day 20, PB switched to its water rate at day 15): a run stopped at day 20 and
// restarted is the uninterrupted run bit for bit, and the file's control codes say which
// phase (3, 4).
TEST(Simulate, ARestartKeepsPhaseRateControls) {
    const RestartedRun r = expect_the_restart_is_the_whole_run(
        "restart_phase_rates",
        {"--set", "wells[2].control={kind: oil_rate, value: 40}", "--set",
         "initial.water_saturation=0.35",  // mobile water: PB can deliver its water rate
         "--set",
         "schedule.events=[{time: 15, well: PB, control: {kind: water_rate, value: 30}, "
         "min_bhp: 2000}]"});
    const h5::File f = h5::File::open(r.full);
    const std::vector<double> pr = f.read("/wells/PR/control").values;
    const std::vector<double> pb = f.read("/wells/PB/control").values;
    EXPECT_EQ(pr.front(), 3.0);  // oil rate
    EXPECT_EQ(pb.back(), 4.0);   // water rate
}

// Design decision 100: INJ and PR on reservoir volume rates from the YAML deck (PR's the volume
// of surface rates, as WCONHIST RESV gives it: the checkpoint keeps them), INJ's changed by an
// event; a restart converts them at the checkpoint's state, as the whole run did at day 20, so
// the restarted file is the whole run's bit for bit; /wells stores the control (code 5).
TEST(Simulate, ARestartKeepsReservoirRateControls) {
    const RestartedRun r = expect_the_restart_is_the_whole_run(
        "restart_reservoir_rates",
        {"--set", "wells[0].control={kind: reservoir_rate, value: 150}", "--set",
         "wells[2].control={kind: reservoir_rate, surface: {oil_rate: 100, water_rate: 20}}",
         "--set",
         "schedule.events=[{time: 10, well: INJ, control: {kind: reservoir_rate, value: 200}}]"});
    const h5::File f = h5::File::open(r.full);
    EXPECT_EQ(f.read("/wells/INJ/control").values.front(), 5.0);
    EXPECT_EQ(f.read("/wells/PR/control").values.front(), 5.0);
    EXPECT_NE(r.whole.out.find("INJ -> reservoir_rate 200 rb/day"), std::string::npos)
        << r.whole.out;
}

// A run stopped after its first step (the wall-clock limit) and one ended at day 20 (a shut
// well, a rate producer at its BHP limit), each restarted with the whole deck, a chain of
// jobs on one file, a failed run rescued, and the completed run extended to day 90: each file is
// the uninterrupted run's, every result (and but for the rescued run's failed attempts, statistic)
// bit for bit.
TEST(Simulate, ARestartGoesOnWithTheUninterruptedRunsBits) {
    const std::string dir = fresh_dir("restart");
    const std::string deck = source_path(kDeck);
    const std::string full = dir + "/full.h5";
    ASSERT_EQ(run_heptane({"simulate", deck, "-o", full}).code, kExitOk);

    const std::string stopped = dir + "/stopped.h5", day20 = dir + "/day20.h5";
    ASSERT_EQ(run_heptane({"simulate", deck, "-o", stopped, "--max-wall-time", "1e-9"}).code,
              kExitFailed);
    const CliResult early =
        run_heptane({"simulate", deck, "-o", day20, "--set", "schedule.end_time=20", "--set",
                     "schedule.events=[{time: 15, well: PB, status: shut}]"});
    ASSERT_EQ(early.code, kExitOk) << early.err;
    ASSERT_NE(early.out.find("PR -> BHP 3450 psi (BHP limit reached)"), std::string::npos)
        << "the day-20 state should have a well at its limit\n"
        << early.out;
    {
        const h5::File f = h5::File::open(day20);
        const std::vector<double> shut = f.read("/restart/wells/open").values;
        EXPECT_EQ(shut, (std::vector<double>{1.0, 0.0, 1.0}));  // PB shut at day 15
    }
    for (const std::string& from : {stopped, day20}) {
        const std::string out = dir + "/restarted.h5";
        const CliResult r = run_heptane({"simulate", deck, "-o", out, "--restart", from});
        ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
        EXPECT_NE(r.out.find("  restart     from " + from + " at day "), std::string::npos)
            << r.out;
        const CliResult same = run_heptane({"compare", out, full, "--rtol", "0", "--atol", "0"});
        EXPECT_EQ(same.code, kExitOk) << from << "\n" << same.out;
        expect_same_statistics(out, full);
        const h5::File f = h5::File::open(out);
        EXPECT_EQ(f.attr_string("/simulation", "restarted_from").rfind(from + " at day ", 0), 0u);
    }
    // A batch queue's chain of jobs on one file: three stopped after a step each
    // (--max-wall-time), the last to the end.
    const std::string chain = dir + "/chain.h5";
    for (int job = 0; job < 3; ++job) {
        std::vector<std::string> args = {"simulate", deck, "-o", chain, "--max-wall-time", "1e-9"};
        if (job > 0) args.insert(args.end(), {"--restart", chain});
        ASSERT_EQ(run_heptane(args).code, kExitFailed) << "job " << job;
        EXPECT_EQ(h5::File::open(chain).read("/simulation/time").values.size(),
                  static_cast<std::size_t>(job + 1));
    }
    ASSERT_EQ(run_heptane({"simulate", deck, "-o", chain, "--restart", chain}).code, kExitOk);
    EXPECT_EQ(run_heptane({"compare", chain, full, "--rtol", "0", "--atol", "0"}).code, kExitOk);
    expect_same_statistics(chain, full);
    // A failed run (one BiCGStab iteration a solve) rescued with the deck's solver: the same
    // results; the failed attempts stay in its history.
    const std::string failed = dir + "/failed.h5", rescued = dir + "/rescued.h5";
    ASSERT_EQ(run_heptane({"simulate", deck, "-o", failed, "--set", "solver.max_iterations=1",
                           "--set", "schedule.max_cuts=2"})
                  .code,
              kExitFailed);
    ASSERT_EQ(run_heptane({"simulate", deck, "-o", rescued, "--restart", failed}).code, kExitOk);
    EXPECT_EQ(run_heptane({"compare", rescued, full, "--rtol", "0", "--atol", "0"}).code, kExitOk);
    const h5::File f = h5::File::open(rescued);
    EXPECT_EQ(f.attr_double("/simulation", "cuts"), 3.0);
    EXPECT_EQ(f.read("/simulation/newton/step").values.size(),
              h5::File::open(full).read("/simulation/newton/step").values.size() + 3);
    // The completed run extended to day 90 is the 90-day run.
    const std::string longer = dir + "/longer.h5", extended = dir + "/extended.h5";
    ASSERT_EQ(run_heptane({"simulate", deck, "-o", longer, "--set", "schedule.end_time=90"}).code,
              kExitOk);
    ASSERT_EQ(run_heptane({"simulate", deck, "-o", extended, "--restart", full, "--set",
                           "schedule.end_time=90"})
                  .code,
              kExitOk);
    EXPECT_EQ(run_heptane({"compare", extended, longer, "--rtol", "0", "--atol", "0"}).code,
              kExitOk);
    expect_same_statistics(extended, longer);
}

TEST(Simulate, ARestartThatDoesNotFitItsDeckExitsWith2AndWritesNothing) {
    const std::string dir = fresh_dir("restart_bad");
    const std::string deck = source_path(kDeck);
    const std::string day20 = dir + "/day20.h5", solved = dir + "/run.h5";
    ASSERT_EQ(run_heptane({"simulate", deck, "-o", day20, "--set", "schedule.end_time=20", "--set",
                           "schedule.events=[{time: 15, well: PB, status: shut}]"})
                  .code,
              kExitOk);
    ASSERT_EQ(
        run_heptane({"run", source_path("tests/app/decks/small_two_phase.yaml"), "-o", solved})
            .code,
        kExitOk);
    // A /restart whose pressure has the wrong length (a file from elsewhere).
    const std::string short_field = dir + "/short.h5";
    {
        h5::File f = h5::File::create(short_field);
        f.attr("/", "unit_system", std::string("field"));
        f.write("/restart/pressure", std::vector<double>(5, 2.0e7), {5});
        for (const char* name : {"time", "dt_next", "dt_initial"})
            f.attr("/restart", name, 86400.0);
        for (const char* name : {"events", "attempts", "cuts"}) f.attr("/restart", name, 0LL);
        f.attr("/restart", "nx", 8LL);
        f.attr("/restart", "ny", 6LL);
        f.attr("/restart", "nz", 3LL);
        f.attr("/restart", "well_names", std::string("INJ\nPB\nPR"));
    }
    const struct {
        std::vector<std::string> args;
        std::string message;
    } bad[] = {
        {{"--restart", solved}, solved + ": /restart: missing"},
        {{"--restart", short_field}, short_field + ": /restart/pressure: 5 values, expected 144"},
        {{"--restart", day20, "--set", "schedule.events=[]"},
         day20 + ": restart: the run applied 1 well events up to day 20, this deck's schedule "
                 "has 0 before it"},
        {{"--restart", day20, "--set", "schedule.end_time=18", "--set",
          "schedule.events=[{time: 15, well: PB, status: shut}]"},
         day20 + ": restart: the run is at day 20, past this deck's end_time (day 18)"},
        {{"--restart", day20, "--set", "grid.dims=[8, 6, 4]"},
         day20 + ": /restart@nz: the file's grid is 8 x 6 x 3, this deck's 8 x 6 x 4"},
        {{"--restart", day20, "--set", "wells[2].name=PX"},
         day20 + ": /restart@well_names: the file's wells differ from this deck's"},
        {{"--restart", day20, "--set", "wells[2].control.value=100"},
         "waterflood.yaml:24: wells[2].control: differs from the run of " + day20 +
             " (a restart goes on with that run's controls and limits; change them with a "
             "schedule event at the restart time, day 20)"},
        {{"--restart", day20, "--set", "wells[0].max_bhp=6100"}, "wells[0].max_bhp: differs"},
        {{"--restart", day20, "--set", "wells[2].min_oil_rate=10"},
         "wells[2].min_oil_rate: differs"},
        {{"--restart", day20, "--set", "units=metric"},
         day20 + ": /@unit_system: 'field', this deck's is 'metric'"},
    };
    for (const auto& b : bad) {
        std::vector<std::string> args = {"simulate", deck, "-o", dir + "/out.h5"};
        args.insert(args.end(), b.args.begin(), b.args.end());
        const CliResult r = run_heptane(args);
        EXPECT_EQ(r.code, kExitBadInput) << b.message << "\n" << r.err;
        EXPECT_NE(r.err.find(b.message), std::string::npos) << "expected '" << b.message << "' in\n"
                                                            << r.err;
        EXPECT_FALSE(fs::exists(dir + "/out.h5"));
    }
}

}  // namespace
}  // namespace heptane::app
