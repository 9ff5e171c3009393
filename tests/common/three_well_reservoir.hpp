#pragma once
/// @file A small 3-D two-phase reservoir with gravity (lognormal field, 6 x 5 x 4, pore volume
/// 270 m^3) and three wells: INJ (5 m^3/day, max BHP 9,000 psi), PR (a rate producer with a
/// min BHP of 5,900 psi that it reaches within days), PB (BHP producer at 5,800 psi). The
/// simulation loop's tests (tests/sim) and the device Newton loop's (tests/gpu) run it.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "common/test_systems.hpp"
#include "core/base/units.hpp"
#include "sim/schedule.hpp"
#include "wells/generator.hpp"

namespace heptane::test {

struct ThreeWellReservoir {
    wells::ModelSpec spec;
    grid::RockFields rock;
    std::unique_ptr<wells::TwoPhaseSystem> system;
    grid::CellState x0;

    /// rate_producer: PR's rate [m^3/day]; faulted: the columns i >= 3 thrown down by 1.5
    /// layers (test::add_fault: non-neighbour connections between planes 2 and 3).
    explicit ThreeWellReservoir(double rate_producer = 4.0, bool faulted = false) {
        constexpr double kDay = units::kDay;
        std::vector<wells::WellSpec> w = {
            make_well("INJ", 0, 0, 0, 3, true, true),
            make_well("PR", 5, 4, 0, 3, false, true),
            make_well("PB", 5, 0, 1, 2, false, false),
        };
        w[0].target = 5.0 / kDay;
        w[0].max_bhp = 9000.0 * units::kPsi;
        w[1].target = rate_producer / kDay;
        w[1].min_bhp = 5900.0 * units::kPsi;
        w[2].target = 5800.0 * units::kPsi;
        spec = two_phase_spec(6, 5, 4, w);
        if (faulted) add_fault(spec);
        EXPECT_GT(spec.two_phase.gravity, 0.0);
        rock = grid::build_rock(spec.grid, spec.permeability, spec.porosity);
        system = std::make_unique<wells::TwoPhaseSystem>(spec.grid, rock, spec.two_phase, w);
        x0 = system->cells().equilibrium_state(6000.0 * units::kPsi, spec.grid.top_depth, 0.3);
    }
};

/// Events that make the wells switch: PB shut on day 4 and reopened on day 7 (the injector
/// repressurizes, so PR can return to its rate from its BHP limit), PR's limit lowered to
/// 3,000 psi on day 10. In the order open, shut, lower (a schedule applies them in time
/// order).
inline std::vector<sim::WellEvent> switching_events() {
    constexpr double kDay = units::kDay;
    sim::WellEvent shut, open, lower;
    shut.time = 4.0 * kDay;
    shut.well = 2;
    shut.open = false;
    open.time = 7.0 * kDay;
    open.well = 2;
    open.open = true;
    lower.time = 10.0 * kDay;
    lower.well = 1;
    lower.min_bhp = 3000.0 * units::kPsi;
    return {open, shut, lower};
}

/// Workovers (design decision 103): on day 3 PB's top layer (of its two) shut; on day 9 PR's
/// well index doubled in its top layer and its bottom layer's skin set to 2 (its four layers).
inline std::vector<sim::WellEvent> workover_events() {
    constexpr double kDay = units::kDay;
    sim::WellEvent pb, pr;
    pb.time = 3.0 * kDay;
    pb.well = 2;
    pb.connections.resize(2);
    pb.connections[0].open = false;
    pr.time = 9.0 * kDay;
    pr.well = 1;
    pr.connections.resize(4);
    pr.connections[0].multiplier = 2.0;
    pr.connections[3].skin = 2.0;
    return {pb, pr};
}

}  // namespace heptane::test
