// The two-phase assembly on the device (gpu/assembly.hpp). Compiled with --fmad=false
// (gpu/CMakeLists.txt): the dual-number arithmetic of the host code it runs is plain + and *,
// and a contracted multiply-add would round differently from the host (-ffp-contract=off).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/base/errors.hpp"
#include "gpu/assembly.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/sim/two_phase_model.cuh"

namespace heptane::gpu {
namespace {

using detail::Buffer;

constexpr int kThreads = 128;

__global__ void k_cell_properties(grid::TwoPhaseCellsView v, index_t M, grid::StateView x,
                                  grid::CellPropertiesView props) {
    for (index_t m = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; m < M;
         m += static_cast<index_t>(gridDim.x) * blockDim.x) {
        props.store(v.params, grid::cell_relperm(v, m), m, x.p[m], x.sw[m]);
    }
}

/// Two threads a cell: the first half of a block its cells' oil equations, the second half
/// the same cells' water equations (warp-uniform phase). 64 registers a thread (8 blocks an
/// SM): of the layouts measured on an H100 the fastest (decision 43). kCapillary: the model
/// has capillary pressure (a kernel each, so a model without keeps its registers, decision 76).
template <bool kCapillary>
__global__ void __launch_bounds__(kThreads, 8)
    k_assemble_equations(grid::TwoPhaseCellsView v, index_t M, grid::StateView x,
                         grid::StateView x_old, grid::CellPropertiesView props, double dt,
                         double* res, grid::JacobianView jac) {
    constexpr int kCells = kThreads / 2;
    const int a = threadIdx.x / kCells;
    for (index_t m = blockIdx.x * static_cast<index_t>(kCells) + threadIdx.x % kCells; m < M;
         m += static_cast<index_t>(gridDim.x) * kCells) {
        grid::assemble_equation_of<kCapillary>(v, m, a, x, x_old, props, dt, res, jac);
    }
}

/// One block a well: its perforations in parallel (each its own cell), their rate terms
/// summed by one thread in the host's order.
__global__ void k_assemble_wells(grid::TwoPhaseCellsView cells, wells::TwoPhaseWellsView v,
                                 const wells::WellControl* controls, grid::StateView x,
                                 const double* p_bh, double* res_cells, double* res_wells,
                                 grid::JacobianView jac, wells::WellJacobianView wj,
                                 double* rate_terms) {
    const int w = blockIdx.x;
    const wells::WellControl ctl = controls[w];
    const index_t count = v.count[w], at = v.first[w];  // 2 rate-term entries a perforation
    for (index_t l = threadIdx.x; l < count; l += blockDim.x) {
        const grid::Dual<3> t =
            wells::assemble_perforation(cells, v, w, ctl, l, x, p_bh, res_cells, jac, wj);
        rate_terms[at + 2 * l] = t.v;
        rate_terms[at + 2 * l + 1] = t.d[2];
    }
    __syncthreads();
    if (threadIdx.x != 0) return;
    grid::Dual<3> rate_eq(0.0);
    for (index_t l = 0; l < count; ++l) {
        const grid::Dual<3> t =
            grid::Dual<3>::variable(rate_terms[at + 2 * l], 2, rate_terms[at + 2 * l + 1]);
        rate_eq += t;  // the value and d / d p_bh as the host sums them (the rest unused)
    }
    wells::well_equation(w, ctl, p_bh, rate_eq, res_wells, wj);
}

/// The K = 2 layout of the model's connections (the host Jacobian's), without its values.
NncArrays nnc_layout_of(const grid::TwoPhaseCells& cells) {
    NncArrays n = cells.nnc();
    n.vals.clear();
    return n;
}

int blocks_for(index_t n) {
    const index_t b = (n + kThreads - 1) / kThreads;
    return static_cast<int>(b < 1 ? 1 : (b > 65535 * 32 ? 65535 * 32 : b));
}

}  // namespace

namespace detail {

grid::TwoPhaseCellsView TwoPhaseModel::cells_view() const {
    grid::TwoPhaseCellsView v;
    v.nx = nx;
    v.ny = ny;
    v.nz = nz;
    v.porosity = porosity.get();
    v.active = has_active ? active.get() : nullptr;
    v.relperms = relperms.get();
    v.saturation_region = saturation_region.size() > 0 ? saturation_region.get() : nullptr;
    v.end_points = end_points.size() > 0 ? end_points.get() : nullptr;
    v.volume = volume.get();
    v.depth = depth.get();
    v.tx = tx.get();
    v.ty = ty.get();
    v.tz = tz.get();
    if (nnc_t.size() > 0) {
        v.nnc_ptr = nnc_ptr.get();
        v.nnc_col = nnc_col.get();
        v.nnc_t = nnc_t.get();
    }
    v.params = params;
    return v;
}

wells::TwoPhaseWellsView TwoPhaseModel::wells_view() const {
    wells::TwoPhaseWellsView v;
    v.nw = nw;
    v.first = first.get();
    v.cell0 = cell0.get();
    v.count = count.get();
    v.wi = wi.get();
    v.producer = producer.get();
    v.ref_depth = ref_depth.get();
    return v;
}

TwoPhaseModel::TwoPhaseModel(const grid::TwoPhaseCells& cells, const wells::TwoPhaseWells& wells) {
    const grid::Grid3D& g = cells.grid();
    nx = g.nx;
    ny = g.ny;
    nz = g.nz;
    M = g.num_cells();
    params = cells.params();
    layout = wells.layout();
    nw = static_cast<int>(layout.num_wells());
    porosity = Buffer<double>(cells.rock().porosity);
    has_active = !cells.rock().active.empty();
    if (has_active) active = Buffer<std::uint8_t>(cells.rock().active);
    relperms = Buffer<grid::RelPerm>(cells.relperms());
    if (!cells.rock().saturation_region.empty())
        saturation_region = Buffer<std::int32_t>(cells.rock().saturation_region);
    if (!cells.end_points().empty()) end_points = Buffer<grid::EndPoints>(cells.end_points());
    volume = Buffer<double>(cells.volumes());
    depth = Buffer<double>(cells.depths());
    tx = Buffer<double>(cells.transmissibilities().tx);
    ty = Buffer<double>(cells.transmissibilities().ty);
    tz = Buffer<double>(cells.transmissibilities().tz);
    wi = Buffer<double>(wells.well_indices());
    std::vector<std::uint8_t> is_producer;
    for (const wells::WellSpec& s : wells.specs())
        is_producer.push_back(s.type == wells::WellType::producer ? 1 : 0);
    producer = Buffer<std::uint8_t>(is_producer);
    ref_depth = Buffer<double>(wells.reference_depths());
    first = Buffer<index_t>(layout.first);
    cell0 = Buffer<index_t>(layout.cell0);
    count = Buffer<index_t>(layout.count);
    const auto cells_n = static_cast<std::size_t>(M);
    for (Buffer<double>* b : {&p, &sw, &p_old, &sw_old}) *b = Buffer<double>(cells_n);
    p_bh = Buffer<double>(static_cast<std::size_t>(nw));
    res = Buffer<double>(2 * cells_n + static_cast<std::size_t>(nw));
    bdia = Buffer<double>(cells_n * kStencilSize * 4);
    accumulation = Buffer<double>(cells_n * 4);
    properties = Buffer<double>(cells_n * grid::cell_property_arrays(params));
    rate_terms = Buffer<double>(layout.w_vals.size());
    w_vals = Buffer<double>(layout.w_vals.size());
    wt_vals = Buffer<double>(layout.wt_vals.size());
    d = Buffer<double>(static_cast<std::size_t>(nw));
    controls = Buffer<wells::WellControl>(static_cast<std::size_t>(nw));
    if (cells.has_nnc()) {
        nnc_ptr = Buffer<index_t>(cells.nnc().ptr);
        nnc_col = Buffer<index_t>(cells.nnc().col);
        nnc_t = Buffer<double>(cells.nnc_transmissibilities());
        nnc_vals = Buffer<double>(cells.nnc().col.size() * 4);
        nnc_layout = nnc_layout_of(cells);
    }
    HEPTANE_CUDA_CHECK(cudaStreamSynchronize(nullptr));  // the host vectors above are temporaries
}

void TwoPhaseModel::assemble(double dt, bool jacobian, cudaStream_t stream) const {
    grid::JacobianView jac;
    wells::WellJacobianView wj;
    if (jacobian) {
        jac = {bdia.get(), accumulation.get(), M};
        jac.nnc = nnc_vals.size() > 0 ? nnc_vals.get() : nullptr;
        wj = {w_vals.get(), wt_vals.get(), d.get()};
    }
    const grid::StateView old{p_old.get(), sw_old.get()};
    const grid::CellPropertiesView props =
        grid::CellPropertiesView::of(params, properties.get(), M, 0);
    k_cell_properties<<<blocks_for(M), kThreads, 0, stream>>>(cells_view(), M, now(), props);
    HEPTANE_SYNC_CHECK(stream);
    const auto equations = grid::has_capillary_pressure(params) ? k_assemble_equations<true>
                                                                : k_assemble_equations<false>;
    equations<<<blocks_for(2 * M), kThreads, 0, stream>>>(cells_view(), M, now(), old, props, dt,
                                                          res.get(), jac);
    HEPTANE_SYNC_CHECK(stream);
    if (nw > 0) {
        k_assemble_wells<<<nw, kThreads, 0, stream>>>(cells_view(), wells_view(), controls.get(),
                                                      now(), p_bh.get(), res.get(),
                                                      res.get() + 2 * M, jac, wj, rate_terms.get());
        HEPTANE_SYNC_CHECK(stream);
    }
}

GHMatrix TwoPhaseModel::jacobian() const {
    GHMatrix J(nx, ny, nz, 2);
    J.bdia() = bdia.download();
    J.accumulation_for_writing() = accumulation.download();
    WellArrays arrays = layout;
    arrays.w_vals = w_vals.download();
    arrays.wt_vals = wt_vals.download();
    arrays.d = d.download();
    J.set_wells(std::move(arrays));
    if (nnc_vals.size() > 0) {
        NncArrays n = nnc_layout;
        n.vals = nnc_vals.download();
        J.set_nnc(std::move(n));
    }
    return J;
}

}  // namespace detail

struct DeviceTwoPhase::Impl : detail::TwoPhaseModel {
    using TwoPhaseModel::TwoPhaseModel;
};

DeviceTwoPhase::DeviceTwoPhase(const grid::TwoPhaseCells& cells, const wells::TwoPhaseWells& wells)
    : impl_(std::make_unique<Impl>(cells, wells)) {}

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
    cudaEvent_t start = nullptr, stop = nullptr;
    HEPTANE_CUDA_CHECK(cudaEventCreate(&start));
    HEPTANE_CUDA_CHECK(cudaEventCreate(&stop));
    HEPTANE_CUDA_CHECK(cudaEventRecord(start));
    d.assemble(dt, jacobian, nullptr);
    HEPTANE_CUDA_CHECK(cudaEventRecord(stop));
    HEPTANE_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    HEPTANE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return 1e-3 * ms;
}

std::vector<double> DeviceTwoPhase::residual() const { return impl_->res.download(); }

GHMatrix DeviceTwoPhase::jacobian() const { return impl_->jacobian(); }

double DeviceTwoPhase::minimal_bytes(bool jacobian) const {
    const Impl& d = *impl_;
    const double M = static_cast<double>(d.M), nw = d.nw;
    const double perfs = static_cast<double>(d.layout.w_vals.size()) / 2.0;
    double bytes = 8.0 * (4.0 * M + nw)        // x, x_old, p_bh
                   + 8.0 * (6.0 * M + perfs)   // porosity, volume, depth, t, WI
                   + (d.has_active ? M : 0.0)  // ACTNUM
                   + 8.0 * (2.0 * M + nw);     // residual
    // Each cell's saturation region (design decision 87), once; the tables are a few kB.
    if (d.saturation_region.size() > 0) bytes += 4.0 * M;
    // Each cell's end points (design decision 95), once.
    if (d.end_points.size() > 0) bytes += static_cast<double>(sizeof(grid::EndPoints)) * M;
    if (jacobian) bytes += 8.0 * (28.0 * M + 4.0 * M + 4.0 * perfs + nw);
    // The connections: their layout and transmissibilities read, their blocks written.
    const double entries = static_cast<double>(d.nnc_t.size());
    if (entries > 0.0) bytes += 8.0 * (M + 1.0 + 2.0 * entries) + (jacobian ? 32.0 * entries : 0.0);
    return bytes;
}

}  // namespace heptane::gpu
