// The reference NewtonSystem (sim/newton_system.hpp): the state, residual and Jacobian on the
// host, OpenMP loops over the per-cell code of sim/newton_terms.hpp.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "core/base/units.hpp"
#include "core/base/vector_ops.hpp"
#include "sim/newton_system.hpp"

namespace heptane::sim {
namespace {

class HostNewton final : public NewtonSystem {
  public:
    HostNewton(const wells::TwoPhaseSystem& system, const State& initial, SolverFactory make_solver,
               SolveOptions linear, const NewtonSplit* split)
        : system_(system),
          wells_(system.wells()),
          make_solver_(std::move(make_solver)),
          defaults_(std::move(linear)) {
        const grid::Grid3D& g = system_.cells().grid();
        if (split != nullptr) split_ = std::make_unique<NewtonSplit>(*split);
        const auto M = static_cast<std::size_t>(g.num_cells());
        if (initial.cells.p.size() != M || initial.cells.sw.size() != M ||
            initial.p_bh.size() != static_cast<std::size_t>(system_.wells().layout().num_wells())) {
            throw std::invalid_argument("make_host_newton: the initial state does not fit");
        }
        state_ = initial;
        if (split_) {  // the assembled cells' planes and the own planes' wells
            planes_ = split_->planes(static_cast<index_t>(g.ny) * g.nz);
            jacobian_ = system_.cells().zero_jacobian(planes_.first, planes_.count);
            jacobian_.set_wells(slab_wells(system_.wells().layout(), g.ny, g.nz, 2, planes_.first,
                                           planes_.count, planes_.own_first, planes_.own_end,
                                           &own_wells_));
        } else {
            jacobian_ = system_.cells().zero_jacobian();
        }
    }

    void start_step() override { start_ = state_; }
    void restore() override { state_ = start_; }

    void assemble(double dt, const std::vector<wells::WellControl>& controls) override {
        const index_t M = system_.cells().grid().num_cells();
        system_.cells().assemble(state_.cells, start_.cells, dt, res_, &jacobian_,
                                 split_ ? split_->assemble_begin : 0,
                                 split_ ? split_->assemble_end : M);
        if (split_) {
            wells_.assemble_slab(state_.cells, state_.p_bh, controls, res_, res_wells_, jacobian_,
                                 planes_.first, planes_.own_first, planes_.own_end);
        } else {
            wells_.assemble(state_.cells, state_.p_bh, controls, res_, res_wells_, &jacobian_);
        }
        res_.insert(res_.end(), res_wells_.begin(), res_wells_.end());
    }

    ResidualMeasures measure(double dt) override {
        if (split_) return measure_split(dt);
        const grid::TwoPhaseCellsView v = system_.cells().view();
        const index_t M = system_.cells().grid().num_cells();
        const double dt_scaled = dt / units::kTimeScale;  // R is a volume per kTimeScale
        const double* p = state_.cells.p.data();
        const double* res = res_.data();
        // The sums in the canonical order (the GPU's bits), the maxima in any order.
        const auto sums = vec::fused_sums<3>(M, [&](index_t m, double* t) {
            t[0] = res[2 * m];
            t[1] = res[2 * m + 1];
            t[2] = grid::pore_volume(v, m, p[m]);
        });
        ResidualMeasures r;
        double cnv0 = 0.0, cnv1 = 0.0;
        bool finite = true;
#pragma omp parallel for schedule(static) reduction(max : cnv0, cnv1) reduction(&& : finite) \
    if (M >= vec::kParallelMin)
        for (index_t m = 0; m < M; ++m) {
            const double pv = grid::pore_volume(v, m, p[m]), r0 = res[2 * m], r1 = res[2 * m + 1];
            finite = finite && std::isfinite(r0) && std::isfinite(r1);
            cnv0 = std::max(cnv0, cnv_term(r0, pv, dt_scaled));
            cnv1 = std::max(cnv1, cnv_term(r1, pv, dt_scaled));
        }
        r.residual_sum = {sums[0], sums[1]};
        r.pore_volume = sums[2];
        r.cnv_max = {cnv0, cnv1};
        r.finite = finite;
        r.norm = vec::norm2(res, static_cast<index_t>(res_.size()));
        r.wells.assign(res_.begin() + 2 * M, res_.end());
        return r;
    }

    SolveResult solve(double tolerance) override {
        if (!linear_) {
            linear_ = std::make_unique<NewtonLinearSolver>(make_solver_(jacobian_), defaults_);
        }
        if (split_) return solve_slab(tolerance);
        rhs_.resize(res_.size());
        for (std::size_t i = 0; i < res_.size(); ++i) rhs_[i] = -res_[i];
        dx_.assign(res_.size(), 0.0);
        return linear_->solve(jacobian_, rhs_, dx_, tolerance);
    }

    void update(const UpdateLimits& u) override {
        const index_t M = system_.cells().grid().num_cells();
        double* p = state_.cells.p.data();
        double* sw = state_.cells.sw.data();
        const double* dx = dx_.data();
#pragma omp parallel for schedule(static) if (M >= vec::kParallelMin)
        for (index_t m = 0; m < M; ++m) update_cell(u, m, dx, p, sw);
        for (std::size_t w = 0; w < state_.p_bh.size(); ++w) {
            double& pb = state_.p_bh[w];
            pb = chopped_pressure(u, pb, dx[static_cast<std::size_t>(2 * M) + w]);
        }
    }

    void set_well_indices(std::size_t w, const std::vector<double>& wi) override {
        wells_.set_well_indices(w, wi);
    }

    std::vector<wells::WellRates> rates(const std::vector<wells::WellControl>& controls) override {
        return wells_.rates(state_.cells, state_.p_bh, controls);
    }
    std::vector<double> bhp() override { return state_.p_bh; }
    double mean_hydrocarbon_pressure() override {
        return system_.wells().mean_hydrocarbon_pressure(state_.cells);
    }
    const State& state() override { return state_; }
    LinearStats linear_stats() const override { return linear_ ? linear_->stats() : LinearStats{}; }
    const LinearSolver* linear_solver() const override {
        return linear_ ? &linear_->solver() : nullptr;
    }
    std::string residence() const override { return "host"; }

  private:
    /// solve() on the rank's slab: its local vectors ([its own cells' entries, then its
    /// wells']), dx gathered whole on every rank.
    SolveResult solve_slab(double tolerance) {
        const index_t M = system_.cells().grid().num_cells();
        const index_t b = 2 * split_->own_begin, e = 2 * split_->own_end;
        rhs_.resize(static_cast<std::size_t>(e - b) + own_wells_.size());
        for (index_t i = b; i < e; ++i) rhs_[static_cast<std::size_t>(i - b)] = -res_[i];
        for (std::size_t j = 0; j < own_wells_.size(); ++j) {
            rhs_[static_cast<std::size_t>(e - b) + j] = -res_[2 * M + own_wells_[j]];
        }
        local_dx_.assign(rhs_.size(), 0.0);
        const SolveResult r = linear_->solve(jacobian_, rhs_, local_dx_, tolerance);
        dx_.assign(res_.size(), 0.0);
        split_->gather(local_dx_, own_wells_, dx_);
        return r;
    }

    /// measure() on one rank's cells (and the wells' rows on the rank that holds them), the
    /// parts joined across the ranks: the same sums (canonical pieces), maxima and flags as
    /// one process computes.
    ResidualMeasures measure_split(double dt) const {
        const NewtonSplit& s = *split_;
        const grid::TwoPhaseCellsView v = system_.cells().view();
        const index_t M = system_.cells().grid().num_cells();
        const double dt_scaled = dt / units::kTimeScale;
        const double* p = state_.cells.p.data();
        const double* res = res_.data();
        const index_t b = s.own_begin, e = s.own_end;
        std::vector<std::vector<PieceSums>> pieces(4);
        pieces[0] = {piece_sums(b, e, [&](long long m) { return res[2 * m]; })};
        pieces[1] = {piece_sums(b, e, [&](long long m) { return res[2 * m + 1]; })};
        pieces[2] = {piece_sums(b, e, [&](long long m) { return grid::pore_volume(v, m, p[m]); })};
        const auto square = [&](long long i) { return canonical::mul(res[i], res[i]); };
        pieces[3] = {piece_sums(2 * b, 2 * e, square)};
        const auto rows = static_cast<long long>(res_.size());
        if (s.holds_wells && rows > 2 * M) pieces[3].push_back(piece_sums(2 * M, rows, square));
        const std::vector<double> sums = s.sums(pieces);
        double worst[3] = {0.0, 0.0, 0.0};  // CNV per phase, and 1 where an entry is not finite
        for (index_t m = b; m < e; ++m) {
            const double pv = grid::pore_volume(v, m, p[m]), r0 = res[2 * m], r1 = res[2 * m + 1];
            if (!std::isfinite(r0) || !std::isfinite(r1)) worst[2] = 1.0;
            worst[0] = std::max(worst[0], cnv_term(r0, pv, dt_scaled));
            worst[1] = std::max(worst[1], cnv_term(r1, pv, dt_scaled));
        }
        s.max(worst, 3);
        ResidualMeasures r;
        r.residual_sum = {sums[0], sums[1]};
        r.pore_volume = sums[2];
        r.cnv_max = {worst[0], worst[1]};
        r.finite = worst[2] == 0.0;
        r.norm = std::sqrt(sums[3]);
        r.wells.assign(res_.begin() + 2 * M, res_.end());
        return r;
    }

    const wells::TwoPhaseSystem& system_;
    wells::TwoPhaseWells wells_;  ///< system_'s, with the well indices the schedule set
    std::unique_ptr<NewtonSplit> split_;
    SolverFactory make_solver_;
    SolveOptions defaults_;
    std::unique_ptr<NewtonLinearSolver> linear_;
    State state_, start_;
    GHMatrix jacobian_;  ///< the whole grid's, or with split_ the rank's slab
    std::vector<double> res_, res_wells_, rhs_, dx_, local_dx_;
    NewtonSplit::Planes planes_;  ///< the slab's and the own cells' planes (split_)
    std::vector<int> own_wells_;  ///< the slab's wells' global numbers (split_)
};

}  // namespace

State starting_state(const wells::TwoPhaseSystem& system, grid::CellState cells) {
    State s;
    s.p_bh = system.wells().initial_bhp(cells);
    s.cells = std::move(cells);
    return s;
}

std::unique_ptr<NewtonSystem> make_host_newton(const wells::TwoPhaseSystem& system,
                                               const State& initial, SolverFactory make_solver,
                                               SolveOptions linear, const NewtonSplit* split) {
    return std::make_unique<HostNewton>(system, initial, std::move(make_solver), std::move(linear),
                                        split);
}

}  // namespace heptane::sim
