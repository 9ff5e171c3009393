#pragma once
/// @file CPR on the device (issue 21; design decision 36): the setup from the values the
/// solver's operator holds (weights, the pressure system, every level's Galerkin operator,
/// line pivots, the coarsest inverse, stage 2's inverses: all computed by kernels, nothing
/// from the host), and z = M^{-1} r as a sequence of kernels that a multi-kernel solver
/// captures into its iteration graph. Every kernel computes with core/precond/cpr_arith.hpp
/// and block_arith.hpp in the CPU reference's order (core/precond/cpr.cpp), so both give the
/// same bits.
#include <cuda_runtime.h>

#include <array>
#include <memory>
#include <vector>

#include "core/matrix/gh_matrix.hpp"
#include "core/precond/cpr.hpp"
#include "core/precond/cpr_arith.hpp"
#include "core/precond/cpr_options.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/base/solver_state.cuh"
#include "gpu/src/precond/block_smoothers.cuh"
#include "gpu/src/spmv/device_gh.cuh"

namespace heptane::gpu::detail {

struct LevelView;
struct WellSet;
class PeerHalo;

class DeviceCpr final : public DevicePreconditioner {
  public:
    /// `gh` is the solver's operator (A's values on the device; it must outlive this). Runs
    /// the setup; InputError (solver.preconditioner) as the reference's for a singular block.
    /// With `planes` (a GPU rank's part of a distributed CPR: dist::CprSplit's with slab
    /// storage, outliving this), A and gh are the rank's slab and the split levels are held
    /// as slabs (decision 56): setup and apply work on the rank's planes of the split levels
    /// and its wells, as the CPU's CprPreconditioner on a slab does; the halo planes of each
    /// split level's x and the first whole level's right-hand side go through host memory to
    /// planes' exchange and gather, so apply is then host-synchronous (no CUDA graph, no
    /// `skip`), unless use_peer() gives it peer halos.
    DeviceCpr(const GHMatrix& A, DeviceGH& gh, const CprOptions& options,
              const CprPlanes* planes = nullptr);
    ~DeviceCpr() override;
    void apply(const double* r, double* z, cudaStream_t stream,
               const int* skip = nullptr) const override;
    /// The setup again from gh's values (the solver uploads B into gh first); B gives the
    /// structure, and with true_impes weights its accumulation blocks (uploaded here).
    void update(const GHMatrix& B) override;
    /// The same when gh's new values came from the device: `accumulation` (GHMatrix's layout
    /// on the device) for true_impes weights (InputError without), else not read.
    void update(const double* accumulation);
    /// The last setup's wall time (its kernels and the check of their flags).
    double setup_seconds() const override { return setup_seconds_; }
    /// The split levels' halo planes (on `channel`) and the first whole level's gather by
    /// peer access (`peer` outlives this) instead of through the host: apply() then has no host
    /// step and is captured into a CUDA graph per (r, z) and replayed (design decision 58).
    void use_peer(PeerHalo* peer, int channel) {
        peer_ = peer;
        peer_channel_ = channel;
        graphs_.clear();
    }
    /// The rows of the first whole level, which a split hierarchy gathers (0 when whole).
    long long gather_rows() const;

    // For the device-vs-reference tests (gpu::cpr_device_steps).
    int levels() const { return static_cast<int>(levels_.size()); }
    std::vector<double> weights() const { return weights_.download(); }
    /// Level l's 7 diagonals in the host layout ([d][m], M_l cells), and for level 0 the
    /// wells' W, W^T and D after them, then its connections' values.
    std::vector<double> level_values(int l) const;
    std::vector<double> pivots(int l) const;
    std::vector<double> coarsest_inverse() const;
    std::vector<double> stage2_inverses() const { return inv_.download(); }
    /// One cycle from level l on that level's own b into its x (gpu::time_cpr; an apply has
    /// filled every level's b first).
    void cycle_level(int l, cudaStream_t stream) const;
    /// One smoothing sweep of level l from zero on b (the reference: StructuredMg::smooth).
    std::vector<double> smooth_from_zero(int l, const std::vector<double>& b) const;

  private:
    struct Level;
    /// The true-IMPES weights' accumulation blocks of A into acc_ (InputError without them).
    void upload_accumulation(const GHMatrix& A);
    void setup();
    void dense_inverse(Level& L, int n, int* err, cudaStream_t st);
    LevelView view(int l) const;
    /// ax = level l's operator times x (a split level: the rank's cells' rows and its wells).
    void product(int l, const double* x, cudaStream_t st, const int* skip) const;
    void smooth(int l, const double* b, double* x, bool from_zero, cudaStream_t st,
                const int* skip) const;
    void cycle(int l, const double* b, double* x, cudaStream_t st, const int* skip) const;
    /// Whether level l is split over the ranks (planes_), and its planes this rank works on
    /// ([0, nx) when whole); the level-0 wells it updates (all of them when whole).
    bool split(int l) const { return planes_ != nullptr && planes_->part(l) != nullptr; }
    std::array<int, 2> span(int l) const;
    /// The cells of level l + 1 that aggregate level l's span (Part::coarse_cells on the CPU).
    std::array<long long, 2> coarse_cells(int l) const;
    WellSet wells_of(int l) const;
    /// A split level's halo planes of x from the neighbouring ranks (nothing when whole).
    void exchange(int l, double* x, cudaStream_t st) const;
    /// The first whole level l's b: this rank's coarse cells [c0, c1), the others' gathered.
    void gather(int l, double* b, long long c0, long long c1, cudaStream_t st) const;

    DeviceGH& gh_;
    CprOptions options_;
    GHStructure structure_;
    int K_;
    long long M_;
    int nw_;
    std::vector<std::unique_ptr<Level>> levels_;
    Buffer<double> weights_, inv_;
    Buffer<double> acc_;              ///< true_impes: A's accumulation blocks (GHMatrix layout)
    Buffer<int> errors_;              ///< the first bad cell / column / well of each setup check
    Buffer<unsigned long long> big_;  ///< the coarsest matrix's largest |entry| (as bits)
    double setup_seconds_ = 0.0;
    const CprPlanes* planes_ = nullptr;  ///< a GPU rank's part (null: the whole)
    Buffer<int> my_wells_;               ///< planes_->wells on the device
    /// Host copies of the split levels' and the first whole level's vectors (their slabs' and
    /// the whole level's indexing: planes' exchange and gather read and write them in place),
    /// pinned so the planes' copies are DMA transfers.
    std::vector<std::unique_ptr<Pinned>> stage_;
    PeerHalo* peer_ = nullptr;  ///< the split levels' halo planes by peer access (null: host)
    int peer_channel_ = 0;
    /// With peer_: apply's kernels for one (r, z), captured at its first apply.
    struct Captured {
        const double* r;
        double* z;
        std::unique_ptr<GraphExec> exec;
    };
    mutable std::vector<Captured> graphs_;
    /// apply's kernels (captured or launched).
    void apply_kernels(const double* r, double* z, cudaStream_t st, const int* skip) const;
};

}  // namespace heptane::gpu::detail
