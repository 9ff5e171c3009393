#include "grid/pvt_table.hpp"

#include <cmath>
#include <cstddef>
#include <stdexcept>

namespace heptane::grid {

std::string pvt_table_error(const std::vector<PvtRow>& rows) {
    if (rows.size() < 2 || rows.size() > static_cast<std::size_t>(PvtTable::kMaxRows)) {
        return std::to_string(rows.size()) + " rows; a table has 2 to " +
               std::to_string(PvtTable::kMaxRows);
    }
    for (std::size_t q = 0; q < rows.size(); ++q) {
        const std::string row = "row " + std::to_string(q + 1) + ": ";
        const auto [p, b, mu] = rows[q];
        if (!std::isfinite(p)) return row + "the pressure must be finite";
        if (!(std::isfinite(b) && b > 0.0)) return row + "the formation volume factor must be > 0";
        if (!(std::isfinite(mu) && mu > 0.0)) return row + "the viscosity must be > 0";
        if (q == 0) continue;
        if (!(p > rows[q - 1][0])) return row + "the pressure must increase";
        if (!(b < rows[q - 1][1]))
            return row + "the formation volume factor must decrease as the pressure increases";
    }
    return {};
}

PvtTable pvt_table(const std::vector<PvtRow>& rows) {
    const std::string error = pvt_table_error(rows);
    if (!error.empty()) throw std::invalid_argument("pvt_table: " + error);
    PvtTable t;
    t.rows = static_cast<int>(rows.size());
    for (std::size_t q = 0; q < rows.size(); ++q) {
        t.p[q] = rows[q][0];
        t.inv_b[q] = 1.0 / rows[q][1];
        t.inv_bmu[q] = 1.0 / (rows[q][1] * rows[q][2]);
    }
    return t;
}

}  // namespace heptane::grid
