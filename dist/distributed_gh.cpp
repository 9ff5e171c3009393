#include "dist/distributed_gh.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "dist/mpi_sum.hpp"

namespace heptane::dist {

DistributedGH::DistributedGH(const GHMatrix& A, MPI_Comm comm, bool transpose, bool cpu_product,
                             int granularity)
    : comm_(comm),
      rank_(rank_of(comm)),
      ranks_(size_of(comm)),
      K_(A.block_size()),
      granularity_(granularity > 1 ? granularity : 1),
      slab_(1, 1, 1, 1) {
    const int nx = A.nx();
    split(nx, static_cast<index_t>(A.ny()) * A.nz());
    const int e0 = first_plane_ - lo_halo_, planes = end_plane_ + hi_halo_ - e0;
    slab_ = GHMatrix(planes, A.ny(), A.nz(), K_);
    if (A.has_nnc()) {  // the connections inside the window; the owned rows must keep all
        const index_t first = e0 * plane_, own0 = first_plane_ * plane_;
        for (index_t m = own0; m < own0 + own_cells_; ++m) {
            for (index_t e = A.nnc().ptr[m]; e < A.nnc().ptr[m + 1]; ++e) {
                const index_t n = A.nnc().col[e];
                if (n < first || n >= first + slab_.num_cells()) {
                    throw std::invalid_argument("DistributedGH: cell " + std::to_string(m) +
                                                "'s connection to cell " + std::to_string(n) +
                                                " reaches past the halo planes");
                }
            }
        }
        slab_.set_nnc(nnc_window(A.nnc(), K_, first, slab_.num_cells(), &nnc_source_));
        whole_nnc_values_ = A.nnc().vals.size();
    }
    copy_blocks(A);
    // Every rank's wells (those of its columns), this rank's in its slab.
    const WellArrays& g = A.wells();
    wells_of_rank_.assign(static_cast<std::size_t>(ranks_), {});
    for (index_t k = 0; k < A.num_wells(); ++k) {
        const auto i = static_cast<int>(g.cell0[k] / A.nz() / A.ny());
        const int owner = slab_of_plane(nx_, i, ranks_, granularity_);
        wells_of_rank_[static_cast<std::size_t>(owner)].push_back(static_cast<int>(k));
    }
    WellArrays w = slab_wells(g, A.ny(), A.nz(), K_, e0, planes, first_plane_, end_plane_, &wells_);
    for (int k : wells_) well_rows_.push_back(global_cell_rows_ + k);
    slab_.set_wells(std::move(w));
    make_product(transpose, cpu_product);
}

DistributedGH::DistributedGH(const GHMatrix& slab, int nx, const std::vector<int>& global_wells,
                             index_t total_wells, MPI_Comm comm, bool transpose, bool cpu_product,
                             int granularity)
    : comm_(comm),
      rank_(rank_of(comm)),
      ranks_(size_of(comm)),
      K_(slab.block_size()),
      granularity_(granularity > 1 ? granularity : 1),
      slab_(slab) {
    split(nx, static_cast<index_t>(slab.ny()) * slab.nz());
    const std::array<int, 2> window = slab_window(nx, rank_, ranks_, granularity_);
    if (slab.nx() != window[1] - window[0] ||
        static_cast<index_t>(global_wells.size()) != slab.num_wells()) {
        throw std::invalid_argument(
            "DistributedGH: a slab of " + std::to_string(slab.nx()) + " planes and " +
            std::to_string(slab.num_wells()) + " wells is not rank " + std::to_string(rank_) +
            "'s window of " + std::to_string(window[1] - window[0]) + " planes with " +
            std::to_string(global_wells.size()) + " wells");
    }
    // Every rank's wells, in global order (rank r's slab has the wells of its own planes).
    const std::vector<double> counts = allgather({static_cast<double>(global_wells.size())}, comm_);
    const std::vector<double> all =
        allgather(std::vector<double>(global_wells.begin(), global_wells.end()), comm_);
    wells_of_rank_.assign(static_cast<std::size_t>(ranks_), {});
    std::size_t at = 0;
    for (int r = 0; r < ranks_; ++r) {
        for (auto n = static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]); n > 0; --n) {
            const auto well = static_cast<index_t>(all[at++]);
            if (well < 0 || well >= total_wells) {
                throw std::invalid_argument("DistributedGH: well " + std::to_string(well) + " of " +
                                            std::to_string(total_wells));
            }
            wells_of_rank_[static_cast<std::size_t>(r)].push_back(static_cast<int>(well));
        }
    }
    if (at != static_cast<std::size_t>(total_wells)) {
        throw std::invalid_argument("DistributedGH: the ranks hold " + std::to_string(at) +
                                    " wells, the system " + std::to_string(total_wells));
    }
    for (int k : global_wells) {
        wells_.push_back(k);
        well_rows_.push_back(global_cell_rows_ + k);
    }
    make_product(transpose, cpu_product);
}

std::array<int, 2> DistributedGH::slab_window(int nx, int rank, int ranks, int g) {
    const int first = slab_first_plane(nx, rank, ranks, g),
              end = slab_first_plane(nx, rank + 1, ranks, g);
    return {first > 0 ? first - 1 : first, end < nx ? end + 1 : end};
}

void DistributedGH::split(int nx, index_t plane) {
    if (ranks_ > (nx + granularity_ - 1) / granularity_) {
        throw std::invalid_argument(
            "DistributedGH: " + std::to_string(ranks_) + " ranks for " + std::to_string(nx) +
            " i-planes" +
            (granularity_ > 1 ? " in groups of " + std::to_string(granularity_) : std::string()));
    }
    nx_ = nx;
    first_plane_ = plane_of_rank(rank_);
    end_plane_ = plane_of_rank(rank_ + 1);
    lo_halo_ = first_plane_ > 0 ? 1 : 0;
    hi_halo_ = end_plane_ < nx ? 1 : 0;
    plane_ = plane;
    own_cells_ = (end_plane_ - first_plane_) * plane_;
    global_cell_rows_ = static_cast<index_t>(nx) * plane_ * K_;
}

void DistributedGH::make_product(bool transpose, bool cpu_product) {
    if (!cpu_product) return;
    slab_op_ = std::make_unique<CpuGHOperator>(slab_, true, transpose);
    x_slab_.assign(static_cast<std::size_t>(slab_.rows()), 0.0);
    y_slab_.assign(x_slab_.size(), 0.0);
}

/// The blocks of the slab's cells, owned and halo (the halo rows are computed and dropped), and
/// their accumulation blocks where A has them (CPR's true-IMPES weights).
void DistributedGH::copy_blocks(const GHMatrix& A) {
    const index_t M = A.num_cells(), Ms = slab_.num_cells();
    const index_t shift = (first_plane_ - lo_halo_) * plane_;
    const auto copy = [&](const std::vector<double>& from, std::vector<double>& to, index_t n) {
        for (index_t e = 0; e < n; ++e) {
            for (index_t m = 0; m < Ms; ++m) to[e * Ms + m] = from[e * M + m + shift];
        }
    };
    copy(A.bdia(), slab_.bdia(), static_cast<index_t>(kStencilSize) * K_ * K_);
    const auto block = static_cast<std::size_t>(K_) * K_;
    for (std::size_t e = 0; e < nnc_source_.size(); ++e) {
        std::copy_n(A.nnc().vals.begin() + nnc_source_[e] * block, block,
                    slab_.nnc().vals.begin() + e * block);
    }
    if (A.has_accumulation()) {
        copy(A.accumulation(), slab_.accumulation_for_writing(), static_cast<index_t>(K_) * K_);
    }
}

void DistributedGH::update(const GHMatrix& A) {
    if (A.nx() * plane_ != A.num_cells() || A.block_size() != K_ ||
        A.cell_unknowns() != global_cell_rows_ || A.nnc().vals.size() != whole_nnc_values_) {
        throw std::invalid_argument("DistributedGH::update: another system");
    }
    copy_blocks(A);
    WellArrays& w = slab_.wells();
    const WellArrays& g = A.wells();
    for (std::size_t j = 0; j < wells_.size(); ++j) {
        const auto k = static_cast<std::size_t>(wells_[j]);
        const index_t n = g.count[k] * K_;
        std::copy(g.w_vals.begin() + g.first[k], g.w_vals.begin() + g.first[k] + n,
                  w.w_vals.begin() + w.first[j]);
        std::copy(g.wt_vals.begin() + g.first[k], g.wt_vals.begin() + g.first[k] + n,
                  w.wt_vals.begin() + w.first[j]);
        w.d[j] = g.d[k];
    }
    if (slab_op_) slab_op_->update(slab_);
}

void DistributedGH::update_slab(const GHMatrix& slab) {
    if (slab.nx() != slab_.nx() || slab.ny() != slab_.ny() || slab.nz() != slab_.nz() ||
        slab.block_size() != K_ || slab.num_wells() != slab_.num_wells() ||
        slab.wells().w_vals.size() != slab_.wells().w_vals.size() ||
        slab.nnc().ptr != slab_.nnc().ptr || slab.nnc().col != slab_.nnc().col) {
        throw std::invalid_argument("DistributedGH::update_slab: another slab");
    }
    slab_.bdia() = slab.bdia();
    slab_.nnc().vals = slab.nnc().vals;
    slab_.wells() = slab.wells();
    if (slab.has_accumulation()) slab_.accumulation_for_writing() = slab.accumulation();
    if (slab_op_) slab_op_->update(slab_);
}

void DistributedGH::to_slab(const double* mine, double* xs) const {
    const index_t own = own_cells_ * K_, own_at = lo_halo_ * plane_ * K_;
    const index_t slab_cells = slab_.cell_unknowns();
    std::fill(xs, xs + slab_.rows(), 0.0);
    for (index_t i = 0; i < own; ++i) xs[own_at + i] = mine[i];
    for (std::size_t j = 0; j < wells_.size(); ++j) xs[slab_cells + j] = mine[own + j];
}

void DistributedGH::from_slab(const double* ys, double* mine) const {
    const index_t own = own_cells_ * K_, own_at = lo_halo_ * plane_ * K_;
    const index_t slab_cells = slab_.cell_unknowns();
    for (index_t i = 0; i < own; ++i) mine[i] = ys[own_at + i];
    for (std::size_t j = 0; j < wells_.size(); ++j) mine[own + j] = ys[slab_cells + j];
}

void DistributedGH::exchange(const double* first, const double* last, double* lo,
                             double* hi) const {
    // The first owned plane to the rank below, the last to the rank above.
    const auto t0 = std::chrono::steady_clock::now();
    const int below = lo_halo_ ? rank_ - 1 : MPI_PROC_NULL;
    const int above = hi_halo_ ? rank_ + 1 : MPI_PROC_NULL;
    exchange_planes(first, last, lo, hi, static_cast<int>(plane_ * K_), below, above, comm_);
    halo_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<unsigned char> DistributedGH::all_gather(const void* mine, int bytes) const {
    std::vector<unsigned char> all(static_cast<std::size_t>(bytes) * ranks_);
    MPI_Allgather(mine, bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, comm_);
    return all;
}

gpu::SlabLayout DistributedGH::layout() const {
    gpu::SlabLayout l;
    l.plane = plane_ * K_;
    l.own_at = lo_halo_ * l.plane;
    l.own = own_cells_ * K_;
    l.lo_halo = lo_halo_ != 0;
    l.hi_halo = hi_halo_ != 0;
    l.wells_at = slab_.cell_unknowns();
    l.wells = static_cast<int>(wells_.size());
    return l;
}

void DistributedGH::product(const double* x, double* y, bool transpose) const {
    if (!slab_op_) throw std::logic_error("DistributedGH: made without the CPU product");
    const index_t plane = plane_ * K_, own = own_cells_ * K_;
    const index_t own_at = lo_halo_ * plane;  // the owned cells' first entry in the slab
    double* xs = x_slab_.data();
    double* ys = y_slab_.data();
    to_slab(x, xs);
    // The halo planes travel (nonblocking) while the interior planes' rows and the wells' are
    // computed; then the edge planes' rows, which read them.
    const auto t0 = std::chrono::steady_clock::now();
    const int below = lo_halo_ ? rank_ - 1 : MPI_PROC_NULL;
    const int above = hi_halo_ ? rank_ + 1 : MPI_PROC_NULL;
    const int count = static_cast<int>(plane);
    MPI_Request requests[4];
    MPI_Irecv(xs, count, MPI_DOUBLE, below, 0, comm_, &requests[0]);
    MPI_Irecv(xs + own_at + own, count, MPI_DOUBLE, above, 1, comm_, &requests[1]);
    MPI_Isend(xs + own_at + own - plane, count, MPI_DOUBLE, above, 0, comm_, &requests[2]);
    MPI_Isend(xs + own_at, count, MPI_DOUBLE, below, 1, comm_, &requests[3]);
    halo_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const index_t ny = slab_.ny();
    const index_t first = lo_halo_ * ny;  // the first owned plane's columns
    const index_t end = first + (end_plane_ - first_plane_) * ny;  // past the last owned plane
    index_t ib = first + (lo_halo_ ? ny : 0), ie = end - (hi_halo_ ? ny : 0);
    if (ib >= ie) ib = ie = end;  // one owned plane with a neighbour: all of it is edge
    slab_op_->apply_columns(xs, ys, {ib, ie, true}, transpose);
    const auto t1 = std::chrono::steady_clock::now();
    MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
    halo_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    if (first < ib) slab_op_->apply_columns(xs, ys, {first, ib, false}, transpose);
    if (ie < end && ie != ib) slab_op_->apply_columns(xs, ys, {ie, end, false}, transpose);
    // (ib == ie == end: no interior plane, the edge range above was every owned plane.)
    from_slab(ys, y);
}

void DistributedGH::apply(const double* x, double* y) const { product(x, y, false); }
void DistributedGH::apply_transpose(const double* x, double* y) const { product(x, y, true); }

double DistributedGH::minimal_bytes() const { return GHOperator(slab_).minimal_bytes(); }

double DistributedGH::combine(const std::vector<PieceSums>& mine) const {
    const auto t0 = std::chrono::steady_clock::now();
    const double sum = allreduce_canonical(mine, comm_);
    reduction_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return sum;
}

std::vector<double> DistributedGH::combine_each(
    const std::vector<std::vector<PieceSums>>& mine) const {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<double> sums = allreduce_canonical(mine, comm_, &gather_counts_[mine.size()]);
    reduction_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return sums;
}

std::vector<double> DistributedGH::local(const std::vector<double>& global) const {
    std::vector<double> mine(global.begin() + cell_offset(),
                             global.begin() + cell_offset() + cells());
    for (index_t row : well_rows_) mine.push_back(global[static_cast<std::size_t>(row)]);
    return mine;
}

std::vector<double> DistributedGH::gather(const std::vector<double>& mine) const {
    // Values only: every rank knows every rank's planes and wells (the same split of the
    // same A), so rank r's message is its cells, then its wells in global order.
    std::vector<int> counts(static_cast<std::size_t>(ranks_));
    for (int r = 0; r < ranks_; ++r) {
        counts[static_cast<std::size_t>(r)] = static_cast<int>(
            (plane_of_rank(r + 1) - plane_of_rank(r)) * plane_ * K_ +
            static_cast<index_t>(wells_of_rank_[static_cast<std::size_t>(r)].size()));
    }
    if (static_cast<int>(mine.size()) != counts[static_cast<std::size_t>(rank_)]) {
        throw std::invalid_argument("DistributedGH::gather: not this rank's entries");
    }
    std::vector<int> offsets(counts.size());
    long long total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        offsets[r] = static_cast<int>(total);
        total += counts[r];
    }
    std::vector<double> all(static_cast<std::size_t>(total));
    MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                   counts.data(), offsets.data(), MPI_DOUBLE, comm_);
    std::vector<double> global(static_cast<std::size_t>(total));
    std::size_t at = 0;
    for (int r = 0; r < ranks_; ++r) {
        const index_t begin = plane_of_rank(r) * plane_ * K_,
                      end = plane_of_rank(r + 1) * plane_ * K_;
        std::copy(all.begin() + static_cast<std::ptrdiff_t>(at),
                  all.begin() + static_cast<std::ptrdiff_t>(at + (end - begin)),
                  global.begin() + begin);
        at += static_cast<std::size_t>(end - begin);
        for (int k : wells_of_rank_[static_cast<std::size_t>(r)])
            global[static_cast<std::size_t>(global_cell_rows_ + k)] = all[at++];
    }
    return global;
}

int DistributedGH::plane_of_rank(int r) const {
    return slab_first_plane(nx_, r, ranks_, granularity_);
}

GHMatrix DistributedGH::own_planes() const {
    return planes_of(slab_, lo_halo_, end_plane_ - first_plane_);
}

}  // namespace heptane::dist
