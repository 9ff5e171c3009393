// CPR for a GPU rank's slab solver (cpr.cuh's make_slab_cpr; issue 25, design decision 55):
// DeviceCpr set up on the whole system on this rank's device and applied on the rank's part of
// the hierarchy, the slab's vectors mapped to the whole system's indexing and back.
#include <memory>
#include <stdexcept>
#include <vector>

#include "gpu/solvers.hpp"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/precond/cpr_device.cuh"

namespace heptane::gpu::detail {
namespace {

using cpr_device::blocks_for;
using cpr_device::kThreads;

/// Where a rank's entries lie in its slab's vectors and in the whole system's: `own` cell
/// entries from slab entry own_at and whole entry offset, then well j at slab entry
/// wells_at + j and whole entry cell_rows + wells[j].
struct SlabMap {
    long long own_at, offset, own, wells_at, cell_rows;
    const int* wells;
    int nw;
};

/// to_whole: whole[...] = slab[...] for the rank's entries; else the other way.
__global__ void k_map(SlabMap s, const double* from, double* to, bool to_whole) {
    const long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    long long slab = 0, whole = 0;
    if (j < s.own) {
        slab = s.own_at + j, whole = s.offset + j;
    } else if (j < s.own + s.nw) {
        slab = s.wells_at + (j - s.own), whole = s.cell_rows + s.wells[j - s.own];
    } else {
        return;
    }
    if (to_whole) {
        to[whole] = from[slab];
    } else {
        to[slab] = from[whole];
    }
}

class SlabCpr final : public DevicePreconditioner {
  public:
    SlabCpr(const GHMatrix& whole, const CprOptions& options, const CprPlanes& planes,
            long long own_at, long long wells_at)
        : gh_(whole, default_variant()),
          M_(whole, gh_, options, &planes),
          r_(static_cast<std::size_t>(whole.rows())),
          z_(static_cast<std::size_t>(whole.rows())),
          wells_(planes.wells) {
        const long long plane =
            static_cast<long long>(whole.ny()) * whole.nz() * whole.block_size();
        const CprLevelPart& mine = planes.levels.at(0);
        map_ = {own_at,
                mine.first_plane * plane,
                (mine.end_plane - mine.first_plane) * plane,
                wells_at,
                static_cast<long long>(whole.num_cells()) * whole.block_size(),
                wells_.get(),
                static_cast<int>(wells_.size())};
        r_.zero(nullptr);
        z_.zero(nullptr);
        HEPTANE_CUDA_CHECK(cudaDeviceSynchronize());
    }

    void apply(const double* r, double* z, cudaStream_t st, const int* skip) const override {
        if (skip != nullptr) throw std::logic_error("SlabCpr: a host-synchronous apply (no skip)");
        const unsigned blocks = blocks_for(map_.own + map_.nw);
        k_map<<<blocks, kThreads, 0, st>>>(map_, r, r_.get(), true);
        HEPTANE_SYNC_CHECK(st);
        M_.apply(r_.get(), z_.get(), st);
        k_map<<<blocks, kThreads, 0, st>>>(map_, z_.get(), z, false);
        HEPTANE_SYNC_CHECK(st);
    }
    /// `whole`: the whole system's new values.
    void update(const GHMatrix& whole) override {
        gh_.update(whole);
        M_.update(whole);
    }
    double setup_seconds() const override { return M_.setup_seconds(); }

  private:
    DeviceGH gh_;
    DeviceCpr M_;
    Buffer<double> r_, z_;  ///< the whole system's indexing
    Buffer<int> wells_;
    SlabMap map_{};
};

}  // namespace

std::unique_ptr<DevicePreconditioner> make_slab_cpr(const GHMatrix& whole,
                                                    const CprOptions& options,
                                                    const CprPlanes& planes, long long own_at,
                                                    long long wells_at) {
    return std::make_unique<SlabCpr>(whole, options, planes, own_at, wells_at);
}

}  // namespace heptane::gpu::detail
