#include "sim/in_place.hpp"

#include <cstddef>
#include <stdexcept>

namespace heptane::sim {
namespace {

/// The sums of one set of cells; `in_place()` gives their InPlace.
struct Sums {
    InPlace r;
    double hcpv = 0.0, p_hcpv = 0.0, p_pv = 0.0;

    /// Adds cell m of `x` on the model of view `v`.
    void add(const grid::TwoPhaseCellsView& v, const grid::CellState& x, std::size_t m) {
        const grid::TwoPhaseParams& prm = v.params;
        const double p = x.p[m], sw = x.sw[m];
        const double pv = v.volume[m] * grid::rock_porosity(v.porosity[m], prm.rock_compressibility,
                                                            p, prm.reference_pressure);
        const double p_w = grid::phase_pressure(grid::cell_relperm(v, static_cast<index_t>(m)),
                                                grid::kWater, p, sw);
        r.oil += pv * (1.0 - sw) * grid::phase_density(prm, grid::kOil, p) / prm.oil.density;
        r.water += pv * sw * grid::phase_density(prm, grid::kWater, p_w) / prm.water.density;
        r.pore_volume += pv;
        hcpv += pv * (1.0 - sw);
        p_hcpv += p * pv * (1.0 - sw);
        p_pv += p * pv;
    }

    InPlace in_place() const {
        InPlace out = r;
        if (hcpv > 0.0) {
            out.pressure = p_hcpv / hcpv;
        } else if (r.pore_volume > 0.0) {
            out.pressure = p_pv / r.pore_volume;
        }
        return out;
    }
};

}  // namespace

InPlace fluid_in_place(const grid::TwoPhaseCells& cells, const grid::CellState& x) {
    const grid::TwoPhaseCellsView v = cells.view();
    Sums field;
    for (std::size_t m = 0; m < x.p.size(); ++m) {
        if (v.active != nullptr && v.active[m] == 0) continue;
        field.add(v, x, m);
    }
    return field.in_place();
}

std::vector<InPlace> fluid_in_place(const grid::TwoPhaseCells& cells, const grid::CellState& x,
                                    const std::vector<std::int32_t>& region, int regions) {
    if (region.size() != x.p.size()) {
        throw std::invalid_argument("fluid_in_place: one region number a cell");
    }
    const grid::TwoPhaseCellsView v = cells.view();
    std::vector<Sums> sums(static_cast<std::size_t>(regions));
    for (std::size_t m = 0; m < x.p.size(); ++m) {
        if (v.active != nullptr && v.active[m] == 0) continue;
        if (region[m] < 0 || region[m] >= regions) {
            throw std::invalid_argument("fluid_in_place: a cell's region out of range");
        }
        sums[static_cast<std::size_t>(region[m])].add(v, x, m);
    }
    std::vector<InPlace> out;
    out.reserve(sums.size());
    for (const Sums& s : sums) out.push_back(s.in_place());
    return out;
}

}  // namespace heptane::sim
