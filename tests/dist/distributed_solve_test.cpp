// BiCGStab and QMR over MPI ranks (dist/distributed_gh.hpp with the canonical sums), run by
// ctest under mpirun with 1 to 4 ranks: the iterations, the residual history and the solution
// are one process's, bit for bit, on synthetic systems with wells at K = 1, 2, 3 and on a
// two-phase system.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "common/same_bits.hpp"
#include "common/scoped_env.hpp"
#include "common/test_systems.hpp"
#include "common/three_well_reservoir.hpp"
#include "core/base/errors.hpp"
#include "core/krylov/krylov.hpp"
#include "core/krylov/linear_solver.hpp"
#include "core/krylov/names.hpp"
#include "core/matrix/linear_operator.hpp"
#include "core/precond/cpr.hpp"
#include "dist/cpr_cases.hpp"
#include "dist/distributed_cpr.hpp"
#include "dist/distributed_gh.hpp"
#include "dist/distributed_solver.hpp"
#include "dist/mpi_sum.hpp"
#include "dist/rank_slab.hpp"
#include "grid/transmissibility.hpp"
#include "sim/newton_system.hpp"
#include "wells/generator.hpp"

namespace heptane::dist {
namespace {

using test::same_bits;

void expect_one_process_bits(const GHSystem& sys, Method method) {
    const GHMatrix& A = sys.matrix;
    SolveOptions o;
    o.tolerance = 1e-10;
    o.max_iterations = 300;
    const CpuGHOperator serial_op(A, true, method == Method::qmr);
    std::vector<double> x_serial(sys.rhs.size(), 0.0);
    const SolveResult serial = method == Method::qmr
                                   ? qmr(serial_op, sys.rhs.data(), x_serial.data(), o)
                                   : bicgstab(serial_op, sys.rhs.data(), x_serial.data(), o);

    const DistributedGH D(A, MPI_COMM_WORLD);
    const std::vector<double> b = D.local(sys.rhs);
    std::vector<double> x(b.size(), 0.0);
    o.distribution = &D;
    const SolveResult r =
        method == Method::qmr ? qmr(D, b.data(), x.data(), o) : bicgstab(D, b.data(), x.data(), o);
    EXPECT_EQ(r.status, serial.status);
    EXPECT_EQ(r.iterations, serial.iterations);
    EXPECT_EQ(r.restarts, serial.restarts);
    EXPECT_TRUE(same_bits(r.history, serial.history));
    EXPECT_TRUE(same_bits({r.true_relative_residual}, {serial.true_relative_residual}));
    EXPECT_TRUE(same_bits(D.gather(x), x_serial));
    EXPECT_GT(serial.iterations, 3);  // a real solve, not a trivial one
}

/// make_distributed_solver(s) against make_cpu_solver(s) on A: whole vectors in and out on
/// every rank, the same solves bit for bit, and again after an update of the values (A is
/// scaled).
void expect_solver_objects_agree(const SolverSettings& s, GHMatrix& A,
                                 const std::vector<double>& rhs) {
    SolveOptions o;
    o.tolerance = 1e-9;
    o.max_iterations = 400;
    const auto serial = make_cpu_solver(s, A);
    const auto distributed = make_distributed_solver(s, A, MPI_COMM_WORLD);
    for (int round = 0; round < 2; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        std::vector<double> x1(rhs.size(), 0.0), x2 = x1;
        const SolveResult r1 = serial->solve(rhs, x1, o);
        const SolveResult r2 = distributed->solve(rhs, x2, o);
        EXPECT_TRUE(test::same_solve(r1, r2));
        EXPECT_TRUE(same_bits(x1, x2));
        EXPECT_GT(r1.iterations, 3);
        for (double& v : A.bdia()) v *= 1.25;  // new values, the same structure
        for (double& v : A.nnc().vals) v *= 1.25;
        serial->update_values(A);
        distributed->update_values(A);
    }
}

TEST(DistributedSolve, SyntheticWithWellsIsOneProcessBitForBit) {
    for (int K : {1, 2, 3}) {
        SCOPED_TRACE("K = " + std::to_string(K));
        const auto model = test::synthetic_model(9, 4, 5, K, test::corner_wells(9, 4, 5));
        expect_one_process_bits(model.system, Method::bicgstab);
        expect_one_process_bits(model.system, Method::qmr);
    }
}

TEST(DistributedSolve, NonNeighbourConnectionsAreOneProcessBitForBit) {
    // Connections to the next i-plane and within a plane (design decisions 63, 64): each rank's
    // slab keeps those of its planes and halo planes, so A x and A^T x (QMR: the mirror
    // entries of the halo rows) are one process's rows; and the values' update copies them.
    for (int K : {1, 2, 3}) {
        SCOPED_TRACE("K = " + std::to_string(K));
        GHSystem sys;
        sys.matrix = test::with_connections(9, 4, 5, K, 7);
        sys.rhs = test::random_vector(static_cast<std::size_t>(sys.matrix.rows()), 8);
        expect_one_process_bits(sys, Method::bicgstab);
        expect_one_process_bits(sys, Method::qmr);
        SolverSettings s;
        s.method = K == 2 ? Method::qmr : Method::bicgstab;
        s.preconditioner = PreconditionerKind::point_block_jacobi;
        expect_solver_objects_agree(s, sys.matrix, sys.rhs);
        // CPR's pressure system and stage 2 with the connections (design decision 66), also
        // between columns of one colour (line Gauss-Seidel from one residual a colour); K = 1's
        // pressure system is A itself (3 iterations, below a real solve's).
        if (K == 1) continue;
        for (const bool diagonal : {false, true}) {
            GHMatrix C = test::with_connections(9, 4, 5, K, 7, diagonal);
            expect_solver_objects_agree(test::cpr_cases()[0].settings(30), C, sys.rhs);
        }
    }
    // A connection from plane 0 to plane 8 reaches past the halo planes of the ranks that
    // own either end (no rank's rows would be one process's).
    GHMatrix A = test::with_connections(9, 4, 5, 1, 7);
    NncArrays far = nnc_layout(A.num_cells(), 1, {{0, 8 * 4 * 5}});
    A.set_nnc(std::move(far));
    const int rank = rank_of(MPI_COMM_WORLD), ranks = size_of(MPI_COMM_WORLD);
    const bool owns_an_end =
        slab_first_plane(9, rank, ranks, 1) == 0 || slab_first_plane(9, rank + 1, ranks, 1) == 9;
    if (ranks > 1 && owns_an_end) {
        EXPECT_THROW(DistributedGH(A, MPI_COMM_WORLD), std::invalid_argument);
    } else {
        EXPECT_NO_THROW(DistributedGH(A, MPI_COMM_WORLD));
    }
}

TEST(DistributedSolve, TwoPhaseIsOneProcessBitForBit) {
    const wells::ModelSpec spec = test::two_phase_spec(8, 5, 4, test::corner_wells(8, 5, 4));
    const wells::Model model = wells::generate(spec);
    expect_one_process_bits(model.system, Method::bicgstab);
}

TEST(DistributedSolve, SolverObjectsWithCellAndColumnPreconditionersAreOneProcessBits) {
    // make_distributed_solver against make_cpu_solver: whole vectors in and out on every rank,
    // after an update of the values too; point-block and vertical-line Jacobi work cell by
    // cell and column by column, so each rank's rows are the one-process rows.
    const wells::ModelSpec spec = test::two_phase_spec(8, 5, 4, test::corner_wells(8, 5, 4));
    wells::Model model = wells::generate(spec);
    GHMatrix& A = model.system.matrix;
    for (PreconditionerKind p : {PreconditionerKind::point_block_jacobi,
                                 PreconditionerKind::line_jacobi, PreconditionerKind::none}) {
        for (Method method : {Method::bicgstab, Method::qmr}) {
            SCOPED_TRACE(std::string(to_string(method)) + " + " + to_string(p));
            SolverSettings s;
            s.method = method;
            s.preconditioner = p;
            expect_solver_objects_agree(s, A, model.system.rhs);
        }
    }
}

TEST(DistributedSolve, CprIsOneProcessBitForBit) {
    // CPR set up on the whole system on every rank, applied on each rank's planes (level 0,
    // both stages) with the coarse levels gathered: BiCGStab's iterations, history and
    // solution are one process's, after an update of the values too, for each smoother,
    // cycle, sweep count and weighting; the split keeps level 0's aggregates whole.
    const wells::ModelSpec spec = test::two_phase_spec(16, 6, 4, test::corner_wells(16, 6, 4));
    wells::Model model = wells::generate(spec);
    GHMatrix& A = model.system.matrix;
    const int ranks = size_of(MPI_COMM_WORLD);
    for (const test::CprCase& c : test::cpr_cases()) {
        SCOPED_TRACE(c.name);
        // 16 x 6 x 4 -> 8 x 3 -> 4 x 2 -> 2 x 1 x 4 = 8: inverted
        const SolverSettings s = c.settings(30);
        // V: levels 0-2 split on up to 2 ranks (groups of 8 planes), 0-1 on 3 and 4 (groups of
        // 4); W: level 0 alone.
        EXPECT_EQ(cpr_split_levels(A.nx(), A.ny(), A.nz(), s.cpr, ranks), c.cycle == MgCycle::w ? 1
                                                                          : ranks <= 2          ? 3
                                                                                       : 2);
        expect_solver_objects_agree(s, A, model.system.rhs);
    }
    // Aggregates of 3 planes: 16 planes make 6 groups, level 0's boundaries at multiples of 3.
    SolverSettings three;
    three.preconditioner = PreconditionerKind::cpr;
    three.cpr.mg.factor = {3, 2, 1};
    EXPECT_EQ(cpr_granularity(A.nx(), A.ny(), A.nz(), three.cpr, ranks), 3);
    expect_solver_objects_agree(three, A, model.system.rhs);
    // More ranks than groups of level 0's aggregates: an input error naming the coarsening.
    three.cpr.mg.factor = {8, 2, 1};
    if (ranks > 2) {
        EXPECT_THROW(make_distributed_solver(three, A, MPI_COMM_WORLD), InputError);
    }
    // A singular block in the last plane: only the last rank's setup meets it, and every
    // rank throws the one-process error, at the setup and at an update (none is left
    // waiting in a collective).
    const GHMatrix bad = test::singular_last_block(A);
    SolverSettings cpr;
    cpr.preconditioner = PreconditionerKind::cpr;
    const std::string serial = test::input_error_of([&] { const CprPreconditioner M(bad); });
    EXPECT_NE(serial.find("of cell " + std::to_string(A.num_cells() - 1)), std::string::npos)
        << serial;
    EXPECT_EQ(test::input_error_of([&] { make_distributed_solver(cpr, bad, MPI_COMM_WORLD); }),
              serial);
    const auto solver = make_distributed_solver(cpr, A, MPI_COMM_WORLD);
    EXPECT_EQ(test::input_error_of([&] { solver->update_values(bad); }), serial);
    // One level: nothing to gather; QMR (no transpose): not supported; GPU ranks run it
    // (tests/dist/gpu_ranks_test.cpp).
    SolverSettings one;
    one.preconditioner = PreconditionerKind::cpr;
    one.cpr.mg.max_levels = 1;
    EXPECT_THROW(make_distributed_solver(one, A, MPI_COMM_WORLD), NotSupported);
    one.cpr.mg.max_levels = 30;
    EXPECT_TRUE(distributed_supports(one));
    EXPECT_TRUE(distributed_supports(one, nullptr, true));
    one.method = Method::qmr;
    EXPECT_FALSE(distributed_supports(one));
}

TEST(DistributedSolve, CprSplitsLevelsOfEnoughCellsAndTheEnvironmentCapsThem) {
    // 16 x 6 x 4 (384 cells) -> 8 x 3 x 4 (96) -> 4 x 2 x 4 (32) -> 2 x 1 x 4 (8): the most
    // levels split are 3 on 1-2 ranks and 2 on 3-4 (groups of level-0 planes); with min_cells
    // (GPU ranks' rule, decision 61) a level beyond 0 is split only with that many cells a
    // rank; HEPTANE_CPR_SPLIT=N splits at most N and sets the rule aside. Any split gives one
    // process's bits (level 0 alone here: the first whole level 96 cells).
    const wells::ModelSpec spec = test::two_phase_spec(16, 6, 4, test::corner_wells(16, 6, 4));
    wells::Model model = wells::generate(spec);
    GHMatrix& A = model.system.matrix;
    const int ranks = size_of(MPI_COMM_WORLD);
    SolverSettings s;
    s.preconditioner = PreconditionerKind::cpr;
    s.cpr.mg.coarsest_rows = 30;
    const auto split = [&](long long min_cells) {
        return cpr_split_levels(16, 6, 4, s.cpr, ranks, min_cells);
    };
    EXPECT_EQ(split(0), ranks <= 2 ? 3 : 2);
    EXPECT_EQ(split(40), ranks <= 2 ? 2 : 1);  // 96 cells >= 40 a rank on 1-2 ranks; 32 < 40
    EXPECT_EQ(split(1000), 1);
    {
        const test::ScopedEnv cap("HEPTANE_CPR_SPLIT", "1");
        EXPECT_EQ(split(0), 1);
        expect_solver_objects_agree(s, A, model.system.rhs);
    }
    {
        const test::ScopedEnv cap("HEPTANE_CPR_SPLIT", "2");
        EXPECT_EQ(split(1000), 2);  // the cap decides, not min_cells
    }
    {
        const test::ScopedEnv cap("HEPTANE_CPR_SPLIT", "auto");
        EXPECT_EQ(split(0), ranks <= 2 ? 3 : 2);
    }
    for (const char* bad : {"0", "two", "3x", "-1"}) {
        const test::ScopedEnv cap("HEPTANE_CPR_SPLIT", bad);
        const std::string e =
            test::input_error_of([&] { make_distributed_solver(s, A, MPI_COMM_WORLD); });
        EXPECT_NE(e.find("HEPTANE_CPR_SPLIT: '" + std::string(bad) + "' is not auto or a number"),
                  std::string::npos)
            << e;
    }
}

TEST(DistributedSolve, SpatialBlocksAreKeptWholeAndGiveTheOneProcessBits) {
    // Block Jacobi's blocks span several i-planes: the split keeps them whole (slabs start at
    // multiples of block_shape[0]) and each rank factors its own planes' blocks, so the solves
    // are one process's; more ranks than blocks along i is an input error.
    const wells::ModelSpec spec = test::two_phase_spec(8, 5, 4, test::corner_wells(8, 5, 4));
    wells::Model model = wells::generate(spec);
    GHMatrix& A = model.system.matrix;
    const int ranks = size_of(MPI_COMM_WORLD);
    for (std::array<int, 3> shape : {std::array<int, 3>{2, 2, 2}, std::array<int, 3>{3, 5, 4}}) {
        for (int r = 0; r <= ranks; ++r) {
            EXPECT_EQ(slab_first_plane(8, r, ranks, shape[0]) % shape[0] == 0 ||
                          slab_first_plane(8, r, ranks, shape[0]) == 8,
                      true);
        }
    }
    for (const test::BlockCase& c : test::block_cases({{2, 2, 2}, {3, 5, 4}})) {
        SCOPED_TRACE(c.name);
        if (ranks > (8 + c.settings.block_shape[0] - 1) / c.settings.block_shape[0]) {
            EXPECT_THROW(make_distributed_solver(c.settings, A, MPI_COMM_WORLD), InputError);
            continue;
        }
        expect_solver_objects_agree(c.settings, A, model.system.rhs);
    }
    SolverSettings blocks;
    blocks.preconditioner = PreconditionerKind::block_jacobi;
    EXPECT_TRUE(distributed_supports(blocks, nullptr, true));  // GPU ranks: gpu_ranks_test.cpp
}

/// The solver of `s` on the slab each rank generated of `spec` (split as `s` splits) against
/// one process on the whole system: solution, iterations and history bit for bit, after an
/// update of the values too, and the whole system's bytes an iteration.
void expect_slab_solver_is_one_process(const SolverSettings& s, const wells::ModelSpec& spec) {
    const wells::Model whole = wells::generate(spec);
    const int ranks = size_of(MPI_COMM_WORLD);
    const int g = slab_granularity(s, spec.grid.nx, spec.grid.ny, spec.grid.nz, ranks);
    const test::RankSlab part = test::rank_slab(spec, MPI_COMM_WORLD, g);
    const SlabPlacement& where = part.where;
    // the local vectors' layout
    const DistributedGH layout(whole.system.matrix, MPI_COMM_WORLD, false, true, g);
    SolveOptions o;
    o.tolerance = 1e-9;
    o.max_iterations = 400;
    GHMatrix A = whole.system.matrix, slab = part.model.system.matrix;
    const auto serial = make_cpu_solver(s, A);
    const auto mine = make_slab_solver(s, slab, where, MPI_COMM_WORLD);
    // The whole system's bytes an iteration, though no rank has it.
    EXPECT_NEAR(mine->info().bytes_per_iteration, serial->info().bytes_per_iteration,
                1e-12 * serial->info().bytes_per_iteration);
    test::expect_slab_solves_agree(*serial, *mine, A, slab, whole.system.rhs, layout, o);
    if (ranks > 1) {  // the whole vectors are not a rank's
        std::vector<double> whole_x(whole.system.rhs.size(), 0.0);
        EXPECT_THROW(mine->solve(whole.system.rhs, whole_x, o), std::invalid_argument);
    }
}

/// expect_slab_solver_is_one_process for BiCGStab and QMR with preconditioner p.
void expect_slab_methods_are_one_process(PreconditionerKind p, const wells::ModelSpec& spec) {
    for (Method method : {Method::bicgstab, Method::qmr}) {
        SCOPED_TRACE(to_string(method));
        SolverSettings s;
        s.method = method;
        s.preconditioner = p;
        expect_slab_solver_is_one_process(s, spec);
    }
}

TEST(DistributedSolve, SlabsEachRankGeneratesGiveTheOneProcessBits) {
    // No rank holds the whole system: each generates its window (wells::generate_planes) and
    // solves with its local vectors; the solution is one process's, bit for bit, and so is an
    // update of the values.
    std::vector<wells::WellSpec> wells = test::corner_wells(9, 5, 4);
    wells.push_back(test::make_well("MID", 4, 2, 0, 3, true, true));
    const wells::ModelSpec spec = test::two_phase_spec(9, 5, 4, wells);
    expect_slab_methods_are_one_process(PreconditionerKind::point_block_jacobi, spec);
    // Spatial blocks two planes thick: the windows follow the split that keeps them whole.
    SolverSettings blocks;
    blocks.preconditioner = PreconditionerKind::block_jacobi;
    blocks.block_shape = {2, 5, 4};
    if (size_of(MPI_COMM_WORLD) <= 4) expect_slab_solver_is_one_process(blocks, spec);
    // A slab that is not this rank's window is refused.
    const test::RankSlab part = test::rank_slab(spec, MPI_COMM_WORLD);
    GHMatrix wrong(part.model.system.matrix.nx() + 1, 5, 4, 2);
    EXPECT_THROW(
        DistributedGH(wrong, 9, part.where.global_wells, part.where.total_wells, MPI_COMM_WORLD),
        std::invalid_argument);
}

TEST(DistributedSolve, FaultedSlabsEachRankGeneratesAreOneProcessBitForBit) {
    // A fault between planes 3 and 4 (test::add_fault; on 2 ranks, between the ranks): each
    // rank's window keeps the fault's connections between its cells (generate_planes cuts them
    // with the geometry), so the slab solvers of BiCGStab and QMR give one process's bits,
    // after an update too.
    wells::ModelSpec spec = test::two_phase_spec(9, 5, 4, test::corner_wells(9, 5, 4));
    test::add_fault(spec);
    ASSERT_GT(grid::non_neighbour_connections(spec.grid, wells::generate(spec, false).rock), 0u);
    expect_slab_methods_are_one_process(PreconditionerKind::line_jacobi, spec);
    // CPR on the slabs, its pressure system with the window's connections (decision 66).
    SCOPED_TRACE("cpr");
    expect_slab_solver_is_one_process(test::cpr_cases()[0].settings(30), spec);
}

TEST(DistributedSolve, CprOnSlabsEachRankGeneratesIsOneProcessBitForBit) {
    // CPR with no rank holding the whole system (design decision 56): each rank generates the
    // window of CPR's split (groups of its split levels' aggregates) and holds its slab of
    // level 0 and of every split level, their halo planes exchanged; the coarse levels are
    // gathered. Every smoother, cycle, sweep count and weighting, and 3 x 2 x 1 aggregation,
    // give one process's iterations, history and solution, after an update too.
    const wells::ModelSpec spec = test::two_phase_spec(16, 6, 4, test::corner_wells(16, 6, 4));
    for (const test::CprCase& c : test::cpr_cases()) {
        SCOPED_TRACE(c.name);
        expect_slab_solver_is_one_process(c.settings(30), spec);
    }
    SolverSettings three;
    three.preconditioner = PreconditionerKind::cpr;
    three.cpr.mg.factor = {3, 2, 1};
    expect_slab_solver_is_one_process(three, spec);
}

void expect_newton_split_is_one_process(const SolverSettings& s, bool faulted = false) {
    test::ThreeWellReservoir r(4.0, faulted);
    ASSERT_EQ(r.system->cells().has_nnc(), faulted);
    const grid::Grid3D& g = r.system->cells().grid();
    SolveOptions linear;
    linear.tolerance = 1e-10;
    linear.max_iterations = 500;
    const sim::NewtonSplit split = newton_split(s, g.nx, g.ny, g.nz, MPI_COMM_WORLD);
    // The wells of this rank's planes (the slab solver's placement).
    const sim::NewtonSplit::Planes p = split.planes(static_cast<index_t>(g.ny) * g.nz);
    SlabPlacement where;
    where.nx = g.nx;
    where.total_wells = r.system->wells().layout().num_wells();
    slab_wells(r.system->wells().layout(), g.ny, g.nz, 2, p.first, p.count, p.own_first, p.own_end,
               &where.global_wells);
    const sim::State start = sim::starting_state(*r.system, r.x0);
    auto serial = sim::make_host_newton(
        *r.system, start, [&](const GHMatrix& J) { return make_cpu_solver(s, J); }, linear);
    auto ranks = sim::make_host_newton(
        *r.system, start,
        [&](const GHMatrix& J) {
            EXPECT_EQ(J.nx(), p.count);
            return make_slab_solver(s, J, where, MPI_COMM_WORLD);
        },
        linear, &split);
    const auto controls = r.system->wells().initial_controls(start.cells);
    const double dt = 5.0 * units::kDay;
    const sim::UpdateLimits limits{0.3, 0.2};
    serial->start_step();
    ranks->start_step();
    for (int it = 0; it < 3; ++it) {
        SCOPED_TRACE("Newton iterate " + std::to_string(it));
        serial->assemble(dt, controls);
        ranks->assemble(dt, controls);
        const sim::ResidualMeasures a = serial->measure(dt), b = ranks->measure(dt);
        EXPECT_TRUE(same_bits({a.residual_sum[0], a.residual_sum[1], a.pore_volume, a.cnv_max[0],
                               a.cnv_max[1], a.norm},
                              {b.residual_sum[0], b.residual_sum[1], b.pore_volume, b.cnv_max[0],
                               b.cnv_max[1], b.norm}));
        EXPECT_EQ(a.finite, b.finite);
        EXPECT_TRUE(same_bits(a.wells, b.wells));
        EXPECT_GT(a.cnv_max[0], 0.0);
        const SolveResult ra = serial->solve(1e-8), rb = ranks->solve(1e-8);
        EXPECT_TRUE(test::same_solve(ra, rb));
        serial->update(limits);
        ranks->update(limits);
        EXPECT_TRUE(same_bits(serial->state().cells.p, ranks->state().cells.p));
        EXPECT_TRUE(same_bits(serial->state().cells.sw, ranks->state().cells.sw));
        EXPECT_TRUE(same_bits(serial->state().p_bh, ranks->state().p_bh));
    }
}

TEST(DistributedSolve, NewtonSplitGivesOneProcessMeasuresAndIterates) {
    // A simulation's host Newton loop under mpirun: each rank assembles its slab's cells
    // (with the halo planes) and measures its planes (sim::NewtonSplit), the measures joined
    // across the ranks; each rank holds only its slab of the Jacobian, with its own planes'
    // wells, solved on local vectors, and dx is gathered. Every
    // measure, solve and update of three Newton iterates is one process's on every rank; the
    // wells sit at both ends along i, so the CNV maxima and the sums come from different ranks.
    SolverSettings pbj, cpr;
    pbj.preconditioner = PreconditionerKind::point_block_jacobi;
    cpr.preconditioner = PreconditionerKind::cpr;
    cpr.cpr.weights = CprWeights::true_impes;  // the slab's accumulation blocks
    expect_newton_split_is_one_process(pbj);
    // CPR: 6 planes make 3 groups of level 0's aggregates.
    if (size_of(MPI_COMM_WORLD) <= 3) {
        SCOPED_TRACE("cpr");
        expect_newton_split_is_one_process(cpr);
    }
    // A fault between planes 2 and 3 (on 2 ranks, between the ranks): each rank assembles its
    // slab's connections into its slab's storage (grid::TwoPhaseCells::zero_jacobian(first,
    // count)), a halo cell's connections to cells outside the slab adding to its residual only.
    SCOPED_TRACE("faulted");
    expect_newton_split_is_one_process(pbj, true);
    if (size_of(MPI_COMM_WORLD) <= 3) expect_newton_split_is_one_process(cpr, true);
}

}  // namespace
}  // namespace heptane::dist
