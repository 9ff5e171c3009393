#include "grid/eclipse_records.hpp"

#include <cctype>
#include <sstream>
#include <string_view>

#include "core/base/calendar.hpp"
#include "core/base/units.hpp"

namespace heptane::grid::detail {

/// One record of `keyword` up to its '/' into r (true; an empty record ends a list). The file
/// ending first is an InputError at the keyword.
bool read_record(Source& src, const std::string& keyword, const Token& at, RecordItems& r) {
    r.v.clear();
    r.where = detail::where(src.path, src.text, at.offset) + keyword + ": ";
    Token t;
    bool first = true;
    while (src.tokens.next(t)) {
        if (first) {
            r.where = detail::where(src.path, src.text, t.offset) + keyword + ": ";
            first = false;
        }
        if (t.text == "/") return true;
        const std::string_view text = detail::unquoted(t.text);
        const std::size_t star = t.text.front() == '\'' ? std::string_view::npos : text.find('*');
        if (star == std::string_view::npos) {
            if (r.v.size() == kMaxItems) {
                src.fail(
                    t, keyword + ": a record of more than " + std::to_string(kMaxItems) + " items");
            }
            r.v.emplace_back(std::string(text));
            continue;
        }
        double count = 0.0;
        if (!detail::parse_double(text.substr(0, star), count) || count < 1 ||
            count != std::floor(count) || count > kMaxItems) {
            src.fail(t, keyword + ": " + quote_input(t.text) + " is not a repeat n* or n*value");
        }
        if (r.v.size() + static_cast<std::size_t>(count) > kMaxItems) {
            src.fail(t,
                     keyword + ": a record of more than " + std::to_string(kMaxItems) + " items");
        }
        const std::string value(text.substr(star + 1));
        for (int n = 0; n < static_cast<int>(count); ++n) {
            r.v.push_back(value.empty() ? std::nullopt : std::optional<std::string>(value));
        }
    }
    src.fail(at, keyword + ": the file ends before the '/' that closes its record");
}

/// The day number (days_since_1970, with the time of day's fraction) of a START or DATES
/// record: DAY MONTH YEAR ['HH:MM:SS'], MONTH as Eclipse spells it (JAN .. DEC, JLY for July).
double day_number(const RecordItems& r) {
    static const char* kMonths[12] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                      "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
    if (r.v.size() < 3 || r.v.size() > 4) {
        throw InputError(r.where + "a date is DAY MONTH YEAR [HH:MM:SS], got " +
                         std::to_string(r.v.size()) + " items");
    }
    const int year = r.integer(2, 0);
    std::string month = r.word(1, "");
    for (char& c : month) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (month == "JLY") month = "JUL";
    int m = 0;
    while (m < 12 && month != kMonths[m]) ++m;
    if (m == 12) r.fail(1, "(the month) must be JAN, FEB, ... DEC (or JLY)");
    const int day = r.integer(0, 0);
    if (year < 1 || year > 9999) r.fail(2, "(the year) must be in [1, 9999]");
    if (day < 1 || day > calendar::month_length(year, m + 1)) {
        r.fail(0, "(the day) is not a day of " + month + " " + std::to_string(year));
    }
    double fraction = 0.0;
    if (r.given(3)) {
        int h = 0, mi = 0, sec = 0;
        char c1 = 0, c2 = 0;
        std::istringstream in(*r.v[3]);
        if (!(in >> h >> c1 >> mi >> c2 >> sec) || c1 != ':' || c2 != ':' || !in.eof() || h < 0 ||
            h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60) {
            r.fail(3, "(the time of day) must be HH:MM:SS");
        }
        fraction = (h * 3600.0 + mi * 60.0 + sec) / units::kDay;
    }
    return static_cast<double>(calendar::days_since_1970(year, m + 1, day)) + fraction;
}

void BhpDefaults::read_fbhpdef(const RecordItems& r, double pressure) {
    const double fallback[2] = {1.01325 * units::kBar, 6895.0 * units::kBar};
    double* const value[2] = {&producer_, &injector_};
    for (std::size_t q = 0; q < 2; ++q) {
        const double x = r.given(q) ? r.number(q) * pressure : fallback[q];
        if (!(std::isfinite(x) && x > 0.0)) {
            r.fail(q, q == 0 ? "(the producers' default BHP) must be > 0"
                             : "(the injectors' default BHP limit) must be > 0");
        }
        *value[q] = x;
    }
    r.defaulted_from(2, "later items");
}

double BhpDefaults::history(const std::string& well, bool injector) const {
    const auto it = weltarg_.find(well);
    if (it != weltarg_.end()) return it->second;
    const double given = prediction(injector);
    if (!std::isnan(given)) return given;
    return injector ? 0.0 : units::kAtmosphere;
}

}  // namespace heptane::grid::detail
