// The control records of an Eclipse SCHEDULE (grid/eclipse_controls.hpp; design decisions
// 79, 82, 90, 93): WCONINJE, WCONPROD, WCONHIST and WCONINJH read into a well's control, split
// from eclipse_schedule.cpp (the keywords' reader) by concern.
#include "grid/eclipse_controls.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "core/base/units.hpp"

namespace heptane::grid::detail {
namespace {

using Items = RecordItems;

/// A control record's time, place and status (item `status`: OPEN or SHUT; a history
/// record's STOP is taken as SHUT, with a note).
EclipseControl control(const Items& r, const ControlContext& x, std::size_t status,
                       bool history = false) {
    EclipseControl c;
    c.time = x.time;
    c.where = r.where;
    std::string word = r.word(status, "OPEN");
    if (history && word == "STOP") word = stop_as_shut(r, x.notes);
    if (word != "OPEN" && word != "SHUT") {
        r.fail(status, history ? "(the status) must be OPEN, STOP or SHUT"
                               : "(the status) must be OPEN or SHUT");
    }
    c.open = word == "OPEN";
    return c;
}

/// A prediction record's BHP item q [Pa]: defaulted, FBHPDEF's (design decision 93), else
/// 0 (no limit; a BHP control's target must then be given).
double bhp_item(const Items& r, const ControlContext& x, std::size_t q, bool injector) {
    if (r.given(q)) return r.number(q) * x.units.pressure;
    const double fallback = x.bhp.prediction(injector);
    return std::isnan(fallback) ? 0.0 : fallback;
}

/// A prediction record's (WCONINJE, WCONPROD) target and BHP limit: on a rate, item rate_q's
/// rate (> 0) with item bhp_q's limit (>= 0); on its BHP, item bhp_q as the target (> 0);
/// the items after bhp_q (THP, VFP, ...) defaulted.
void prediction_targets(const Items& r, const ControlContext& x, EclipseControl& c,
                        std::size_t rate_q, std::size_t bhp_q) {
    c.bhp_limit = bhp_item(r, x, bhp_q, c.injector);
    if (c.rate) {
        c.target = r.number(rate_q) * x.units.rate;
        if (!(c.target > 0.0)) r.fail(rate_q, "(the rate) must be > 0");
        if (c.bhp_limit < 0.0) r.fail(bhp_q, "(the BHP limit) must be >= 0");
    } else {
        c.target = c.bhp_limit;
        c.bhp_limit = 0.0;
        if (!(c.target > 0.0)) r.fail(bhp_q, "(the BHP target) must be > 0");
    }
    r.defaulted_from(bhp_q + 1, "THP, VFP and later options");
}

/// The BHP of a history well's placeholder control (shut for want of a rate): one
/// atmosphere, Eclipse's floor.
constexpr double kHistoryBhpLimit = units::kAtmosphere;

/// A history record's control once its mode's observed rate is known: a rate control on
/// it, or where it is 0 the well shut for the period (Eclipse's well with no rate to
/// produce) under a placeholder BHP control at the history limit, which WELOPEN may not
/// open (without_rate).
void history_rate(EclipseControl& c, double observed) {
    c.rate = observed > 0.0;
    if (c.rate) {  // its BHP limit the well's (add_controls)
        c.target = observed;
        return;
    }
    c.zero_rate = true;
    c.open = false;
    c.target = kHistoryBhpLimit;
    c.bhp_limit = 0.0;
}

/// An observed rate of a history record (item q, >= 0, 0 defaulted) in SI.
double observed_rate(const Items& r, const ControlContext& x, std::size_t q, const char* what) {
    const double v = r.number(q, 0.0);
    if (!(std::isfinite(v) && v >= 0.0)) r.fail(q, std::string("(") + what + ") must be >= 0");
    return v * x.units.rate;
}

/// A history record's observed BHP (item q; NaN defaulted), > 0.
double observed_bhp(const Items& r, const ControlContext& x, std::size_t q) {
    if (!r.given(q)) return std::nan("");
    const double p = r.number(q);
    if (!(std::isfinite(p) && p > 0.0)) r.fail(q, "(the observed BHP) must be > 0");
    return p * x.units.pressure;
}

/// A history record's observed THP (item q): heptane controls its wells at the bottom hole
/// and has no VFP tables to relate the two, so a THP given is said in a note.
void observed_thp(const Items& r, const ControlContext& x, std::size_t q) {
    if (r.number(q, 0.0) != 0.0) {
        x.notes.push_back(r.where + "well " + r.word(0, "") + ": the observed THP (item " +
                          std::to_string(q + 1) +
                          ") is not used (no VFP tables: the wells are controlled at the "
                          "bottom hole)");
    }
}

}  // namespace

/// STOP (a wellbore that cross-flows between its connections) as SHUT, with a note:
/// heptane's shut well has no flow at all.
std::string stop_as_shut(const Items& r, std::vector<std::string>& notes) {
    notes.push_back(r.where + "well " + r.word(0, "") +
                    ": STOP taken as SHUT (heptane's shut wellbore has no "
                    "cross-flow between its connections)");
    return "SHUT";
}

EclipseControl wconinje_control(const Items& r, const ControlContext& x) {
    EclipseControl c = control(r, x, 2);
    c.injector = true;
    if (r.word(1, "") != "WATER") r.fail(1, "(the injected phase) must be WATER");
    const std::string mode = r.word(3, "");
    if (mode != "RATE" && mode != "RESV" && mode != "BHP") {
        r.fail(3, "(the control) must be RATE, RESV or BHP");
    }
    c.rate = mode != "BHP";
    // Item 5 the surface rate, item 6 the reservoir volume rate: the control's is its target,
    // the other (a limit beside it) must be defaulted.
    const bool reservoir = mode == "RESV";
    if (reservoir) c.phase = RatePhase::reservoir;
    r.defaulted(reservoir ? 4 : 5, c.rate ? "a rate limit beside the well's rate control"
                                          : "a rate limit on a BHP-controlled injector");
    if (!c.rate) r.defaulted(4, "a rate limit on a BHP-controlled injector");
    prediction_targets(r, x, c, reservoir ? 5 : 4, 6);
    return c;
}

EclipseControl wconprod_control(const Items& r, const ControlContext& x) {
    EclipseControl c = control(r, x, 1);
    // Items 4 to 8: the oil, water, gas, liquid and reservoir rates; the control's is its
    // target, the others (limits beside it) must be defaulted.
    const std::string mode = r.word(2, "");
    const struct {
        const char* mode;
        std::size_t item;
        RatePhase phase;
    } rates[] = {{"ORAT", 3, RatePhase::oil},
                 {"WRAT", 4, RatePhase::water},
                 {"LRAT", 6, RatePhase::liquid},
                 {"RESV", 7, RatePhase::reservoir}};
    std::size_t target = 0;  // the rate's item, 0: BHP control
    for (const auto& q : rates) {
        if (mode == q.mode) {
            target = q.item;
            c.phase = q.phase;
        }
    }
    if (target == 0 && mode != "BHP") {
        r.fail(2, "(the control) must be ORAT, WRAT, LRAT, RESV or BHP");
    }
    c.rate = target != 0;
    for (std::size_t q = 3; q <= 7; ++q) {
        if (q == target) continue;
        r.defaulted(q, c.rate ? "a rate limit beside the well's rate control"
                              : "a rate limit on a BHP-controlled producer");
    }
    prediction_targets(r, x, c, target, 8);
    return c;
}

/// WCONHIST (design decision 90): a history-matching producer, controlled on the observed
/// rate of its mode (ORAT, WRAT, LRAT = oil + water) with a BHP limit (the well's: 1 atm,
/// FBHPDEF's or WELTARG's, decision 93), on the reservoir volume of its observed oil and water
/// rates (RESV, decision 100: the target, their surface sum here, converted at each step), or
/// on the observed BHP (BHP); the observed rates and BHP are the run's history series. An
/// observed gas rate or THP is said in a note (dead oil; no VFP tables); VFP tables,
/// artificial lift and the wet gas rate are refused; GRAT, CRAT and THP modes are refused.
EclipseControl wconhist_control(const Items& r, const ControlContext& x) {
    EclipseControl c = control(r, x, 1, true);
    c.history = true;
    c.observed_oil = observed_rate(r, x, 3, "the observed oil rate");
    c.observed_water = observed_rate(r, x, 4, "the observed water rate");
    const std::string mode = r.word(2, "");
    if (observed_rate(r, x, 5, "the observed gas rate") > 0.0) {
        x.notes.push_back(r.where + "well " + r.word(0, "") +
                          ": the observed gas rate (item 6) is not simulated (heptane's "
                          "oil is dead: no gas)" +
                          (mode == "RESV" ? ", nor in its reservoir volume target" : ""));
    }
    if (r.integer(6, 0) != 0) r.fail(6, "(a VFP table): heptane's wells have none");
    if (r.number(7, 0.0) != 0.0) r.fail(7, "(artificial lift): heptane's wells have none");
    observed_thp(r, x, 8);
    c.observed_bhp = observed_bhp(r, x, 9);
    r.defaulted_from(10, "the wet gas rate (Eclipse 300)");
    if (mode == "ORAT" || mode == "WRAT" || mode == "LRAT") {
        c.phase = mode == "ORAT"   ? RatePhase::oil
                  : mode == "WRAT" ? RatePhase::water
                                   : RatePhase::liquid;
        history_rate(c, mode == "ORAT"   ? c.observed_oil
                        : mode == "WRAT" ? c.observed_water
                                         : c.observed_oil + c.observed_water);
    } else if (mode == "RESV") {  // the observed rates' reservoir volume (decision 100)
        c.phase = RatePhase::reservoir;
        history_rate(c, c.observed_oil + c.observed_water);
    } else if (mode == "BHP") {
        if (std::isnan(c.observed_bhp)) {
            r.fail(9, "(the observed BHP) is the BHP control's target: give it");
        }
        c.target = c.observed_bhp;
    } else {
        r.fail(2,
               "(the control) must be ORAT, WRAT, LRAT, RESV or BHP (heptane has no gas and no "
               "THP control)");
    }
    return c;
}

/// WCONINJH (design decision 90): a history-matching water injector, controlled on the
/// observed rate (item 12 RATE, the default; its BHP limit the well's, none by default) or on
/// the observed BHP (BHP); an observed THP is said in a note; VFP tables and the injected
/// fractions of items 8 to 11 are refused.
EclipseControl wconinjh_control(const Items& r, const ControlContext& x) {
    EclipseControl c = control(r, x, 2, true);
    c.injector = true;
    c.history = true;
    if (r.word(1, "") != "WATER") r.fail(1, "(the injected phase) must be WATER");
    c.observed_water = observed_rate(r, x, 3, "the observed injection rate");
    c.observed_bhp = observed_bhp(r, x, 4);
    observed_thp(r, x, 5);
    if (r.integer(6, 0) != 0) r.fail(6, "(a VFP table): heptane's wells have none");
    for (std::size_t q = 7; q <= 10; ++q) {
        r.defaulted(q, "the vaporized oil and the injected fractions (heptane injects water)");
    }
    const std::string mode = r.word(11, "RATE");
    if (mode == "RATE") {
        history_rate(c, c.observed_water);
    } else if (mode == "BHP") {
        if (std::isnan(c.observed_bhp)) {
            r.fail(4, "(the observed BHP) is the BHP control's target: give it");
        }
        c.target = c.observed_bhp;
    } else {
        r.fail(11, "(the control) must be RATE or BHP");
    }
    r.defaulted_from(12, "later items");
    return c;
}

}  // namespace heptane::grid::detail
