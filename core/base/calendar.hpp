#pragma once
/// @file Calendar days (proleptic Gregorian): an Eclipse deck's START and DATES as day numbers,
/// and day numbers back as ISO 8601 dates for the summary table's DATE column.
#include <cmath>
#include <cstdio>
#include <string>

namespace heptane::calendar {

inline bool is_leap(long long y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/// The days of month m (1..12) of year y.
inline int month_length(long long y, int m) {
    static constexpr int kLength[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return kLength[m - 1] + (m == 2 && is_leap(y) ? 1 : 0);
}

/// Days from 1 January 1970 to y-m-d (m 1..12, d 1..month_length): whole years of 365 days
/// plus their leap days, then the months of the year.
inline long long days_since_1970(long long y, int m, int d) {
    static constexpr int kBefore[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    const auto leaps_before = [](long long year) {  // leap years in [1, year)
        const long long p = year - 1;
        return p / 4 - p / 100 + p / 400;
    };
    return 365LL * (y - 1970) + leaps_before(y) - leaps_before(1970) + kBefore[m - 1] +
           (is_leap(y) && m > 2 ? 1 : 0) + (d - 1);
}

/// Day number `day` (days since 1970-01-01, with the time of day's fraction) as
/// "YYYY-MM-DD", or "YYYY-MM-DDTHH:MM:SS" where it is not a whole day (to the nearest second).
inline std::string iso_date(double day) {
    long long seconds = std::llround(day * 86400.0);
    long long days = seconds / 86400;
    seconds -= days * 86400;
    if (seconds < 0) {
        seconds += 86400;
        --days;
    }
    // The year: from an estimate, then by whole years (each step exact).
    long long y = 1970 + static_cast<long long>(std::floor(static_cast<double>(days) / 365.2425));
    while (days_since_1970(y, 1, 1) > days) --y;
    while (days_since_1970(y + 1, 1, 1) <= days) ++y;
    long long left = days - days_since_1970(y, 1, 1);
    int m = 1;
    while (left >= month_length(y, m)) left -= month_length(y, m++);
    char text[96];
    if (seconds == 0) {
        std::snprintf(text, sizeof text, "%04lld-%02d-%02lld", y, m, left + 1);
    } else {
        std::snprintf(text, sizeof text, "%04lld-%02d-%02lldT%02lld:%02lld:%02lld", y, m, left + 1,
                      seconds / 3600, seconds / 60 % 60, seconds % 60);
    }
    return text;
}

}  // namespace heptane::calendar
