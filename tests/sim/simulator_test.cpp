// The simulation loop: inactive cells, the Jacobian against finite differences at a
// mid-simulation state, well events and limits, restarts, time-step cuts and a failed run,
// and the schedule's validation (the mass balance: fluid_balance_test.cpp).
#include "sim/simulator.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>

#include "common/temp_file.hpp"
#include "common/test_systems.hpp"
#include "core/base/eigen_interop.hpp"
#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "core/matrix/formats.hpp"
#include "sim/simulation_test_support.hpp"

namespace heptane::sim {
namespace {

using namespace test_support;
using wells::ControlKind;
using wells::WellSpec;

// Issue 20: a simulation of the ACTNUM model (inactive cells around a box, per-cell sizes and
// dipping tops) against the same model with the inactive cells removed by hand. Every step
// must be the same step (dt, Newton iterations) with the same well rates and pressures to the
// linear tolerance's rounding, the inactive cells must never move, and the ACTNUM run must
// conserve mass with each cell's own volume.
TEST(Simulator, InactiveCellsSimulateAsTheSmallerGrid) {
    const test::ActnumPair p = test::actnum_pair(test::TempFolder().path());
    struct Run {
        std::unique_ptr<wells::TwoPhaseSystem> system;
        std::unique_ptr<Simulator> sim;
        std::vector<StepRecord> steps;
    };
    const auto start = [&](const wells::Model& m, const wells::ModelSpec& spec) {
        Run r;
        r.system =
            std::make_unique<wells::TwoPhaseSystem>(m.grid, m.rock, spec.two_phase, spec.wells);
        const grid::CellState x0 = r.system->cells().equilibrium_state(
            spec.initial.pressure, spec.initial.datum_depth, spec.initial.water_saturation);
        r.sim =
            std::make_unique<Simulator>(*r.system, x0, schedule(20.0), cpu_solver(), linear(1e-12));
        return r;
    };
    Run big = start(p.with_actnum, p.spec_with_actnum);
    Run small = start(p.removed, p.spec_removed);
    const grid::CellState x0 = big.sim->state().cells;
    const grid::Grid3D& g = p.with_actnum.grid;
    const grid::TwoPhaseParams& prm = p.spec_with_actnum.two_phase;
    // Fluid in place with each cell's own volume (inactive cells have porosity 0).
    const auto fip = [&](const grid::CellState& x) {
        std::array<double, 2> f{0.0, 0.0};
        for (index_t m = 0; m < g.num_cells(); ++m) {
            const double dp = x.p[m] - prm.reference_pressure;
            const double phi =
                p.with_actnum.rock.porosity[m] * std::exp(prm.rock_compressibility * dp);
            f[0] += g.volume(m) * phi * std::exp(prm.oil.compressibility * dp) * (1.0 - x.sw[m]);
            f[1] += g.volume(m) * phi * std::exp(prm.water.compressibility * dp) * x.sw[m];
        }
        return f;
    };
    double pv = 0.0;
    for (index_t m = 0; m < g.num_cells(); ++m) pv += g.volume(m) * p.with_actnum.rock.porosity[m];
    std::array<double, 2> before = fip(x0);
    Observer balance;
    balance.step = [&](const StepRecord& step) {
        const std::array<double, 2> now = fip(big.sim->state().cells);
        for (int a = 0; a < 2; ++a) {
            double produced = 0.0;
            for (const wells::WellRates& q : step.rates) produced += (a == 0 ? q.oil : q.water);
            EXPECT_LE(std::abs(now[a] - before[a] + produced * step.dt) / pv, 1e-6)
                << "step " << step.step << " phase " << a;
        }
        before = now;
    };
    ASSERT_TRUE(big.sim->run(balance).completed);
    ASSERT_TRUE(small.sim->run().completed);
    const std::vector<StepRecord>& a = big.sim->steps();
    const std::vector<StepRecord>& b = small.sim->steps();
    ASSERT_EQ(a.size(), b.size());
    ASSERT_GE(a.size(), 5u);
    for (std::size_t n = 0; n < a.size(); ++n) {
        EXPECT_EQ(a[n].dt, b[n].dt) << "step " << n;
        EXPECT_EQ(a[n].newton_iterations, b[n].newton_iterations) << "step " << n;
        for (std::size_t w = 0; w < 2; ++w) {
            const double qa = a[n].rates[w].oil + a[n].rates[w].water;
            const double qb = b[n].rates[w].oil + b[n].rates[w].water;
            EXPECT_NEAR(qa, qb, 1e-7 * std::abs(qb)) << "step " << n << " well " << w;
        }
    }
    for (std::size_t w = 0; w < 2; ++w) {
        EXPECT_NEAR(big.sim->state().p_bh[w], small.sim->state().p_bh[w],
                    1e-9 * small.sim->state().p_bh[w]);
    }
    const grid::CellState& x = big.sim->state().cells;
    for (index_t m = 0; m < g.num_cells(); ++m) {
        if (p.with_actnum.rock.is_active(m)) continue;
        ASSERT_EQ(x.p[m], x0.p[m]) << m;
        ASSERT_EQ(x.sw[m], x0.sw[m]) << m;
    }
}

/// The residual with each well under `controls`.
std::vector<double> residual(const wells::TwoPhaseSystem& sys, const State& x,
                             const grid::CellState& old, double dt,
                             const std::vector<wells::WellControl>& controls, GHMatrix* jac) {
    std::vector<double> res, res_wells;
    sys.cells().assemble(x.cells, old, dt, res, jac);
    sys.wells().assemble(x.cells, x.p_bh, controls, res, res_wells, jac);
    res.insert(res.end(), res_wells.begin(), res_wells.end());
    return res;
}

TEST(Simulator, JacobianMatchesFiniteDifferencesMidSimulation) {
    // Water has moved, one producer runs at its BHP limit and one well is shut: the state
    // and controls of day 12 of a flood, not the initial equilibrium.
    Reservoir r;
    Schedule s = schedule(12.0);
    WellEvent shut;
    shut.time = 8.0 * kDay;
    shut.well = 2;
    shut.open = false;
    s.events = {shut};
    Simulator sim(*r.system, r.x0, s, cpu_solver(), linear());
    grid::CellState before_last;
    Observer obs;
    grid::CellState previous = r.x0;
    obs.step = [&](const StepRecord&) {
        before_last = previous;
        previous = sim.state().cells;
    };
    ASSERT_TRUE(sim.run(obs).completed);
    ASSERT_FALSE(sim.controls()[2].open);
    double water_moved = 0.0;
    for (double sw : sim.state().cells.sw) water_moved = std::max(water_moved, sw - 0.3);
    ASSERT_GT(water_moved, 0.01);

    const State x = sim.state();
    const double dt = sim.steps().back().dt;
    const grid::Grid3D& g = r.spec.grid;
    // The run's controls (INJ and PR at their rates, PB shut), and PR at its BHP limit.
    std::vector<wells::WellControl> at_limit = sim.controls();
    at_limit[1] = {true, ControlKind::bhp, 5900.0 * units::kPsi};
    double worst = 0.0;
    for (const auto& controls : {sim.controls(), at_limit}) {
        GHMatrix jac(g.nx, g.ny, g.nz, 2);
        const std::vector<double> r0 = residual(*r.system, x, before_last, dt, controls, &jac);
        const Eigen::MatrixXd J = Eigen::MatrixXd(to_eigen(to_csr(jac)));
        const index_t M = g.num_cells();
        const index_t n = jac.rows();
        // Steps: 1e-5 bar, 1e-6 in saturation. A mid-simulation state has faces whose upwind
        // potential difference is small (one of 1e-3 bar here): the steps stay below such kinks.
        const double hp = 1.0e-5, hs = 1.0e-6;
        double worst = 0.0;
        for (index_t u = 0; u < n; ++u) {
            State xp = x, xm = x;
            double h = hp;
            if (u < 2 * M) {
                const index_t m = u / 2;
                if (u % 2 == 0) {
                    xp.cells.p[m] += hp * units::kPressureScale;
                    xm.cells.p[m] -= hp * units::kPressureScale;
                } else {
                    h = hs;
                    xp.cells.sw[m] += hs;
                    xm.cells.sw[m] -= hs;
                }
            } else {
                xp.p_bh[u - 2 * M] += hp * units::kPressureScale;
                xm.p_bh[u - 2 * M] -= hp * units::kPressureScale;
            }
            const auto rp = residual(*r.system, xp, before_last, dt, controls, nullptr);
            const auto rm = residual(*r.system, xm, before_last, dt, controls, nullptr);
            const double col_max = J.col(u).cwiseAbs().maxCoeff();
            ASSERT_GT(col_max, 0.0) << "empty Jacobian column " << u;
            for (index_t i = 0; i < n; ++i) {
                const double fd = (rp[i] - rm[i]) / (2.0 * h);
                const double rel = std::abs(fd - J(i, u)) / col_max;
                worst = std::max(worst, rel);
                ASSERT_LE(rel, 1.0e-6)
                    << "row " << i << ", column " << u << ": AD " << J(i, u) << ", FD " << fd;
            }
        }
    }
    RecordProperty("worst_relative_error", std::to_string(worst));
}

/// 14 days of the three-well reservoir with test::switching_events (PB shut from day 4 to 7,
/// PR's limit lowered on day 10).
Schedule switching_schedule(const Reservoir& r) {
    Schedule s = schedule(14.0);
    s.events = test::switching_events();  // not in time order: applied in time order
    validate(s, r.spec.wells);
    return s;
}

TEST(Simulator, WellsFollowEventsAndLimits) {
    // PR produces 4 m^3/day until its BHP would fall below 5,900 psi (then BHP control),
    // and goes back to its rate when it can deliver it again at the limit (the injector
    // repressurizes while PB is shut from day 4 to day 7; on day 10 PR's limit drops to
    // 3,000 psi).
    Reservoir r;
    Simulator sim(*r.system, r.x0, switching_schedule(r), cpu_solver(), linear());
    std::vector<ControlSwitch> log;
    Observer obs;
    obs.control = [&](const ControlSwitch& c) { log.push_back(c); };
    ASSERT_TRUE(sim.run(obs).completed);

    const auto found = [&](std::size_t well, ControlChange why) {
        return std::find_if(log.begin(), log.end(),
                            [&](const ControlSwitch& c) { return c.well == well && c.why == why; });
    };
    const auto to_limit = found(1, ControlChange::limit);
    ASSERT_NE(to_limit, log.end());
    EXPECT_LT(to_limit->time, 10.0 * kDay);
    EXPECT_EQ(to_limit->control.kind, ControlKind::bhp);
    EXPECT_EQ(to_limit->control.target, 5900.0 * units::kPsi);
    const auto back = found(1, ControlChange::rate_restored);
    ASSERT_NE(back, log.end());
    EXPECT_GT(back->time, to_limit->time);
    EXPECT_EQ(back->control.kind, ControlKind::rate);
    for (const StepRecord& step : sim.steps()) {
        const double t = step.time / kDay;
        const double q_pr = step.rates[1].oil + step.rates[1].water;
        const double min_bhp = (t > 10.0 ? 3000.0 : 5900.0) * units::kPsi;
        if (step.controls[1].kind == ControlKind::bhp) {
            EXPECT_NEAR(step.bhp[1], min_bhp, 1e-3) << "day " << t;
            EXPECT_LE(q_pr, 4.0 / kDay * (1.0 + 1e-6)) << "day " << t;
        } else {
            EXPECT_GE(step.bhp[1], min_bhp * (1.0 - 1e-9)) << "day " << t;
            EXPECT_NEAR(q_pr, step.controls[1].target, 1e-6 * step.controls[1].target);
        }
        const bool shut_now = t > 4.0 && t <= 7.0;
        EXPECT_EQ(step.controls[2].open, !shut_now) << "day " << t;
        if (shut_now) {
            EXPECT_EQ(step.rates[2].oil + step.rates[2].water, 0.0);
        }
        // the injector injects its rate (or less at its max BHP)
        EXPECT_LE(-step.rates[0].water, 5.0 / kDay * (1.0 + 1e-6));
        EXPECT_LE(step.bhp[0], 9000.0 * units::kPsi * (1.0 + 1e-9));
    }
    // Every report time and event time is a step's end.
    for (double t : {4.0, 7.0, 7.0, 10.0, 14.0}) {
        EXPECT_TRUE(std::any_of(sim.steps().begin(), sim.steps().end(),
                                [t](const StepRecord& st) { return st.time == t * kDay; }))
            << "day " << t;
    }
}

/// The phase rate a producer's control holds (the liquid's for `rate`).
double phase_rate_of(ControlKind k, const wells::WellRates& q) {
    return k == ControlKind::oil_rate     ? q.oil
           : k == ControlKind::water_rate ? q.water
                                          : q.oil + q.water;
}

// Design decision 82: PR on its oil or its water surface rate (Eclipse's ORAT, WRAT) through
// the events and limits of WellsFollowEventsAndLimits: on its rate, that phase's rate is the
// target while the other phase flows too (so it is not the liquid's rate); at its limit, the
// limit's BHP with less of the phase than the target; it goes to the limit and comes back
// by the phase's rate. It fails if the rate equation or the way back sums the wrong phases.
// Decision 100: the same on its reservoir volume rate, each step's volume at the factors of
// the state before it, and back to that control from its limit. (Whether the way back is
// judged by the volume or by the surface rates, this schedule does not tell apart: tried.)
class PhaseRateProducer : public ::testing::TestWithParam<ControlKind> {};

TEST_P(PhaseRateProducer, HoldsItsPhasesRateThroughEventsAndLimits) {
    const ControlKind kind = GetParam();
    const bool reservoir = kind == ControlKind::reservoir_rate;
    const double target = (kind == ControlKind::water_rate ? 1.2 : 3.0) / kDay;
    Reservoir r;
    r.spec.wells[1].control = kind;
    r.spec.wells[1].target = target;
    if (reservoir) {  // factors far from 1: the surface rates are not the volume
        r.spec.two_phase.oil.volume_factor = 1.25;
        r.spec.two_phase.water.volume_factor = 1.05;
    }
    r.system = std::make_unique<wells::TwoPhaseSystem>(r.spec.grid, r.rock, r.spec.two_phase,
                                                       r.spec.wells);
    Simulator sim(*r.system, r.x0, switching_schedule(r), cpu_solver(), linear());
    std::vector<ControlSwitch> log;
    std::vector<std::array<double, 2>> factors{
        // each step's start's
        r.system->wells().reservoir_factors(sim.state().cells)};
    Observer obs;
    obs.control = [&](const ControlSwitch& c) { log.push_back(c); };
    obs.step = [&](const StepRecord&) {
        factors.push_back(r.system->wells().reservoir_factors(sim.state().cells));
    };
    ASSERT_TRUE(sim.run(obs).completed);
    int on_rate = 0, on_limit = 0;
    for (const StepRecord& step : sim.steps()) {
        const double t = step.time / kDay;
        const double min_bhp = (t > 10.0 ? 3000.0 : 5900.0) * units::kPsi;
        const wells::WellRates& q = step.rates[1];
        const std::array<double, 2>& f = factors[static_cast<std::size_t>(step.step)];
        const double mine = reservoir ? f[0] * q.oil + f[1] * q.water : phase_rate_of(kind, q);
        if (step.controls[1].kind == ControlKind::bhp) {
            ++on_limit;
            EXPECT_NEAR(step.bhp[1], min_bhp, 1e-3) << "day " << t;
            EXPECT_LE(mine, target * (1.0 + 1e-6)) << "day " << t;
        } else {
            ++on_rate;
            EXPECT_EQ(step.controls[1].kind, kind);
            EXPECT_NEAR(mine, target, 1e-6 * target) << "day " << t;
            if (!reservoir) {  // the other phase
                EXPECT_GT(q.oil + q.water - mine, 0.05 * target) << "day " << t;
            }
            EXPECT_GE(step.bhp[1], min_bhp * (1.0 - 1e-9)) << "day " << t;
        }
    }
    EXPECT_GT(on_rate, 0);
    EXPECT_GT(on_limit, 0);
    const auto back = std::find_if(log.begin(), log.end(), [](const ControlSwitch& c) {
        return c.well == 1 && c.why == ControlChange::rate_restored;
    });
    ASSERT_NE(back, log.end());
    EXPECT_EQ(back->control.kind, kind);
}

INSTANTIATE_TEST_SUITE_P(Simulator, PhaseRateProducer,
                         ::testing::Values(ControlKind::oil_rate, ControlKind::water_rate,
                                           ControlKind::reservoir_rate),
                         [](const auto& info) {
                             return std::string(wells::control_kind_name(info.param));
                         });

// A run stopped after k accepted steps and resumed from its checkpoint by a new simulator
// (a new NewtonSystem and solver object) is the uninterrupted run, record for record, for
// every k: at the start, mid-interval, with PB shut (day 4-7), with PR at its BHP limit, at
// the end.
TEST(Simulator, ResumedFromACheckpointItIsTheUninterruptedRun) {
    Reservoir r;
    const Schedule s = switching_schedule(r);
    Simulator full(*r.system, r.x0, s, cpu_solver(), linear());
    ASSERT_TRUE(full.run().completed);
    const int n = static_cast<int>(full.steps().size());
    bool shut = false, on_limit = false;
    for (int k = 0; k <= n; ++k) {
        Simulator first(*r.system, r.x0, s, cpu_solver(), linear());
        Observer stop;
        stop.stop = [&]() {
            return static_cast<int>(first.steps().size()) >= k ? "stop" : std::string();
        };
        if (k > 0) first.run(stop);
        const Checkpoint c = first.checkpoint();
        ASSERT_EQ(static_cast<int>(c.steps.size()), std::min(k, n)) << "k " << k;
        shut = shut || !c.wells[2].open;
        on_limit = on_limit || c.wells[1].on_limit;

        Simulator second(*r.system, make_host_newton(*r.system, c.state, cpu_solver(), linear()), s,
                         linear());
        second.resume(c);
        int first_report = -1;
        Observer obs;
        obs.report = [&](int index, double) {
            if (first_report < 0) first_report = index;
        };
        ASSERT_TRUE(second.run(obs).completed) << "k " << k;
        EXPECT_EQ(first_report, std::count_if(s.report_times.begin(), s.report_times.end(),
                                              [&](double t) { return t <= c.time; }));
        expect_same_records(second, full);
    }
    EXPECT_TRUE(shut) << "no checkpoint had PB shut";
    EXPECT_TRUE(on_limit) << "no checkpoint had PR at its BHP limit";
}

TEST(Simulator, ResumeRefusesACheckpointThatDoesNotFitTheSchedule) {
    Reservoir r;
    const Schedule s = switching_schedule(r);
    Simulator first(*r.system, r.x0, s, cpu_solver(), linear());
    Observer stop;
    stop.stop = [&]() { return first.time() > 8.0 * kDay ? "stop" : std::string(); };
    first.run(stop);
    const Checkpoint c = first.checkpoint();
    const auto message = [&](const Schedule& other, const Checkpoint& from) {
        Simulator sim(*r.system, make_host_newton(*r.system, from.state, cpu_solver(), linear()),
                      other, linear());
        try {
            sim.resume(from);
        } catch (const InputError& e) {
            EXPECT_EQ(e.key(), "restart");
            return e.detail();
        }
        return std::string("accepted");
    };
    EXPECT_EQ(message(s, c), "accepted");
    // A deck with only the day-7 event: the run applied two (days 4 and 7) by its stop (day
    // 10, or a step's end before it), and the deck none at the stop to make up the count.
    ASSERT_GT(c.time, 8.0 * kDay);
    ASSERT_LE(c.time, 10.0 * kDay);
    Schedule fewer = s;
    fewer.events.erase(std::remove_if(fewer.events.begin(), fewer.events.end(),
                                      [](const WellEvent& e) { return e.time != 7.0 * kDay; }),
                       fewer.events.end());
    EXPECT_NE(message(fewer, c).find("the run applied 2 well events up to day"), std::string::npos);
    Schedule shorter = s;
    shorter.report_times = {7.0 * kDay};
    EXPECT_NE(message(shorter, c).find("past this deck's end_time"), std::string::npos);
    Checkpoint more_wells = c;
    more_wells.wells.push_back({});
    EXPECT_NE(message(s, more_wells).find("the run has 4 wells, this deck 3"), std::string::npos);
}

// A step from an event's time that failed leaves the checkpoint with the event applied (the
// events due apply before the attempts): resumed from there, the run is the uninterrupted one.
// Made here from the checkpoint after the step that lands on day 4, PB's shut applied to it
// as run() applies it.
TEST(Simulator, ResumesWithTheEventsAtItsTimeAppliedOrNot) {
    Reservoir r;
    const Schedule s = switching_schedule(r);
    Simulator full(*r.system, r.x0, s, cpu_solver(), linear());
    ASSERT_TRUE(full.run().completed);
    Simulator first(*r.system, r.x0, s, cpu_solver(), linear());
    Observer stop;
    stop.stop = [&]() { return first.time() >= 4.0 * kDay ? "stop" : std::string(); };
    first.run(stop);
    Checkpoint c = first.checkpoint();
    ASSERT_EQ(c.time, 4.0 * kDay);
    ASSERT_EQ(c.events, 0);
    ASSERT_TRUE(c.wells[2].open);
    for (bool applied : {false, true}) {
        if (applied) {  // Simulator::apply_event for PB's shut
            c.events = 1;
            c.wells[2].open = false;
            c.wells[2].shut_bhp = c.state.p_bh[2];
        }
        Simulator second(*r.system, make_host_newton(*r.system, c.state, cpu_solver(), linear()), s,
                         linear());
        second.resume(c);
        ASSERT_TRUE(second.run().completed);
        expect_same_records(second, full);
    }
    c.events = 2;  // more than the deck has up to day 4
    Simulator third(*r.system, make_host_newton(*r.system, c.state, cpu_solver(), linear()), s,
                    linear());
    try {
        third.resume(c);
        ADD_FAILURE() << "resume accepted 2 events up to day 4";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("has 0 before it and 1 at it"), std::string::npos)
            << e.what();
    }
}

// What steers the run from a checkpoint may change: a new dt_initial is the next step, a
// lower dt_max caps it.
TEST(Simulator, ResumeTakesTheSchedulesNewFirstStepOrLowerMaximum) {
    Reservoir r;
    const Schedule s = switching_schedule(r);
    Simulator first(*r.system, r.x0, s, cpu_solver(), linear());
    Observer stop;
    // Day 10 (an event) is a step's end; 4 days to the next stop, far from landing on it.
    stop.stop = [&]() { return first.time() >= 10.0 * kDay ? "stop" : std::string(); };
    first.run(stop);
    const Checkpoint c = first.checkpoint();
    ASSERT_EQ(c.time, 10.0 * kDay);
    ASSERT_GT(c.dt_next, 1.0 * kDay);
    const auto next_step = [&](const Schedule& other) {
        Simulator sim(*r.system, make_host_newton(*r.system, c.state, cpu_solver(), linear()),
                      other, linear());
        sim.resume(c);
        Observer once;
        once.stop = [] { return std::string("one step"); };
        sim.run(once);
        return sim.steps().at(c.steps.size()).dt;
    };
    Schedule same = s, smaller_first = s, lower_max = s;
    smaller_first.dt.initial = 0.25 * kDay;
    lower_max.dt.max = 1.0 * kDay;
    EXPECT_EQ(next_step(smaller_first), 0.25 * kDay);
    EXPECT_EQ(next_step(lower_max), 1.0 * kDay);
    EXPECT_GT(next_step(same), 1.0 * kDay);
}

TEST(Simulator, CutsFailedStepsAndStopsWithAReason) {
    // A linear solver that cannot converge (one iteration to 1e-14): every attempt fails, the
    // step is cut max_cuts times and the run ends, not crashes.
    Reservoir r;
    Schedule s = schedule(10.0);
    s.dt.max_cuts = 3;
    Simulator sim(*r.system, r.x0, s, cpu_solver(PreconditionerKind::none), linear(1e-14, 1));
    int cuts = 0;
    Observer obs;
    obs.cut = [&](double, double, const std::string& why) {
        ++cuts;
        EXPECT_NE(why.find("linear solver"), std::string::npos) << why;
    };
    const Outcome out = sim.run(obs);
    EXPECT_FALSE(out.completed);
    EXPECT_EQ(cuts, 4);
    EXPECT_EQ(sim.cuts(), 4);
    EXPECT_TRUE(sim.steps().empty());
    EXPECT_EQ(sim.time(), 0.0);
    EXPECT_NE(out.message.find("more than schedule.max_cuts"), std::string::npos) << out.message;
    EXPECT_EQ(sim.state().cells.p, r.x0.p);  // the last good state, untouched
}

TEST(Simulator, RecoversFromACutAndLandsOnReportTimes) {
    // Newton gets few iterations: a 2-day first step needs more, so it is cut, and the
    // shorter steps go through.
    Reservoir r;
    Schedule s = schedule(4.0);
    s.dt.initial = 2.0 * kDay;
    s.newton.max_iterations = 3;
    Simulator sim(*r.system, r.x0, s, cpu_solver(), linear());
    std::vector<int> reports;
    Observer obs;
    obs.report = [&](int index, double time) {
        reports.push_back(index);
        if (index > 0) {
            EXPECT_EQ(time, s.report_times[index - 1]);
        }
    };
    const Outcome out = sim.run(obs);
    ASSERT_TRUE(out.completed) << out.message;
    EXPECT_GT(sim.cuts(), 0);
    EXPECT_EQ(reports, (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(sim.time(), 4.0 * kDay);
    int accepted = 0;
    for (const NewtonRecord& n : sim.newton()) accepted += n.step >= 0;
    long long newton = 0;
    for (const StepRecord& st : sim.steps()) newton += st.newton_iterations;
    EXPECT_EQ(accepted, newton);
    EXPECT_GT(sim.newton().size(), static_cast<std::size_t>(accepted));
}

TEST(Convergence, ClosestRatioIsTheCriterionFurthestFromItsTolerance) {
    NewtonSettings s;  // CNV 1e-2, MB 1e-7, wells 1e-6
    Convergence c;
    c.cnv = {2e-2, 1e-3};  // ratio 0.5
    c.mb = {1e-8, 4e-7};   // ratio 0.25: the furthest
    c.well = 1e-7;         // met
    EXPECT_DOUBLE_EQ(c.closest_ratio(s), 0.25);
    c.well = 1e-5;  // now the wells are furthest
    EXPECT_DOUBLE_EQ(c.closest_ratio(s), 0.1);
    Convergence met;  // every measure 0: nothing limits
    EXPECT_TRUE(std::isinf(met.closest_ratio(s)));
}

// The adaptive linear tolerance with the criteria floor solves no tighter than the Newton
// test needs: fewer linear iterations and a looser tightest solve than with the solver's
// tolerance as the floor, and the same run to the Newton tolerances.
TEST(Simulator, AdaptiveToleranceStopsAtWhatTheCriteriaNeed) {
    struct Run {
        std::vector<NewtonRecord> newton;
        long long linear = 0;
        std::vector<double> p;
    };
    const auto run = [](LinearFloor floor) {
        Reservoir r;
        Schedule s = schedule(30.0);
        s.newton.linear_tolerance = LinearTolerance::adaptive;
        s.newton.linear_tolerance_floor = floor;
        Simulator sim(*r.system, r.x0, s, cpu_solver(), linear(1e-10));
        const Outcome out = sim.run({});
        EXPECT_TRUE(out.completed) << out.message;
        Run result{sim.newton(), 0, sim.state().cells.p};
        for (const NewtonRecord& n : result.newton) result.linear += n.linear_iterations;
        return result;
    };
    const Run criteria = run(LinearFloor::criteria), solver = run(LinearFloor::solver);
    EXPECT_LT(criteria.linear, solver.linear);
    EXPECT_LE(criteria.newton.size(), solver.newton.size() + 2);
    // The tightest solve of each run: the floor must have raised it (equal when it does
    // nothing).
    const auto tightest = [](const Run& r) {
        double t = 1.0;
        for (const NewtonRecord& n : r.newton) t = std::min(t, n.tolerance);
        return t;
    };
    EXPECT_GT(tightest(criteria), tightest(solver));
    ASSERT_EQ(criteria.p.size(), solver.p.size());
    double worst = 0.0;
    for (std::size_t m = 0; m < solver.p.size(); ++m) {
        worst = std::max(worst, std::abs(criteria.p[m] - solver.p[m]) / solver.p[m]);
    }
    EXPECT_LT(worst, 1e-4) << "the two runs converge to the same states";
    RecordProperty("linear_criteria", std::to_string(criteria.linear));
    RecordProperty("linear_solver", std::to_string(solver.linear));
}

TEST(Schedule, RejectsEventsThatBreakAWellsLimits) {
    Reservoir r;
    Schedule s = schedule(10.0);
    WellEvent e;
    e.key = "schedule.events[0]";
    e.time = 2.0 * kDay;
    e.well = 1;  // PR, min_bhp 5,900 psi
    e.kind = ControlKind::bhp;
    e.target = 5000.0 * units::kPsi;
    s.events = {e};
    try {
        validate(s, r.spec.wells);
        FAIL() << "a BHP target below min_bhp was accepted";
    } catch (const InputError& err) {
        EXPECT_EQ(err.key(), "schedule.events[0]");
    }
    s.events[0].target = 6000.0 * units::kPsi;
    EXPECT_NO_THROW(validate(s, r.spec.wells));
    s.events[0].time = 10.0 * kDay;
    EXPECT_THROW(validate(s, r.spec.wells), InputError);  // at the end time
    s.events[0] = e;
    s.events[0].kind.reset();
    s.events[0].max_bhp = 7000.0 * units::kPsi;  // max_bhp is an injector's
    EXPECT_THROW(validate(s, r.spec.wells), InputError);
}

}  // namespace
}  // namespace heptane::sim
