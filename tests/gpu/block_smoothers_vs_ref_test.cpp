// The block preconditioners and smoothers (seed 003) on the device against the CPU reference
// (core/precond/block_smoothers.hpp). Every kernel computes its rows with
// core/precond/block_arith.hpp, so:
//  - z = M^{-1} r of each preconditioner (CPR: its setup on the device too; step by step in
//    cpr_test.cpp), one block Jacobi sweep, and the block Jacobi
//    smoother as a solver reproduce the reference bit for bit;
//  - z = M^{-T} r (QMR's) of each block preconditioner too;
//  - the multi-kernel BiCGStab and QMR with each preconditioner (QMR: not CPR) and the
//    in-kernel BiCGStab with the fused point-block Jacobi reproduce the preconditioned CPU
//    solver bit for bit (iterations, restarts, histories, solution) on the regression decks;
//  - the chaotic block Gauss-Seidel (blocks read whatever their neighbours have written, so
//    not reproducible) reaches the tolerance the deterministic CPU block Gauss-Seidel reaches.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <tuple>

#include "app/deck.hpp"
#include "common/gpu_test.hpp"
#include "common/test_systems.hpp"
#include "core/base/errors.hpp"
#include "core/krylov/krylov.hpp"
#include "core/matrix/linear_operator.hpp"
#include "core/precond/block_smoothers.hpp"
#include "core/spmv/spmv.hpp"
#include "gpu/solvers.hpp"

namespace heptane::gpu {
namespace {

constexpr PreconditionerKind kKinds[] = {PreconditionerKind::point_block_jacobi,
                                         PreconditionerKind::line_jacobi,
                                         PreconditionerKind::block_jacobi, PreconditionerKind::cpr};

GHSystem synthetic(int nx, int ny, int nz, int K) {
    return test::synthetic_model(nx, ny, nz, K, test::corner_wells(nx, ny, nz), 11, 1.2).system;
}

double residual_norm(const GHMatrix& A, const std::vector<double>& b,
                     const std::vector<double>& x) {
    const std::vector<double> ax = spmv(A, x);
    double s = 0.0;
    for (std::size_t i = 0; i < b.size(); ++i) s += (b[i] - ax[i]) * (b[i] - ax[i]);
    return std::sqrt(s);
}

class BlockPreconditionersOnDevice
    : public test::GpuTest,
      public ::testing::WithParamInterface<std::tuple<PreconditionerKind, int>> {};

TEST_P(BlockPreconditionersOnDevice, ApplyIsTheReferenceBitForBit) {
    const auto [kind, K] = GetParam();
    // An odd grid: spatial blocks of 2 x 3 x 4 leave clipped blocks on every axis.
    const GHSystem sys = synthetic(7, 5, 9, K);
    SolverSettings settings;
    settings.preconditioner = kind;
    settings.block_shape = {2, 3, 4};
    const auto M = make_preconditioner(sys.matrix, settings);
    const std::vector<double> r = test::random_vector(sys.rhs.size(), 5);
    std::vector<double> z_ref(r.size());
    M->apply(r.data(), z_ref.data());
    const std::vector<double> z = apply_preconditioner(sys.matrix, kind, settings.block_shape, r);
    EXPECT_EQ(z, z_ref) << to_string(kind) << " K = " << K;
    // z = M^{-T} r (QMR's), which differs from M^{-1} r for these non-symmetric K x K blocks.
    if (kind == PreconditionerKind::cpr) {
        EXPECT_THROW(apply_preconditioner(sys.matrix, kind, settings.block_shape, r, true),
                     NotSupported);
        return;
    }
    std::vector<double> zt_ref(r.size());
    M->apply_transpose(r.data(), zt_ref.data());
    if (K > 1) {
        EXPECT_NE(zt_ref, z_ref);
    }
    EXPECT_EQ(apply_preconditioner(sys.matrix, kind, settings.block_shape, r, true), zt_ref)
        << to_string(kind) << " K = " << K << ", transpose";
}

INSTANTIATE_TEST_SUITE_P(KindsAndBlockSizes, BlockPreconditionersOnDevice,
                         ::testing::Combine(::testing::ValuesIn(kKinds),
                                            ::testing::Values(1, 2, 3, 4, 8)),
                         [](const auto& info) {
                             return std::string(to_string(std::get<0>(info.param))) + "_k" +
                                    std::to_string(std::get<1>(info.param));
                         });

class BlockSmoothersOnDevice : public test::GpuTest {};

// Line Jacobi factored on the device (what a GPU Newton step does with J on the device): the
// host's pivot inverses and well scales bit for bit, for every block size and both layouts.
TEST_F(BlockSmoothersOnDevice, LineFactorsOnTheDeviceAreTheReferenceBitForBit) {
    for (int K : {1, 2, 3, 4, 8, 16}) {
        const GHSystem sys = synthetic(5, 4, 9, K);
        const LineFactors ref = factor_lines(sys.matrix);
        for (BdiaVariant variant : {BdiaVariant::cell_fastest, BdiaVariant::tiled}) {
            const LineFactors f = line_factors_on_device(sys.matrix, variant);
            EXPECT_EQ(f.pinv, ref.pinv) << "K = " << K;
            EXPECT_EQ(f.inv_d, ref.inv_d) << "K = " << K;
        }
    }
}

/// What f throws as an InputError, or "no error".
template <class F>
std::string error_message(F f) {
    try {
        f();
    } catch (const InputError& e) {
        return std::string(e.what());
    }
    return std::string("no error");
}

/// A (one singular block at `cell`, "(i, j, k)") fails on the host and the device with the
/// same message naming the cell; with well 1's diagonal zeroed as well, both name the well
/// (the wells are inverted first).
template <class Host, class Device>
void expect_device_errors_are_the_hosts(GHMatrix& A, const std::string& cell, Host host,
                                        Device device) {
    const std::string on_host = error_message([&] { host(A); });
    EXPECT_NE(on_host.find(cell), std::string::npos) << on_host;
    EXPECT_EQ(error_message([&] { device(A); }), on_host);
    A.wells().d[1] = 0.0;
    const std::string well = error_message([&] { host(A); });
    EXPECT_NE(well.find("well 1"), std::string::npos) << well;
    EXPECT_EQ(error_message([&] { device(A); }), well);
}

// A singular pivot below the top of a column (every diagonal block nonsingular) and a zero
// well diagonal: the device names what the host names.
TEST_F(BlockSmoothersOnDevice, LineFactorErrorsOnTheDeviceAreTheReferenceMessages) {
    GHSystem sys = synthetic(3, 4, 5, 2);
    GHMatrix& A = sys.matrix;
    // Cell (1, 2, 3): D_3 = L_3 P_2^{-1} U_2, so P_3 = 0.
    const index_t m = (1 * 4 + 2) * 5 + 3;
    const LineFactors f = factor_lines(A);
    std::array<double, 4> lp{};  // L_3 P_2^{-1}, row-major
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c)
            for (int j = 0; j < 2; ++j)
                lp[r * 2 + c] += A.at(2, m, r, j) * f.pinv[(m - 1) * 4 + c * 2 + j];
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c)
            A.at(kCenter, m, r, c) =
                lp[r * 2] * A.at(4, m - 1, 0, c) + lp[r * 2 + 1] * A.at(4, m - 1, 1, c);
    expect_device_errors_are_the_hosts(
        A, "(1, 2, 3)", [](const GHMatrix& B) { factor_lines(B); },
        [](const GHMatrix& B) { line_factors_on_device(B); });
}

// Point-block Jacobi factored on the device (the Newton loop's path): the host's bits, and
// the host's message for a singular block, then for a zero well diagonal as well (the
// wells are inverted first, so their error wins on both sides).
TEST_F(BlockSmoothersOnDevice, PointBlockFactorsOnTheDeviceAreTheReference) {
    for (int K : {1, 2, 3, 4, 8}) {
        const GHSystem sys = synthetic(5, 4, 6, K);
        const PointBlockFactors ref = factor_point_blocks(sys.matrix);
        for (BdiaVariant variant : {BdiaVariant::cell_fastest, BdiaVariant::tiled}) {
            const PointBlockFactors f = point_block_factors_on_device(sys.matrix, variant);
            EXPECT_EQ(f.inv, ref.inv) << "K = " << K;
            EXPECT_EQ(f.inv_d, ref.inv_d) << "K = " << K;
        }
    }
    GHSystem sys = synthetic(3, 4, 5, 2);
    GHMatrix& A = sys.matrix;
    const index_t m = (2 * 4 + 1) * 5 + 2;  // cell (2, 1, 2): a zero diagonal block
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c) A.at(kCenter, m, r, c) = 0.0;
    expect_device_errors_are_the_hosts(
        A, "(2, 1, 2)", [](const GHMatrix& B) { factor_point_blocks(B); },
        [](const GHMatrix& B) { point_block_factors_on_device(B); });
}

TEST_F(BlockSmoothersOnDevice, LargeSpatialBlocksUseSeveralRowsPerThread) {
    // 8^3 cells x K = 2: 1,024 rows per block, two per thread of a 512-thread block.
    const GHSystem sys = synthetic(10, 9, 12, 2);
    const std::array<int, 3> shape{8, 8, 8};
    const SpatialBlockJacobi M(sys.matrix, shape);
    const std::vector<double> r = test::random_vector(sys.rhs.size(), 9);
    std::vector<double> z_ref(r.size());
    M.apply(r.data(), z_ref.data());
    EXPECT_EQ(apply_preconditioner(sys.matrix, PreconditionerKind::block_jacobi, shape, r), z_ref);
}

/// One block Jacobi sweep (omega 0.8) from a random x of `seed`, on the device and on the CPU:
/// the same bits.
void expect_jacobi_sweep_bits(const GHSystem& sys, const std::array<int, 3>& shape, unsigned seed) {
    const SpatialBlockFactors F = factor_spatial_blocks(sys.matrix, shape);
    std::vector<double> x = test::random_vector(sys.rhs.size(), seed);
    const std::vector<double> x0 = x;
    std::vector<double> work(x.size());
    block_jacobi_sweep(sys.matrix, F, sys.rhs.data(), x.data(), 0.8, work.data());
    EXPECT_EQ(smoother_sweep(Method::block_jacobi, sys.matrix, shape, 0.8, sys.rhs, x0), x);
}

TEST_F(BlockSmoothersOnDevice, JacobiSweepIsTheReferenceBitForBit) {
    expect_jacobi_sweep_bits(synthetic(9, 7, 6, 3), {2, 2, 4}, 3);
}

TEST_F(BlockSmoothersOnDevice, ChaoticGaussSeidelSweepReducesTheResidual) {
    const GHMatrix A = poisson_matrix(16, 16, 16);
    const std::vector<double> b(static_cast<std::size_t>(A.rows()), 0.0);
    const std::vector<double> x0 = test::random_vector(b.size(), 4);
    const std::array<int, 3> shape{4, 4, 4};
    const std::vector<double> x = smoother_sweep(Method::block_gs, A, shape, 1.0, b, x0);
    const double r0 = residual_norm(A, b, x0), r1 = residual_norm(A, b, x);
    // One sweep of 4^3 blocks removes most of a random error's residual (the CPU's
    // lexicographic sweep: about 0.2).
    EXPECT_LT(r1, 0.5 * r0);
    EXPECT_NE(x, x0);
}

TEST_F(BlockSmoothersOnDevice, JacobiSmootherSolveIsTheReferenceBitForBit) {
    const GHSystem sys = synthetic(8, 8, 8, 2);
    const std::array<int, 3> shape{4, 4, 4};
    SolveOptions opt;
    opt.tolerance = 1e-8;
    opt.max_iterations = 400;
    const SpatialBlockFactors F = factor_spatial_blocks(sys.matrix, shape);
    std::vector<double> x_ref(sys.rhs.size(), 0.0);
    const SolveResult ref = block_smoother_solve(Method::block_jacobi, sys.matrix, F,
                                                 sys.rhs.data(), x_ref.data(), opt, 0.9);
    ASSERT_EQ(ref.status, SolveStatus::converged);
    GpuSolveOptions o;
    o.solve = opt;
    o.block_shape = shape;
    o.omega = 0.9;
    std::vector<double> x(sys.rhs.size(), 0.0);
    const SolveResult r =
        solve(Method::block_jacobi, GpuKernel::in_kernel, sys.matrix, sys.rhs, x, o);
    EXPECT_EQ(r.status, ref.status);
    EXPECT_EQ(r.iterations, ref.iterations);
    EXPECT_EQ(r.history, ref.history);
    EXPECT_EQ(x, x_ref);
    EXPECT_EQ(r.true_relative_residual, ref.true_relative_residual);
}

TEST_F(BlockSmoothersOnDevice, ChaoticGaussSeidelReachesTheReferenceTolerance) {
    for (const auto& [sys, shape] :
         {std::make_pair(synthetic(12, 10, 8, 2), std::array<int, 3>{2, 2, 4}),
          std::make_pair(
              GHSystem{poisson_matrix(24, 24, 24), test::random_vector(24 * 24 * 24, 8), {}, {}},
              std::array<int, 3>{4, 4, 4})}) {
        SolveOptions opt;
        opt.tolerance = 1e-8;
        opt.max_iterations = 3000;
        const SpatialBlockFactors F = factor_spatial_blocks(sys.matrix, shape);
        std::vector<double> x_ref(sys.rhs.size(), 0.0);
        const SolveResult ref = block_smoother_solve(Method::block_gs, sys.matrix, F,
                                                     sys.rhs.data(), x_ref.data(), opt, 1.0);
        ASSERT_EQ(ref.status, SolveStatus::converged);
        GpuSolveOptions o;
        o.solve = opt;
        o.block_shape = shape;
        std::vector<double> x(sys.rhs.size(), 0.0);
        const SolveResult r = block_smoother(Method::block_gs, sys.matrix, sys.rhs, x, o);
        SCOPED_TRACE(::testing::Message()
                     << "CPU " << ref.iterations << " sweeps, GPU " << r.iterations);
        EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
        EXPECT_LE(r.true_relative_residual, opt.tolerance);
        EXPECT_LE(residual_norm(sys.matrix, sys.rhs, x),
                  1.01 * opt.tolerance *
                      residual_norm(sys.matrix, sys.rhs, std::vector<double>(x.size(), 0.0)));
        // Chaotic updates mix Jacobi and Gauss-Seidel: no faster than the lexicographic
        // sweep by much, and not slower than 2x (block Jacobi's rate).
        EXPECT_GE(r.iterations, ref.iterations / 2);
        EXPECT_LE(r.iterations, 2 * ref.iterations + 5);
    }
}

// Design decision 71: the sweeps' row residuals take the non-neighbour connections (the
// faulted regression deck's faults' throws, the pinched one's PINCH connections within a
// column): a block Jacobi sweep and a block Jacobi solve are the CPU's bits, chaotic block
// Gauss-Seidel reaches the CPU's tolerance.
TEST_F(BlockSmoothersOnDevice, SweepsTakeTheNonNeighbourConnections) {
    for (const char* file : {"faulted_corner_point.yaml", "pinched_corner_point.yaml"}) {
        SCOPED_TRACE(file);
        const app::Deck deck =
            app::load_deck(test::source_path(std::string("tests/regression/") + file));
        const GHSystem sys = app::build_model(deck).system;
        ASSERT_TRUE(sys.matrix.has_nnc());
        const std::array<int, 3> shape{2, 2, 2};
        expect_jacobi_sweep_bits(sys, shape, 5);
        const SpatialBlockFactors F = factor_spatial_blocks(sys.matrix, shape);
        SolveOptions opt;
        opt.tolerance = 1e-8;
        opt.max_iterations = 6000;
        GpuSolveOptions o;
        o.solve = opt;
        o.block_shape = shape;
        for (const Method method : {Method::block_jacobi, Method::block_gs}) {
            SCOPED_TRACE(to_string(method));
            o.omega = method == Method::block_jacobi ? 0.8 : 1.0;
            std::vector<double> x_ref(sys.rhs.size(), 0.0);
            const SolveResult ref = block_smoother_solve(method, sys.matrix, F, sys.rhs.data(),
                                                         x_ref.data(), opt, o.omega);
            ASSERT_EQ(ref.status, SolveStatus::converged) << ref.detail;
            std::vector<double> y(sys.rhs.size(), 0.0);
            const SolveResult r = block_smoother(method, sys.matrix, sys.rhs, y, o);
            EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
            EXPECT_LE(r.true_relative_residual, opt.tolerance);
            if (method == Method::block_jacobi) {
                EXPECT_EQ(r.iterations, ref.iterations);
                EXPECT_EQ(r.history, ref.history);
                EXPECT_EQ(y, x_ref);
            } else {
                EXPECT_LE(r.iterations, 2 * ref.iterations + 5);
            }
        }
    }
}

TEST_F(BlockSmoothersOnDevice, ZeroRightHandSideMeasuresAgainstTheInitialResidual) {
    const GHMatrix A = poisson_matrix(12, 12, 12);
    const std::vector<double> b(static_cast<std::size_t>(A.rows()), 0.0);
    std::vector<double> x = test::random_vector(b.size(), 2);
    const double r0 = residual_norm(A, b, x);
    GpuSolveOptions o;
    o.solve.tolerance = 0.0;
    o.solve.max_iterations = 3;
    o.block_shape = {2, 2, 2};
    o.omega = 0.8;
    const SolveResult r = block_smoother(Method::block_jacobi, A, b, x, o);
    EXPECT_EQ(r.status, SolveStatus::max_iterations);
    ASSERT_EQ(r.history.size(), 4u);
    EXPECT_EQ(r.history[0], 1.0);
    EXPECT_NEAR(r.history[3], residual_norm(A, b, x) / r0, 1e-12);
    EXPECT_LT(r.history[3], 0.5);
}

// ---- preconditioned BiCGStab on the regression decks ----------------------------------------

struct Reference {
    GHSystem system;
    SolveOptions options;
    SolveResult cpu;
    std::vector<double> x;
};

Reference preconditioned_reference(const std::string& deck_file, PreconditionerKind kind,
                                   std::array<int, 3> shape, Method method = Method::bicgstab) {
    const app::Deck deck = app::load_deck(test::source_path("tests/regression/" + deck_file));
    Reference r{app::build_model(deck).system, {}, {}, {}};
    r.options.tolerance = deck.solver.tolerance;
    r.options.max_iterations = deck.solver.max_iterations;
    SolverSettings settings;
    settings.preconditioner = kind;
    settings.block_shape = shape;
    const auto M = make_preconditioner(r.system.matrix, settings);
    const GHOperator op(r.system.matrix);
    r.x.assign(r.system.rhs.size(), 0.0);
    r.cpu = method == Method::qmr
                ? qmr(op, r.system.rhs.data(), r.x.data(), r.options, M.get())
                : bicgstab(op, r.system.rhs.data(), r.x.data(), r.options, M.get());
    return r;
}

void expect_reference_bits(const Reference& ref, const SolveResult& r,
                           const std::vector<double>& x) {
    EXPECT_EQ(r.status, ref.cpu.status) << r.detail;
    EXPECT_EQ(r.iterations, ref.cpu.iterations);
    EXPECT_EQ(r.restarts, ref.cpu.restarts);
    EXPECT_EQ(r.history, ref.cpu.history);
    EXPECT_EQ(r.quasi_history, ref.cpu.quasi_history);
    EXPECT_EQ(x, ref.x) << "solution differs from the reference's bits";
    EXPECT_EQ(r.true_relative_residual, ref.cpu.true_relative_residual);
}

class PreconditionedDecks
    : public test::GpuTest,
      public ::testing::WithParamInterface<std::tuple<std::string, PreconditionerKind>> {};

TEST_P(PreconditionedDecks, MultiKernelReproducesTheReferenceBitForBit) {
    const auto& [deck, kind] = GetParam();
    const std::array<int, 3> shape{2, 2, 3};
    for (const Method method : {Method::bicgstab, Method::qmr}) {
        if (method == Method::qmr && kind == PreconditionerKind::cpr) continue;  // no M^-T
        SCOPED_TRACE(to_string(method));
        const Reference ref = preconditioned_reference(deck, kind, shape, method);
        ASSERT_EQ(ref.cpu.status, SolveStatus::converged) << ref.cpu.detail;
        GpuSolveOptions o;
        o.solve = ref.options;
        o.preconditioner = kind;
        o.block_shape = shape;
        std::vector<double> x(ref.x.size(), 0.0);
        const SolveResult r =
            solve(method, GpuKernel::multi_kernel, ref.system.matrix, ref.system.rhs, x, o);
        expect_reference_bits(ref, r, x);
    }
}

const std::string kDecks[] = {"spe10_window.yaml", "two_phase_wells.yaml", "synthetic_k1.yaml",
                              "synthetic_k3.yaml", "synthetic_k8.yaml"};

std::string deck_name(const std::string& file) { return file.substr(0, file.find('.')); }

INSTANTIATE_TEST_SUITE_P(RegressionDecks, PreconditionedDecks,
                         ::testing::Combine(::testing::ValuesIn(kDecks),
                                            ::testing::ValuesIn(kKinds)),
                         [](const auto& info) {
                             return deck_name(std::get<0>(info.param)) + "_" +
                                    to_string(std::get<1>(info.param));
                         });

class FusedDecks : public test::GpuTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(FusedDecks, InKernelFusesPointBlockJacobiBitForBit) {
    const std::string& deck = GetParam();
    const PreconditionerKind kind = PreconditionerKind::point_block_jacobi;
    const Reference ref = preconditioned_reference(deck, kind, {1, 1, 1});
    const int K = ref.system.matrix.block_size();
    GpuSolveOptions o;
    o.solve = ref.options;
    o.preconditioner = kind;
    if ((K & (K - 1)) != 0) {
        std::vector<double> x(ref.x.size(), 0.0);
        EXPECT_THROW(
            solve(Method::bicgstab, GpuKernel::in_kernel, ref.system.matrix, ref.system.rhs, x, o),
            NotSupported);
        return;
    }
    for (RangeStorage storage : {RangeStorage::global, RangeStorage::automatic}) {
        o.range_storage = storage;
        std::vector<double> x(ref.x.size(), 0.0);
        InKernelPlan plan;
        const SolveResult r = solve(Method::bicgstab, GpuKernel::in_kernel, ref.system.matrix,
                                    ref.system.rhs, x, o, nullptr, &plan);
        SCOPED_TRACE(::testing::Message()
                     << "grid " << plan.grid << ", rows per block " << plan.rows_per_block
                     << (plan.shared_ranges ? ", shared" : ", global"));
        expect_reference_bits(ref, r, x);
    }
}

INSTANTIATE_TEST_SUITE_P(RegressionDecks, FusedDecks, ::testing::ValuesIn(kDecks),
                         [](const auto& info) { return deck_name(info.param); });

TEST_F(BlockSmoothersOnDevice, InKernelSmallBlocksSeveralBlocksPerSolve) {
    // Forced small row ranges: many thread blocks, each fusing its own cells' inverses.
    const GHSystem sys = synthetic(16, 12, 10, 4);
    SolveOptions opt;
    opt.tolerance = 1e-10;
    opt.max_iterations = 500;
    const PointBlockJacobi M(sys.matrix);
    std::vector<double> x_ref(sys.rhs.size(), 0.0);
    const SolveResult ref = bicgstab(GHOperator(sys.matrix), sys.rhs.data(), x_ref.data(), opt, &M);
    ASSERT_EQ(ref.status, SolveStatus::converged);
    GpuSolveOptions o;
    o.solve = opt;
    o.preconditioner = PreconditionerKind::point_block_jacobi;
    o.in_kernel_block_rows = 4 * 32 * 4;  // 4 warps x one pass of 32 cells
    std::vector<double> x(sys.rhs.size(), 0.0);
    InKernelPlan plan;
    const SolveResult r =
        solve(Method::bicgstab, GpuKernel::in_kernel, sys.matrix, sys.rhs, x, o, nullptr, &plan);
    EXPECT_GT(plan.grid, 8);
    EXPECT_EQ(r.iterations, ref.iterations);
    EXPECT_EQ(r.history, ref.history);
    EXPECT_EQ(x, x_ref);
}

TEST_F(BlockSmoothersOnDevice, UnsupportedCombinationsAreRefused) {
    const GHSystem sys = synthetic(6, 5, 4, 2);
    GpuSolveOptions o;
    std::vector<double> x(sys.rhs.size(), 0.0);
    o.preconditioner = PreconditionerKind::line_jacobi;
    EXPECT_THROW(solve(Method::bicgstab, GpuKernel::in_kernel, sys.matrix, sys.rhs, x, o),
                 NotSupported);
    EXPECT_THROW(solve(Method::qmr, GpuKernel::in_kernel, sys.matrix, sys.rhs, x, o), NotSupported);
    o.preconditioner = PreconditionerKind::cpr;
    EXPECT_THROW(solve(Method::qmr, GpuKernel::multi_kernel, sys.matrix, sys.rhs, x, o),
                 NotSupported);
    o.preconditioner = PreconditionerKind::line_jacobi;
    EXPECT_THROW(solve(Method::bicgstab, GpuKernel::library, sys.matrix, sys.rhs, x, o),
                 NotSupported);
    o.spmv = SpmvKind::ksparse;
    EXPECT_THROW(solve(Method::bicgstab, GpuKernel::multi_kernel, sys.matrix, sys.rhs, x, o),
                 NotSupported);
}

}  // namespace
}  // namespace heptane::gpu
