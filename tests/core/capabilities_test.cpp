// The capabilities check (core/krylov/capabilities.hpp): each rule refuses its combination with its
// key and message, and the combinations that run are accepted.
#include "core/krylov/capabilities.hpp"

#include <gtest/gtest.h>

#include <string>

namespace heptane {
namespace {

SolverSettings settings(Method m, PreconditionerKind p = PreconditionerKind::none,
                        GpuKernel k = GpuKernel::in_kernel, SpmvKind spmv = SpmvKind::bdia) {
    SolverSettings s;
    s.method = m;
    s.preconditioner = p;
    s.gpu_kernel = k;
    s.spmv = spmv;
    return s;
}

::testing::AssertionResult refused(const Support& r, const std::string& key,
                                   const std::string& fragment) {
    if (r.ok) return ::testing::AssertionFailure() << "accepted";
    if (r.key != key) return ::testing::AssertionFailure() << "key " << r.key << ": " << r.reason;
    if (r.reason.find(fragment) == std::string::npos) {
        return ::testing::AssertionFailure() << "reason: " << r.reason;
    }
    return ::testing::AssertionSuccess();
}

constexpr auto cpu = Backend::cpu;
constexpr auto gpu = Backend::gpu;
constexpr auto grid = DeckKind::grid;
constexpr auto matrix = DeckKind::matrix;
using P = PreconditionerKind;
using G = GpuKernel;

TEST(Capabilities, RulesThatHoldOnEveryBackend) {
    EXPECT_TRUE(
        refused(support(settings(Method::block_gs, P::none, G::multi_kernel, SpmvKind::ksparse), 0,
                        cpu, matrix),
                "solver.method", "block_gs needs a grid deck"));
    EXPECT_TRUE(refused(
        support(settings(Method::bicgstab, P::line_jacobi, G::multi_kernel, SpmvKind::ksparse), 0,
                cpu, matrix),
        "solver.preconditioner", "line_jacobi needs a grid deck"));
    EXPECT_TRUE(
        refused(support(settings(Method::block_jacobi, P::point_block_jacobi), 2, cpu, grid),
                "solver.preconditioner", "block_jacobi takes no preconditioner"));
    EXPECT_TRUE(refused(
        support(settings(Method::qmr, P::none, G::library, SpmvKind::ksparse), 0, cpu, matrix),
        "solver.gpu_kernel", "a matrix deck runs on the GPU with multi_kernel"));
    EXPECT_TRUE(refused(support(settings(Method::qmr, P::none, G::multi_kernel), 0, cpu, matrix),
                        "solver.spmv", "a matrix deck has no Bdia form"));
    EXPECT_TRUE(refused(
        support(settings(Method::bicgstab, P::none, G::in_kernel, SpmvKind::ksparse), 2, cpu, grid),
        "solver.spmv", "ksparse runs with gpu_kernel: multi_kernel"));
    EXPECT_TRUE(refused(support(settings(Method::qmr, P::cpr), 2, cpu, grid),
                        "solver.preconditioner", "cpr has no transpose"));
}

TEST(Capabilities, RulesOfTheGpu) {
    // QMR's M^-T runs between kernels: multi-kernel yes (every block preconditioner), fused no.
    EXPECT_TRUE(
        refused(support(settings(Method::qmr, P::point_block_jacobi, G::in_kernel), 2, gpu, grid),
                "solver.preconditioner", "not fused into the in-kernel QMR"));
    for (const P p : {P::point_block_jacobi, P::line_jacobi, P::block_jacobi}) {
        EXPECT_TRUE(support(settings(Method::qmr, p, G::multi_kernel), 3, gpu, grid));
    }
    EXPECT_TRUE(refused(support(settings(Method::bicgstab, P::point_block_jacobi, G::multi_kernel,
                                         SpmvKind::ksparse),
                                2, gpu, grid),
                        "solver.preconditioner", "needs the Bdia SpMV"));
    EXPECT_TRUE(
        refused(support(settings(Method::bicgstab, P::block_jacobi, G::library), 2, gpu, grid),
                "solver.preconditioner", "not in the library baseline"));
    EXPECT_TRUE(
        refused(support(settings(Method::bicgstab, P::line_jacobi, G::in_kernel), 2, gpu, grid),
                "solver.preconditioner", "not local to a thread block's rows"));
    EXPECT_TRUE(refused(
        support(settings(Method::bicgstab, P::point_block_jacobi, G::in_kernel), 3, gpu, grid),
        "solver.preconditioner", "K a power of two only (K = 3"));
    // CPR runs between the multi-kernel solver's kernels; the in-kernel solver cannot fuse it.
    EXPECT_TRUE(support(settings(Method::bicgstab, P::cpr, G::multi_kernel), 2, gpu, grid));
    EXPECT_TRUE(refused(support(settings(Method::bicgstab, P::cpr, G::in_kernel), 2, gpu, grid),
                        "solver.preconditioner", "cpr is not local to a thread block's rows"));
    EXPECT_TRUE(refused(support(settings(Method::bicgstab, P::cpr, G::library), 2, gpu, grid),
                        "solver.preconditioner", "not in the library baseline"));
    EXPECT_TRUE(support(settings(Method::bicgstab, P::cpr), 2, cpu, grid));
    // The same settings run on the CPU.
    EXPECT_TRUE(support(settings(Method::qmr, P::point_block_jacobi), 2, cpu, grid));
    EXPECT_TRUE(support(settings(Method::bicgstab, P::line_jacobi, G::in_kernel), 2, cpu, grid));
}

TEST(Capabilities, WhatRuns) {
    for (Backend where : {cpu, gpu}) {
        EXPECT_TRUE(support(settings(Method::bicgstab), 3, where, grid));
        EXPECT_TRUE(support(settings(Method::qmr, P::none, G::library), 1, where, grid));
        EXPECT_TRUE(support(settings(Method::block_gs, P::none, G::in_kernel), 2, where, grid));
        for (int K : {1, 2, 4, 8, 16}) {
            EXPECT_TRUE(support(settings(Method::bicgstab, P::point_block_jacobi, G::in_kernel), K,
                                where, grid))
                << K;
        }
        for (P p : {P::point_block_jacobi, P::line_jacobi, P::block_jacobi}) {
            EXPECT_TRUE(support(settings(Method::bicgstab, p, G::multi_kernel), 3, where, grid));
        }
        EXPECT_TRUE(support(settings(Method::qmr, P::none, G::multi_kernel, SpmvKind::ksparse), 0,
                            where, matrix));
        EXPECT_TRUE(support(settings(Method::bicgstab, P::none, G::multi_kernel, SpmvKind::ksparse),
                            5, where, grid));
    }
}

TEST(Capabilities, TheKernelFollowsTheSizeWhereTheDeckNamesNone) {
    // The measured crossovers (H100, after decision 54): K = 16 at 524,304 rows in-kernel,
    // 1,769,488 multi-kernel; K = 8 at 262,160 in-kernel, 884,752 multi-kernel; BiCGStab at
    // K = 2 1,769,488 multi-kernel (with or without point-block Jacobi), 524,304 in-kernel,
    // K = 4 1,048,592 in-kernel; QMR 1,048,592 multi-kernel, 524,304 in-kernel.
    const SolverSettings none = settings(Method::bicgstab);
    const SolverSettings pbj = settings(Method::bicgstab, P::point_block_jacobi);
    const SolverSettings qmr = settings(Method::qmr);
    EXPECT_EQ(sized_gpu_kernel(none, 16, 524'304), G::in_kernel);
    EXPECT_EQ(sized_gpu_kernel(none, 16, 1'769'488), G::multi_kernel);
    EXPECT_EQ(sized_gpu_kernel(none, 8, 262'160), G::in_kernel);
    EXPECT_EQ(sized_gpu_kernel(none, 8, 884'752), G::multi_kernel);
    EXPECT_EQ(sized_gpu_kernel(none, 2, 524'304), G::in_kernel);
    EXPECT_EQ(sized_gpu_kernel(none, 4, 1'048'592), G::in_kernel);
    EXPECT_EQ(sized_gpu_kernel(none, 2, 1'769'488), G::multi_kernel);
    EXPECT_EQ(sized_gpu_kernel(pbj, 2, 524'304), G::in_kernel);
    EXPECT_EQ(sized_gpu_kernel(pbj, 2, 1'769'488), G::multi_kernel);
    EXPECT_EQ(sized_gpu_kernel(pbj, 2, 2'244'005), G::multi_kernel);
    EXPECT_EQ(sized_gpu_kernel(qmr, 2, 524'304), G::in_kernel);
    EXPECT_EQ(sized_gpu_kernel(qmr, 4, 1'048'592), G::multi_kernel);
    // A kernel the deck names, or a default that is not the in-kernel solver, stays.
    SolverSettings named = pbj;
    named.gpu_kernel_given = true;
    EXPECT_EQ(sized_gpu_kernel(named, 2, 2'244'005), G::in_kernel);
    EXPECT_EQ(sized_gpu_kernel(settings(Method::qmr, P::none, G::library), 16, 1'024'016),
              G::library);
}

}  // namespace
}  // namespace heptane
