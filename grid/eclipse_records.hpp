#pragma once
/// @file The records of an Eclipse deck's SCHEDULE keywords (grid/eclipse_schedule.cpp): a
/// record's items up to its '/', with Eclipse's repeats (n*, n*value), and the dates of START
/// and DATES.
#include <cmath>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/base/errors.hpp"
#include "core/base/text.hpp"       // quote_input
#include "grid/eclipse_reader.hpp"  // Source, Token
#include "grid/text_input.hpp"

namespace heptane::grid::detail {

/// One record's items, "n*" expanded to n defaulted (empty) items and "n*v" to n copies of v.
struct RecordItems {
    std::vector<std::optional<std::string>> v;
    std::string where;  ///< "path:line: KEYWORD: " of the record

    bool given(std::size_t q) const { return q < v.size() && v[q].has_value(); }
    std::string word(std::size_t q, const std::string& fallback) const {
        return given(q) ? *v[q] : fallback;
    }
    [[noreturn]] void fail(std::size_t q, const std::string& what) const {
        throw InputError(where + "item " + std::to_string(q + 1) + " " + what);
    }
    double number(std::size_t q) const {
        double x = 0.0;
        if (!given(q) || !detail::parse_double(*v[q], x)) {
            fail(q, given(q) ? "(" + quote_input(*v[q]) + ") must be a number" : "must be given");
        }
        return x;
    }
    double number(std::size_t q, double fallback) const { return given(q) ? number(q) : fallback; }
    int integer(std::size_t q, int fallback) const {
        const double x = number(q, fallback);
        if (x != std::floor(x) || std::abs(x) > 1e9) fail(q, "must be an integer");
        return static_cast<int>(x);
    }
    /// Items from `first` on must be defaulted (what heptane does not read).
    void defaulted_from(std::size_t first, const std::string& what) const {
        for (std::size_t q = first; q < v.size(); ++q) {
            if (given(q)) fail(q, "(" + what + ") must be defaulted");
        }
    }
    void defaulted(std::size_t q, const std::string& what) const {
        if (given(q)) fail(q, "(" + what + ") must be defaulted");
    }
};

/// The most items one record may hold (a TSTEP of 100,000 steps; a typo such as 1e9*30 is
/// refused before it allocates).
inline constexpr std::size_t kMaxItems = 100000;

/// One record of `keyword` up to its '/' into r (true; an empty record ends a list). The file
/// ending first is an InputError at the keyword.
bool read_record(Source& src, const std::string& keyword, const Token& at, RecordItems& r);

/// The BHP a SCHEDULE record takes where it leaves one out (design decision 93): FBHPDEF's
/// producer target and injector limit from its record on, and the BHP limit WELTARG gave a
/// history well on a rate, which the well's next history records on a rate keep (as
/// Eclipse's: WCONHIST's 1 atm floor is the default only where WELTARG set none).
class BhpDefaults {
  public:
    /// FBHPDEF's record: item 1 the producers' BHP (Eclipse's default 1.01325 bar), item 2
    /// the injectors' (6895 bar), each finite and > 0, in `pressure` Pa a unit.
    void read_fbhpdef(const RecordItems& r, double pressure);
    /// A prediction record's (WCONPROD, WCONINJE) BHP where its item is defaulted: FBHPDEF's,
    /// NaN before any FBHPDEF.
    double prediction(bool injector) const { return injector ? injector_ : producer_; }
    /// A history record's BHP limit on a rate (WCONHIST, WCONINJH): the well's WELTARG'd
    /// limit, else FBHPDEF's, else 1 atm for a producer and none (0) for an injector.
    double history(const std::string& well, bool injector) const;
    /// WELTARG gave `well` (a history well on a rate) the BHP limit `limit` [Pa].
    void set_by_weltarg(const std::string& well, double limit) { weltarg_[well] = limit; }
    /// A prediction record or a history BHP control: the well's WELTARG'd limit ends.
    void forget(const std::string& well) { weltarg_.erase(well); }

  private:
    double producer_ = std::nan(""), injector_ = std::nan("");
    std::map<std::string, double> weltarg_;
};

/// The day number (days from 1 January 1970, proleptic Gregorian, with the time of day's
/// fraction) of a START or DATES record: DAY MONTH YEAR ['HH:MM:SS'], MONTH as Eclipse spells
/// it (JAN .. DEC, JLY for July).
double day_number(const RecordItems& r);

}  // namespace heptane::grid::detail
