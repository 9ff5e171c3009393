#include "sim/in_place.hpp"

#include <array>
#include <cstddef>
#include <stdexcept>

#include "core/base/vector_ops.hpp"   // fused_sums
#include "wells/two_phase_wells.hpp"  // the mean hydrocarbon pressure

namespace heptane::sim {
namespace {

/// Cell m's terms of the sums: its oil and water in place and pore volume, then
/// wells::hydrocarbon_pressure_terms' four (all 0 for an inactive cell).
constexpr int kTerms = 7;
void cell_terms(const grid::TwoPhaseCellsView& v, const grid::CellState& x, index_t m, double* t) {
    if (v.active != nullptr && v.active[m] == 0) {
        for (int q = 0; q < kTerms; ++q) t[q] = 0.0;
        return;
    }
    const grid::TwoPhaseParams& prm = v.params;
    const auto i = static_cast<std::size_t>(m);
    const double p = x.p[i], sw = x.sw[i];
    const double pv = grid::pore_volume(v, m, p);
    const double p_w = grid::phase_pressure(grid::cell_relperm(v, m), grid::kWater, p, sw);
    t[0] = pv * (1.0 - sw) * grid::phase_density(prm, grid::kOil, p) / prm.oil.density;
    t[1] = pv * sw * grid::phase_density(prm, grid::kWater, p_w) / prm.water.density;
    t[2] = pv;
    wells::hydrocarbon_pressure_terms(v, m, p, sw, t + 3);
}

/// The InPlace of a set of cells' summed terms; the mean pressure is the wells' RESV
/// conversion's, 0 for a set without pore volume.
InPlace in_place_of(const std::array<double, kTerms>& s) {
    InPlace out;
    out.oil = s[0];
    out.water = s[1];
    out.pore_volume = s[2];
    const std::array<double, 4> pressure = {s[3], s[4], s[5], s[6]};
    if (pressure[3] > 0.0) out.pressure = wells::mean_hydrocarbon_pressure(pressure);
    return out;
}

}  // namespace

InPlace fluid_in_place(const grid::TwoPhaseCells& cells, const grid::CellState& x) {
    const grid::TwoPhaseCellsView v = cells.view();
    return in_place_of(vec::fused_sums<kTerms>(
        static_cast<index_t>(x.p.size()), [&](index_t m, double* t) { cell_terms(v, x, m, t); }));
}

std::vector<InPlace> fluid_in_place(const grid::TwoPhaseCells& cells, const grid::CellState& x,
                                    const std::vector<std::int32_t>& region, int regions) {
    if (region.size() != x.p.size()) {
        throw std::invalid_argument("fluid_in_place: one region number a cell");
    }
    const grid::TwoPhaseCellsView v = cells.view();
    std::vector<std::array<double, kTerms>> sums(static_cast<std::size_t>(regions));
    for (std::size_t m = 0; m < x.p.size(); ++m) {
        if (v.active != nullptr && v.active[m] == 0) continue;
        if (region[m] < 0 || region[m] >= regions) {
            throw std::invalid_argument("fluid_in_place: a cell's region out of range");
        }
        double t[kTerms];
        cell_terms(v, x, static_cast<index_t>(m), t);
        std::array<double, kTerms>& s = sums[static_cast<std::size_t>(region[m])];
        for (int q = 0; q < kTerms; ++q) s[q] += t[q];
    }
    std::vector<InPlace> out;
    out.reserve(sums.size());
    for (const auto& s : sums) out.push_back(in_place_of(s));
    return out;
}

}  // namespace heptane::sim
