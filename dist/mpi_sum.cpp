#include "dist/mpi_sum.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace heptane::dist {
namespace {

/// Per piece [begin, end, head, subtrees, tail sizes, then the head's terms, the subtrees'
/// (level, sum) pairs and the tail's terms] as doubles (exact below 2^53), one after another.
void serialize(const PieceSums& p, std::vector<double>& m) {
    m.insert(m.end(),
             {static_cast<double>(p.begin), static_cast<double>(p.end),
              static_cast<double>(p.head.size()), static_cast<double>(p.subtree_sums.size()),
              static_cast<double>(p.tail.size())});
    m.insert(m.end(), p.head.begin(), p.head.end());
    for (std::size_t k = 0; k < p.subtree_sums.size(); ++k) {
        m.push_back(static_cast<double>(p.subtree_levels[k]));
        m.push_back(p.subtree_sums[k]);
    }
    m.insert(m.end(), p.tail.begin(), p.tail.end());
}

/// The piece at m; returns how many doubles it took.
std::size_t deserialize(const double* m, PieceSums& p) {
    p.begin = static_cast<long long>(m[0]);
    p.end = static_cast<long long>(m[1]);
    const auto h = static_cast<std::size_t>(m[2]), s = static_cast<std::size_t>(m[3]),
               t = static_cast<std::size_t>(m[4]);
    const double* v = m + 5;
    p.head.assign(v, v + h);
    for (std::size_t k = 0; k < s; ++k) {
        p.subtree_levels.push_back(static_cast<int>(v[h + 2 * k]));
        p.subtree_sums.push_back(v[h + 2 * k + 1]);
    }
    p.tail.assign(v + h + 2 * s, v + h + 2 * s + t);
    return 5 + h + 2 * s + t;
}

}  // namespace

int rank_of(MPI_Comm comm) {
    int r = 0;
    MPI_Comm_rank(comm, &r);
    return r;
}

int size_of(MPI_Comm comm) {
    int s = 1;
    MPI_Comm_size(comm, &s);
    return s;
}

void exchange_planes(const double* first, const double* last, double* lo, double* hi, int count,
                     int below, int above, MPI_Comm comm) {
    // Tag 0: a plane going up (the rank below's last), tag 1: going down.
    MPI_Request r[4];
    MPI_Irecv(lo, count, MPI_DOUBLE, below, 0, comm, &r[0]);
    MPI_Irecv(hi, count, MPI_DOUBLE, above, 1, comm, &r[1]);
    MPI_Isend(last, count, MPI_DOUBLE, above, 0, comm, &r[2]);
    MPI_Isend(first, count, MPI_DOUBLE, below, 1, comm, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
}

namespace {

/// Every rank's `mine` concatenated, with every rank's size known (counts[r]).
std::vector<double> allgather_sized(const std::vector<double>& mine, const std::vector<int>& counts,
                                    MPI_Comm comm) {
    std::vector<int> offsets(counts.size());
    int total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        offsets[r] = total;
        total += counts[r];
    }
    std::vector<double> all(static_cast<std::size_t>(total));
    MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                   counts.data(), offsets.data(), MPI_DOUBLE, comm);
    return all;
}

std::vector<int> gather_counts(int count, MPI_Comm comm) {
    std::vector<int> counts(static_cast<std::size_t>(size_of(comm)));
    MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
    return counts;
}

}  // namespace

std::vector<double> allgather(const std::vector<double>& mine, MPI_Comm comm) {
    return allgather_sized(mine, gather_counts(static_cast<int>(mine.size()), comm), comm);
}

std::vector<double> allreduce_canonical(const std::vector<std::vector<PieceSums>>& mine,
                                        MPI_Comm comm, std::vector<int>* counts) {
    // Per rank: [the number of pieces of each sum, then the pieces of sum 0, sum 1, ...].
    std::vector<double> message;
    for (const std::vector<PieceSums>& sum : mine)
        message.push_back(static_cast<double>(sum.size()));
    for (const std::vector<PieceSums>& sum : mine)
        for (const PieceSums& p : sum) serialize(p, message);
    const int count = static_cast<int>(message.size());
    std::vector<int> fresh;
    if (counts == nullptr || counts->empty()) fresh = gather_counts(count, comm);
    if (counts != nullptr && counts->empty()) *counts = fresh;
    const std::vector<int>& sizes = counts != nullptr ? *counts : fresh;
    if (sizes[static_cast<std::size_t>(rank_of(comm))] != count) {
        throw std::logic_error(
            "allreduce_canonical: a message of another size than the cached one");
    }
    const std::vector<double> all = allgather_sized(message, sizes, comm);
    const std::size_t Q = mine.size();
    std::vector<std::vector<PieceSums>> pieces(Q);
    for (std::size_t at = 0; at < all.size();) {  // rank by rank
        std::vector<std::size_t> n(Q);
        for (std::size_t q = 0; q < Q; ++q) n[q] = static_cast<std::size_t>(all[at++]);
        for (std::size_t q = 0; q < Q; ++q) {
            for (std::size_t k = 0; k < n[q]; ++k) {
                pieces[q].emplace_back();
                at += deserialize(&all[at], pieces[q].back());
            }
        }
    }
    std::vector<double> sums(Q);
    for (std::size_t q = 0; q < Q; ++q) {
        // Index order (an empty piece before the piece that begins where it does).
        std::stable_sort(pieces[q].begin(), pieces[q].end(),
                         [](const PieceSums& a, const PieceSums& b) {
                             return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
                         });
        sums[q] = combine_piece_sums(pieces[q]);
    }
    return sums;
}

double allreduce_canonical(const std::vector<PieceSums>& mine, MPI_Comm comm) {
    return allreduce_canonical(std::vector<std::vector<PieceSums>>{mine}, comm)[0];
}

}  // namespace heptane::dist
