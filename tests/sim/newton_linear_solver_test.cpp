// The linear stage of a Newton loop: one solver object for a sequence of Jacobians of one
// structure, each solve the same as a fresh solver's on that Jacobian, and the totals.
#include "sim/newton_linear_solver.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "common/test_systems.hpp"
#include "core/krylov/linear_solver.hpp"

namespace heptane::sim {
namespace {

wells::Model jacobian(int k) {
    return test::synthetic_model(6, 5, 4, 2, test::corner_wells(6, 5, 4), 40 + k);
}

TEST(NewtonLinearSolver, EachStepIsAFreshSolversSolveOfItsJacobian) {
    SolverSettings s;
    s.preconditioner = PreconditionerKind::point_block_jacobi;
    SolveOptions options;
    options.tolerance = 1e-10;
    const wells::Model first = jacobian(0);
    NewtonLinearSolver newton(make_cpu_solver(s, first.system.matrix), options);
    long long iterations = 0;
    for (int k = 0; k < 5; ++k) {
        const wells::Model m = k == 0 ? jacobian(0) : jacobian(k);
        std::vector<double> dx(m.system.rhs.size(), 0.0), dx_ref(dx);
        // steps 3 and 4 ask for a looser tolerance (a forcing term)
        const double tol = k >= 3 ? 1e-4 : 0.0;
        const SolveResult r = newton.solve(m.system.matrix, m.system.rhs, dx, tol);
        SolveOptions o = options;
        if (tol > 0.0) o.tolerance = tol;
        const SolveResult ref = make_cpu_solver(s, m.system.matrix)->solve(m.system.rhs, dx_ref, o);
        ASSERT_EQ(ref.status, SolveStatus::converged);
        EXPECT_EQ(r.iterations, ref.iterations) << "step " << k;
        EXPECT_EQ(dx, dx_ref) << "step " << k;
        iterations += r.iterations;
    }
    EXPECT_EQ(newton.stats().solves, 5);
    EXPECT_EQ(newton.stats().iterations, iterations);
    EXPECT_EQ(newton.stats().failures, 0);
    const SolverInfo info = newton.solver().info();
    EXPECT_EQ(info.counts.matrix_uploads, 5);  // made from step 0, updated by steps 1-4
    EXPECT_EQ(info.counts.factorizations, 5);
}

TEST(NewtonLinearSolver, CountsFailuresAndRefusesAnotherStructure) {
    SolverSettings s;
    SolveOptions options;
    options.max_iterations = 1;
    options.tolerance = 1e-14;
    const wells::Model first = jacobian(0);
    NewtonLinearSolver newton(make_cpu_solver(s, first.system.matrix), options);
    std::vector<double> dx(first.system.rhs.size(), 0.0);
    EXPECT_NE(newton.solve(first.system.matrix, first.system.rhs, dx).status,
              SolveStatus::converged);
    EXPECT_EQ(newton.stats().failures, 1);
    const wells::Model other = test::synthetic_model(6, 5, 4, 2, {}, 3);
    EXPECT_THROW(newton.solve(other.system.matrix, other.system.rhs, dx), std::invalid_argument);
}

}  // namespace
}  // namespace heptane::sim
