#include "dist/distributed_cpr.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/base/errors.hpp"
#include "dist/mpi_sum.hpp"

namespace heptane::dist {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int cpr_split_cap() {
    const char* v = std::getenv("HEPTANE_CPR_SPLIT");
    if (v == nullptr || std::strcmp(v, "auto") == 0) return std::numeric_limits<int>::max();
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (end == v || *end != '\0' || n < 1 || n > 64) {
        throw InputError("HEPTANE_CPR_SPLIT",
                         std::string("'") + v + "' is not auto or a number of levels (1 to 64)");
    }
    return static_cast<int>(n);
}

int cpr_split_levels(int nx, int ny, int nz, const CprOptions& options, int ranks,
                     long long min_cells) {
    const auto grids = mg_grids(nx, ny, nz, options.mg);
    if (grids.size() < 2) return 0;
    const int cap = cpr_split_cap();
    if (cap != std::numeric_limits<int>::max()) min_cells = 0;  // HEPTANE_CPR_SPLIT decides
    int split = 1;
    long long g = grids[0].fx;
    // One more level while it leaves the coarsest whole, every rank a group of planes and
    // (min_cells) each rank on average at least min_cells of its cells; a W-cycle visits
    // level 1 twice and splits level 0 only.
    while (options.mg.cycle == MgCycle::v && split < cap &&
           static_cast<std::size_t>(split) + 2 <= grids.size()) {
        const cpr::LevelGrid& next = grids[static_cast<std::size_t>(split)];
        const long long wider = g * next.fx;
        if (ranks > (nx + wider - 1) / wider) break;
        if (static_cast<long long>(next.nx) * next.ny * next.nz < min_cells * ranks) break;
        g = wider;
        ++split;
    }
    return split;
}

int cpr_granularity(int nx, int ny, int nz, const CprOptions& options, int ranks) {
    const auto grids = mg_grids(nx, ny, nz, options.mg);
    const int split = cpr_split_levels(nx, ny, nz, options, ranks);  // the most levels
    int g = 1;
    for (int l = 0; l < split; ++l) g *= grids[static_cast<std::size_t>(l)].fx;
    return g;
}

CprSplit::CprSplit(const DistributedGH& D, const CprOptions& options, MPI_Comm comm,
                   long long min_cells)
    : comm_(comm) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &ranks_);
    const GHMatrix& slab = D.slab();
    const int nx = D.nx(), ny = slab.ny(), nz = slab.nz();
    const auto grids = mg_grids(nx, ny, nz, options.mg);
    const int split = cpr_split_levels(nx, ny, nz, options, ranks_, min_cells);
    levels_ = static_cast<int>(grids.size());
    if (split == 0) {
        throw NotSupported(
            "cpr over MPI ranks needs a coarse level to gather (this grid's hierarchy has one "
            "level: see solver.cpr.coarsening and coarsest_rows)");
    }
    // Level 0's vectors are the slab's: its wells all, numbered as the whole system's.
    const std::vector<int>& wells = D.global_wells();
    planes_.nx = nx;
    planes_.global_wells = wells;
    for (std::size_t j = 0; j < wells.size(); ++j) planes_.wells.push_back(static_cast<int>(j));
    planes_.gather = [this](double* b) { gather(b); };
    planes_.agree = [this](const InputError* mine) { agree(mine); };
    planes_.minimum = [comm](int* v, int n) {
        MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT, MPI_MIN, comm);
    };
    // Each split level's planes: level 0's divided by the factors along i above it (the split
    // keeps groups of their product whole, so no aggregate crosses a boundary); a level's
    // vectors start at its halo plane below (origin).
    const int mine[2] = {D.first_plane(), D.end_plane()};
    std::vector<int> all(2 * static_cast<std::size_t>(ranks_));
    MPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, comm);
    int f = 1;  // level l's planes are level 0's / f
    const auto planes_of = [&](int q, int factor) {
        return std::array<int, 2>{all[2 * q] / factor, (all[2 * q + 1] + factor - 1) / factor};
    };
    for (int l = 0; l < split; ++l) {
        const cpr::LevelGrid& g = grids[static_cast<std::size_t>(l)];
        const auto [first, end] = planes_of(rank_, f);
        const int origin = std::max(first - 1, 0);
        Halo h;
        h.plane = static_cast<index_t>(g.ny) * g.nz;
        h.first = first - origin, h.end = end - origin;
        h.lo = first > 0 ? rank_ - 1 : MPI_PROC_NULL;
        h.hi = end < g.nx ? rank_ + 1 : MPI_PROC_NULL;
        halos_.push_back(h);
        f *= g.fx;
        planes_.levels.push_back(
            {h.first, h.end, [this, l](double* x) { exchange(l, x); }, origin});
    }
    if (slab.nx() != std::min(D.end_plane() + 1, nx) - planes_.levels[0].origin) {
        throw std::invalid_argument("CprSplit: the DistributedGH's slab is not level 0's");
    }
    // Level `split`'s entries of each rank, gathered.
    const cpr::LevelGrid& whole = grids[static_cast<std::size_t>(split)];
    const index_t coarse_plane = static_cast<index_t>(whole.ny) * whole.nz;
    for (int q = 0; q < ranks_; ++q) {
        const auto [c0, c1] = planes_of(q, f);
        displs_.push_back(static_cast<int>(c0 * coarse_plane));
        counts_.push_back(static_cast<int>((c1 - c0) * coarse_plane));
    }
}

DistributedCpr::DistributedCpr(const DistributedGH& D, const CprSplit& split,
                               const CprOptions& options)
    : D_(D),
      split_(split),
      M_(std::make_unique<CprPreconditioner>(D.slab(), options, &split.planes())),
      r_(static_cast<std::size_t>(D.slab().rows()), 0.0),
      z_(r_.size(), 0.0) {}

void CprSplit::agree(const InputError* mine) const {
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

void CprSplit::exchange(int level, double* x) const {
    const auto t0 = std::chrono::steady_clock::now();
    const Halo& h = halos_[static_cast<std::size_t>(level)];
    // The first owned plane goes down, the last up; the halo planes come in around them
    // (x itself stands in where there is no neighbour: MPI does not touch it).
    double* lo = h.lo != MPI_PROC_NULL ? x + (h.first - 1) * h.plane : x;
    double* hi = h.hi != MPI_PROC_NULL ? x + h.end * h.plane : x;
    exchange_planes(x + h.first * h.plane, x + (h.end - 1) * h.plane, lo, hi,
                    static_cast<int>(h.plane), h.lo, h.hi, comm_);
    halo_seconds_ += seconds_since(t0);
}

void CprSplit::gather(double* b) const {
    const auto t0 = std::chrono::steady_clock::now();
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, counts_.data(), displs_.data(),
                   MPI_DOUBLE, comm_);
    halo_seconds_ += seconds_since(t0);
}

void DistributedCpr::apply(const double* r, double* z) const {
    D_.to_slab(r, r_.data());
    M_->apply(r_.data(), z_.data(), split_.planes());
    D_.from_slab(z_.data(), z);
}

void DistributedCpr::apply_transpose(const double*, double*) const {
    throw NotSupported("CPR has no transpose (QMR): use BiCGStab");
}

}  // namespace heptane::dist
