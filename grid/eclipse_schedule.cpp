#include "grid/eclipse_schedule.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "core/base/errors.hpp"
#include "core/base/text.hpp"
#include "core/base/units.hpp"
#include "grid/eclipse_controls.hpp"  // the control records
#include "grid/eclipse_reader.hpp"    // Source, number_text
#include "grid/eclipse_records.hpp"   // the records' items, dates

namespace heptane::grid {
namespace {

using detail::day_number;
using detail::kMaxItems;
using detail::number_text;
using detail::read_record;
using detail::Source;
using detail::Token;
using Items = detail::RecordItems;

class ScheduleReader {
  public:
    explicit ScheduleReader(const FluidUnits& units) : units_(units) {}

    void read_file(const std::string& path) {
        stack_.enter(path);
        Source src(path, detail::read_whole_file(path));
        Token t;
        while (!ended_ && src.tokens.next(t)) {
            if (!detail::is_keyword(t.text)) {
                // Between keywords only an empty record may stand (Egg's RPTSCHED has one).
                if (in_schedule_ && t.text != "/") {
                    src.fail(t, quote_input(t.text) + " is not a keyword");
                }
                continue;
            }
            const std::string keyword(t.text);
            if (!in_schedule_) {  // RUNSPEC's units and START; nothing else before SCHEDULE
                if (detail::starts_line(src.text, t.offset)) {
                    read_unit_keyword(keyword, units_);
                    in_schedule_ = keyword == "SCHEDULE";
                    if (keyword == "START") {
                        Items r;
                        read_record(src, keyword, t, r);
                        start_ = day_number(r);
                    }
                }
                continue;
            }
            read_keyword(src, t, keyword);
        }
        stack_.leave();
    }

    EclipseSchedule take(const std::string& path) {
        if (!in_schedule_) throw InputError(path + ": no SCHEDULE section");
        if (out_.report_times.empty()) {
            throw InputError(path + ": SCHEDULE has no TSTEP or DATES: the simulation has no end");
        }
        for (EclipseWell& w : out_.wells) {
            if (w.connections.empty()) {
                throw InputError(w.where + "well " + w.name + " has no COMPDAT");
            }
            if (!widen_span(w, w.connections)) {
                throw InputError(w.where + "well " + w.name +
                                 " has no OPEN connection (heptane's well flows from the start "
                                 "through at least one; SHUT the well itself to open it later)");
            }
            const bool controlled = std::any_of(
                out_.controls.begin(), out_.controls.end(), [&](const EclipseControl& c) {
                    return c.well == w.name && c.time == 0 && !c.status_only;
                });
            if (!controlled) {
                throw InputError(
                    w.where + "well " + w.name +
                    " has no WCONINJE, WCONPROD, WCONHIST or WCONINJH before the first TSTEP "
                    "or DATES (heptane's "
                    "wells have a control from the start; SHUT it there to open it "
                    "later)");
            }
        }
        shut_wells_without_connections();
        if (described_ > 0) {
            out_.notes.push_back(first_described_ + std::to_string(described_) +
                                 " record(s) give the connection factor (item 8) with the "
                                 "diameter, Kh or skin: the factor is used as given, the other "
                                 "items describe it (Eclipse's rule)");
        }
        out_.start = start_;
        return std::move(out_);
    }

  private:
    /// A change that leaves a well no OPEN connection shuts the well (design decision 105;
    /// Eclipse's rule, OPM's "all completions are shut, the well is therefore also shut"): it
    /// becomes a WELOPEN SHUT at its time, after the controls of that time, and a control
    /// record that would open the well before a later change opens a connection is read as
    /// SHUT, each with a note. The change itself goes (a shut well's connections carry no
    /// flow); the later changes were built from its connections. Every other change widens
    /// its well's span.
    void shut_wells_without_connections() {
        std::vector<EclipseConnectionChange> kept;
        std::vector<EclipseControl>& controls = out_.controls;
        for (std::size_t i = 0; i < out_.connection_changes.size(); ++i) {
            const EclipseConnectionChange& c = out_.connection_changes[i];
            EclipseWell& w = *std::find_if(out_.wells.begin(), out_.wells.end(),
                                           [&](const EclipseWell& x) { return x.name == c.well; });
            if (widen_span(w, c.connections)) {
                kept.push_back(c);
                continue;
            }
            const std::string day = number_text(c.time / units::kDay);
            out_.notes.push_back(c.where + "leaves well " + w.name +
                                 " without an OPEN connection: the well is shut from day " + day);
            // Until the next change that opens a connection (none: the end).
            double until = std::numeric_limits<double>::infinity();
            for (std::size_t j = i + 1; j < out_.connection_changes.size(); ++j) {
                const EclipseConnectionChange& next = out_.connection_changes[j];
                const bool open = std::any_of(next.connections.begin(), next.connections.end(),
                                              [](const EclipseConnection& x) { return x.open; });
                if (next.well == w.name && open) {
                    until = next.time;
                    break;
                }
            }
            for (EclipseControl& x : controls) {
                if (x.well != w.name || !x.open || x.keeps_status || !(x.time > c.time) ||
                    !(x.time < until)) {
                    continue;
                }
                x.open = false;
                out_.notes.push_back(x.where + "opens well " + w.name +
                                     ", whose connections are all shut since day " + day +
                                     ": read as SHUT");
            }
            EclipseControl shut;
            shut.time = c.time;
            shut.well = w.name;
            shut.where = c.where;
            shut.status_only = true;
            shut.open = false;
            const auto at = std::find_if(controls.begin(), controls.end(),
                                         [&](const EclipseControl& x) { return x.time > c.time; });
            controls.insert(at, shut);
        }
        out_.connection_changes = std::move(kept);
    }

    /// Widens w's span to the open layers of `connections`; whether one is open.
    static bool widen_span(EclipseWell& w, const std::vector<EclipseConnection>& connections) {
        bool open = false;
        for (const EclipseConnection& c : connections) {
            if (!c.open) continue;
            open = true;
            w.k_first = w.k_first < 0 ? c.k : std::min(w.k_first, c.k);
            w.k_last = std::max(w.k_last, c.k);
        }
        return open;
    }

    /// Well w's latest change (design decision 103), or null.
    EclipseConnectionChange* latest_change(const EclipseWell& w) {
        std::vector<EclipseConnectionChange>& changes = out_.connection_changes;
        const auto it = std::find_if(changes.rbegin(), changes.rend(),
                                     [&](const auto& c) { return c.well == w.name; });
        return it == changes.rend() ? nullptr : &*it;
    }

    /// Well w's connections as the records so far leave them.
    const std::vector<EclipseConnection>& latest_connections(const EclipseWell& w) {
        const EclipseConnectionChange* c = latest_change(w);
        return c != nullptr ? c->connections : w.connections;
    }

    /// The connections a record at the current time changes: the well's at the start, else
    /// its change at this time (a new one from its latest connections).
    std::vector<EclipseConnection>& connections_now(EclipseWell& w, const std::string& where) {
        if (time_ == 0.0) return w.connections;
        EclipseConnectionChange* latest = latest_change(w);
        if (latest != nullptr && latest->time == time_) return latest->connections;
        out_.connection_changes.push_back({time_, w.name, where, latest_connections(w)});
        return out_.connection_changes.back().connections;
    }

    /// For each well item 1 matches: `change` on each of its connections that items 3-5 name
    /// (I, J, K; 0 or defaulted: any) as the records so far leave them, at the current time
    /// (connections_now); a well of which the record names none fails it.
    template <class Change>
    void change_named(const Items& r, const Change& change) {
        const int i = r.integer(2, 0), j = r.integer(3, 0), k = r.integer(4, 0);
        for (const EclipseWell* x : matching(r)) {
            EclipseWell& w = out_.wells[static_cast<std::size_t>(x - out_.wells.data())];
            const bool column = (i == 0 || i == w.i + 1) && (j == 0 || j == w.j + 1);
            const auto named = [&](const EclipseConnection& c) {
                return column && (k == 0 || k == c.k + 1);
            };
            const std::vector<EclipseConnection>& latest = latest_connections(w);
            if (std::none_of(latest.begin(), latest.end(), named)) {
                r.fail(k != 0 ? 4 : 2,
                       "names no connection of well " + w.name + " (its COMPDAT must come first)");
            }
            for (EclipseConnection& c : connections_now(w, r.where)) {
                if (named(c)) change(c);
            }
        }
    }

    void read_keyword(Source& src, const Token& at, const std::string& keyword) {
        const std::string here = detail::where(src.path, src.text, at.offset) + keyword;
        if (keyword == "END") {
            ended_ = true;
        } else if (keyword == "INCLUDE") {
            Items r;
            read_record(src, keyword, at, r);
            if (r.v.size() != 1 || !r.given(0))
                src.fail(at, "INCLUDE: expected a file name, then '/'");
            detail::read_included(here,
                                  [&] { read_file(detail::included_path(src.path, *r.v[0])); });
        } else if (keyword == "WELSPECS" || keyword == "COMPDAT" || keyword == "WCONINJE" ||
                   keyword == "WCONPROD" || keyword == "WCONHIST" || keyword == "WCONINJH" ||
                   keyword == "WELTARG" || keyword == "WELOPEN" || keyword == "WECON" ||
                   keyword == "WTEST" || keyword == "WPIMULT") {
            Items r;
            while (read_record(src, keyword, at, r) && !r.v.empty()) {
                if (keyword == "WELSPECS") welspecs(r);
                if (keyword == "COMPDAT") compdat(r);
                const detail::ControlContext x{units_, time_, out_.notes, bhp_};
                if (keyword == "WCONINJE") add_controls(r, detail::wconinje_control(r, x));
                if (keyword == "WCONPROD") add_controls(r, detail::wconprod_control(r, x));
                if (keyword == "WCONHIST") add_controls(r, detail::wconhist_control(r, x));
                if (keyword == "WCONINJH") add_controls(r, detail::wconinjh_control(r, x));
                if (keyword == "WELTARG") weltarg(r);
                if (keyword == "WELOPEN") welopen(r);
                if (keyword == "WECON") wecon(r);
                if (keyword == "WTEST") wtest(r);
                if (keyword == "WPIMULT") wpimult(r);
            }
        } else if (keyword == "FBHPDEF") {  // design decision 93
            Items r;
            read_record(src, keyword, at, r);
            bhp_.read_fbhpdef(r, units_.pressure);
        } else if (keyword == "TSTEP") {
            Items r;
            read_record(src, keyword, at, r);
            if (r.v.empty()) src.fail(at, "TSTEP: no step");
            for (std::size_t q = 0; q < r.v.size(); ++q) {
                const double dt = r.number(q);
                if (!(dt > 0.0)) r.fail(q, "must be > 0");
                time_ += dt * units_.time;
                add_report(r);
            }
        } else if (keyword == "DATES") {
            Items r;
            while (read_record(src, keyword, at, r) && !r.v.empty()) {
                if (std::isnan(start_)) {
                    throw InputError(r.where +
                                     "no START before it (RUNSPEC's START dates the "
                                     "simulation's day 0)");
                }
                const double t = (day_number(r) - start_) * units::kDay;
                if (!(t > time_)) {
                    throw InputError(r.where +
                                     "the date is not after the schedule's time so far (day " +
                                     number_text(time_ / units::kDay) + ")");
                }
                time_ = t;
                add_report(r);
            }
        } else if (keyword == "RPTSCHED" || keyword == "RPTRST" || keyword == "TUNING") {
            // Output and tuning controls: heptane's output and time-step keys are the deck's.
            Items r;
            const int records = keyword == "TUNING" ? 3 : 1;
            for (int n = 0; n < records; ++n) read_record(src, keyword, at, r);
            out_.notes.push_back(here + ": not read (" +
                                 (keyword == "TUNING"
                                      ? "time steps and Newton: the deck's schedule keys"
                                      : "output: the deck's output section") +
                                 ")");
        } else if (keyword == "RPTONLY" || keyword == "ECHO" || keyword == "NOECHO") {
            out_.notes.push_back(here + ": not read (output)");
        } else {
            src.fail(at, keyword +
                             ": not read by schedule.eclipse (it reads WELSPECS, COMPDAT, "
                             "WCONINJE, WCONPROD, WCONHIST, WCONINJH, WELTARG, WELOPEN, WECON, "
                             "WTEST, WPIMULT, FBHPDEF, TSTEP, DATES and INCLUDE; RPTSCHED, RPTRST, "
                             "RPTONLY and TUNING with a note)");
        }
    }

    void add_report(const Items& r) {
        if (out_.report_times.size() == kMaxItems) {
            throw InputError(r.where + "more than " + std::to_string(kMaxItems) + " report times");
        }
        out_.report_times.push_back(time_);
    }

    EclipseWell* find(const Items& r) {
        const std::string name = r.word(0, "");
        for (EclipseWell& w : out_.wells) {
            if (w.name == name) return &w;
        }
        r.fail(0, "names no well of WELSPECS ('" + name +
                      "'; COMPDAT takes a well's name, not a pattern)");
    }

    /// The wells item 1 names: one name, or a pattern with * and ? (Eclipse's 'P*'), each
    /// well it matches in WELSPECS order (design decision 83).
    std::vector<const EclipseWell*> matching(const Items& r) const {
        const std::string name = r.word(0, "");
        const bool pattern = name.find_first_of("*?") != std::string::npos;
        std::vector<const EclipseWell*> out;
        for (const EclipseWell& w : out_.wells) {
            if (pattern ? fnmatch(name.c_str(), w.name.c_str(), 0) == 0 : w.name == name) {
                out.push_back(&w);
            }
        }
        if (out.empty()) {
            r.fail(0, pattern ? "(the pattern '" + name + "') matches no well of WELSPECS"
                              : "names no well of WELSPECS ('" + name + "')");
        }
        return out;
    }

    /// `c` for each well item 1 names, in WELSPECS order; a control record's history BHP
    /// limit on a rate is the well's (design decision 93), any other ends its WELTARG'd one.
    void add_controls(const Items& r, EclipseControl c) {
        for (const EclipseWell* w : matching(r)) {
            c.well = w->name;
            if (c.history && c.rate) {
                c.bhp_limit = bhp_.history(w->name, c.injector);
            } else if (!c.status_only && !c.zero_rate) {  // a zero rate keeps it for later
                bhp_.forget(w->name);
            }
            out_.controls.push_back(c);
        }
    }

    /// WELOPEN: a well's status alone (OPEN, SHUT, or STOP taken as SHUT with a note), its
    /// controls kept; AUTO refused. With connection items, welopen_connections.
    void welopen(const Items& r) {
        if (r.given(2) || r.given(3) || r.given(4) || r.given(5) || r.given(6)) {
            welopen_connections(r);
            return;
        }
        EclipseControl c;
        c.time = time_;
        c.where = r.where;
        c.status_only = true;
        std::string word = r.word(1, "OPEN");
        if (word == "STOP") word = detail::stop_as_shut(r, out_.notes);
        if (word != "OPEN" && word != "SHUT") r.fail(1, "(the status) must be OPEN, STOP or SHUT");
        c.open = word == "OPEN";
        for (const EclipseWell* w : matching(r)) {
            const bool controlled =
                std::any_of(out_.controls.begin(), out_.controls.end(),
                            [&](const EclipseControl& x) { return x.well == w->name; });
            if (!controlled) {
                r.fail(0, "opens or shuts well " + w->name +
                              " before its WCONINJE or WCONPROD (its control)");
            }
            if (c.open && without_rate(w->name)) {
                r.fail(1, "opens well " + w->name +
                              ", whose last WCONHIST or WCONINJH rate is 0 (its history "
                              "has it shut): give its rate in a history record");
            }
        }
        add_controls(r, c);
    }

    /// WELOPEN with connection items (design decision 103): the connections of each well item
    /// 1 matches in the column and layer items 3-5 give (0 or defaulted: any) OPEN or SHUT,
    /// their other terms kept: at the start the well's connections, later a workover. All
    /// three 0 is refused (Eclipse reads it as every connection, not the well: say which).
    void welopen_connections(const Items& r) {
        const std::string word = r.word(1, "OPEN");
        if (word != "OPEN" && word != "SHUT") {
            r.fail(1, "(the status) of a connection must be OPEN or SHUT");
        }
        r.defaulted_from(5, "the completion numbers");
        if (r.integer(2, 0) == 0 && r.integer(3, 0) == 0 && r.integer(4, 0) == 0) {
            r.fail(2,
                   "(I, J, K all 0) would open or shut every connection: default items 3-7 "
                   "(1*) to open or shut the well, or give the layer K");
        }
        change_named(r, [&](EclipseConnection& c) { c.open = word == "OPEN"; });
    }

    /// WELTARG (design decision 91): a new value for one of a well's targets or limits, as
    /// Eclipse's, which changes the target where the item is the well's control mode and the
    /// limit otherwise: BHP the BHP target of a BHP control, else the BHP limit (a producer's
    /// floor, an injector's ceiling); ORAT, WRAT, LRAT (a producer) and RATE (an injector) the
    /// rate target of the well's control on it, RESV (either) its reservoir volume rate target
    /// (design decision 100). A record of the well's controls with the value changed, its
    /// status kept. Refused: a rate that is not the well's control (heptane's well has no rate
    /// limits beside it), the well shut by a history record without a rate, and every other
    /// item (GRAT, THP, VFP, LIFT, GUID, ...).
    void weltarg(const Items& r) {
        const std::string what = r.word(1, "");
        const double value = r.number(2);
        const bool bhp = what == "BHP";
        const struct {
            const char* item;
            bool injector;
            RatePhase phase;
        } rates[] = {{"ORAT", false, RatePhase::oil},
                     {"WRAT", false, RatePhase::water},
                     {"LRAT", false, RatePhase::liquid},
                     {"RATE", true, RatePhase::liquid},
                     {"RESV", false, RatePhase::reservoir}};  // an injector's too
        const auto rate = std::find_if(std::begin(rates), std::end(rates),
                                       [&](const auto& q) { return what == q.item; });
        if (!bhp && rate == std::end(rates)) {
            r.fail(1,
                   "(the quantity) must be BHP, ORAT, WRAT, LRAT, RATE or RESV (heptane has no "
                   "gas, THP, VFP or group controls)");
        }
        if (!(std::isfinite(value) && (bhp ? value >= 0.0 : value > 0.0))) {
            r.fail(2, bhp ? "(the BHP) must be >= 0 (0: no limit)" : "(the rate) must be > 0");
        }
        r.defaulted_from(3, "later items");
        for (const EclipseWell* w : matching(r)) {
            const auto last = std::find_if(
                out_.controls.rbegin(), out_.controls.rend(),
                [&](const EclipseControl& x) { return x.well == w->name && !x.status_only; });
            if (last == out_.controls.rend()) {
                r.fail(0, "changes well " + w->name + " before its control record");
            }
            if (last->zero_rate) {
                r.fail(0, "changes well " + w->name +
                              ", whose last WCONHIST or WCONINJH rate is 0 (its history has it "
                              "shut)");
            }
            EclipseControl c = *last;
            c.time = time_;
            c.where = r.where;
            c.keeps_status = true;
            if (bhp) {
                (c.rate ? c.bhp_limit : c.target) = value * units_.pressure;
                if (c.rate && c.history) bhp_.set_by_weltarg(w->name, c.bhp_limit);
                if (!c.rate && value == 0.0)
                    r.fail(2, "(the BHP target of a BHP control) must be > 0");
            } else {
                const bool either = rate->phase == RatePhase::reservoir;
                if (either && c.history) {
                    r.fail(1, "(RESV) of well " + w->name +
                                  ": its WCONHIST target is its observed rates' reservoir "
                                  "volume (give a new WCONHIST record)");
                }
                if ((!either && rate->injector != c.injector) || !c.rate ||
                    c.phase != rate->phase) {
                    r.fail(1, "(" + what + ") is not well " + w->name +
                                  "'s control: heptane's well has one rate, its control's (no "
                                  "rate limits beside it)");
                }
                c.target = value * units_.rate;
            }
            out_.controls.push_back(c);
        }
    }

    /// Whether well `name`'s last control record is a history record whose observed rate for
    /// its mode is 0 (the well shut for the period, its BHP control a placeholder).
    bool without_rate(const std::string& name) const {
        for (auto it = out_.controls.rbegin(); it != out_.controls.rend(); ++it) {
            if (it->well == name && !it->status_only) return it->history && it->zero_rate;
        }
        return false;
    }

    /// WECON (design decision 86): a producer's economic limits, checked at the end of each
    /// time step; breaking one shuts the well. Item 2 the minimum oil rate, item 4 the maximum
    /// water cut with item 7's workover WELL (shut the well) or NONE (Eclipse's default: no
    /// action, so no limit, with a note); gas limits, connection workovers (CON, +CON, PLUG),
    /// the end-run flag and later items are refused.
    void wecon(const Items& r) {
        EclipseEconomics e;
        e.time = time_;
        e.where = r.where;
        e.min_oil_rate = r.number(1, 0.0) * units_.rate;
        if (!(std::isfinite(e.min_oil_rate) && e.min_oil_rate >= 0.0))
            r.fail(1, "(the minimum oil rate) must be >= 0");
        if (r.number(2, 0.0) != 0.0) r.fail(2, "(a minimum gas rate): heptane has no gas");
        e.max_water_cut = r.number(3, 0.0);
        if (!(e.max_water_cut >= 0.0 && e.max_water_cut < 1.0))
            r.fail(3, "(the maximum water cut) must be in [0, 1) (0: none)");
        for (std::size_t q : {std::size_t{4}, std::size_t{5}}) {
            if (r.number(q, 0.0) != 0.0) r.fail(q, "(a gas ratio limit): heptane has no gas");
        }
        const std::string workover = r.word(6, "NONE");
        if (workover != "NONE" && workover != "WELL") {
            r.fail(6,
                   "(the workover) must be WELL or NONE: heptane's well opens and shuts as a "
                   "whole (CON, +CON and PLUG act on connections)");
        }
        if (workover == "NONE" && e.max_water_cut > 0.0) {
            out_.notes.push_back(r.where +
                                 "the maximum water cut with workover NONE takes no action "
                                 "(Eclipse's rule): no water-cut limit");
            e.max_water_cut = 0.0;
        }
        if (r.word(7, "NO") != "NO") {
            r.fail(7, "(the end-run flag) must be NO: heptane runs to the schedule's end");
        }
        r.defaulted(8, "a follow-on well");
        if (r.word(9, "RATE") != "RATE") {
            r.fail(9, "(the limited quantity) must be RATE: heptane has no well potentials");
        }
        r.defaulted_from(10, "secondary water cut, GLR, liquid, temperature and later limits");
        for (const EclipseWell* w : matching(r)) {
            e.well = w->name;
            out_.economics.push_back(e);
        }
    }

    /// WTEST (design decision 88): a well closed for a reason of item 3 is opened again every
    /// item 2 (days; hours in LAB) to see whether it can flow, at most item 4 times (0: no
    /// bound). heptane closes wells for their economic limits alone (E): the reasons must hold
    /// E, and P, G, D or C beside it are said in a note (no well is ever closed for them).
    /// Item 5, the start-up time, must be defaulted or 0 (heptane's well opens at once).
    void wtest(const Items& r) {
        EclipseWellTest t;
        t.time = time_;
        t.where = r.where;
        t.interval = r.number(1) * units_.time;
        if (!(std::isfinite(t.interval) && t.interval >= 0.0))
            r.fail(1, "(the test interval) must be >= 0 (0: no tests)");
        const std::string reasons = r.word(2, "");
        if (reasons.find_first_not_of("PEGDC") != std::string::npos)
            r.fail(2, "(the reasons) takes the letters P, E, G, D and C");
        if (reasons.find('E') == std::string::npos) {
            r.fail(2,
                   "(the reasons) has no E: heptane closes a well for its economic limits "
                   "(WECON) alone, so no test of it would ever be made");
        }
        if (reasons.find_first_of("PGDC") != std::string::npos) {
            out_.notes.push_back(r.where + "reasons " + reasons +
                                 ": heptane closes wells for their economic limits alone (E); "
                                 "the others close none");
        }
        const double count = r.number(3, 0.0);
        if (!(count >= 0.0 && count == std::floor(count) && count <= 1e9))
            r.fail(3, "(the number of tests) must be an integer >= 0 (0: no bound)");
        t.count = static_cast<int>(count);
        if (r.number(4, 0.0) != 0.0)
            r.fail(4, "(the start-up time) must be 0: heptane's well opens at once");
        r.defaulted_from(5, "items after the start-up time");
        for (const EclipseWell* w : matching(r)) {
            t.well = w->name;
            out_.tests.push_back(t);
        }
    }

    void welspecs(const Items& r) {
        if (time_ > 0.0) {
            throw InputError(r.where +
                             "a well after the first TSTEP or DATES (heptane's wells exist from "
                             "the start: define it before and SHUT it)");
        }
        EclipseWell w;
        w.name = r.word(0, "");
        w.where = r.where;
        if (w.name.empty()) r.fail(0, "(the well's name) must be given");
        for (const EclipseWell& x : out_.wells) {
            if (x.name == w.name) r.fail(0, "names well " + w.name + " a second time");
        }
        const int i = r.integer(2, 0), j = r.integer(3, 0);
        if (i < 1 || j < 1) r.fail(i < 1 ? 2 : 3, "(the column's I or J, 1-based) must be >= 1");
        w.i = i - 1;
        w.j = j - 1;
        w.bhp_depth = r.number(4, std::nan("")) * units_.length;  // design decision 94
        if (std::isinf(w.bhp_depth)) r.fail(4, "(the BHP reference depth) must be finite");
        const std::string phase = r.word(5, "OIL");
        if (phase != "OIL" && phase != "WATER" && phase != "LIQ" && phase != "LIQUID") {
            r.fail(5, "(the preferred phase) must be OIL, WATER or LIQ (heptane has no gas)");
        }
        r.defaulted_from(6, "drainage radius, inflow, shut-in and later options");
        out_.wells.push_back(w);
    }

    /// One COMPDAT record (design decision 102): layers K1..K2 of the well's own column, OPEN or
    /// SHUT, each with the connection factor given or Peaceman's from the diameter, Kh and skin.
    void compdat(const Items& r) {
        EclipseWell& w = *find(r);
        if (r.integer(1, 0) != 0 && r.integer(1, 0) != w.i + 1) {
            r.fail(1, "(I) must be the well's own column: heptane's wells are vertical");
        }
        if (r.integer(2, 0) != 0 && r.integer(2, 0) != w.j + 1) {
            r.fail(2, "(J) must be the well's own column: heptane's wells are vertical");
        }
        const int k1 = r.integer(3, 0), k2 = r.integer(4, 0);
        if (k1 < 1 || k2 < k1) r.fail(k1 < 1 ? 3 : 4, "(K1..K2, 1-based) must be 1 <= K1 <= K2");
        if (static_cast<std::size_t>(k2) > kMaxItems)
            r.fail(4, "(K2) must be at most " + std::to_string(kMaxItems));
        const std::string status = r.word(5, "OPEN");
        if (status != "OPEN" && status != "SHUT") r.fail(5, "(the status) must be OPEN or SHUT");
        if (r.integer(6, 0) != 0) r.fail(6, "(a saturation table) must be 0 or defaulted");
        EclipseConnection c;
        c.open = status == "OPEN";
        // The factor's unit: cP rm3/day/bar (METRIC), cP rb/day/psi (FIELD), cP rcc/hr/atm (LAB).
        const double factor_unit = units::kCentiPoise * units_.rate / units_.pressure;
        const double kh_unit = units::kMilliDarcy * units_.length;  // mD m, mD ft, mD cm
        c.factor = r.number(7, std::nan("")) * factor_unit;
        if (!std::isnan(c.factor) && !(c.factor >= 0.0)) {
            r.fail(7, "(the connection factor) must be >= 0");
        }
        const bool given = !std::isnan(c.factor);
        const double diameter = r.number(8, std::nan("")) * units_.length;
        if (!(diameter > 0.0) && (!given || r.given(8))) {
            r.fail(8, std::string("(the diameter) must be > 0") +
                          (given ? "" : " (the connection factor is computed from it)"));
        }
        const double kh = r.number(9, std::nan("")) * kh_unit;
        if (r.given(9) && !(kh > 0.0)) r.fail(9, "(Kh) must be > 0");
        const double skin = r.number(10, 0.0);
        if (!std::isfinite(skin)) r.fail(10, "(the skin) must be finite");
        r.defaulted(11, "the D factor: non-Darcy flow is a gas well's");
        if (r.word(12, "Z") != "Z") r.fail(12, "(the direction) must be Z: vertical wells");
        r.defaulted_from(13, "the pressure equivalent radius and later options");
        if (given) {  // the factor holds the rest (Eclipse's rule): described, not used
            if (r.given(8) || r.given(9) || r.given(10)) {
                if (described_++ == 0) first_described_ = r.where;
            }
        } else {
            c.radius = diameter / 2;
            c.kh = kh;
            c.skin = skin;
        }
        std::vector<EclipseConnection>& connections = connections_now(w, r.where);
        for (int k = k1 - 1; k < k2; ++k) {
            c.k = k;
            auto at =
                std::lower_bound(connections.begin(), connections.end(), k,
                                 [](const EclipseConnection& x, int layer) { return x.k < layer; });
            if (at != connections.end() && at->k == k) {
                *at = c;  // a layer named again: the later record's
            } else {
                connections.insert(at, c);
            }
        }
    }

    /// One WPIMULT record (design decision 102): the well index of each connection it names
    /// (items 3-5, I J K, defaulted: every one) of each well item 1 matches, times item 2;
    /// cumulative, and a COMPDAT record naming the layer again starts it from 1 (Eclipse's
    /// rule).
    void wpimult(const Items& r) {
        const double m = r.number(1);
        if (!(m >= 0.0) || !std::isfinite(m)) r.fail(1, "(the multiplier) must be >= 0");
        r.defaulted_from(5, "the completion numbers");
        change_named(r, [&](EclipseConnection& c) { c.multiplier *= m; });
    }

    FluidUnits units_;
    EclipseSchedule out_;
    detail::IncludeStack stack_;  ///< the files being read, for INCLUDE cycles
    double time_ = 0.0;
    bool in_schedule_ = false, ended_ = false;
    double start_ = std::nan("");  ///< RUNSPEC's START as a day number, NaN without one
    detail::BhpDefaults bhp_;      ///< FBHPDEF's, and the history wells' WELTARG'd limits
    int described_ = 0;            ///< COMPDAT records whose factor holds their Kh, skin
    std::string first_described_;  ///< the first one's "path:line: COMPDAT: "
};

}  // namespace

EclipseSchedule read_eclipse_schedule(const std::string& path, const FluidUnits& fallback) {
    ScheduleReader reader(fallback);
    reader.read_file(path);
    EclipseSchedule s = reader.take(path);
    // A record after the last TSTEP acts on no step.
    const auto act = [&](const auto& records) {
        for (const auto& x : records) {
            if (x.time >= s.report_times.back()) {
                throw InputError(x.where +
                                 "after the last TSTEP or DATES: it would act on no step");
            }
        }
    };
    act(s.controls);
    act(s.economics);
    act(s.tests);
    act(s.connection_changes);
    return s;
}

}  // namespace heptane::grid
