#pragma once
/// @file The simulation tests' CPU linear solver: a Simulator::SolverFactory that makes the
/// CPU reference solver with the given preconditioner for each Jacobian.
#include "sim/simulator.hpp"

namespace heptane::test {

inline sim::Simulator::SolverFactory cpu_solver_factory(PreconditionerKind p) {
    return [p](const GHMatrix& J) {
        SolverSettings settings;
        settings.preconditioner = p;
        return make_cpu_solver(settings, J);
    };
}

}  // namespace heptane::test
