#include "dist/distributed_cpr.hpp"

#include <chrono>
#include <string>

#include "core/base/errors.hpp"

namespace heptane::dist {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int cpr_granularity(int nx, int ny, int nz, const CprOptions& options) {
    const auto grids = mg_grids(nx, ny, nz, options.mg);
    return grids.size() > 1 ? grids[0].fx : 1;
}

int cpr_granularity(const GHMatrix& A, const CprOptions& options) {
    return cpr_granularity(A.nx(), A.ny(), A.nz(), options);
}

DistributedCpr::DistributedCpr(const GHMatrix& A, const DistributedGH& D, const CprOptions& options,
                               MPI_Comm comm)
    : D_(D), comm_(comm) {
    const auto grids = mg_grids(A.nx(), A.ny(), A.nz(), options.mg);
    if (grids.size() < 2) {
        throw NotSupported(
            "cpr over MPI ranks needs a coarse level to gather (this grid's hierarchy has one "
            "level: see solver.cpr.coarsening and coarsest_rows)");
    }
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &ranks_);
    plane_ = static_cast<index_t>(A.ny()) * A.nz();
    planes_.first_plane = D.first_plane();
    planes_.end_plane = D.end_plane();
    const index_t cell_rows = A.num_cells() * A.block_size();
    for (index_t row : D.well_rows()) planes_.wells.push_back(static_cast<int>(row - cell_rows));
    planes_.exchange = [this](double* x) { exchange(x); };
    planes_.gather = [this](double* b) { gather(b); };
    planes_.agree = [this](const InputError* mine) { agree(mine); };
    if (D.first_plane() > 0) lo_ = rank_ - 1;
    if (D.end_plane() < A.nx()) hi_ = rank_ + 1;
    // Level 1's entries of each rank: the coarse planes of its own planes.
    const int fx = grids[0].fx;
    const index_t coarse_plane = static_cast<index_t>(grids[1].ny) * grids[1].nz;
    const int mine[2] = {D.first_plane(), D.end_plane()};
    std::vector<int> all(2 * static_cast<std::size_t>(ranks_));
    MPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, comm);
    for (int q = 0; q < ranks_; ++q) {
        const int c0 = all[2 * q] / fx, c1 = (all[2 * q + 1] + fx - 1) / fx;
        displs_.push_back(static_cast<int>(c0 * coarse_plane));
        counts_.push_back(static_cast<int>((c1 - c0) * coarse_plane));
    }
    r_.assign(static_cast<std::size_t>(A.rows()), 0.0);
    z_ = r_;
    M_ = std::make_unique<CprPreconditioner>(A, options, &planes_);
}

void DistributedCpr::agree(const InputError* mine) const {
    int first = mine != nullptr ? rank_ : ranks_;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm_);
    if (first == ranks_) return;
    // The lowest failing rank's key and detail, to every rank.
    std::string text[2] = {mine != nullptr ? mine->key() : std::string(),
                           mine != nullptr ? mine->detail() : std::string()};
    for (std::string& t : text) {
        int n = static_cast<int>(t.size());
        MPI_Bcast(&n, 1, MPI_INT, first, comm_);
        t.resize(static_cast<std::size_t>(n));
        MPI_Bcast(t.data(), n, MPI_CHAR, first, comm_);
    }
    throw InputError(text[0], text[1]);
}

void DistributedCpr::exchange(double* x) const {
    const auto t0 = std::chrono::steady_clock::now();
    const int first = planes_.first_plane, end = planes_.end_plane;
    const int n = static_cast<int>(plane_);
    // The first owned plane goes down, the plane above comes up; then the other way.
    MPI_Sendrecv(x + first * plane_, n, MPI_DOUBLE, lo_, 0,
                 hi_ != MPI_PROC_NULL ? x + end * plane_ : x, n, MPI_DOUBLE, hi_, 0, comm_,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(x + (end - 1) * plane_, n, MPI_DOUBLE, hi_, 1,
                 lo_ != MPI_PROC_NULL ? x + (first - 1) * plane_ : x, n, MPI_DOUBLE, lo_, 1, comm_,
                 MPI_STATUS_IGNORE);
    halo_seconds_ += seconds_since(t0);
}

void DistributedCpr::gather(double* b) const {
    const auto t0 = std::chrono::steady_clock::now();
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, counts_.data(), displs_.data(),
                   MPI_DOUBLE, comm_);
    halo_seconds_ += seconds_since(t0);
}

void DistributedCpr::apply(const double* r, double* z) const {
    const index_t offset = D_.cell_offset(), cells = D_.cells();
    const std::vector<index_t>& wells = D_.well_rows();
    std::copy(r, r + cells, r_.begin() + offset);
    for (std::size_t j = 0; j < wells.size(); ++j) r_[wells[j]] = r[cells + j];
    M_->apply(r_.data(), z_.data(), planes_);
    std::copy(z_.begin() + offset, z_.begin() + offset + cells, z);
    for (std::size_t j = 0; j < wells.size(); ++j) z[cells + j] = z_[wells[j]];
}

void DistributedCpr::apply_transpose(const double*, double*) const {
    throw NotSupported("CPR has no transpose (QMR): use BiCGStab");
}

}  // namespace heptane::dist
