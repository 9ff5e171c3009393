// The device Newton loop's NewtonSystem (gpu/newton.hpp). Compiled with --fmad=false
// (gpu/CMakeLists.txt): the per-cell code it runs (the pore volume, the chopped update, the
// wells' rates) is plain + and *, and a contracted multiply-add would round differently from
// the host (-ffp-contract=off).
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "gpu/newton.hpp"
#include "gpu/solver.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/base/canonical_reduce.cuh"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/base/solver_state.cuh"
#include "gpu/src/sim/two_phase_model.cuh"
#include "sim/newton_terms.hpp"
#include "wells/two_phase_wells.hpp"

namespace heptane::gpu {
namespace {

using detail::Buffer;
using detail::ChunkReduction;
using detail::GroupSum;
using detail::kChunkThreads;
using detail::kChunkWarps;
using detail::kPasses;

constexpr int kThreads = 256;

unsigned blocks_for(long long n) {
    return static_cast<unsigned>(n > 0 ? (n + kThreads - 1) / kThreads : 1);
}

/// What measure() reads back: the canonical sums over the cells of R's two phases and of
/// the pore volume, ||R||^2 over every row, the CNV maxima (as the bits of non-negative
/// doubles, whose order is the values') and whether a cell's R was not finite.
struct Measures {
    double sums[3];
    double norm2;
    unsigned long long cnv_bits[2];
    int nonfinite;
};

/// Where the chunk reductions keep their partial sums (one per chunk and sum) and count the
/// chunks done (the last one combines them: canonical_reduce.cuh).
struct Partials {
    double* cells[3];
    double* rows;
    unsigned* counter;  ///< [0] the cells' reduction, [1] the rows'
};

__device__ void max_bits(unsigned long long* target, double v) {
    atomicMax(target, static_cast<unsigned long long>(__double_as_longlong(v)));
}

/// The cells' sums (R's phases, the pore volume) in the canonical tree of vec::fused_sums,
/// and the CNV maxima: Simulator's measure, term for term (sim/newton_terms.hpp).
__global__ void __launch_bounds__(kChunkThreads)
    k_measure_cells(grid::TwoPhaseCellsView v, long long M, const double* p, const double* res,
                    double dt_scaled, Partials part, Measures* out) {
    __shared__ double warps[3][kChunkWarps];
    ChunkReduction<3> red(warps, M);
    double cnv[2] = {0.0, 0.0};
    bool finite = true;
    for (int pass = 0; pass < kPasses; ++pass) {
        GroupSum g[3];
        detail::for_group(pass, M, [&](long long m) {
            const double pv = grid::pore_volume(v, m, p[m]);
            const double r0 = res[2 * m], r1 = res[2 * m + 1];
            g[0].add(r0);
            g[1].add(r1);
            g[2].add(pv);
            finite = finite && isfinite(r0) && isfinite(r1);
            // std::max(c, NaN) keeps c on the host: a NaN term is skipped here too
            const double t0 = sim::cnv_term(r0, pv, dt_scaled);
            const double t1 = sim::cnv_term(r1, pv, dt_scaled);
            if (t0 > cnv[0]) cnv[0] = t0;
            if (t1 > cnv[1]) cnv[1] = t1;
        });
        red.pass(pass, g);
    }
    for (int a = 0; a < 2; ++a) {
        if (cnv[a] > 0.0) max_bits(&out->cnv_bits[a], cnv[a]);
    }
    if (!finite) atomicOr(&out->nonfinite, 1);
    double total[3];
    double* const partial[3] = {part.cells[0], part.cells[1], part.cells[2]};
    if (!red.finish(partial, part.counter, total) || threadIdx.x != 0) return;
    for (int q = 0; q < 3; ++q) out->sums[q] = total[q];
}

/// Where k_hydrocarbon_sums keeps its partial sums (one per chunk and sum) and counts chunks.
struct HydrocarbonPartials {
    double* cells[4];
    unsigned* counter;
};

/// The four sums of the mean hydrocarbon pressure (wells::hydrocarbon_pressure_terms) in the
/// canonical tree of vec::fused_sums: TwoPhaseWells::mean_hydrocarbon_pressure's bits, into
/// out[0..3] (design decision 100).
__global__ void __launch_bounds__(kChunkThreads)
    k_hydrocarbon_sums(grid::TwoPhaseCellsView v, long long M, const double* p, const double* sw,
                       HydrocarbonPartials part, double* out) {
    __shared__ double warps[4][kChunkWarps];
    ChunkReduction<4> red(warps, M);
    for (int pass = 0; pass < kPasses; ++pass) {
        GroupSum g[4];
        detail::for_group(pass, M, [&](long long m) {
            double t[4];
            wells::hydrocarbon_pressure_terms(v, m, p[m], sw[m], t);
            for (int q = 0; q < 4; ++q) g[q].add(t[q]);
        });
        red.pass(pass, g);
    }
    double total[4];
    double* const partial[4] = {part.cells[0], part.cells[1], part.cells[2], part.cells[3]};
    if (!red.finish(partial, part.counter, total) || threadIdx.x != 0) return;
    for (int q = 0; q < 4; ++q) out[q] = total[q];
}

/// ||R||^2 over every row (cells and wells) in the canonical tree of vec::dot.
__global__ void __launch_bounds__(kChunkThreads)
    k_norm(const double* res, long long n, Partials part, Measures* out) {
    __shared__ double warps[1][kChunkWarps];
    ChunkReduction<1> red(warps, n);
    for (int pass = 0; pass < kPasses; ++pass) {
        GroupSum g[1];
        detail::for_group(pass, n, [&](long long i) { g[0].add(canonical::mul(res[i], res[i])); });
        red.pass(pass, g);
    }
    double total[1];
    double* const partial[1] = {part.rows};
    if (!red.finish(partial, part.counter + 1, total) || threadIdx.x != 0) return;
    out->norm2 = total[0];
}

/// rhs = -R.
__global__ void k_negate(const double* res, long long n, double* rhs) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) rhs[i] = -res[i];
}

/// x += dx, chopped: the cells (sim::update_cell), then the wells' p_bh.
__global__ void k_update(sim::UpdateLimits u, long long M, int nw, const double* dx, double* p,
                         double* sw, double* p_bh) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < M) {
        sim::update_cell(u, i, dx, p, sw);
    } else if (i < M + nw) {
        const long long w = i - M;
        p_bh[w] = sim::chopped_pressure(u, p_bh[w], dx[2 * M + w]);
    }
}

/// Each well's rates (wells::well_rates).
__global__ void k_rates(grid::TwoPhaseCellsView cells, wells::TwoPhaseWellsView v,
                        const wells::WellControl* controls, grid::StateView x, const double* p_bh,
                        wells::WellRates* out) {
    const int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w < v.nw) out[w] = wells::well_rates(cells, v, w, controls[w], x, p_bh);
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

class DeviceNewton final : public sim::NewtonSystem {
  public:
    DeviceNewton(const wells::TwoPhaseSystem& system, const sim::State& initial,
                 sim::SolverFactory make_solver, SolveOptions linear)
        : model_(system.cells(), system.wells()),
          make_solver_(std::move(make_solver)),
          defaults_(std::move(linear)),
          rows_(2 * static_cast<long long>(model_.M) + model_.nw),
          pbh_start_(static_cast<std::size_t>(model_.nw)),
          rhs_(static_cast<std::size_t>(rows_)),
          dx_(static_cast<std::size_t>(rows_)),
          cell_partial_(3 * static_cast<std::size_t>(detail::reduction_blocks(model_.M))),
          row_partial_(detail::reduction_blocks(rows_)),
          hydrocarbon_partial_(4 * static_cast<std::size_t>(detail::reduction_blocks(model_.M))),
          hydrocarbon_sums_(4),
          counters_(3),
          measures_(1),
          rates_(static_cast<std::size_t>(model_.nw)) {
        const auto M = static_cast<std::size_t>(model_.M);
        if (initial.cells.p.size() != M || initial.cells.sw.size() != M ||
            initial.p_bh.size() != static_cast<std::size_t>(model_.nw)) {
            throw std::invalid_argument("make_device_newton: the initial state does not fit");
        }
        state_ = initial;
        model_.p.upload(initial.cells.p);
        model_.sw.upload(initial.cells.sw);
        model_.p_bh.upload(state_.p_bh);
        counters_.zero();
        HEPTANE_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    }

    void start_step() override {
        copy(model_.p_old, model_.p);
        copy(model_.sw_old, model_.sw);
        copy(pbh_start_, model_.p_bh);
    }

    void restore() override {
        copy(model_.p, model_.p_old);
        copy(model_.sw, model_.sw_old);
        copy(model_.p_bh, pbh_start_);
        stale_ = true;
    }

    void assemble(double dt, const std::vector<wells::WellControl>& controls) override {
        model_.controls.upload(controls);
        model_.assemble(dt, true, nullptr);
        HEPTANE_CUDA_CHECK(cudaStreamSynchronize(nullptr));  // the caller times the assembly
    }

    sim::ResidualMeasures measure(double dt) override {
        const long long M = model_.M;
        const unsigned cell_blocks = detail::reduction_blocks(M);
        const Partials part{{cell_partial_.get(), cell_partial_.get() + cell_blocks,
                             cell_partial_.get() + 2 * cell_blocks},
                            row_partial_.get(),
                            counters_.get()};
        measures_.zero();
        k_measure_cells<<<cell_blocks, kChunkThreads>>>(model_.cells_view(), M, model_.p.get(),
                                                        model_.res.get(), dt / units::kTimeScale,
                                                        part, measures_.get());
        HEPTANE_CUDA_CHECK(cudaGetLastError());
        k_norm<<<detail::reduction_blocks(rows_), kChunkThreads>>>(model_.res.get(), rows_, part,
                                                                   measures_.get());
        HEPTANE_CUDA_CHECK(cudaGetLastError());
        const Measures m = measures_.download()[0];
        sim::ResidualMeasures r;
        r.residual_sum = {m.sums[0], m.sums[1]};
        r.pore_volume = m.sums[2];
        for (int a = 0; a < 2; ++a) std::memcpy(&r.cnv_max[a], &m.cnv_bits[a], sizeof(double));
        r.finite = m.nonfinite == 0;
        r.norm = std::sqrt(m.norm2);
        r.wells.resize(static_cast<std::size_t>(model_.nw));
        if (model_.nw > 0) {
            HEPTANE_CUDA_CHECK(cudaMemcpy(r.wells.data(), model_.res.get() + 2 * M,
                                          r.wells.size() * sizeof(double), cudaMemcpyDeviceToHost));
        }
        return r;
    }

    SolveResult solve(double tolerance) override {
        k_negate<<<blocks_for(rows_), kThreads>>>(model_.res.get(), rows_, rhs_.get());
        HEPTANE_CUDA_CHECK(cudaGetLastError());
        dx_.zero();
        // The solver copies b and x on its own (non-blocking) stream: -R and the zeros first.
        HEPTANE_CUDA_CHECK(cudaStreamSynchronize(nullptr));
        SolveOptions options = defaults_;
        if (tolerance > 0.0) options.tolerance = tolerance;
        if (!solver_) {
            host_jacobian_ = model_.jacobian();  // the first J: the solver is made from it
            solver_ = make_solver_(host_jacobian_);
            gpu_ = dynamic_cast<GpuSolver*>(solver_.get());
            on_device_ = gpu_ != nullptr && gpu_->takes_device_values();
            stats_.setup_seconds = solver_->info().setup_seconds;
        } else {
            const auto t0 = Clock::now();
            if (on_device_) {
                gpu_->update_values(detail_values());
            } else {
                host_jacobian_ = model_.jacobian();  // kept: a CPU solver reads A in place
                solver_->update_values(host_jacobian_);
            }
            stats_.update_seconds += seconds_since(t0);
        }
        SolveResult result;
        if (on_device_) {
            result = gpu_->solve_device(rhs_.get(), dx_.get(), options);
        } else {
            const std::vector<double> b = rhs_.download();
            std::vector<double> x(b.size(), 0.0);
            result = solver_->solve(b, x, options);
            dx_.upload(x);
        }
        ++stats_.solves;
        stats_.iterations += result.iterations;
        if (result.status != SolveStatus::converged) ++stats_.failures;
        stats_.solve_seconds += solver_->info().solve_seconds;
        return result;
    }

    void update(const sim::UpdateLimits& u) override {
        k_update<<<blocks_for(model_.M + model_.nw), kThreads>>>(
            u, model_.M, model_.nw, dx_.get(), model_.p.get(), model_.sw.get(), model_.p_bh.get());
        HEPTANE_CUDA_CHECK(cudaGetLastError());
        stale_ = true;
    }

    void set_well_indices(std::size_t w, const std::vector<double>& wi) override {
        if (wi.size() != static_cast<std::size_t>(model_.layout.count.at(w))) {
            throw std::invalid_argument("DeviceNewton::set_well_indices: one per perforation");
        }
        HEPTANE_CUDA_CHECK(cudaMemcpy(model_.wi.get() + model_.layout.first[w] / 2, wi.data(),
                                      wi.size() * sizeof(double), cudaMemcpyHostToDevice));
    }

    std::vector<wells::WellRates> rates(const std::vector<wells::WellControl>& controls) override {
        if (model_.nw == 0) return {};
        model_.controls.upload(controls);
        k_rates<<<blocks_for(model_.nw), kThreads>>>(model_.cells_view(), model_.wells_view(),
                                                     model_.controls.get(), model_.now(),
                                                     model_.p_bh.get(), rates_.get());
        HEPTANE_CUDA_CHECK(cudaGetLastError());
        return rates_.download();
    }

    std::vector<double> bhp() override { return model_.p_bh.download(); }

    double mean_hydrocarbon_pressure() override {
        const long long M = model_.M;
        const unsigned blocks = detail::reduction_blocks(M);
        double* const c = hydrocarbon_partial_.get();
        const HydrocarbonPartials part{{c, c + blocks, c + 2 * blocks, c + 3 * blocks},
                                       counters_.get() + 2};
        k_hydrocarbon_sums<<<blocks, kChunkThreads>>>(
            model_.cells_view(), M, model_.p.get(), model_.sw.get(), part, hydrocarbon_sums_.get());
        HEPTANE_CUDA_CHECK(cudaGetLastError());
        const std::vector<double> sums = hydrocarbon_sums_.download();
        return wells::mean_hydrocarbon_pressure({sums[0], sums[1], sums[2], sums[3]});
    }

    const sim::State& state() override {
        if (stale_) {
            state_.cells.p = model_.p.download();
            state_.cells.sw = model_.sw.download();
            state_.p_bh = model_.p_bh.download();
            stale_ = false;
        }
        return state_;
    }

    sim::LinearStats linear_stats() const override { return stats_; }
    const LinearSolver* linear_solver() const override { return solver_.get(); }

    std::string residence() const override {
        if (!solver_ || on_device_) return "GPU (J handed to the solver on the device)";
        return gpu_ != nullptr ? "GPU (J through the host: the preconditioner factors there)"
                               : "GPU (J through the host: a CPU solver)";
    }

  private:
    static void copy(Buffer<double>& to, const Buffer<double>& from) {
        detail::copy_on_device(to.get(), from.get(), static_cast<long long>(from.size()), nullptr);
    }

    DeviceSystemValues detail_values() const {
        DeviceSystemValues v;
        v.bdia = model_.bdia.get();
        v.accumulation = model_.accumulation.get();
        v.w_vals = model_.w_vals.get();
        v.wt_vals = model_.wt_vals.get();
        v.d = model_.d.get();
        if (model_.nnc_vals.size() > 0) v.nnc_vals = model_.nnc_vals.get();
        return v;
    }

    detail::TwoPhaseModel model_;
    sim::SolverFactory make_solver_;
    SolveOptions defaults_;
    long long rows_;
    Buffer<double> pbh_start_, rhs_, dx_, cell_partial_, row_partial_;
    Buffer<double> hydrocarbon_partial_, hydrocarbon_sums_;
    Buffer<unsigned>
        counters_;  ///< the chunk counts: measure's cells, its rows, k_hydrocarbon_sums
    Buffer<Measures> measures_;
    Buffer<wells::WellRates> rates_;
    std::unique_ptr<LinearSolver> solver_;
    GpuSolver* gpu_ = nullptr;
    bool on_device_ = false;
    GHMatrix host_jacobian_;
    sim::LinearStats stats_;
    sim::State state_;
    bool stale_ = false;
};

}  // namespace

std::unique_ptr<sim::NewtonSystem> make_device_newton(const wells::TwoPhaseSystem& system,
                                                      const sim::State& initial,
                                                      sim::SolverFactory make_solver,
                                                      SolveOptions linear) {
    return std::make_unique<DeviceNewton>(system, initial, std::move(make_solver),
                                          std::move(linear));
}

}  // namespace heptane::gpu
