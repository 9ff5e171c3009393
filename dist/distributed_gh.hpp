#pragma once
/// @file A GH system split over MPI ranks in slabs of i-planes (issue 25, second step): each
/// rank holds the blocks of its planes and of the one plane on each side it borrows x from
/// (the halo), and the wells whose column is in its slab (a well is never cut: it lies in one
/// column). A product exchanges the halo planes of x with the neighbouring ranks, then runs
/// the Bdia product (A x, or A^T x for QMR) on the slab: each owned row is summed in the
/// one-process order, so with the canonical sums of dist::allreduce_canonical the CPU solvers
/// give one process's bits on any number of ranks. The global vector is [cells, then wells];
/// a rank's local vector is [its cells, then its wells].
#include <mpi.h>

#include <array>
#include <map>
#include <memory>
#include <vector>

#include "core/base/piece_sums.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "core/matrix/linear_operator.hpp"
#include "gpu/slab_solver.hpp"

namespace heptane::dist {

class DistributedGH final : public LinearOperator, public Distribution, public gpu::SlabNeighbours {
  public:
    /// This rank's slab of A (every rank passes the same A): planes [i0, i1) with
    /// i0 = nx r / ranks. std::invalid_argument when there are more ranks than planes. The
    /// slab's product is the CPU solvers' (CpuGHOperator: cell-major at K >= 6, with the copy
    /// of H^T's blocks when `transpose`, for QMR); a GPU rank, which has its own, passes
    /// cpu_product false (apply() then throws std::logic_error).
    /// With a granularity g > 1 the split keeps groups of g planes whole (a spatial block
    /// preconditioner's blocks along i): std::invalid_argument when there are more ranks than
    /// groups. A's non-neighbour connections inside the slab are kept (each owned row's all:
    /// std::invalid_argument when one reaches past the halo planes, more than one plane).
    DistributedGH(const GHMatrix& A, MPI_Comm comm, bool transpose = false, bool cpu_product = true,
                  int granularity = 1);
    /// This rank's slab as the rank generated it (wells::generate_planes with slab_window):
    /// `slab` holds the planes of slab_window(nx, rank, ranks, granularity) of a grid of nx
    /// i-planes and the wells of the owned planes, its well j being global well
    /// global_wells[j] of total_wells; no rank holds the whole system. Its non-neighbour
    /// connections are those inside the window (generate_planes cuts them so).
    /// std::invalid_argument when the slab is not this rank's window.
    DistributedGH(const GHMatrix& slab, int nx, const std::vector<int>& global_wells,
                  index_t total_wells, MPI_Comm comm, bool transpose = false,
                  bool cpu_product = true, int granularity = 1);

    index_t size() const override { return own_cells_ * K_ + static_cast<index_t>(wells_.size()); }
    void apply(const double* x, double* y) const override;
    void apply_transpose(const double* x, double* y) const override;
    double minimal_bytes() const override;

    index_t cell_offset() const override { return first_plane_ * plane_ * K_; }
    index_t cells() const override { return own_cells_ * K_; }
    const std::vector<index_t>& well_rows() const override { return well_rows_; }
    double combine(const std::vector<PieceSums>& mine) const override;
    /// One gather for all the sums; every rank's message size is kept per number of sums
    /// (a pass's pieces have the same sizes every time).
    std::vector<double> combine_each(
        const std::vector<std::vector<PieceSums>>& mine) const override;

    /// The halo planes with the neighbouring ranks (gpu::SlabNeighbours; apply() uses it too).
    void exchange(const double* first, const double* last, double* lo, double* hi) const override;
    std::vector<unsigned char> all_gather(const void* mine, int bytes) const override;
    int rank() const override { return rank_; }
    int ranks() const override { return ranks_; }
    /// Where this rank's entries sit in the slab's vectors.
    gpu::SlabLayout layout() const;

    /// Wall seconds in exchange() and combine() since the last reset_times().
    double halo_seconds() const { return halo_seconds_; }
    double reduction_seconds() const { return reduction_seconds_; }
    void reset_times() const { halo_seconds_ = reduction_seconds_ = 0.0; }

    /// New values of A (the same system: same dims, K and wells).
    void update(const GHMatrix& A);
    /// New values of a slab made by the second constructor (the same window and wells).
    void update_slab(const GHMatrix& slab);

    /// This rank's entries of a global vector, and the global vector of every rank's entries
    /// (collective).
    std::vector<double> local(const std::vector<double>& global) const;
    std::vector<double> gather(const std::vector<double>& mine) const;

    /// The slab as a GH matrix of its own (the owned planes, the halo planes, this rank's
    /// wells), and this rank's local vector in its layout (halo entries zero) and back.
    const GHMatrix& slab() const { return slab_; }
    /// The owned planes alone as a GH matrix (with this rank's wells): what a preconditioner
    /// whose blocks span several planes is built on, so that its blocks are the one-process
    /// blocks (the split keeps them whole); its vectors are this rank's local vectors.
    GHMatrix own_planes() const;
    void to_slab(const double* mine, double* slab_vector) const;
    void from_slab(const double* slab_vector, double* mine) const;

    /// Planes [first, end) of rank r's window of a grid of nx planes split in groups of g:
    /// its own planes and the halo plane on each side with a neighbour.
    static std::array<int, 2> slab_window(int nx, int rank, int ranks, int g = 1);

    int first_plane() const { return first_plane_; }
    int end_plane() const { return end_plane_; }
    /// The whole grid's i-planes.
    int nx() const { return nx_; }
    /// The global numbers of this rank's wells (those of its planes), in its slab's order.
    const std::vector<int>& global_wells() const { return wells_; }

  private:
    void product(const double* x, double* y, bool transpose) const;
    /// Rank r's first plane (r = ranks: nx).
    int plane_of_rank(int r) const;
    void copy_blocks(const GHMatrix& A);
    /// The planes of this rank (from nx_ and the ranks), checked against the ranks' count.
    void split(int nx, index_t plane);
    /// The CPU product on the slab, where asked for.
    void make_product(bool transpose, bool cpu_product);

    MPI_Comm comm_;
    int rank_ = 0, ranks_ = 1, K_ = 1, nx_ = 0;
    int granularity_ = 1;                  ///< the split keeps groups of this many planes whole
    int first_plane_ = 0, end_plane_ = 0;  ///< owned planes [first, end)
    int lo_halo_ = 0, hi_halo_ = 0;        ///< 1 where a neighbour rank lends a plane
    index_t plane_ = 0;                    ///< cells of a plane (ny nz)
    index_t own_cells_ = 0;
    index_t global_cell_rows_ = 0;                 ///< M K of the whole system
    std::vector<int> wells_;                       ///< global numbers of this rank's wells
    std::vector<index_t> well_rows_;               ///< their global rows
    std::vector<std::vector<int>> wells_of_rank_;  ///< every rank's wells, in global order
    GHMatrix slab_;                                ///< the owned and halo planes, this rank's wells
    std::vector<index_t> nnc_source_;   ///< each slab connection entry's entry in the whole A
    std::size_t whole_nnc_values_ = 0;  ///< the whole A's connection values (first constructor)
    std::unique_ptr<CpuGHOperator> slab_op_;  ///< the product on the slab
    mutable std::vector<double> x_slab_, y_slab_;
    mutable double halo_seconds_ = 0.0, reduction_seconds_ = 0.0;
    mutable std::map<std::size_t, std::vector<int>> gather_counts_;  ///< by number of sums
};

}  // namespace heptane::dist
