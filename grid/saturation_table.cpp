#include "grid/saturation_table.hpp"

#include <cmath>
#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/base/errors.hpp"
#include "core/base/text.hpp"
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
    t.ends = table_end_points(t);
    return t;
}

namespace {

/// TABDIMS item 1 (NTSFUN), the number of saturation tables (detail::dimension_count; TABDIMS
/// has 25 items in the manual: NTSFUN, NTPVT, NSSFUN, NPPVT, NTFIP, ...).
int saturation_table_count(const std::string& path, std::string& where, std::string& says) {
    return detail::dimension_count(path, "TABDIMS", 25, "NTSFUN, the number of saturation tables",
                                   kMaxSaturationTables, where, says);
}

}  // namespace

namespace detail {

std::vector<std::vector<RelPermRow>> read_swof_tables(const std::string& path,
                                                      const FluidUnits& fallback,
                                                      const std::string& one_table) {
    std::string tabdims_where, says;
    const int count = saturation_table_count(path, tabdims_where, says);
    if (count > 1 && !one_table.empty()) {
        throw InputError(tabdims_where + "item 1 says " + std::to_string(count) +
                         " saturation tables (several saturation regions, SATNUM): " + one_table);
    }
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
    // Each table's values up to its '/', and "path:line: SWOF: [table n: ]" where it starts.
    std::vector<std::vector<double>> values(static_cast<std::size_t>(count));
    std::vector<std::string> heads;
    constexpr std::size_t kMost = 4 * RelPermTable::kMaxRows + 4;
    for (int q = 0; q < count; ++q) {
        std::string head = here;
        if (q > 0) {
            EclipseTokenizer probe = tokens;  // where the table starts, or the keyword after
            Token next;
            const std::string read = std::to_string(q) + (q == 1 ? " table" : " tables");
            if (!probe.next(next)) {
                throw InputError(here + "SWOF: the file ends after " + read + "; " + says +
                                 " (each table ends with its own '/')");
            }
            if (is_keyword(next.text)) {
                throw InputError(where(path, text, next.offset) + "SWOF: " + read + " before " +
                                 quote_input(next.text) + "; " + says +
                                 " (each table ends with its own '/')");
            }
            head = where(path, text, next.offset);
        }
        head += "SWOF: " + (count > 1 ? "table " + std::to_string(q + 1) + ": " : std::string());
        heads.push_back(head);
        std::vector<double>& v = values[static_cast<std::size_t>(q)];
        bool closed = false;
        while (!closed && tokens.next(t)) {
            closed = t.text == "/";
            if (!closed) append_values(path, text, t, "SWOF", v, kMost, true);
            if (v.size() > kMost) break;
        }
        if (v.size() > 4 * static_cast<std::size_t>(RelPermTable::kMaxRows)) {
            throw InputError(head + "more than " + std::to_string(RelPermTable::kMaxRows) +
                             " rows; heptane's table holds up to " +
                             std::to_string(RelPermTable::kMaxRows));
        }
        if (!closed) throw InputError(head + "the file ends before the '/' that closes the table");
        if (v.empty() && q == 0) {
            throw InputError(head +
                             "the first table is empty (an empty table copies the one before "
                             "it; the first has none): give its rows");
        }
        if (v.size() % 4 != 0) {
            throw InputError(head + std::to_string(v.size()) +
                             " values; a row is 4 (Sw krw krow Pcow)");
        }
    }
    EclipseTokenizer probe = tokens;  // a number after the last '/': one more table
    Token next;
    if (probe.next(next) && !is_keyword(next.text) && next.text != "/") {
        const std::string more = where(path, text, next.offset) + "SWOF: ";
        if (!one_table.empty()) {
            throw InputError(more +
                             "a second table (several saturation regions, SATNUM): " + one_table);
        }
        throw InputError(more + "a table after the last one: " + says +
                         "; give TABDIMS the number of tables");
    }
    std::vector<std::vector<RelPermRow>> tables;
    for (std::size_t q = 0; q < values.size(); ++q) {
        if (values[q].empty()) {  // Eclipse's empty table: a copy of the one before
            tables.push_back(tables.back());
            continue;
        }
        std::vector<RelPermRow> rows;
        for (std::size_t r = 0; r < values[q].size(); r += 4) {
            const double* row = &values[q][r];
            for (std::size_t c = 0; c < 4; ++c) {
                if (std::isnan(row[c])) {
                    throw InputError(heads[q] + "row " + std::to_string(r / 4 + 1) +
                                     ": a defaulted item (n*): give every value (heptane does "
                                     "not interpolate defaults)");
                }
            }
            rows.push_back({row[0], row[1], row[2], row[3] * file_units.pressure});
        }
        const std::string error = relperm_table_error(rows);
        if (!error.empty()) throw InputError(heads[q] + error);
        tables.push_back(std::move(rows));
    }
    return tables;
}

}  // namespace detail

std::vector<std::vector<RelPermRow>> read_swof_tables(const std::string& path,
                                                      const FluidUnits& fallback) {
    return detail::read_swof_tables(path, fallback, "");
}

std::vector<RelPermRow> read_swof(const std::string& path, const FluidUnits& fallback) {
    return detail::read_swof_tables(path, fallback,
                                    "relperm.swof reads one table; several saturation tables "
                                    "need fluid.eclipse, which reads them all with SATNUM")
        .front();
}

}  // namespace heptane::grid
