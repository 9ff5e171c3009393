#include "sim/in_place.hpp"

#include <cstddef>

namespace heptane::sim {

InPlace fluid_in_place(const grid::TwoPhaseCells& cells, const grid::CellState& x) {
    const grid::TwoPhaseCellsView v = cells.view();
    const grid::TwoPhaseParams& prm = v.params;
    InPlace r;
    double hcpv = 0.0, p_hcpv = 0.0, p_pv = 0.0;
    for (std::size_t m = 0; m < x.p.size(); ++m) {
        if (v.active != nullptr && v.active[m] == 0) continue;
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
    if (hcpv > 0.0) {
        r.pressure = p_hcpv / hcpv;
    } else if (r.pore_volume > 0.0) {
        r.pressure = p_pv / r.pore_volume;
    }
    return r;
}

}  // namespace heptane::sim
