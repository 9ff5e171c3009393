// CPR on the device (gpu/src/precond/cpr.cu) against the CPU reference (core/precond/cpr.hpp),
// step by step and bit for bit: the setup computed on the device from A's values in each
// Bdia layout (weights, the pressure system with its wells, every level's Galerkin operator,
// every level's line pivots, the coarsest inverse, stage 2's inverses), one smoothing sweep on
// every level, and z = M^{-1} r; for both smoothers, both cycles and K = 1, 2, 3, with
// non-neighbour connections, and with true-IMPES weights on a two-phase Jacobian. Then a Newton
// step's update (new values, the setup again on the device) and a singular block's message.
// The multi-kernel BiCGStab with cpr on the regression decks is in
// block_smoothers_vs_ref_test.cpp.
#include "core/precond/cpr.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "common/gpu_test.hpp"
#include "common/test_systems.hpp"
#include "core/base/errors.hpp"
#include "core/krylov/krylov.hpp"
#include "core/matrix/linear_operator.hpp"
#include "gpu/solver.hpp"
#include "gpu/solvers.hpp"

namespace heptane::gpu {
namespace {

/// Level l's 7 diagonals ([d][m]) and, on level 0, its wells' W, W^T and D and its
/// connections' values: the layout of CprDeviceSteps::levels.
std::vector<double> level_values(const GHMatrix& P) {
    std::vector<double> out;
    for (int d = 0; d < kStencilSize; ++d)
        for (index_t m = 0; m < P.num_cells(); ++m) out.push_back(P.at(d, m, 0, 0));
    const WellArrays& w = P.wells();
    out.insert(out.end(), w.w_vals.begin(), w.w_vals.end());
    out.insert(out.end(), w.wt_vals.begin(), w.wt_vals.end());
    out.insert(out.end(), w.d.begin(), w.d.end());
    out.insert(out.end(), P.nnc().vals.begin(), P.nnc().vals.end());
    return out;
}

void expect_steps(const GHMatrix& A, const CprOptions& o, BdiaVariant variant,
                  const std::string& what) {
    const CprPreconditioner ref(A, o);
    const StructuredMg& mg = ref.multigrid();
    const std::vector<double> r = test::random_vector(static_cast<std::size_t>(A.rows()), 9);
    const CprDeviceSteps dev = cpr_device_steps(A, o, r, variant);
    EXPECT_EQ(dev.weights, ref.weights()) << what;
    ASSERT_EQ(static_cast<int>(dev.levels.size()), mg.levels()) << what;
    for (int l = 0; l < mg.levels(); ++l) {
        EXPECT_EQ(dev.levels[l], level_values(mg.level(l))) << what << ", level " << l;
        EXPECT_EQ(dev.pivots[l], mg.pivots(l)) << what << ", level " << l;
    }
    EXPECT_EQ(dev.coarsest_inverse, mg.coarsest_inverse()) << what;
    EXPECT_EQ(dev.stage2, ref.stage2_inverses()) << what;
    ASSERT_EQ(static_cast<int>(dev.sweeps.size()), mg.levels() - 1) << what;
    for (int l = 0; l + 1 < mg.levels(); ++l) {
        const auto rows = static_cast<std::size_t>(mg.level(l).rows());
        std::vector<double> b(rows), x(rows), work(rows);
        for (std::size_t i = 0; i < rows; ++i) b[i] = 1.0 + static_cast<double>(i % 7);
        mg.smooth(l, b.data(), x.data(), true, work.data());
        EXPECT_EQ(dev.sweeps[l], x) << what << ", sweep on level " << l;
    }
    std::vector<double> z(r.size());
    ref.apply(r.data(), z.data());
    EXPECT_EQ(dev.z, z) << what;
}

class CprOnDevice : public test::GpuTest,
                    public ::testing::WithParamInterface<std::tuple<int, MgSmoother, MgCycle>> {};

TEST_P(CprOnDevice, EveryStepIsTheReferenceBitForBit) {
    const auto [K, smoother, cycle] = GetParam();
    // Odd sizes (partial aggregates on every coarsening) and wells in the corner columns.
    const wells::Model m =
        test::synthetic_model(13, 11, 6, K, test::corner_wells(13, 11, 6), 5, 1.3);
    CprOptions o;
    o.mg.smoother = smoother;
    o.mg.cycle = cycle;
    o.mg.coarsest_rows = 30;  // 13 x 11 -> 7 x 6 -> 4 x 3 -> 2 x 2 x 6 = 24: inverted
    for (const BdiaVariant variant :
         {BdiaVariant::cell_fastest, BdiaVariant::cell_fastest_x2, BdiaVariant::tiled}) {
        expect_steps(m.system.matrix, o, variant, to_string(variant));
    }
    // The coarsest not inverted: one column solved by a line solve (factor 2 in k to get there).
    o.mg.coarsest_rows = 1;
    o.mg.factor = {2, 2, 2};
    expect_steps(m.system.matrix, o, default_variant(), "one-cell coarsest");
    // Boxes of 12 cells: more than the restriction's lanes per aggregate (a thread each).
    o.mg.coarsest_rows = 30;
    o.mg.factor = {3, 2, 2};
    expect_steps(m.system.matrix, o, default_variant(), "3 x 2 x 2 boxes");
    // Non-neighbour connections (design decision 66): level 0's pressure couplings, the
    // Galerkin product's faces, stage 2's products; between columns of one colour too (line
    // Gauss-Seidel's residual of a colour from one product).
    o.mg.factor = {2, 2, 1};
    for (const bool diagonal : {false, true}) {
        expect_steps(test::with_connections(13, 11, 6, K, 5, diagonal), o, default_variant(),
                     diagonal ? "connections within a colour" : "connections");
    }
}

INSTANTIATE_TEST_SUITE_P(BlockSizesSmoothersCycles, CprOnDevice,
                         ::testing::Combine(::testing::Values(1, 2, 3),
                                            ::testing::Values(MgSmoother::line_gs,
                                                              MgSmoother::line_jacobi),
                                            ::testing::Values(MgCycle::v, MgCycle::w)),
                         [](const auto& info) {
                             return "k" + std::to_string(std::get<0>(info.param)) + "_" +
                                    (std::get<1>(info.param) == MgSmoother::line_gs ? "gs"
                                                                                    : "jacobi") +
                                    "_" + (std::get<2>(info.param) == MgCycle::w ? "w" : "v");
                         });

class CprTrueImpes : public test::GpuTest {};

// True-IMPES weights from a two-phase Jacobian's accumulation blocks (uploaded by the device
// setup): every step the reference's bits, in each layout; then a Newton step's new values
// (another state's Jacobian) through the solver object, solved as the CPU solves.
TEST_F(CprTrueImpes, StepsAndUpdateAreTheReferenceBitForBit) {
    const auto model = [](std::uint64_t seed) {
        wells::ModelSpec spec = test::two_phase_spec(
            11, 9, 5,
            {test::make_well("I", 0, 0, 0, 4, true, true), test::make_well("P", 10, 8, 1, 3)},
            seed);
        spec.permeability.sigma = 2.0;
        return wells::generate(spec, true);
    };
    const wells::Model first = model(3), second = model(4);
    ASSERT_TRUE(first.system.matrix.has_accumulation());
    CprOptions o;
    o.weights = CprWeights::true_impes;
    o.mg.coarsest_rows = 30;
    for (const BdiaVariant variant :
         {BdiaVariant::cell_fastest, BdiaVariant::cell_fastest_x2, BdiaVariant::tiled}) {
        expect_steps(first.system.matrix, o, variant,
                     std::string("true_impes ") + to_string(variant));
    }
    EXPECT_NE(CprPreconditioner(first.system.matrix, o).weights(),
              CprPreconditioner(first.system.matrix).weights());

    GpuSolveOptions g;
    g.solve.tolerance = 1e-10;
    g.solve.max_iterations = 500;
    g.preconditioner = PreconditionerKind::cpr;
    g.cpr = o;
    const auto solver =
        make_solver(Method::bicgstab, GpuKernel::multi_kernel, first.system.matrix, g);
    solver->update_values(second.system.matrix);
    std::vector<double> x(second.system.rhs.size(), 0.0);
    const SolveResult r = solver->solve(second.system.rhs, x, g.solve);
    const CprPreconditioner M(second.system.matrix, o);
    const GHOperator op(second.system.matrix);
    std::vector<double> x_ref(x.size(), 0.0);
    const SolveResult ref = bicgstab(op, second.system.rhs.data(), x_ref.data(), g.solve, &M);
    ASSERT_EQ(ref.status, SolveStatus::converged) << ref.detail;
    EXPECT_EQ(r.history, ref.history);
    EXPECT_EQ(x, x_ref);
    // A system without accumulation blocks: the CPU's message, from the device's setup.
    const wells::Model synthetic = test::synthetic_model(6, 5, 3, 2, {}, 5, 1.3);
    std::string cpu, gpu;
    try {
        CprPreconditioner bad(synthetic.system.matrix, o);
    } catch (const InputError& e) {
        cpu = e.what();
    }
    try {
        cpr_device_steps(
            synthetic.system.matrix, o,
            std::vector<double>(static_cast<std::size_t>(synthetic.system.matrix.rows()), 1.0));
    } catch (const InputError& e) {
        gpu = e.what();
    }
    EXPECT_NE(cpu.find("solver.cpr.weights"), std::string::npos) << cpu;
    EXPECT_EQ(gpu, cpu);
}

class CprLargeCoarsest : public test::GpuTest {};

// A coarsest level of more rows than a block of the inverse's step has threads (1,080 > 256:
// the pivot scan's block reduction takes several rows a thread), not diagonally dominant
// (0.6), so the pivots come from other rows: the device's inverse is still the CPU's bit for
// bit.
TEST_F(CprLargeCoarsest, PivotedInverseIsTheReferenceBitForBit) {
    const wells::Model m =
        test::synthetic_model(30, 24, 6, 1, test::corner_wells(30, 24, 6), 7, 0.6);
    CprOptions o;
    o.mg.coarsest_rows = 2048;  // 30 x 24 x 6 -> 15 x 12 x 6 = 1,080: inverted
    expect_steps(m.system.matrix, o, default_variant(), "coarsest of 1,080 rows");
}

class CprOnDeviceSolver : public test::GpuTest {};

// A Newton step: the solver object takes new values; the device redoes the setup from them
// and solves as the CPU with a preconditioner built for the new values.
TEST_F(CprOnDeviceSolver, UpdateRedoesTheSetupOnTheDevice) {
    const wells::Model first =
        test::synthetic_model(10, 9, 4, 2, test::corner_wells(10, 9, 4), 5, 1.3);
    const wells::Model second =
        test::synthetic_model(10, 9, 4, 2, test::corner_wells(10, 9, 4), 8, 1.6);
    GpuSolveOptions o;
    o.solve.tolerance = 1e-10;
    o.solve.max_iterations = 500;
    o.preconditioner = PreconditionerKind::cpr;
    const auto solver =
        make_solver(Method::bicgstab, GpuKernel::multi_kernel, first.system.matrix, o);
    solver->update_values(second.system.matrix);
    std::vector<double> x(second.system.rhs.size(), 0.0);
    const SolveResult r = solver->solve(second.system.rhs, x, o.solve);

    const CprPreconditioner M(second.system.matrix);
    const GHOperator op(second.system.matrix);
    std::vector<double> x_ref(x.size(), 0.0);
    const SolveResult ref = bicgstab(op, second.system.rhs.data(), x_ref.data(), o.solve, &M);
    ASSERT_EQ(ref.status, SolveStatus::converged) << ref.detail;
    EXPECT_EQ(r.iterations, ref.iterations);
    EXPECT_EQ(r.history, ref.history);
    EXPECT_EQ(x, x_ref);
}

// A singular diagonal block: the device's setup finds it and says what the CPU says.
TEST_F(CprOnDeviceSolver, SingularBlockIsTheReferenceMessage) {
    wells::Model m = test::synthetic_model(6, 5, 3, 2, {}, 5, 1.3);
    GHMatrix& A = m.system.matrix;
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c) A.at(kCenter, 17, r, c) = 0.0;
    std::string cpu, gpu;
    try {
        CprPreconditioner M(A);
    } catch (const InputError& e) {
        cpu = e.what();
    }
    try {
        cpr_device_steps(A, CprOptions{},
                         std::vector<double>(static_cast<std::size_t>(A.rows()), 1.0));
    } catch (const InputError& e) {
        gpu = e.what();
    }
    EXPECT_NE(cpu.find("cell 17"), std::string::npos) << cpu;
    EXPECT_EQ(gpu, cpu);
}

}  // namespace
}  // namespace heptane::gpu
