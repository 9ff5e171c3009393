#pragma once
// The slab a rank generates itself (wells::generate_planes of its window) and where it lies in
// the whole system: what dist::make_slab_solver takes (the distributed tests, CPU and GPU), and
// the check of a solver on it against one process.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <vector>

#include "common/same_bits.hpp"
#include "core/base/piece_sums.hpp"
#include "core/krylov/linear_solver.hpp"
#include "dist/distributed_gh.hpp"
#include "dist/distributed_solver.hpp"
#include "dist/mpi_sum.hpp"
#include "wells/generator.hpp"

namespace heptane::test {

struct RankSlab {
    wells::Model model;
    dist::SlabPlacement where;
};

/// g: the split's groups of planes (dist::slab_granularity).
inline RankSlab rank_slab(const wells::ModelSpec& spec, MPI_Comm comm, int g = 1) {
    const int nx = spec.grid.nx, rank = dist::rank_of(comm), ranks = dist::size_of(comm);
    const std::array<int, 2> w = dist::DistributedGH::slab_window(nx, rank, ranks, g);
    RankSlab s;
    s.where.nx = nx;
    s.where.total_wells = static_cast<index_t>(spec.wells.size());
    s.model = wells::generate_planes(spec,
                                     {w[0], w[1], slab_first_plane(nx, rank, ranks, g),
                                      slab_first_plane(nx, rank + 1, ranks, g)},
                                     s.where.global_wells);
    return s;
}

/// Two rounds of: `one` (one process on the whole system A) and `mine` (a rank's solver on its
/// slab, local vectors in `layout`'s layout) solve b, their results and solutions bit for bit;
/// then A's and the slab's values change alike (x 1.25) and both solvers are updated.
inline void expect_slab_solves_agree(LinearSolver& one, LinearSolver& mine, GHMatrix& A,
                                     GHMatrix& slab, const std::vector<double>& b,
                                     const dist::DistributedGH& layout, const SolveOptions& o) {
    for (int round = 0; round < 2; ++round) {
        std::vector<double> x1(b.size(), 0.0);
        const std::vector<double> b_mine = layout.local(b);
        std::vector<double> x2(b_mine.size(), 0.0);
        const SolveResult r1 = one.solve(b, x1, o);
        const SolveResult r2 = mine.solve(b_mine, x2, o);
        EXPECT_TRUE(same_solve(r1, r2));
        EXPECT_TRUE(same_bits(layout.local(x1), x2));
        EXPECT_GT(r1.iterations, 3);
        for (double& v : A.bdia()) v *= 1.25;  // new values, the same structure
        for (double& v : slab.bdia()) v *= 1.25;
        for (double& v : A.nnc().vals) v *= 1.25;
        for (double& v : slab.nnc().vals) v *= 1.25;
        one.update_values(A);
        mine.update_values(slab);
    }
}

}  // namespace heptane::test
