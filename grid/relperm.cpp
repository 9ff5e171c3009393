#include "grid/relperm.hpp"

#include <cmath>
#include <sstream>

namespace heptane::grid {

double saturation_at_capillary_pressure(const RelPerm& rp, double pc) {
    const RelPermTable& t = rp.table;
    const double largest = t.rows > 0 ? t.sw[t.rows - 1] : 1.0 - rp.sor;
    if (!t.capillary) return pc > 0.0 ? connate_water(rp) : largest;
    const int last = t.rows - 1;
    if (pc > t.pcow[0]) return t.sw[0];
    if (pc <= t.pcow[last]) return largest;
    int i = 0;  // the last row with Pc >= pc: pcow[i] >= pc > pcow[i + 1]
    while (t.pcow[i + 1] >= pc) ++i;
    return t.sw[i] + (t.pcow[i] - pc) / (t.pcow[i] - t.pcow[i + 1]) * (t.sw[i + 1] - t.sw[i]);
}

double saturation_at_capillary_pressure(const CellRelPerm& c, double pc) {
    if (c.ends == nullptr) return saturation_at_capillary_pressure(*c.law, pc);
    const EndPoints& t = c.law->table.ends;
    const EndPoints& e = *c.ends;
    if (e.pc_scale == 0.0) return pc > 0.0 ? e.swl : e.swu;  // PCW 0: no Pc
    const double sw =
        saturation_at_capillary_pressure(*c.law, e.pc_scale == 1.0 ? pc : pc / e.pc_scale);
    // The table's connate water and largest saturation are the cell's own, exactly.
    if (sw == t.swl) return e.swl;
    if (sw == t.swu) return e.swu;
    return two_point_scaled(sw, t.swl, t.swu, e.swl, e.swu);
}

EndPoints table_end_points(const RelPermTable& t) {
    EndPoints e;
    if (t.rows == 0) return e;
    const int last = t.rows - 1;
    e.swl = t.sw[0];
    e.swu = t.sw[last];
    int i = 0;
    while (i < last && t.krw[i + 1] == 0.0) ++i;
    e.swcr = t.sw[i];
    int j = 0;
    while (j <= last && t.kro[j] > 0.0) ++j;
    e.sowcr = 1.0 - (j <= last ? t.sw[j] : e.swu);
    return e;
}

std::string end_points_error(const EndPoints& e) {
    std::ostringstream s;
    s << "SWL " << e.swl << ", SWCR " << e.swcr << ", SWU " << e.swu << ", SOWCR " << e.sowcr;
    const auto fraction = [](double v) { return std::isfinite(v) && v >= 0.0 && v <= 1.0; };
    if (!fraction(e.swl) || !fraction(e.swcr) || !fraction(e.swu) || !fraction(e.sowcr))
        return s.str() + ": each must be in [0, 1]";
    if (!(e.swl <= e.swcr)) return s.str() + ": SWL must not exceed SWCR";
    if (!(e.swcr < e.swu)) return s.str() + ": SWCR must be below SWU";
    if (!(e.swl + e.sowcr < 1.0)) return s.str() + ": SWL + SOWCR must be below 1";
    return {};
}

}  // namespace heptane::grid
