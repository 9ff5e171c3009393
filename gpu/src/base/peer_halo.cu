// Halo planes between the GPU ranks of a node, moved by the GPUs (peer_halo.cuh, design
// decision 58).
#include <unistd.h>  // gethostname

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/base/errors.hpp"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/base/peer_halo.cuh"

namespace heptane::gpu::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kFlags = 64;  ///< flags a receive side: a chunk's, or a sender's
/// Entries a chunk, at least (a small plane moves in fewer chunks).
constexpr long long kChunkMin = 2048;
constexpr unsigned long long kWaitNs = 60ull * 1000 * 1000 * 1000;  ///< a receive's patience

/// The chunks a plane of `count` entries moves in: sender and receiver compute the same.
int chunks_for(long long count) {
    return static_cast<int>(std::clamp<long long>((count + kChunkMin - 1) / kChunkMin, 1, kFlags));
}

__device__ void release_store(unsigned long long* p, unsigned long long v) {
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ unsigned long long acquire_load(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ unsigned long long now_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/// This kernel's round: one past the channel's counter (which the last receive moved on).
__device__ unsigned long long next_round(const unsigned long long* counter) {
    return *static_cast<const volatile unsigned long long*>(counter) + 1;
}

/// Thread 0 waits until flags[f] >= round for f in [f0, f1) except `skip`; false (and
/// *timed_out set) after kWaitNs. Every thread gets the answer.
__device__ bool wait_for(const unsigned long long* flags, int f0, int f1, int skip,
                         unsigned long long round, int* timed_out) {
    __shared__ int arrived;
    if (threadIdx.x == 0) {
        arrived = 1;
        const unsigned long long t0 = now_ns();
        for (int f = f0; f < f1 && arrived != 0; ++f) {
            if (f == skip) continue;
            while (acquire_load(flags + f) < round) {
                if (now_ns() - t0 > kWaitNs) {
                    arrived = 0;
                    atomicExch(timed_out, 1);
                    break;
                }
                __nanosleep(100);
            }
        }
    }
    __syncthreads();
    return arrived != 0;
}

/// Every block of a receive kernel calls it last: the last to arrive moves the counter on, for
/// the channel's next kernels.
__device__ void arrive(unsigned long long* counter, unsigned int* arrivals,
                       unsigned long long round) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(arrivals, 1u) == gridDim.x * gridDim.y - 1) {
            *arrivals = 0;
            *counter = round;
        }
    }
}

/// Chunk blockIdx.x of `count` entries: [c0, c1).
__device__ void chunk_of(long long count, long long& c0, long long& c1) {
    const long long chunk = (count + gridDim.x - 1) / gridDim.x;
    c0 = blockIdx.x * chunk;
    c1 = min(count, c0 + chunk);
}

struct SendSide {
    const double* from;
    double* slots;              ///< the neighbour's two slots (null: no neighbour that way)
    unsigned long long* flags;  ///< the neighbour's flags of that side
};

/// blockIdx.y 0: this rank's first plane to the rank below, 1: its last to the rank above;
/// block x writes chunk x into the round's slot, then raises flag x to the round (release:
/// after every thread's writes).
__global__ void __launch_bounds__(kThreads)
    k_send(SendSide down, SendSide up, long long count, long long stride,
           const unsigned long long* counter) {
    const SendSide s = blockIdx.y == 0 ? down : up;
    if (s.slots == nullptr) return;
    const unsigned long long round = next_round(counter);
    double* to = s.slots + (round % 2) * stride;
    long long c0 = 0, c1 = 0;
    chunk_of(count, c0, c1);
    for (long long i = c0 + threadIdx.x; i < c1; i += blockDim.x) to[i] = s.from[i];
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) release_store(s.flags + blockIdx.x, round);
}

struct ReceiveSide {
    const double* slots;              ///< this rank's two slots of that side
    double* to;                       ///< the halo plane (null: no neighbour that way)
    const unsigned long long* flags;  ///< this rank's flags of that side
};

/// blockIdx.y 0: from the rank below into the lo halo plane, 1: from above into hi; block x
/// waits for flag x to reach the round, then copies chunk x (past L1: the peer wrote it).
__global__ void __launch_bounds__(kThreads)
    k_receive(ReceiveSide lo, ReceiveSide hi, long long count, long long stride,
              unsigned long long* counter, unsigned int* arrivals, int* timed_out) {
    const ReceiveSide s = blockIdx.y == 0 ? lo : hi;
    const unsigned long long round = next_round(counter);
    if (s.to != nullptr && wait_for(s.flags, blockIdx.x, blockIdx.x + 1, -1, round, timed_out)) {
        const double* from = s.slots + (round % 2) * stride;
        long long c0 = 0, c1 = 0;
        chunk_of(count, c0, c1);
        for (long long i = c0 + threadIdx.x; i < c1; i += blockDim.x) s.to[i] = __ldcg(from + i);
    }
    arrive(counter, arrivals, round);
}

/// Every other rank's gather slots and its flag for this rank (own entry null).
struct GatherTargets {
    double* slots[PeerHalo::kMaxRanks];
    unsigned long long* flag[PeerHalo::kMaxRanks];
};

/// Block q: b[c0, c1) into rank q's slot of the round, then its flag for this rank.
__global__ void __launch_bounds__(kThreads)
    k_gather_send(const double* b, long long c0, long long c1, long long stride, GatherTargets t,
                  const unsigned long long* counter) {
    double* slots = t.slots[blockIdx.x];
    if (slots == nullptr) return;
    const unsigned long long round = next_round(counter);
    double* to = slots + (round % 2) * stride;
    for (long long i = c0 + threadIdx.x; i < c1; i += blockDim.x) to[i] = b[i];
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) release_store(t.flag[blockIdx.x], round);
}

/// Waits for every other rank's flag, then copies the slot into b outside [c0, c1).
__global__ void __launch_bounds__(kThreads)
    k_gather_receive(double* b, long long c0, long long c1, long long rows, long long stride,
                     const double* slots, const unsigned long long* flags, int ranks, int me,
                     unsigned long long* counter, unsigned int* arrivals, int* timed_out) {
    const unsigned long long round = next_round(counter);
    if (wait_for(flags, 0, ranks, me, round, timed_out)) {
        const double* from = slots + (round % 2) * stride;
        for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < rows;
             i += static_cast<long long>(gridDim.x) * blockDim.x) {
            if (i < c0 || i >= c1) b[i] = __ldcg(from + i);
        }
    }
    arrive(counter, arrivals, round);
}

/// What a rank tells every other at connect().
struct Card {
    char host[256];
    unsigned char uuid[16];
    cudaIpcMemHandle_t handle;
    int mode;  ///< 0: host, 1: auto, 2: peer
};

int halo_mode() {
    const char* v = std::getenv("HEPTANE_HALO");
    if (v == nullptr || std::strcmp(v, "auto") == 0) return 1;
    if (std::strcmp(v, "host") == 0) return 0;
    if (std::strcmp(v, "peer") == 0) return 2;
    throw InputError("HEPTANE_HALO", std::string("'") + v + "' is not one of auto, host, peer");
}

template <class T>
std::vector<T> gather_all(const SlabNeighbours& n, const T& mine) {
    const std::vector<unsigned char> bytes = n.all_gather(&mine, static_cast<int>(sizeof(T)));
    std::vector<T> all(static_cast<std::size_t>(n.ranks()));
    std::memcpy(all.data(), bytes.data(), all.size() * sizeof(T));
    return all;
}

/// The device of this process whose UUID is `uuid`, or -1.
int device_with(const unsigned char* uuid) {
    int count = 0;
    HEPTANE_CUDA_CHECK(cudaGetDeviceCount(&count));
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp p{};
        HEPTANE_CUDA_CHECK(cudaGetDeviceProperties(&p, d));
        if (std::memcmp(p.uuid.bytes, uuid, 16) == 0) return d;
    }
    return -1;
}

/// Why this rank cannot use peer access with every other rank ("" where it can): all on its
/// node, each on a GPU of its own (ranks sharing a GPU would spin against each other's time
/// slices), every other GPU peer-accessible from its own.
std::string why_not(const std::vector<Card>& cards, int me, int device) {
    const int ranks = static_cast<int>(cards.size());
    if (ranks > PeerHalo::kMaxRanks) {
        return std::to_string(ranks) + " ranks (at most " + std::to_string(PeerHalo::kMaxRanks) +
               ")";
    }
    const Card& mine = cards[static_cast<std::size_t>(me)];
    for (int r = 0; r < ranks; ++r) {
        if (r == me) continue;
        const Card& c = cards[static_cast<std::size_t>(r)];
        const std::string who = "rank " + std::to_string(r);
        if (std::strcmp(mine.host, c.host) != 0) return who + " is on another node";
        if (std::memcmp(mine.uuid, c.uuid, 16) == 0) {
            return "ranks " + std::to_string(std::min(r, me)) + " and " +
                   std::to_string(std::max(r, me)) + " share a GPU";
        }
        const int d = device_with(c.uuid);
        if (d < 0) return who + "'s GPU is not visible to rank " + std::to_string(me);
        int can = 0;
        HEPTANE_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device, d));
        if (can == 0) return "GPU " + std::to_string(device) + " cannot access " + who + "'s GPU";
    }
    return "";
}

}  // namespace

PeerHalo::Side PeerHalo::side(void* base, int s) const {
    auto* at = static_cast<unsigned char*>(base) + side_at_[s];
    Side out;
    out.flags = reinterpret_cast<unsigned long long*>(at);
    out.slots = reinterpret_cast<double*>(at + kFlags * sizeof(unsigned long long));
    return out;
}

unsigned long long* PeerHalo::round(int s) const {
    return reinterpret_cast<unsigned long long*>(static_cast<unsigned char*>(mine_) +
                                                 counters_at_) +
           s;
}

unsigned int* PeerHalo::arrivals(int s) const {
    return reinterpret_cast<unsigned int*>(round(2 * kChannels + 1)) + s;
}

std::unique_ptr<PeerHalo> PeerHalo::connect(const SlabNeighbours& neighbours, bool lo, bool hi,
                                            long long plane, long long gather_rows) {
    const int mode = halo_mode();
    const int rank = neighbours.rank(), ranks = neighbours.ranks();
    if (ranks == 1) return nullptr;  // no neighbours (every rank knows it: nothing to agree on)
    std::unique_ptr<PeerHalo> link(new PeerHalo());
    link->rank_ = rank;
    link->ranks_ = ranks;
    link->lo_ = lo;
    link->hi_ = hi;
    link->plane_ = plane;
    link->gather_rows_ = gather_rows;
    std::size_t at = 0;
    for (int s = 0; s <= 2 * kChannels; ++s) {
        const long long slot = s < 2 * kChannels ? plane : gather_rows;
        link->side_at_[s] = at;
        at += kFlags * sizeof(unsigned long long) + 2 * slot * sizeof(double);
    }
    link->counters_at_ = at;
    const std::size_t sides = 2 * kChannels + 1;
    const std::size_t bytes = at + sides * (sizeof(unsigned long long) + sizeof(unsigned int));
    HEPTANE_CUDA_CHECK(cudaMalloc(&link->mine_, bytes));
    HEPTANE_CUDA_CHECK(cudaMemset(link->mine_, 0, bytes));  // every flag and counter at 0
    HEPTANE_CUDA_CHECK(cudaDeviceSynchronize());
    HEPTANE_CUDA_CHECK(cudaHostAlloc(&link->timed_out_, sizeof(int), cudaHostAllocMapped));
    *link->timed_out_ = 0;
    link->theirs_.assign(static_cast<std::size_t>(ranks), nullptr);

    int device = 0;
    HEPTANE_CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp p{};
    HEPTANE_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    Card card{};
    if (gethostname(card.host, sizeof card.host - 1) != 0) card.host[0] = '\0';
    std::memcpy(card.uuid, p.uuid.bytes, 16);
    // A system without CUDA IPC (some virtual machines) keeps the host-staged path.
    std::string why;
    if (const cudaError_t e = cudaIpcGetMemHandle(&card.handle, link->mine_); e != cudaSuccess) {
        (void)cudaGetLastError();
        why = std::string("cudaIpcGetMemHandle failed: ") + cudaGetErrorString(e);
    }
    card.mode = mode;
    const std::vector<Card> cards = gather_all(neighbours, card);

    bool wanted = true, required = false;
    for (const Card& c : cards) {
        wanted = wanted && c.mode != 0;
        required = required || c.mode == 2;
    }
    if (why.empty()) why = why_not(cards, rank, device);
    for (int r = 0; r < ranks && wanted && why.empty(); ++r) {
        if (r == rank) continue;
        void*& theirs = link->theirs_[static_cast<std::size_t>(r)];
        const cudaError_t e = cudaIpcOpenMemHandle(
            &theirs, cards[static_cast<std::size_t>(r)].handle, cudaIpcMemLazyEnablePeerAccess);
        if (e != cudaSuccess) {
            theirs = nullptr;
            (void)cudaGetLastError();
            why = std::string("cudaIpcOpenMemHandle failed: ") + cudaGetErrorString(e);
        }
    }
    const std::vector<int> usable = gather_all(neighbours, static_cast<int>(why.empty()));
    int first_failing = -1;
    for (int r = 0; r < ranks && first_failing < 0; ++r) {
        if (usable[static_cast<std::size_t>(r)] == 0) first_failing = r;
    }
    if (wanted && first_failing < 0) return link;
    link.reset();  // closes what was opened
    if (required) {
        const std::string reason =
            !why.empty()         ? why
            : first_failing >= 0 ? "rank " + std::to_string(first_failing) + " cannot use them"
                                 : "a rank's HEPTANE_HALO is host";
        throw InputError("HEPTANE_HALO", "peer halos are not usable: " + reason);
    }
    return nullptr;
}

PeerHalo::~PeerHalo() {
    for (void* p : theirs_) {
        if (p != nullptr) cudaIpcCloseMemHandle(p);
    }
    if (mine_ != nullptr) cudaFree(mine_);
    if (timed_out_ != nullptr) cudaFreeHost(timed_out_);
}

void PeerHalo::exchange(int channel, const double* first, const double* last, double* lo,
                        double* hi, long long count, cudaStream_t stream) {
    if (channel < 0 || channel >= kChannels || count > plane_ || (first != nullptr) != lo_ ||
        (lo != nullptr) != lo_ || (last != nullptr) != hi_ || (hi != nullptr) != hi_) {
        throw std::invalid_argument("PeerHalo::exchange: channel, plane or sides out of range");
    }
    const dim3 grid(static_cast<unsigned>(chunks_for(count)), 2);
    // Into the rank below: its side from above; into the rank above: its side from below.
    SendSide down{first, nullptr, nullptr}, up{last, nullptr, nullptr};
    if (lo_) {
        const Side s = side(theirs_[static_cast<std::size_t>(rank_ - 1)], 2 * channel + 1);
        down = {first, s.slots, s.flags};
    }
    if (hi_) {
        const Side s = side(theirs_[static_cast<std::size_t>(rank_ + 1)], 2 * channel);
        up = {last, s.slots, s.flags};
    }
    const int c = 2 * channel;  // the channel's counters sit at its first side
    k_send<<<grid, kThreads, 0, stream>>>(down, up, count, plane_, round(c));
    HEPTANE_SYNC_CHECK(stream);
    const Side from_lo = side(mine_, 2 * channel), from_hi = side(mine_, 2 * channel + 1);
    const ReceiveSide rlo{from_lo.slots, lo, from_lo.flags}, rhi{from_hi.slots, hi, from_hi.flags};
    k_receive<<<grid, kThreads, 0, stream>>>(rlo, rhi, count, plane_, round(c), arrivals(c),
                                             timed_out_);
    HEPTANE_SYNC_CHECK(stream);
}

void PeerHalo::gather(double* b, long long c0, long long c1, long long rows, cudaStream_t stream) {
    if (rows > gather_rows_ || c0 < 0 || c1 < c0 || c1 > rows) {
        throw std::invalid_argument("PeerHalo::gather: rows or range out of range");
    }
    const int g = 2 * kChannels;
    GatherTargets t{};
    for (int r = 0; r < ranks_; ++r) {
        if (r == rank_) continue;
        const Side s = side(theirs_[static_cast<std::size_t>(r)], g);
        t.slots[r] = s.slots;
        t.flag[r] = s.flags + rank_;
    }
    k_gather_send<<<static_cast<unsigned>(ranks_), kThreads, 0, stream>>>(b, c0, c1, gather_rows_,
                                                                          t, round(g));
    HEPTANE_SYNC_CHECK(stream);
    const Side mine = side(mine_, g);
    const auto blocks = static_cast<unsigned>(
        std::clamp<long long>((rows + 4 * kThreads - 1) / (4 * kThreads), 1, kFlags));
    k_gather_receive<<<blocks, kThreads, 0, stream>>>(b, c0, c1, rows, gather_rows_, mine.slots,
                                                      mine.flags, ranks_, rank_, round(g),
                                                      arrivals(g), timed_out_);
    HEPTANE_SYNC_CHECK(stream);
}

void PeerHalo::check() const {
    if (*static_cast<volatile int*>(timed_out_) != 0) {
        throw CudaError("peer halos: another rank's data did not arrive within 60 s");
    }
}

}  // namespace heptane::gpu::detail
