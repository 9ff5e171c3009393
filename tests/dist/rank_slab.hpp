#pragma once
// The slab a rank generates itself (wells::generate_planes of its window) and where it lies in
// the whole system: what dist::make_slab_solver takes (the distributed tests, CPU and GPU).
#include <mpi.h>

#include <array>

#include "core/base/piece_sums.hpp"
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

}  // namespace heptane::test
