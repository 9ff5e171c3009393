// The two-phase assembly on the device (gpu/assembly.hpp). Compiled with --fmad=false
// (gpu/CMakeLists.txt): the dual-number arithmetic of the host code it runs is plain + and *,
// and a contracted multiply-add would round differently from the host (-ffp-contract=off).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/base/errors.hpp"
#include "gpu/assembly.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/base/cuda_check.cuh"

namespace heptane::gpu {
namespace {

using detail::Buffer;

constexpr int kThreads = 128;

__global__ void k_assemble_cells(grid::TwoPhaseCellsView v, index_t M, grid::StateView x,
                                 grid::StateView x_old, double dt, double* res,
                                 grid::JacobianView jac) {
    for (index_t m = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; m < M;
         m += static_cast<index_t>(gridDim.x) * blockDim.x) {
        grid::assemble_cell(v, m, x, x_old, dt, res, jac);
    }
}

__global__ void k_assemble_wells(grid::TwoPhaseCellsView cells, wells::TwoPhaseWellsView v,
                                 const wells::WellControl* controls, grid::StateView x,
                                 const double* p_bh, double* res_cells, double* res_wells,
                                 grid::JacobianView jac, wells::WellJacobianView wj) {
    const int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= v.nw) return;
    wells::assemble_well(cells, v, w, controls[w], x, p_bh, res_cells, res_wells, jac, wj);
}

int blocks_for(index_t n) {
    const index_t b = (n + kThreads - 1) / kThreads;
    return static_cast<int>(b < 1 ? 1 : (b > 65535 * 32 ? 65535 * 32 : b));
}

}  // namespace

struct DeviceTwoPhase::Impl {
    int nx, ny, nz, nw;
    index_t M;
    grid::TwoPhaseParams params;
    WellArrays layout;  // the host's, for jacobian()
    // fixed arrays
    Buffer<double> porosity, volume, depth, tx, ty, tz, wi;
    Buffer<std::uint8_t> active, producer;
    Buffer<index_t> first, cell0, count;
    // state and results
    Buffer<double> p, sw, p_old, sw_old, p_bh, res, bdia, accumulation, w_vals, wt_vals, d;
    Buffer<wells::WellControl> controls;
    bool has_active = false;

    grid::TwoPhaseCellsView cells_view() const {
        grid::TwoPhaseCellsView v;
        v.nx = nx;
        v.ny = ny;
        v.nz = nz;
        v.porosity = porosity.get();
        v.active = has_active ? active.get() : nullptr;
        v.volume = volume.get();
        v.depth = depth.get();
        v.tx = tx.get();
        v.ty = ty.get();
        v.tz = tz.get();
        v.params = params;
        return v;
    }
    wells::TwoPhaseWellsView wells_view() const {
        wells::TwoPhaseWellsView v;
        v.nw = nw;
        v.first = first.get();
        v.cell0 = cell0.get();
        v.count = count.get();
        v.wi = wi.get();
        v.producer = producer.get();
        return v;
    }
};

DeviceTwoPhase::DeviceTwoPhase(const grid::TwoPhaseCells& cells, const wells::TwoPhaseWells& wells)
    : impl_(std::make_unique<Impl>()) {
    Impl& d = *impl_;
    const grid::Grid3D& g = cells.grid();
    d.nx = g.nx;
    d.ny = g.ny;
    d.nz = g.nz;
    d.M = g.num_cells();
    d.params = cells.params();
    d.layout = wells.layout();
    d.nw = static_cast<int>(d.layout.num_wells());
    d.porosity = Buffer<double>(cells.rock().porosity);
    d.has_active = !cells.rock().active.empty();
    if (d.has_active) d.active = Buffer<std::uint8_t>(cells.rock().active);
    d.volume = Buffer<double>(cells.volumes());
    d.depth = Buffer<double>(cells.depths());
    d.tx = Buffer<double>(cells.transmissibilities().tx);
    d.ty = Buffer<double>(cells.transmissibilities().ty);
    d.tz = Buffer<double>(cells.transmissibilities().tz);
    d.wi = Buffer<double>(wells.well_indices());
    std::vector<std::uint8_t> producer;
    for (const wells::WellSpec& s : wells.specs())
        producer.push_back(s.type == wells::WellType::producer ? 1 : 0);
    d.producer = Buffer<std::uint8_t>(producer);
    d.first = Buffer<index_t>(d.layout.first);
    d.cell0 = Buffer<index_t>(d.layout.cell0);
    d.count = Buffer<index_t>(d.layout.count);
    const auto M = static_cast<std::size_t>(d.M);
    for (Buffer<double>* b : {&d.p, &d.sw, &d.p_old, &d.sw_old}) *b = Buffer<double>(M);
    d.p_bh = Buffer<double>(static_cast<std::size_t>(d.nw));
    d.res = Buffer<double>(2 * M + static_cast<std::size_t>(d.nw));
    d.bdia = Buffer<double>(M * kStencilSize * 4);
    d.accumulation = Buffer<double>(M * 4);
    d.w_vals = Buffer<double>(d.layout.w_vals.size());
    d.wt_vals = Buffer<double>(d.layout.wt_vals.size());
    d.d = Buffer<double>(static_cast<std::size_t>(d.nw));
    d.controls = Buffer<wells::WellControl>(static_cast<std::size_t>(d.nw));
    HEPTANE_CUDA_CHECK(cudaStreamSynchronize(nullptr));  // the host vectors above are temporaries
}

DeviceTwoPhase::~DeviceTwoPhase() = default;

double DeviceTwoPhase::assemble(const grid::CellState& x, const std::vector<double>& p_bh,
                                const grid::CellState& x_old, double dt,
                                const std::vector<wells::WellControl>& controls, bool jacobian) {
    Impl& d = *impl_;
    const auto M = static_cast<std::size_t>(d.M);
    if (x.p.size() != M || x.sw.size() != M || x_old.p.size() != M || x_old.sw.size() != M ||
        p_bh.size() != static_cast<std::size_t>(d.nw) ||
        controls.size() != static_cast<std::size_t>(d.nw)) {
        throw NotSupported("DeviceTwoPhase::assemble: the state does not fit the model");
    }
    d.p.upload(x.p);
    d.sw.upload(x.sw);
    d.p_old.upload(x_old.p);
    d.sw_old.upload(x_old.sw);
    d.p_bh.upload(p_bh);
    d.controls.upload(controls);
    grid::JacobianView jac;
    wells::WellJacobianView wj;
    if (jacobian) {
        jac = {d.bdia.get(), d.accumulation.get(), d.M};
        wj = {d.w_vals.get(), d.wt_vals.get(), d.d.get()};
    }
    const grid::StateView now{d.p.get(), d.sw.get()}, old{d.p_old.get(), d.sw_old.get()};
    cudaEvent_t start = nullptr, stop = nullptr;
    HEPTANE_CUDA_CHECK(cudaEventCreate(&start));
    HEPTANE_CUDA_CHECK(cudaEventCreate(&stop));
    HEPTANE_CUDA_CHECK(cudaEventRecord(start));
    k_assemble_cells<<<blocks_for(d.M), kThreads>>>(d.cells_view(), d.M, now, old, dt, d.res.get(),
                                                    jac);
    HEPTANE_SYNC_CHECK(nullptr);
    if (d.nw > 0) {
        k_assemble_wells<<<blocks_for(d.nw), kThreads>>>(d.cells_view(), d.wells_view(),
                                                         d.controls.get(), now, d.p_bh.get(),
                                                         d.res.get(), d.res.get() + 2 * M, jac, wj);
        HEPTANE_SYNC_CHECK(nullptr);
    }
    HEPTANE_CUDA_CHECK(cudaEventRecord(stop));
    HEPTANE_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    HEPTANE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return 1e-3 * ms;
}

std::vector<double> DeviceTwoPhase::residual() const { return impl_->res.download(); }

GHMatrix DeviceTwoPhase::jacobian() const {
    const Impl& d = *impl_;
    GHMatrix J(d.nx, d.ny, d.nz, 2);
    J.bdia() = d.bdia.download();
    J.accumulation_for_writing() = d.accumulation.download();
    WellArrays arrays = d.layout;
    arrays.w_vals = d.w_vals.download();
    arrays.wt_vals = d.wt_vals.download();
    arrays.d = d.d.download();
    J.set_wells(std::move(arrays));
    return J;
}

double DeviceTwoPhase::minimal_bytes(bool jacobian) const {
    const Impl& d = *impl_;
    const double M = static_cast<double>(d.M), nw = d.nw;
    const double perfs = static_cast<double>(d.layout.w_vals.size()) / 2.0;
    double bytes = 8.0 * (4.0 * M + nw)        // x, x_old, p_bh
                   + 8.0 * (6.0 * M + perfs)   // porosity, volume, depth, t, WI
                   + (d.has_active ? M : 0.0)  // ACTNUM
                   + 8.0 * (2.0 * M + nw);     // residual
    if (jacobian) bytes += 8.0 * (28.0 * M + 4.0 * M + 4.0 * perfs + nw);
    return bytes;
}

}  // namespace heptane::gpu
