#include "grid/relperm.hpp"

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

}  // namespace heptane::grid
