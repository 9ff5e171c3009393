// The in-kernel (persistent) BiCGStab and QMR against the CPU reference. They use the
// canonical arithmetic, so they must reproduce the reference bit for bit - iterations,
// restarts, residual and quasi-residual histories, solution - on every regression deck and
// for K = 1..16 with wells at the grid edges, with the range vectors in shared memory and in
// global memory, with several groups per thread, and run after run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <tuple>

#include "app/deck.hpp"
#include "common/gpu_test.hpp"
#include "common/test_systems.hpp"
#include "core/base/errors.hpp"
#include "core/krylov/krylov.hpp"
#include "core/matrix/linear_operator.hpp"
#include "gpu/solvers.hpp"

namespace heptane::gpu {
namespace {

namespace fs = std::filesystem;

struct Case {
    Method method;
    GHSystem system;
    SolveOptions options;
    SolveResult cpu;
    std::vector<double> x;
};

Case cpu_solve(Method method, GHSystem system, SolveOptions options) {
    Case c{method, std::move(system), options, {}, {}};
    const GHOperator op(c.system.matrix);
    c.x.assign(c.system.rhs.size(), 0.0);
    c.cpu = method == Method::qmr ? qmr(op, c.system.rhs.data(), c.x.data(), c.options)
                                  : bicgstab(op, c.system.rhs.data(), c.x.data(), c.options);
    return c;
}

Case deck_case(Method method, const std::string& deck_file) {
    const app::Deck deck = app::load_deck(test::source_path("tests/regression/" + deck_file));
    SolveOptions o;
    o.tolerance = deck.solver.tolerance;
    o.max_iterations = deck.solver.max_iterations;
    return cpu_solve(method, app::build_model(deck).system, o);
}

const char* name(Method m) { return m == Method::qmr ? "qmr" : "bicgstab"; }

/// Solves with the in-kernel solver and checks every output against the reference's bits.
InKernelPlan expect_reference_bits(const Case& c, GpuSolveOptions o) {
    o.solve = c.options;
    std::vector<double> x(c.x.size(), 0.0);
    InKernelPlan plan;
    const SolveResult r =
        solve(c.method, GpuKernel::in_kernel, c.system.matrix, c.system.rhs, x, o, nullptr, &plan);
    SCOPED_TRACE(::testing::Message() << name(c.method) << ": grid " << plan.grid << " x "
                                      << plan.threads << ", rows per block " << plan.rows_per_block
                                      << (plan.shared_ranges ? ", shared" : ", global"));
    EXPECT_EQ(r.status, c.cpu.status) << r.detail;
    EXPECT_EQ(r.iterations, c.cpu.iterations);
    EXPECT_EQ(r.restarts, c.cpu.restarts);
    EXPECT_EQ(r.detail, c.cpu.detail);
    EXPECT_EQ(r.history, c.cpu.history);
    EXPECT_EQ(r.quasi_history, c.cpu.quasi_history);
    EXPECT_EQ(x, c.x) << "solution differs from the reference's bits";
    EXPECT_EQ(r.relative_residual, c.cpu.relative_residual);
    EXPECT_EQ(r.true_relative_residual, c.cpu.true_relative_residual);
    return plan;
}

const Method kMethods[] = {Method::bicgstab, Method::qmr};

class InKernelDecks : public test::GpuTest,
                      public ::testing::WithParamInterface<std::tuple<std::string, Method>> {};

TEST_P(InKernelDecks, ReproducesTheReferenceBitForBit) {
    const auto& [deck, method] = GetParam();
    const Case c = deck_case(method, deck);
    ASSERT_EQ(c.cpu.status, SolveStatus::converged) << c.cpu.detail;
    GpuSolveOptions o;  // a faulted deck's connections too (design decision 68)
    const InKernelPlan automatic = expect_reference_bits(c, o);
    EXPECT_TRUE(automatic.shared_ranges) << "a small deck's rows fit in shared memory";
    o.range_storage = RangeStorage::global;
    EXPECT_FALSE(expect_reference_bits(c, o).shared_ranges);
}

INSTANTIATE_TEST_SUITE_P(RegressionDecks, InKernelDecks,
                         ::testing::Combine(::testing::ValuesIn(test::regression_decks()),
                                            ::testing::ValuesIn(kMethods)),
                         [](const auto& info) {
                             return fs::path(std::get<0>(info.param)).stem().string() + "_" +
                                    name(std::get<1>(info.param));
                         });

class InKernel : public test::GpuTest, public ::testing::WithParamInterface<Method> {};

TEST_P(InKernel, EveryBlockSizeWithWellsAtTheEdges) {
    // 9 x 7 x 5 cells: odd sizes, so rows per block never align with cells for K = 3, 5, ...
    SolveOptions o;
    o.tolerance = 1e-10;
    o.max_iterations = 1000;
    for (int K = 1; K <= 16; ++K) {
        SCOPED_TRACE("K = " + std::to_string(K));
        const Case c = cpu_solve(
            GetParam(),
            test::synthetic_model(9, 7, 5, K, test::corner_wells(9, 7, 5), 17 + K, 1.2).system, o);
        ASSERT_EQ(c.cpu.status, SolveStatus::converged) << c.cpu.detail;
        ASSERT_GT(c.cpu.iterations, 5);
        const GpuSolveOptions defaults;
        expect_reference_bits(c, defaults);
    }
}

TEST_P(InKernel, EveryBlockSizeWithNonNeighbourConnections) {
    // 9 x 7 x 5 cells with connections along i and j a layer or two down (a fault's) and
    // between columns of one red-black colour (an NNC record's): each row adds its connections
    // after its stencil and before its well term, A^T's rows (QMR) read the mirror entries
    // transposed, as the reference does (design decision 68). Up to K = 4 (the kernels with
    // connections); above, a clear refusal (the multi-kernel solver takes them).
    SolveOptions o;
    o.tolerance = 1e-10;
    o.max_iterations = 1000;
    for (int K = 1; K <= 16; ++K) {
        SCOPED_TRACE("K = " + std::to_string(K));
        GHSystem system;
        system.matrix = test::with_connections(9, 7, 5, K, 11 + K, /*diagonal=*/true);
        ASSERT_TRUE(system.matrix.has_nnc());
        system.rhs = test::random_vector(static_cast<std::size_t>(system.matrix.rows()), 29 + K);
        if (K > kInKernelConnectionsMaxK) {
            std::vector<double> x(system.rhs.size(), 0.0);
            GpuSolveOptions g;
            g.solve = o;
            EXPECT_THROW(solve(GetParam(), GpuKernel::in_kernel, system.matrix, system.rhs, x, g),
                         NotSupported);
            continue;
        }
        const Case c = cpu_solve(GetParam(), std::move(system), o);
        ASSERT_EQ(c.cpu.status, SolveStatus::converged) << c.cpu.detail;
        ASSERT_GT(c.cpu.iterations, 5);
        GpuSolveOptions g;
        expect_reference_bits(c, g);
        g.range_storage = RangeStorage::global;
        expect_reference_bits(c, g);
    }
}

TEST_P(InKernel, SharedAndGlobalRangeVectorsWithSeveralRowsPerThread) {
    // 24 x 20 x 18, K = 3: 25,920 rows plus wells. Forcing 4,096 rows per block gives 7
    // blocks of 512 threads with 8 rows each (and a short last block, with absent warps).
    SolveOptions o;
    o.tolerance = 1e-9;
    o.max_iterations = 500;
    const Case c = cpu_solve(
        GetParam(),
        test::synthetic_model(24, 20, 18, 3, test::corner_wells(24, 20, 18), 5, 1.3).system, o);
    ASSERT_EQ(c.cpu.status, SolveStatus::converged) << c.cpu.detail;
    GpuSolveOptions g;
    g.in_kernel_block_rows = 4096;
    for (RangeStorage storage : {RangeStorage::shared, RangeStorage::global}) {
        g.range_storage = storage;
        const InKernelPlan plan = expect_reference_bits(c, g);
        EXPECT_EQ(plan.shared_ranges, storage == RangeStorage::shared);
        EXPECT_EQ(plan.rows_per_block, 4096);
        EXPECT_EQ(plan.threads, 512);
        EXPECT_EQ(plan.grid, 7);
    }
    // The automatic plan on the same system.
    const GpuSolveOptions defaults;
    expect_reference_bits(c, defaults);
}

TEST_P(InKernel, ThousandSolvesGiveIdenticalBits) {
    // Many blocks racing through the flags: any ordering dependence shows up as a bit flip.
    SolveOptions o;
    o.tolerance = 0.0;  // a fixed number of iterations
    o.max_iterations = 25;
    const auto model = test::synthetic_model(32, 32, 16, 2, test::corner_wells(32, 32, 16), 9);
    GpuSolveOptions g;
    g.solve = o;
    std::vector<double> first(model.system.rhs.size(), 0.0);
    const Method method = GetParam();
    const GHMatrix& A = model.system.matrix;
    const SolveResult r0 = solve(method, GpuKernel::in_kernel, A, model.system.rhs, first, g);
    ASSERT_EQ(r0.iterations, 25);
    int differing = 0;
    for (int run = 1; run < 1000; ++run) {
        std::vector<double> x(first.size(), 0.0);
        const SolveResult r = solve(method, GpuKernel::in_kernel, A, model.system.rhs, x, g);
        if (x != first || r.history != r0.history || r.quasi_history != r0.quasi_history) {
            ++differing;
        }
    }
    EXPECT_EQ(differing, 0) << "of 999 repeated solves";
}

TEST_P(InKernel, UsesANonZeroInitialGuess) {
    // (Zero rhs, max_iterations and non-finite input: GpuSolverEdges, for every GPU solver.)
    const auto model = test::synthetic_model(6, 5, 4, 3, test::corner_wells(6, 5, 4));
    SolveOptions so;
    so.tolerance = 1e-10;
    const std::vector<double> guess = test::random_vector(model.system.rhs.size(), 4);
    std::vector<double> x_cpu = guess, x_gpu = guess;
    const GHOperator op(model.system.matrix);
    const bool use_qmr = GetParam() == Method::qmr;
    const SolveResult cpu = use_qmr ? qmr(op, model.system.rhs.data(), x_cpu.data(), so)
                                    : bicgstab(op, model.system.rhs.data(), x_cpu.data(), so);
    GpuSolveOptions o;
    o.solve = so;
    const SolveResult r =
        solve(GetParam(), GpuKernel::in_kernel, model.system.matrix, model.system.rhs, x_gpu, o);
    EXPECT_EQ(r.iterations, cpu.iterations);
    EXPECT_EQ(x_gpu, x_cpu);
}

TEST_P(InKernel, PlanRefusesRowsPerBlockThatAreNotAPowerOfTwo) {
    const auto model = test::synthetic_model(6, 5, 4, 2, {});
    GpuSolveOptions o;
    o.in_kernel_block_rows = 3000;
    EXPECT_THROW(in_kernel_plan(model.system.matrix, o, GetParam()), NotSupported);
}

INSTANTIATE_TEST_SUITE_P(Methods, InKernel, ::testing::ValuesIn(kMethods),
                         [](const auto& info) { return std::string(name(info.param)); });

}  // namespace
}  // namespace heptane::gpu
