#include "grid/saturation_table.hpp"

#include <cmath>
#include <cstddef>
#include <stdexcept>

#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "grid/text_input.hpp"

namespace heptane::grid {

bool read_unit_keyword(const std::string& keyword, FluidUnits& units) {
    if (keyword == "FIELD") {
        units = {units::kPsi, units::kPoundPerCubicFoot, units::kFoot,
                 units::kStockTankBarrel / units::kDay, units::kDay};
    }
    if (keyword == "METRIC") units = {units::kBar, 1.0, 1.0, 1.0 / units::kDay, units::kDay};
    if (keyword == "LAB") units = {units::kAtmosphere, 1000.0, 0.01, 1.0e-6 / 3600.0, 3600.0};
    return keyword == "FIELD" || keyword == "METRIC" || keyword == "LAB";
}

std::string relperm_table_error(const std::vector<RelPermRow>& rows) {
    if (rows.size() < 2 || rows.size() > static_cast<std::size_t>(RelPermTable::kMaxRows)) {
        return std::to_string(rows.size()) + " rows; a table has 2 to " +
               std::to_string(RelPermTable::kMaxRows);
    }
    const auto fraction = [](double v) { return std::isfinite(v) && v >= 0.0 && v <= 1.0; };
    for (std::size_t q = 0; q < rows.size(); ++q) {
        const std::string row = "row " + std::to_string(q + 1) + ": ";
        const auto [sw, krw, kro, pcow] = rows[q];
        if (!fraction(sw) || !fraction(krw) || !fraction(kro))
            return row + "the saturation, krw and kro must be in [0, 1]";
        if (!std::isfinite(pcow)) return row + "the capillary pressure must be finite";
        if (q == 0) {
            if (krw != 0.0) return row + "krw must be 0 at the first row (connate water)";
            if (!(kro > 0.0)) return row + "kro must be > 0 at the first row";
            continue;
        }
        if (!(sw > rows[q - 1][0])) return row + "the water saturation must increase";
        if (krw < rows[q - 1][1]) return row + "krw must not decrease";
        if (kro > rows[q - 1][2]) return row + "kro must not increase";
        if (pcow > rows[q - 1][3]) return row + "the capillary pressure must not increase";
    }
    return {};
}

RelPermTable relperm_table(const std::vector<RelPermRow>& rows) {
    const std::string error = relperm_table_error(rows);
    if (!error.empty()) throw std::invalid_argument("relperm_table: " + error);
    RelPermTable t;
    t.rows = static_cast<int>(rows.size());
    for (std::size_t q = 0; q < rows.size(); ++q) {
        t.sw[q] = rows[q][0];
        t.krw[q] = rows[q][1];
        t.kro[q] = rows[q][2];
        t.pcow[q] = rows[q][3];
        t.capillary = t.capillary || rows[q][3] != 0.0;
    }
    return t;
}

std::vector<RelPermRow> read_swof(const std::string& path, const FluidUnits& fallback) {
    using namespace detail;
    const std::string text = read_whole_file(path);
    EclipseTokenizer tokens(text);
    Token t;
    Token at;
    bool found = false;
    FluidUnits file_units = fallback;
    while (!found && tokens.next(t)) {
        const bool keyword = starts_line(text, t.offset);
        if (keyword) read_unit_keyword(std::string(t.text), file_units);
        found = keyword && t.text == "SWOF";
        at = t;
    }
    if (!found) {
        throw InputError(path +
                         ": no SWOF keyword (heptane reads the first SWOF of the file "
                         "given; INCLUDE files are not followed: give the file that "
                         "holds it)");
    }
    const std::string here = where(path, text, at.offset);
    std::vector<double> values;
    bool closed = false;
    constexpr std::size_t kMost = 4 * RelPermTable::kMaxRows + 4;
    while (!closed && tokens.next(t)) {
        closed = t.text == "/";
        if (!closed) append_values(path, text, t, "SWOF", values, kMost, true);
        if (values.size() > kMost) break;
    }
    if (values.size() > 4 * static_cast<std::size_t>(RelPermTable::kMaxRows)) {
        throw InputError(here + "SWOF: more than " + std::to_string(RelPermTable::kMaxRows) +
                         " rows; heptane's table holds up to " +
                         std::to_string(RelPermTable::kMaxRows));
    }
    if (!closed)
        throw InputError(here + "SWOF: the file ends before the '/' that closes the table");
    if (values.size() % 4 != 0) {
        throw InputError(here + "SWOF: " + std::to_string(values.size()) +
                         " values; a row is 4 (Sw krw krow Pcow)");
    }
    std::vector<RelPermRow> rows;
    for (std::size_t q = 0; q < values.size(); q += 4) {
        const std::string row = "SWOF: row " + std::to_string(q / 4 + 1) + ": ";
        for (std::size_t c = 0; c < 4; ++c) {
            if (std::isnan(values[q + c])) {
                throw InputError(here + row +
                                 "a defaulted item (n*): give every value (heptane does not "
                                 "interpolate defaults)");
            }
        }
        rows.push_back(
            {values[q], values[q + 1], values[q + 2], values[q + 3] * file_units.pressure});
    }
    EclipseTokenizer probe = tokens;  // a number after the '/': a second table
    Token next;
    if (probe.next(next) && !is_keyword(next.text) && next.text != "/") {
        throw InputError(where(path, text, next.offset) +
                         "SWOF: a second table (several saturation regions, SATNUM) is not "
                         "supported: give one table");
    }
    const std::string error = relperm_table_error(rows);
    if (!error.empty()) throw InputError(here + "SWOF: " + error);
    return rows;
}

}  // namespace heptane::grid
