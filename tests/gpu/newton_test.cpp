// The device Newton loop (gpu/newton.hpp) against the host's (sim::make_host_newton), kernel by
// kernel: the same model, state and controls give, bit for bit, the same residual measures
// (canonical sums, CNV maxima, ||R||, the wells' rows), the same linear solves, the same
// chopped update, the same wells' rates and p_bh, and restore() returns the step's start; for
// every solver kind a simulation uses, with the Jacobian handed over on the device (none,
// point-block Jacobi, CPR; both Bdia layouts) or through the host (line Jacobi's host
// factors). Then whole simulations both ways agree step for step.
#include "gpu/newton.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/gpu_test.hpp"
#include "common/three_well_reservoir.hpp"
#include "core/base/units.hpp"
#include "gpu/solver.hpp"
#include "sim/simulator.hpp"

namespace heptane::gpu {
namespace {

constexpr double kDay = units::kDay;

using Reservoir = test::ThreeWellReservoir;

struct SolverCase {
    std::string name;
    GpuKernel kernel;
    PreconditionerKind preconditioner;
    BdiaVariant variant;
    bool on_device;  ///< whether J reaches the solver on the device
};

std::ostream& operator<<(std::ostream& os, const SolverCase& c) { return os << c.name; }

SolveOptions linear() {
    SolveOptions o;
    o.tolerance = 1e-10;
    o.max_iterations = 2000;
    return o;
}

sim::SolverFactory cpu_factory(PreconditionerKind p) {
    return [p](const GHMatrix& J) {
        SolverSettings s;
        s.preconditioner = p;
        return make_cpu_solver(s, J);
    };
}

sim::SolverFactory gpu_factory(const SolverCase& c) {
    return [c](const GHMatrix& J) -> std::unique_ptr<LinearSolver> {
        GpuSolveOptions o;
        o.solve = linear();
        o.preconditioner = c.preconditioner;
        o.variant = c.variant;
        return make_solver(Method::bicgstab, c.kernel, J, o);
    };
}

void expect_same_state(sim::NewtonSystem& a, sim::NewtonSystem& b, const std::string& where) {
    const sim::State& x = a.state();
    const sim::State& y = b.state();
    EXPECT_EQ(x.cells.p, y.cells.p) << where;
    EXPECT_EQ(x.cells.sw, y.cells.sw) << where;
    EXPECT_EQ(x.p_bh, y.p_bh) << where;
    EXPECT_EQ(a.bhp(), b.bhp()) << where;
    // A reservoir rate's conversion (design decision 100): the device's four canonical sums.
    EXPECT_EQ(a.mean_hydrocarbon_pressure(), b.mean_hydrocarbon_pressure()) << where;
}

void expect_same_measures(const sim::ResidualMeasures& a, const sim::ResidualMeasures& b,
                          const std::string& where) {
    for (int q = 0; q < 2; ++q) {
        EXPECT_EQ(a.residual_sum[q], b.residual_sum[q]) << where << " phase " << q;
        EXPECT_EQ(a.cnv_max[q], b.cnv_max[q]) << where << " phase " << q;
    }
    EXPECT_EQ(a.pore_volume, b.pore_volume) << where;
    EXPECT_EQ(a.norm, b.norm) << where;
    EXPECT_EQ(a.finite, b.finite) << where;
    EXPECT_EQ(a.wells, b.wells) << where;
    EXPECT_GT(a.norm, 0.0) << where;  // a residual worth measuring
}

class DeviceNewton : public test::GpuTest, public ::testing::WithParamInterface<SolverCase> {};
class DeviceAssemblyNewton : public test::GpuTest {};

/// Two steps of three Newton iterates each (a cut between them), host and device alike.
void expect_steps_are_the_hosts(const SolverCase& c, bool faulted) {
    Reservoir r(4.0, faulted);
    ASSERT_EQ(r.system->cells().has_nnc(), faulted);
    const sim::State start = sim::starting_state(*r.system, r.x0);
    auto host = sim::make_host_newton(*r.system, start, cpu_factory(c.preconditioner), linear());
    auto dev = make_device_newton(*r.system, start, gpu_factory(c), linear());
    expect_same_state(*host, *dev, "initial");
    std::vector<wells::WellControl> controls = r.system->wells().initial_controls(start.cells);
    const sim::UpdateLimits limits{0.2, 0.2};
    for (int step = 0; step < 2; ++step) {
        const double dt = (step + 1) * 5.0 * kDay;
        host->start_step();
        dev->start_step();
        for (int it = 0; it < 3; ++it) {
            const std::string where = "step " + std::to_string(step) + " it " + std::to_string(it);
            host->assemble(dt, controls);
            dev->assemble(dt, controls);
            expect_same_measures(host->measure(dt), dev->measure(dt), where);
            const SolveResult a = host->solve(it == 0 ? 1e-4 : 0.0);
            const SolveResult b = dev->solve(it == 0 ? 1e-4 : 0.0);
            EXPECT_EQ(a.status, SolveStatus::converged) << where;
            EXPECT_EQ(a.status, b.status) << where;
            EXPECT_EQ(a.iterations, b.iterations) << where;
            EXPECT_EQ(a.history, b.history) << where;
            host->update(limits);
            dev->update(limits);
            expect_same_state(*host, *dev, where);
            const auto qa = host->rates(controls), qb = dev->rates(controls);
            ASSERT_EQ(qa.size(), qb.size());
            for (std::size_t w = 0; w < qa.size(); ++w) {
                EXPECT_EQ(qa[w].oil, qb[w].oil) << where << " well " << w;
                EXPECT_EQ(qa[w].water, qb[w].water) << where << " well " << w;
            }
        }
        if (step == 0) {  // a cut: back to the step's start on both
            host->restore();
            dev->restore();
            expect_same_state(*host, *dev, "restored");
            EXPECT_EQ(dev->state().cells.p, r.x0.p);
        }
        controls[1].target *= 2.0;  // the next step under another rate
    }
    const LinearSolver* solver = dev->linear_solver();
    ASSERT_NE(solver, nullptr);
    EXPECT_EQ(solver->info().counts.matrix_uploads, 6);  // made once, five updates
    EXPECT_EQ(dev->linear_stats().solves, 6);
    EXPECT_EQ(dev->residence().find("on the device") != std::string::npos, c.on_device)
        << dev->residence();
}

TEST_P(DeviceNewton, EveryStepGivesTheHostsBits) { expect_steps_are_the_hosts(GetParam(), false); }

TEST_F(DeviceAssemblyNewton, FaultedGridsStepsAreTheHostsBits) {
    // A fault's connections (design decision 65): assembled on the device, handed to the
    // multi-kernel solver on the device (its connection blocks copied with Bdia), or through
    // the host for spatial-block Jacobi's host factors.
    for (const SolverCase& c :
         {SolverCase{"none", GpuKernel::multi_kernel, PreconditionerKind::none,
                     BdiaVariant::cell_fastest, true},
          SolverCase{"point_block_tiled", GpuKernel::multi_kernel,
                     PreconditionerKind::point_block_jacobi, BdiaVariant::tiled, true},
          SolverCase{"cpr", GpuKernel::multi_kernel, PreconditionerKind::cpr,
                     BdiaVariant::cell_fastest, true},
          SolverCase{"block", GpuKernel::multi_kernel, PreconditionerKind::block_jacobi,
                     BdiaVariant::cell_fastest, false}}) {
        SCOPED_TRACE(c.name);
        expect_steps_are_the_hosts(c, true);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Solvers, DeviceNewton,
    ::testing::Values(SolverCase{"in_kernel_none", GpuKernel::in_kernel, PreconditionerKind::none,
                                 BdiaVariant::cell_fastest, true},
                      SolverCase{"multi_kernel_none_tiled", GpuKernel::multi_kernel,
                                 PreconditionerKind::none, BdiaVariant::tiled, true},
                      SolverCase{"multi_kernel_cpr", GpuKernel::multi_kernel,
                                 PreconditionerKind::cpr, BdiaVariant::cell_fastest, true},
                      SolverCase{"in_kernel_point_block", GpuKernel::in_kernel,
                                 PreconditionerKind::point_block_jacobi, BdiaVariant::cell_fastest,
                                 true},
                      SolverCase{"multi_kernel_point_block_tiled", GpuKernel::multi_kernel,
                                 PreconditionerKind::point_block_jacobi, BdiaVariant::tiled, true},
                      SolverCase{"multi_kernel_line", GpuKernel::multi_kernel,
                                 PreconditionerKind::line_jacobi, BdiaVariant::cell_fastest, true},
                      SolverCase{"multi_kernel_line_tiled", GpuKernel::multi_kernel,
                                 PreconditionerKind::line_jacobi, BdiaVariant::tiled, true},
                      SolverCase{"multi_kernel_block", GpuKernel::multi_kernel,
                                 PreconditionerKind::block_jacobi, BdiaVariant::cell_fastest,
                                 false}),
    [](const ::testing::TestParamInfo<SolverCase>& i) { return i.param.name; });

/// Whole simulations: the host's and the device's Newton loops take the same steps, Newton
/// and linear iterations, switch the same wells at the same times and end in the same state,
/// bit for bit. The schedule is tests/sim/simulator_test.cpp's WellsFollowEventsAndLimits: PR
/// reaches its BHP limit and returns to its rate, PB is shut and reopened.
class DeviceSimulation : public test::GpuTest {};

sim::Schedule switching_schedule() {
    sim::Schedule s;
    s.present = true;
    s.report_times = {7.0 * kDay, 14.0 * kDay};
    s.dt.initial = 0.5 * kDay;
    s.dt.max = 5.0 * kDay;
    s.dt.min = 1e-4 * kDay;
    s.events = test::switching_events();
    return s;
}

const SolverCase kCpr{"cpr", GpuKernel::multi_kernel, PreconditionerKind::cpr,
                      BdiaVariant::cell_fastest, true};

TEST_F(DeviceSimulation, TakesTheHostsStepsBitForBit) {
    Reservoir r;
    const sim::Schedule s = switching_schedule();
    const SolverCase& cpr = kCpr;
    sim::Simulator host(*r.system, r.x0, s, cpu_factory(PreconditionerKind::cpr), linear());
    sim::Simulator dev(*r.system,
                       make_device_newton(*r.system, sim::starting_state(*r.system, r.x0),
                                          gpu_factory(cpr), linear()),
                       s, linear());
    std::vector<std::string> log[2];
    sim::Observer obs[2];
    for (int i = 0; i < 2; ++i) {
        obs[i].control = [&log, i](const sim::ControlSwitch& c) {
            log[i].push_back(std::to_string(c.time) + " " + std::to_string(c.well) + " " +
                             std::to_string(static_cast<int>(c.why)));
        };
    }
    ASSERT_TRUE(host.run(obs[0]).completed);
    ASSERT_TRUE(dev.run(obs[1]).completed);
    EXPECT_EQ(log[0], log[1]);
    const auto limit = std::to_string(static_cast<int>(sim::ControlChange::limit));
    const auto back = std::to_string(static_cast<int>(sim::ControlChange::rate_restored));
    int limits = 0, restored = 0;
    for (const std::string& line : log[0]) {
        const std::string why = line.substr(line.rfind(' ') + 1);
        limits += why == limit;
        restored += why == back;
    }
    EXPECT_GT(limits, 0);
    EXPECT_GT(restored, 0);
    ASSERT_EQ(host.steps().size(), dev.steps().size());
    ASSERT_GT(host.steps().size(), 5u);
    EXPECT_EQ(host.cuts(), dev.cuts());
    for (std::size_t i = 0; i < host.steps().size(); ++i) {
        const sim::StepRecord &a = host.steps()[i], &b = dev.steps()[i];
        EXPECT_EQ(a.dt, b.dt) << "step " << i;
        EXPECT_EQ(a.newton_iterations, b.newton_iterations) << "step " << i;
        EXPECT_EQ(a.linear_iterations, b.linear_iterations) << "step " << i;
        EXPECT_EQ(a.convergence.cnv, b.convergence.cnv) << "step " << i;
        EXPECT_EQ(a.convergence.mb, b.convergence.mb) << "step " << i;
        EXPECT_EQ(a.bhp, b.bhp) << "step " << i;
        for (std::size_t w = 0; w < a.rates.size(); ++w) {
            EXPECT_EQ(a.rates[w].oil, b.rates[w].oil) << "step " << i << " well " << w;
            EXPECT_EQ(a.rates[w].water, b.rates[w].water) << "step " << i << " well " << w;
        }
    }
    EXPECT_EQ(host.state().cells.p, dev.state().cells.p);
    EXPECT_EQ(host.state().cells.sw, dev.state().cells.sw);
    EXPECT_EQ(dev.residence(), "GPU (J handed to the solver on the device)");
}

// simulate --restart with the state on the device (design decision 57): a host run stopped
// on day 5 (PB shut) goes on on the GPU from its checkpoint with the uninterrupted host run's
// steps and state, bit for bit.
TEST_F(DeviceSimulation, GoesOnFromAHostCheckpointWithTheHostsBits) {
    Reservoir r;
    const sim::Schedule s = switching_schedule();
    sim::Simulator whole(*r.system, r.x0, s, cpu_factory(PreconditionerKind::cpr), linear());
    ASSERT_TRUE(whole.run().completed);
    sim::Simulator first(*r.system, r.x0, s, cpu_factory(PreconditionerKind::cpr), linear());
    sim::Observer stop;
    stop.stop = [&]() { return first.time() >= 5.0 * kDay ? "stop" : std::string(); };
    first.run(stop);
    const sim::Checkpoint c = first.checkpoint();
    ASSERT_FALSE(c.wells[2].open);
    sim::Simulator dev(*r.system,
                       make_device_newton(*r.system, c.state, gpu_factory(kCpr), linear()), s,
                       linear());
    dev.resume(c);
    ASSERT_TRUE(dev.run().completed);
    ASSERT_EQ(dev.steps().size(), whole.steps().size());
    for (std::size_t i = c.steps.size(); i < whole.steps().size(); ++i) {
        const sim::StepRecord &a = whole.steps()[i], &b = dev.steps()[i];
        EXPECT_EQ(a.time, b.time) << "step " << i;
        EXPECT_EQ(a.linear_iterations, b.linear_iterations) << "step " << i;
        EXPECT_EQ(a.bhp, b.bhp) << "step " << i;
    }
    EXPECT_EQ(whole.state().cells.p, dev.state().cells.p);
    EXPECT_EQ(whole.state().cells.sw, dev.state().cells.sw);
    EXPECT_EQ(whole.state().p_bh, dev.state().p_bh);
}

// Workovers (design decision 103: the well indices uploaded per event): with the switching
// events and test::workover_events, the device run takes the host's steps bit for bit, and
// goes on from a host checkpoint between the two workovers (resume sets the first one's well
// indices on the device) with the uninterrupted host run's bits.
TEST_F(DeviceSimulation, FollowsWorkoversWithTheHostsBits) {
    Reservoir r;
    sim::Schedule s = switching_schedule();
    for (const sim::WellEvent& e : test::workover_events()) s.events.push_back(e);
    sim::Simulator host(*r.system, r.x0, s, cpu_factory(PreconditionerKind::cpr), linear());
    ASSERT_TRUE(host.run().completed);
    sim::Simulator dev(*r.system,
                       make_device_newton(*r.system, sim::starting_state(*r.system, r.x0),
                                          gpu_factory(kCpr), linear()),
                       s, linear());
    ASSERT_TRUE(dev.run().completed);
    ASSERT_EQ(host.steps().size(), dev.steps().size());
    for (std::size_t i = 0; i < host.steps().size(); ++i) {
        const sim::StepRecord &a = host.steps()[i], &b = dev.steps()[i];
        EXPECT_EQ(a.linear_iterations, b.linear_iterations) << "step " << i;
        EXPECT_EQ(a.bhp, b.bhp) << "step " << i;
        for (std::size_t w = 0; w < a.rates.size(); ++w)
            EXPECT_EQ(a.rates[w].oil, b.rates[w].oil) << "step " << i << " well " << w;
    }
    EXPECT_EQ(host.state().cells.p, dev.state().cells.p);
    sim::Simulator first(*r.system, r.x0, s, cpu_factory(PreconditionerKind::cpr), linear());
    sim::Observer stop;
    stop.stop = [&]() { return first.time() >= 5.0 * kDay ? "stop" : std::string(); };
    first.run(stop);
    const sim::Checkpoint c = first.checkpoint();
    ASSERT_LT(c.time, 9.0 * kDay);  // between the workovers
    sim::Simulator resumed(*r.system,
                           make_device_newton(*r.system, c.state, gpu_factory(kCpr), linear()), s,
                           linear());
    resumed.resume(c);
    ASSERT_TRUE(resumed.run().completed);
    EXPECT_EQ(host.state().cells.p, resumed.state().cells.p);
    EXPECT_EQ(host.state().cells.sw, resumed.state().cells.sw);
    EXPECT_EQ(host.state().p_bh, resumed.state().p_bh);
}

}  // namespace
}  // namespace heptane::gpu
