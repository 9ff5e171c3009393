#pragma once
/// @file Halo planes and CPR's gather moved by the GPUs themselves between the GPU ranks of one
/// node (design decision 58). Each rank's receive slots live in its own device memory, shared
/// with the other ranks through CUDA IPC; a rank's send kernel writes its data straight into the
/// receiver's slot (peer access over NVLink or PCIe) and raises a flag there with a
/// system-scope release, and the receiver's kernel waits for the flag (acquire) and copies the
/// slot into place. No host round trip: the kernels queue on the stream like any other, so an
/// exchange costs two launches instead of a stream synchronization, two copies through pinned
/// memory and an MPI call, and a sequence of them can be captured into a CUDA graph.
///
/// Rounds: each channel counts its exchanges on the device (the receive kernel's last block
/// moves the channel's counter on; every rank calls a channel's exchanges in the same order, as
/// with MPI), so a graph replays them correctly. Round n uses slot n % 2: a sender starts round
/// n + 2 only after its own receive of round n + 1, which every rank sent after reading round
/// n on its stream.
///
/// Used only where it is safe and fast (PeerHalo::connect, collective): every rank on one node,
/// each on a GPU of its own, every pair of those GPUs peer-accessible. HEPTANE_HALO=host keeps
/// the host-staged path, HEPTANE_HALO=peer makes the peer path required.
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "gpu/slab_solver.hpp"

namespace heptane::gpu::detail {

class PeerHalo {
  public:
    static constexpr int kMaxRanks = 16;
    static constexpr int kChannels = 2;  ///< 0: the products', 1: CPR's split levels'

    /// Collective over every rank: the link where the peer path is usable on every rank (see
    /// the file's comment) and HEPTANE_HALO allows it; null otherwise (host-staged halos).
    /// `lo`, `hi`: this rank has a neighbour below / above; `plane`: the largest plane (entries)
    /// an exchange moves; `gather_rows`: the largest vector gather() assembles (0: none).
    /// InputError (key HEPTANE_HALO) for a value other than auto, host or peer, or for peer
    /// where the path is not usable (with why); CudaError where CUDA fails.
    static std::unique_ptr<PeerHalo> connect(const SlabNeighbours& neighbours, bool lo, bool hi,
                                             long long plane, long long gather_rows);
    ~PeerHalo();
    PeerHalo(const PeerHalo&) = delete;
    PeerHalo& operator=(const PeerHalo&) = delete;

    /// One round on `channel`, queued on `stream`: `first` (this rank's first owned plane) to
    /// the rank below, `last` to the rank above, the rank below's plane into `lo` and the rank
    /// above's into `hi` (each null exactly on a side without a neighbour); `count` entries
    /// each, at most the connected plane. Collective between neighbours.
    void exchange(int channel, const double* first, const double* last, double* lo, double* hi,
                  long long count, cudaStream_t stream);
    /// Every rank's entries [c0, c1) of b (rows entries, at most gather_rows; the ranks' ranges
    /// tile [0, rows)) into every rank's b, queued on `stream`. Collective over every rank.
    void gather(double* b, long long c0, long long c1, long long rows, cudaStream_t stream);
    /// Throws CudaError where a receive gave up waiting for another rank (after 60 s); call
    /// after synchronizing with the exchanges' streams.
    void check() const;

  private:
    PeerHalo() = default;

    /// Receive side `s` of an allocation: channel c's from below (2 c) and from above (2 c + 1),
    /// and the gather's (2 kChannels): flags, then two slots.
    struct Side {
        unsigned long long* flags = nullptr;
        double* slots = nullptr;  ///< slot p at slots + p * slot entries
    };
    Side side(void* base, int s) const;
    /// The device counters of this rank: each channel's (and the gather's) round and arrivals.
    unsigned long long* round(int s) const;
    unsigned int* arrivals(int s) const;

    int rank_ = 0, ranks_ = 1;
    bool lo_ = false, hi_ = false;
    long long plane_ = 0, gather_rows_ = 0;
    std::size_t side_bytes_[2 * kChannels + 1] = {};
    std::size_t side_at_[2 * kChannels + 1] = {};
    std::size_t counters_at_ = 0;
    void* mine_ = nullptr;       ///< this rank's receive sides and counters (cudaMalloc)
    std::vector<void*> theirs_;  ///< every other rank's allocation (IPC-mapped; own: null)
    int* timed_out_ = nullptr;   ///< mapped host memory, set by a receive kernel
};

}  // namespace heptane::gpu::detail
