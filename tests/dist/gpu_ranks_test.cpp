// BiCGStab and QMR on GPU ranks (gpu/slab_solver.hpp through dist::make_distributed_solver),
// run by ctest under mpirun with 1 to 4 ranks sharing the machine's GPUs: iterations, residual
// histories (QMR's quasi-residuals too) and solution are one CPU process's, bit for bit, without a
// preconditioner, with point-block, vertical-line and spatial-block Jacobi and (BiCGStab) with
// CPR, after an update of the values too.
// The systems are large enough for whole 4096-entry chunks between slab edges that cut chunks (the
// device's chunk sums and loose terms both count). Skipped without a CUDA device.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "common/input_error.hpp"
#include "common/same_bits.hpp"
#include "common/scoped_env.hpp"
#include "common/test_systems.hpp"
#include "core/base/errors.hpp"
#include "core/krylov/linear_solver.hpp"
#include "core/krylov/names.hpp"
#include "core/precond/cpr.hpp"
#include "dist/cpr_cases.hpp"
#include "dist/distributed_cpr.hpp"
#include "dist/distributed_gh.hpp"
#include "dist/distributed_solver.hpp"
#include "dist/mpi_sum.hpp"
#include "dist/rank_slab.hpp"
#include "gpu/device.hpp"
#include "wells/generator.hpp"

namespace heptane::dist {
namespace {

using test::same_bits;

/// Runs f with environment variable `name` set to `value` (null: unset), then restores it.
template <class F>
void with_env(const char* name, const char* value, F&& f) {
    const test::ScopedEnv env(name, value);
    f();
}

void expect_cpu_bits(GHMatrix& A, const std::vector<double>& rhs, const SolverSettings& s) {
    SolveOptions o;
    o.tolerance = 1e-9;
    o.max_iterations = 500;
    const auto cpu = make_cpu_solver(s, A);
    const auto ranks = make_distributed_solver(s, A, MPI_COMM_WORLD, true);
    EXPECT_EQ(ranks->info().backend, "gpu");
    for (int round = 0; round < 2; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        std::vector<double> x1(rhs.size(), 0.0), x2 = x1;
        const SolveResult r1 = cpu->solve(rhs, x1, o);
        const SolveResult r2 = ranks->solve(rhs, x2, o);
        EXPECT_TRUE(test::same_solve(r1, r2));
        EXPECT_TRUE(same_bits(x1, x2));
        EXPECT_GT(r1.iterations, 3);           // a real solve
        for (double& v : A.bdia()) v *= 1.25;  // new values, the same structure
        for (double& v : A.nnc().vals) v *= 1.25;
        cpu->update_values(A);
        ranks->update_values(A);
    }
}

void expect_cpu_bits(GHMatrix& A, const std::vector<double>& rhs, PreconditionerKind p,
                     Method method = Method::bicgstab) {
    SolverSettings s;
    s.method = method;
    s.preconditioner = p;
    expect_cpu_bits(A, rhs, s);
}

TEST(GpuRanks, SyntheticWithWellsIsOneCpuProcessBitForBit) {
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device";
    for (int K : {1, 2, 3}) {
        SCOPED_TRACE("K = " + std::to_string(K));
        auto model = test::synthetic_model(23, 17, 13, K, test::corner_wells(23, 17, 13));
        expect_cpu_bits(model.system.matrix, model.system.rhs, PreconditionerKind::none);
        expect_cpu_bits(model.system.matrix, model.system.rhs, PreconditionerKind::none,
                        Method::qmr);
    }
}

TEST(GpuRanks, TwoPhaseWithCellAndColumnPreconditionersIsOneCpuProcessBitForBit) {
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device";
    const wells::ModelSpec spec = test::two_phase_spec(21, 19, 11, test::corner_wells(21, 19, 11));
    wells::Model model = wells::generate(spec);
    for (PreconditionerKind p : {PreconditionerKind::point_block_jacobi,
                                 PreconditionerKind::line_jacobi, PreconditionerKind::none}) {
        for (Method method : {Method::bicgstab, Method::qmr}) {
            SCOPED_TRACE(std::string(to_string(method)) + " + " + to_string(p));
            expect_cpu_bits(model.system.matrix, model.system.rhs, p, method);
        }
    }
}

TEST(GpuRanks, NonNeighbourConnectionsAreOneCpuProcessBitForBit) {
    // Connections to the next i-plane and within a plane (design decisions 63, 64): each GPU
    // rank's slab holds those of its planes and halo planes, and its device products add them
    // (the transpose through the mirror entries): one CPU process's bits for BiCGStab and QMR,
    // after an update of the values too, and for CPR (decision 66); and on the slabs each rank
    // generates of a faulted two-phase reservoir.
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device";
    for (int K : {1, 2, 3}) {
        SCOPED_TRACE("K = " + std::to_string(K));
        GHMatrix A = test::with_connections(23, 17, 13, K, 5);
        const std::vector<double> b = test::random_vector(static_cast<std::size_t>(A.rows()), 6);
        expect_cpu_bits(A, b, PreconditionerKind::point_block_jacobi);
        expect_cpu_bits(A, b, PreconditionerKind::none, Method::qmr);
        // CPR with the connections in its pressure system and stage 2 (decision 66), also
        // between columns of one colour (K = 1's pressure system is A: too few iterations).
        if (K == 1) continue;
        for (const bool diagonal : {false, true}) {
            GHMatrix C = test::with_connections(23, 17, 13, K, 5, diagonal);
            expect_cpu_bits(C, b, test::cpr_cases()[0].settings(40));
        }
    }
    wells::ModelSpec spec = test::two_phase_spec(21, 19, 11, test::corner_wells(21, 19, 11));
    test::add_fault(spec);
    const wells::Model whole = wells::generate(spec);
    ASSERT_TRUE(whole.system.matrix.has_nnc());
    SolveOptions o;
    o.tolerance = 1e-9;
    o.max_iterations = 500;
    for (Method method : {Method::bicgstab, Method::qmr}) {
        SCOPED_TRACE(to_string(method));
        SolverSettings s;
        s.method = method;
        s.preconditioner = PreconditionerKind::line_jacobi;
        const test::RankSlab part = test::rank_slab(spec, MPI_COMM_WORLD);
        const DistributedGH layout(whole.system.matrix, MPI_COMM_WORLD, false, false);
        GHMatrix A = whole.system.matrix, slab = part.model.system.matrix;
        const auto cpu = make_cpu_solver(s, A);
        const auto mine = make_slab_solver(s, slab, part.where, MPI_COMM_WORLD, true);
        test::expect_slab_solves_agree(*cpu, *mine, A, slab, whole.system.rhs, layout, o);
    }
    // CPR on the faulted reservoir's system, its pressure system with the connections.
    GHMatrix faulted = whole.system.matrix;
    expect_cpu_bits(faulted, whole.system.rhs, test::cpr_cases()[0].settings(40));
}

TEST(GpuRanks, SpatialBlocksAreOneCpuProcessBitForBit) {
    // Spatial-block Jacobi on GPU ranks (design decision 60): the split keeps each block's
    // planes on one rank, and a rank factors its blocks on its owned planes without the halo
    // planes, so its blocks are the one-process blocks; BiCGStab and QMR (M^-T) give one CPU
    // process's bits, after an update too. Built on the slab with its halo planes, the blocks
    // are shifted by a plane on every rank but the first: a different preconditioner.
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device";
    const wells::ModelSpec spec = test::two_phase_spec(24, 19, 11, test::corner_wells(24, 19, 11));
    wells::Model model = wells::generate(spec);
    for (const test::BlockCase& c : test::block_cases({{3, 5, 4}, {2, 2, 2}})) {
        SCOPED_TRACE(c.name);
        expect_cpu_bits(model.system.matrix, model.system.rhs, c.settings);
    }
}

TEST(GpuRanks, CprIsOneCpuProcessBitForBit) {
    // CPR on GPU ranks (design decision 55): each rank sets up its part of the hierarchy on
    // its device (the split levels' rows of its planes, the first whole level gathered) and
    // applies it with the split levels' halo planes and the first whole level's right-hand
    // side staged through the host. BiCGStab's iterations, history and solution are one CPU
    // process's, after an update of the values too, for each smoother, cycle, sweep count and
    // weighting; on 40 planes a V-cycle splits levels 0-3 over up to 3 ranks (groups of 16
    // planes, the last level-3 aggregate partial) and 0-2 over 4, a W-cycle level 0 alone.
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device";
    const wells::ModelSpec spec = test::two_phase_spec(40, 14, 9, test::corner_wells(40, 14, 9));
    wells::Model model = wells::generate(spec);
    GHMatrix& A = model.system.matrix;
    const int ranks = size_of(MPI_COMM_WORLD);
    {
        // Every level the grid allows split (HEPTANE_CPR_SPLIT), not GPU ranks' rule, which
        // gathers level 1 of a grid this small (decision 61; the next block).
        const test::ScopedEnv every("HEPTANE_CPR_SPLIT", "64");
        for (const test::CprCase& c : test::cpr_cases()) {
            SCOPED_TRACE(c.name);
            // 40 x 14 x 9 -> 20 x 7 -> 10 x 4 -> 5 x 2 -> 3 x 1 (x 9 = 27 rows: inverted)
            const SolverSettings s = c.settings(40);
            const int split = cpr_split_levels(A.nx(), A.ny(), A.nz(), s.cpr, ranks);
            EXPECT_EQ(split, c.cycle == MgCycle::w ? 1 : ranks <= 3 ? 4 : 3);
            expect_cpu_bits(A, model.system.rhs, s);
        }
    }
    {
        // GPU ranks' own split: level 1's 1,260 cells are under kGpuSplitMinCells a rank.
        const SolverSettings s = test::cpr_cases()[0].settings(40);
        const auto solver = make_distributed_solver(s, A, MPI_COMM_WORLD, true);
        EXPECT_NE(solver->info().kernel.find("CPR's first 1 of 5 levels split"), std::string::npos)
            << solver->info().kernel;
        expect_cpu_bits(A, model.system.rhs, s);
    }
    // A singular block in the last plane: only the last rank's part meets it, and every rank
    // throws the one-process error (its cell), at the setup and at an update.
    SolverSettings s;
    s.preconditioner = PreconditionerKind::cpr;
    const GHMatrix bad = test::singular_last_block(A);
    const std::string one =
        test::input_error_of([&] { make_distributed_solver(s, bad, MPI_COMM_WORLD, true); });
    EXPECT_NE(one.find("of cell " + std::to_string(A.num_cells() - 1)), std::string::npos) << one;
    const auto solver = make_distributed_solver(s, A, MPI_COMM_WORLD, true);
    EXPECT_EQ(test::input_error_of([&] { solver->update_values(bad); }), one);
}

TEST(GpuRanks, SlabsEachRankGeneratesAreOneCpuProcessBitForBit) {
    // Each rank generates its own window (wells::generate_planes; with CPR the window of its
    // split) and solves on its GPU with local vectors: one CPU process's bits, after an update
    // of the values too. CPR holds only its slabs on each GPU (design decision 56).
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device";
    const wells::ModelSpec spec = test::two_phase_spec(21, 19, 11, test::corner_wells(21, 19, 11));
    const wells::Model whole = wells::generate(spec);
    SolverSettings pbj;
    pbj.preconditioner = PreconditionerKind::point_block_jacobi;
    std::vector<std::pair<std::string, SolverSettings>> cases = {{"bicgstab pbj", pbj}};
    pbj.method = Method::qmr;
    cases.emplace_back("qmr pbj", pbj);
    SolverSettings blocks;  // the windows of slabs in groups of 3 planes
    blocks.preconditioner = PreconditionerKind::block_jacobi;
    blocks.block_shape = {3, 5, 4};
    cases.emplace_back("bicgstab block_jacobi 3 x 5 x 4", blocks);
    for (const test::CprCase& c : test::cpr_cases()) cases.emplace_back(c.name, c.settings(40));
    SolveOptions o;
    o.tolerance = 1e-9;
    o.max_iterations = 500;
    const int ranks = size_of(MPI_COMM_WORLD);
    for (const auto& [name, s] : cases) {
        SCOPED_TRACE(name);
        const int g = slab_granularity(s, 21, 19, 11, ranks);
        const test::RankSlab part = test::rank_slab(spec, MPI_COMM_WORLD, g);
        const DistributedGH layout(whole.system.matrix, MPI_COMM_WORLD, false, false, g);
        GHMatrix A = whole.system.matrix, slab = part.model.system.matrix;
        const auto cpu = make_cpu_solver(s, A);
        const auto mine = make_slab_solver(s, slab, part.where, MPI_COMM_WORLD, true);
        // The halo path says whether the MPI library takes device pointers.
        EXPECT_NE(mine->info().kernel.find(mpi_cuda_aware() ? "reports CUDA support"
                                                            : "is not CUDA-aware"),
                  std::string::npos)
            << mine->info().kernel;
        test::expect_slab_solves_agree(*cpu, *mine, A, slab, whole.system.rhs, layout, o);
    }
}

/// Whether ctest's ranks (rank r on device r) each have a GPU of their own, all reachable by
/// peer access (what the peer halos need).
bool ranks_reach_each_other(int ranks) {
    bool peer = ranks > 1 && ranks <= gpu::device_count();
    for (int r = 0; peer && r + 1 < ranks; ++r) {
        peer = gpu::peer_access(r, r + 1) && gpu::peer_access(r + 1, r);
    }
    return peer;
}

TEST(GpuRanks, HaloPlanesGoByPeerAccessWhereEachRankHasAGpuOfItsOwn) {
    // Design decision 58: the GPUs move the halo planes themselves (CUDA IPC, device flags)
    // where every rank of the node has a GPU of its own and its neighbours' GPUs are
    // peer-accessible (ctest runs on one node, rank r on device r); host-staged otherwise and
    // with HEPTANE_HALO=host. One CPU process's bits either way, with point-block Jacobi (the
    // products' exchanges) and with CPR (its split levels' too).
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device";
    const int ranks = size_of(MPI_COMM_WORLD);
    const bool peer = ranks_reach_each_other(ranks);
    const wells::ModelSpec spec = test::two_phase_spec(40, 14, 9, test::corner_wells(40, 14, 9));
    wells::Model model = wells::generate(spec);
    SolverSettings pbj;
    pbj.preconditioner = PreconditionerKind::point_block_jacobi;
    const SolverSettings cpr = test::cpr_cases()[0].settings(40);
    for (const char* mode : {"auto", "host"}) {
        SCOPED_TRACE(mode);
        const bool expect_peer = peer && std::string(mode) == "auto";
        with_env("HEPTANE_HALO", mode, [&] {
            for (const SolverSettings& s : {pbj, cpr}) {
                const auto solver =
                    make_distributed_solver(s, model.system.matrix, MPI_COMM_WORLD, true);
                const std::string& kernel = solver->info().kernel;
                EXPECT_NE(kernel.find(expect_peer ? "peer halos" : "host-staged halos"),
                          std::string::npos)
                    << kernel;
                EXPECT_EQ(solver->info().halo_path, expect_peer ? "peer" : "host-staged");
                expect_cpu_bits(model.system.matrix, model.system.rhs, s);
            }
        });
    }
    // Required where it cannot be had: an input error on every rank, naming the variable.
    if (ranks > 1 && !peer) {
        with_env("HEPTANE_HALO", "peer", [&] {
            const std::string e = test::input_error_of(
                [&] { make_distributed_solver(pbj, model.system.matrix, MPI_COMM_WORLD, true); });
            EXPECT_NE(e.find("HEPTANE_HALO: peer halos are not usable"), std::string::npos) << e;
        });
    }
    with_env("HEPTANE_HALO", "nvlink", [&] {
        const std::string e = test::input_error_of(
            [&] { make_distributed_solver(pbj, model.system.matrix, MPI_COMM_WORLD, true); });
        EXPECT_NE(e.find("HEPTANE_HALO: 'nvlink' is not one of auto, host, peer"),
                  std::string::npos)
            << e;
    });
}

TEST(GpuRanks, SumsAreJoinedOnTheDevicesWhereTheGpusReachEachOther) {
    // Design decision 59: where every other rank's GPU is reached by peer access (or there is
    // one rank and nothing is gathered through the host), BiCGStab's iteration runs on the
    // devices, each pass's sums joined by the GPUs; HEPTANE_JOINS=host keeps the host's joins.
    // One CPU process's bits either way: converged, and stopped by max_iterations.
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device";
    const int ranks = size_of(MPI_COMM_WORLD);
    const bool peer = ranks_reach_each_other(ranks);
    const wells::ModelSpec spec = test::two_phase_spec(40, 14, 9, test::corner_wells(40, 14, 9));
    wells::Model model = wells::generate(spec);
    GHMatrix& A = model.system.matrix;
    SolverSettings pbj;
    pbj.preconditioner = PreconditionerKind::point_block_jacobi;
    const SolverSettings cpr = test::cpr_cases()[0].settings(40);
    for (const char* mode : {"auto", "host"}) {
        SCOPED_TRACE(mode);
        with_env("HEPTANE_JOINS", mode, [&] {
            for (const SolverSettings& s : {pbj, cpr}) {
                SCOPED_TRACE(to_string(s.preconditioner));
                const bool cpr_gathers = s.preconditioner == PreconditionerKind::cpr;
                const bool on_device =
                    std::string(mode) == "auto" && (peer || (ranks == 1 && !cpr_gathers));
                const auto solver = make_distributed_solver(s, A, MPI_COMM_WORLD, true);
                EXPECT_NE(solver->info().kernel.find(on_device ? "sums joined on the devices"
                                                               : "sums joined through the host"),
                          std::string::npos)
                    << solver->info().kernel;
                SolveOptions o;  // stopped early: the status, history and x of iteration 5
                o.tolerance = 1e-12;
                o.max_iterations = 5;
                const auto cpu = make_cpu_solver(s, A);
                std::vector<double> x1(model.system.rhs.size(), 0.0), x2 = x1;
                const SolveResult r1 = cpu->solve(model.system.rhs, x1, o);
                const SolveResult r2 = solver->solve(model.system.rhs, x2, o);
                EXPECT_EQ(r1.status, SolveStatus::max_iterations);
                EXPECT_TRUE(test::same_solve(r1, r2));
                EXPECT_TRUE(same_bits(x1, x2));
                expect_cpu_bits(A, model.system.rhs, s);  // converged (and A's values changed)
            }
        });
    }
    // Required where it cannot be had (QMR always joins through the host), or a bad value: an
    // input error on every rank, naming the variable.
    with_env("HEPTANE_JOINS", "device", [&] {
        SolverSettings qmr = pbj;
        qmr.method = Method::qmr;
        const std::string e =
            test::input_error_of([&] { make_distributed_solver(qmr, A, MPI_COMM_WORLD, true); });
        EXPECT_NE(e.find("HEPTANE_JOINS: sums cannot be joined on the device: QMR"),
                  std::string::npos)
            << e;
    });
    with_env("HEPTANE_JOINS", "gpu", [&] {
        const std::string e =
            test::input_error_of([&] { make_distributed_solver(pbj, A, MPI_COMM_WORLD, true); });
        EXPECT_NE(e.find("HEPTANE_JOINS: 'gpu' is not one of auto, host, device"),
                  std::string::npos)
            << e;
    });
}

TEST(GpuRanks, RefusesWhatTheyDoNotRun) {
    SolverSettings qmr;
    qmr.method = Method::qmr;
    EXPECT_TRUE(distributed_supports(qmr, nullptr, true));
    SolverSettings blocks;
    blocks.preconditioner = PreconditionerKind::block_jacobi;
    EXPECT_TRUE(distributed_supports(blocks, nullptr, true));
    // The smoothers as solvers do not run over ranks, nor QMR with CPR (no transpose).
    SolverSettings smoother;
    smoother.method = Method::block_gs;
    std::string why;
    EXPECT_FALSE(distributed_supports(smoother, &why, true));
    EXPECT_NE(why.find("block_gs"), std::string::npos) << why;
    SolverSettings qmr_cpr = qmr;
    qmr_cpr.preconditioner = PreconditionerKind::cpr;
    EXPECT_FALSE(distributed_supports(qmr_cpr, &why, true));
    EXPECT_NE(why.find("cpr"), std::string::npos) << why;
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device";
    const auto model = test::synthetic_model(6, 4, 3, 2, {});
    EXPECT_THROW(make_distributed_solver(smoother, model.system.matrix, MPI_COMM_WORLD, true),
                 NotSupported);
}

}  // namespace
}  // namespace heptane::dist
