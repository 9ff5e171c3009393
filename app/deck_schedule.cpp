// The `schedule` section of a deck (inputs/README.md "schedule"; design decision 32), split
// from deck.cpp by concern: report times, time-step control, Newton settings, well events.
#include "app/deck_schedule.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "core/base/calendar.hpp"
#include "core/base/units.hpp"
#include "grid/eclipse_schedule.hpp"
#include "grid/eclipse_summary.hpp"

namespace heptane::app {
namespace {

/// A positive number of days, in seconds.
double days(const Value& v) {
    const double d = v.number();
    if (d <= 0.0) v.fail("must be > 0 (days)");
    return d * units::kDay;
}

void read_newton(const Value& v, sim::NewtonSettings& n, double solver_tolerance) {
    Mapping m(v);
    const auto count = [](const Value& x, long long lo) {
        const long long k = x.integer();
        if (k < lo || k > 1000) x.fail("must be in [" + std::to_string(lo) + ", 1000]");
        return static_cast<int>(k);
    };
    const auto positive = [](const Value& x) {
        const double d = x.number();
        if (d <= 0.0) x.fail("must be > 0");
        return d;
    };
    if (auto x = m.optional("max_iterations")) n.max_iterations = count(*x, 1);
    if (auto x = m.optional("min_iterations")) {
        n.min_iterations = count(*x, 0);
        if (n.min_iterations > n.max_iterations) x->fail("must be <= max_iterations");
    }
    if (auto x = m.optional("tolerance_cnv")) n.tolerance_cnv = positive(*x);
    if (auto x = m.optional("tolerance_mb")) n.tolerance_mb = positive(*x);
    if (auto x = m.optional("tolerance_well")) n.tolerance_well = positive(*x);
    if (auto x = m.optional("max_pressure_change")) n.max_pressure_change = positive(*x);
    if (auto x = m.optional("max_saturation_change")) n.max_saturation_change = positive(*x);
    if (auto x = m.optional("linear_tolerance")) {
        n.linear_tolerance = x->choice({"fixed", "adaptive"}) == 0 ? sim::LinearTolerance::fixed
                                                                   : sim::LinearTolerance::adaptive;
    }
    if (auto x = m.optional("linear_tolerance_max")) {
        n.linear_tolerance_max = x->number();
        if (n.linear_tolerance_max <= 0.0 || n.linear_tolerance_max >= 1.0) {
            x->fail("must be in (0, 1)");
        }
        if (n.linear_tolerance_max < solver_tolerance) {
            x->fail("must be >= solver.tolerance (the tightest linear tolerance)");
        }
        if (n.linear_tolerance != sim::LinearTolerance::adaptive) {
            x->fail("applies to linear_tolerance: adaptive only");
        }
    }
    if (auto x = m.optional("linear_tolerance_floor")) {
        n.linear_tolerance_floor = x->choice({"criteria", "solver"}) == 0
                                       ? sim::LinearFloor::criteria
                                       : sim::LinearFloor::solver;
        if (n.linear_tolerance != sim::LinearTolerance::adaptive) {
            x->fail("applies to linear_tolerance: adaptive only");
        }
    }
    m.finish();
}

/// An `observed` mapping (design decision 90, a history well in YAML): the well's observed
/// oil_rate, water_rate (an injector's: the rate it injects, > 0 here, < 0 as /wells has it)
/// and bhp from `time` on, each >= 0 (the BHP > 0); a key not given is not observed (NaN), so
/// `observed: {}` ends the well's history.
WellObservation read_observed(const Value& v, std::size_t well, double time, bool injector,
                              const UnitFactors& u) {
    Mapping m(v);
    const double nan = std::nan("");
    WellObservation o{well, time, nan, nan, nan};
    if (auto x = m.optional("oil_rate")) {
        if (injector) x->fail("an injector's observed rate is its water_rate");
        o.oil = x->number();
        if (!(o.oil >= 0.0)) x->fail("must be >= 0");
        o.oil *= u.rate;
    }
    if (auto x = m.optional("water_rate")) {
        const double q = x->number();
        if (!(q >= 0.0)) x->fail(injector ? "must be >= 0 (the rate injected)" : "must be >= 0");
        o.water = (injector ? injected(q) : q) * u.rate;
    }
    if (auto x = m.optional("bhp")) {
        o.bhp = x->number();
        if (!(o.bhp > 0.0)) x->fail("must be > 0");
        o.bhp *= u.pressure;
    }
    m.finish();
    return o;
}

/// `connection_factors` (design decisions 102, 103): one connection per perforated layer with
/// its factor given (0: not connected).
std::vector<wells::WellConnection> read_connection_factors(const Value& f, const UnitFactors& u) {
    std::vector<wells::WellConnection> out;
    for (double x : f.numbers()) {
        wells::WellConnection c;
        c.factor = x * connection_factor_unit(u);
        out.push_back(c);
    }
    return out;
}

/// An event; its `observed` (design decision 90) goes to `history`. Nothing when the event
/// only observes (no change to the well).
std::optional<sim::WellEvent> read_event(const Value& v, const std::vector<wells::WellSpec>& ws,
                                         const UnitFactors& u,
                                         std::vector<WellObservation>& history) {
    Mapping m(v);
    sim::WellEvent e;
    e.key = v.path();
    const Value time = m.required("time");
    e.time = time.number() * units::kDay;
    if (e.time < 0.0) time.fail("must be >= 0 (days from the start)");
    const Value well = m.required("well");
    const std::string name = well.string();
    const auto it = std::find_if(ws.begin(), ws.end(),
                                 [&](const wells::WellSpec& w) { return w.name == name; });
    if (it == ws.end()) well.fail("no well is named '" + name + "'");
    e.well = static_cast<std::size_t>(it - ws.begin());
    if (auto c = m.optional("control")) {
        const ControlRead r =
            read_control(*c, u, ws[e.well].type == wells::WellType::injector, true);
        e.kind = r.kind;
        e.target = r.target;
        e.voidage = r.voidage;
    }
    if (auto x = m.optional("status")) e.open = x->choice({"open", "shut"}) == 0;
    for (const char* key : {"min_bhp", "max_bhp"}) {
        if (auto x = m.optional(key)) {
            const double p = x->number();
            if (p < 0.0) x->fail("must be >= 0 (0: no limit)");
            (key[1] == 'i' ? e.min_bhp : e.max_bhp) = p * u.pressure;
        }
    }
    if (auto x = m.optional("min_oil_rate")) e.min_oil_rate = x->number() * u.rate;
    if (auto x = m.optional("max_water_cut")) e.max_water_cut = x->number();
    if (auto x = m.optional("test_interval")) e.test_interval = x->number() * units::kDay;
    if (auto x = m.optional("test_count")) {
        const long long n = x->integer();
        if (n < 0 || n > INT_MAX) x->fail("must be >= 0 (0: no bound)");
        e.test_count = static_cast<int>(n);
    }
    if (auto f = m.optional("connection_factors")) {  // a workover (design decision 103)
        e.connections = read_connection_factors(*f, u);
        if (e.connections.empty()) f->fail("give one factor per perforated layer");
    }
    const std::optional<Value> observed = m.optional("observed");
    if (observed) {
        history.push_back(read_observed(*observed, e.well, e.time,
                                        ws[e.well].type == wells::WellType::injector, u));
    }
    m.finish();
    const bool changes = e.open || e.kind || e.min_bhp || e.max_bhp || e.min_oil_rate ||
                         e.max_water_cut || e.test_interval || e.test_count ||
                         !e.connections.empty();
    if (!changes && !observed) {
        v.fail(
            "the event changes nothing: give control, status, min_bhp, max_bhp, min_oil_rate, "
            "max_water_cut, test_interval, test_count, connection_factors or observed");
    }
    if (!changes) return std::nullopt;
    return e;
}

/// A COMPDAT well's connections, one per layer of its span (k_first..k_last): the layers no
/// record names (or SHUT) not connected.
std::vector<wells::WellConnection> connection_layers(
    const grid::EclipseWell& w, const std::vector<grid::EclipseConnection>& connections) {
    std::vector<wells::WellConnection> layers(static_cast<std::size_t>(w.k_last - w.k_first + 1));
    for (wells::WellConnection& c : layers) c.open = false;  // a layer no record names
    for (const grid::EclipseConnection& c : connections) {
        if (c.k < w.k_first || c.k > w.k_last) continue;  // SHUT, above or below the span
        layers[static_cast<std::size_t>(c.k - w.k_first)] = {c.open,   c.factor, c.kh,
                                                             c.radius, c.skin,   c.multiplier};
    }
    return layers;
}

/// A COMPDAT well's connections at the start onto spec (design decision 102): a run of open
/// layers with one radius and skin and nothing given is the well's plain Peaceman column (no
/// connections: the model of decision 79, bit for bit); otherwise one connection per layer of
/// the span. A span that a later change widens above the first layer open at the start
/// keeps the BHP reference depth there (decision 103: where Eclipse's default puts it).
void set_connections(const grid::EclipseWell& w, const grid::Grid3D& g, wells::WellSpec& spec) {
    std::vector<wells::WellConnection> layers = connection_layers(w, w.connections);
    const auto top = std::find_if(layers.begin(), layers.end(),
                                  [](const wells::WellConnection& c) { return c.open; });
    if (!std::isnan(top->radius)) spec.radius = top->radius;  // else the factors: unused
    spec.skin = top->skin;
    if (top != layers.begin() && std::isnan(spec.bhp_depth)) {
        spec.bhp_depth = g.centre_depth(g.cell(w.i, w.j, w.k_first + (top - layers.begin())));
    }
    const bool plain =
        std::all_of(layers.begin(), layers.end(), [&](const wells::WellConnection& c) {
            return c.open && std::isnan(c.factor) && std::isnan(c.kh) && c.multiplier == 1.0 &&
                   c.radius == top->radius && c.skin == top->skin;
        });
    if (!plain) spec.connections = std::move(layers);
}

/// schedule.eclipse (design decision 79): the file's wells, their controls at the start and
/// later (events) and its TSTEPs as the report times.
void read_eclipse_schedule(const Value& file, const std::string& path, Deck& deck,
                           const UnitFactors& u) {
    if (!deck.model.wells.empty()) {
        file.fail("the wells come from the file's WELSPECS and COMPDAT: remove the wells section");
    }
    grid::EclipseSchedule es;
    grid::EclipseSummary summary;
    const grid::Grid3D& g = deck.model.grid;
    try {
        es = grid::read_eclipse_schedule(path,
                                         {u.pressure, u.density, u.length, u.rate, units::kDay});
        summary = grid::read_eclipse_summary(path);  // design decision 101
        for (const grid::EclipseWell& w : es.wells) {
            if (w.i >= g.nx || w.j >= g.ny || w.k_last >= g.nz) {
                throw InputError(w.where + "well " + w.name + "'s connections (I, J, K2) = (" +
                                 std::to_string(w.i + 1) + ", " + std::to_string(w.j + 1) + ", " +
                                 std::to_string(w.k_last + 1) + ") lie outside the grid (" +
                                 std::to_string(g.nx) + ", " + std::to_string(g.ny) + ", " +
                                 std::to_string(g.nz) + ")");
            }
        }
    } catch (const InputError& e) {
        file.fail(e.detail());
    }
    sim::Schedule& s = deck.schedule;
    s.report_times = es.report_times;
    deck.model.notes.insert(deck.model.notes.end(), es.notes.begin(), es.notes.end());
    deck.model.notes.insert(deck.model.notes.end(), summary.notes.begin(), summary.notes.end());
    deck.start_day = es.start;
    deck.output.summary = std::move(summary.vectors);
    deck.output.summary_report_only = summary.report_only;
    std::vector<wells::WellSpec>& ws = deck.model.wells;
    for (const grid::EclipseWell& w : es.wells) {
        wells::WellSpec spec;
        spec.name = w.name;
        spec.i = w.i;
        spec.j = w.j;
        spec.k_first = w.k_first;
        spec.k_last = w.k_last;
        spec.bhp_depth = w.bhp_depth;
        set_connections(w, g, spec);
        ws.push_back(spec);
    }
    const auto kind = [](const grid::EclipseControl& c) {
        if (!c.rate) return wells::ControlKind::bhp;
        switch (c.phase) {
            case grid::RatePhase::oil:
                return wells::ControlKind::oil_rate;
            case grid::RatePhase::water:
                return wells::ControlKind::water_rate;
            case grid::RatePhase::reservoir:
                return wells::ControlKind::reservoir_rate;
            default:
                return wells::ControlKind::rate;
        }
    };
    // A history record on RESV (decision 100): the reservoir volume of its observed rates.
    const auto voidage = [](const grid::EclipseControl& c) {
        wells::VoidageOf v;
        if (c.history && c.rate && c.phase == grid::RatePhase::reservoir) {
            v = {true, c.observed_oil, c.observed_water};
        }
        return v;
    };
    const auto set_control = [&](const grid::EclipseControl& c, wells::WellSpec& w) {
        w.control = kind(c);
        w.target = c.target;
        w.voidage = voidage(c);
        (c.injector ? w.max_bhp : w.min_bhp) = c.bhp_limit;
    };
    std::vector<bool> shut_at_start(ws.size(), false);
    std::vector<const grid::EclipseControl*> first(ws.size(), nullptr);  // sets the well's type
    const bool history = std::any_of(es.controls.begin(), es.controls.end(),
                                     [](const grid::EclipseControl& c) { return c.history; });
    for (const grid::EclipseControl& c : es.controls) {
        const auto it = std::find_if(ws.begin(), ws.end(),
                                     [&](const wells::WellSpec& w) { return w.name == c.well; });
        const std::size_t n = static_cast<std::size_t>(it - ws.begin());
        // The history series (design decision 90): every control record of a deck with
        // history records starts a period, observed (WCONHIST, WCONINJH) or not (NaN).
        if (history && !c.status_only) {
            const double water = c.injector ? injected(c.observed_water) : c.observed_water;
            deck.history.push_back({n, c.time, c.observed_oil, water, c.observed_bhp});
        }
        // WELOPEN's records (design decision 83) set the status alone.
        if (!c.status_only && first[n] == nullptr) {
            first[n] = &c;
            it->type = c.injector ? wells::WellType::injector : wells::WellType::producer;
        } else if (!c.status_only && c.injector != first[n]->injector) {
            file.fail(c.where + "well " + c.well + " was " +
                      (first[n]->injector ? "an injector (WCONINJE, WCONINJH)"
                                          : "a producer (WCONPROD, WCONHIST)") +
                      " before: heptane's wells keep their type");
        }
        if (c.time == 0.0) {  // the start: a later record of the well replaces an earlier one
            if (!c.status_only) set_control(c, *it);
            if (!c.keeps_status) shut_at_start[n] = !c.open;  // WELTARG keeps it
            continue;
        }
        // Later: an event that sets the status and, but for WELOPEN and a history record
        // without a rate (the well shut, its control kept), every control and limit, as
        // Eclipse's record replaces the well's.
        sim::WellEvent e;
        e.time = c.time;
        e.well = n;
        e.key = file.path();
        if (!c.keeps_status) e.open = c.open;  // WELTARG (design decision 91) keeps it
        if (!c.status_only && !c.zero_rate) {
            e.kind = kind(c);
            e.target = c.target;
            e.voidage = voidage(c);
            (c.injector ? e.max_bhp : e.min_bhp) = c.bhp_limit;
        }
        s.events.push_back(e);
    }
    // COMPDAT and WPIMULT after the start (design decision 103): the well's connections.
    for (const grid::EclipseConnectionChange& c : es.connection_changes) {
        const auto it = std::find_if(es.wells.begin(), es.wells.end(),
                                     [&](const grid::EclipseWell& w) { return w.name == c.well; });
        sim::WellEvent e;
        e.time = c.time;
        e.well = static_cast<std::size_t>(it - es.wells.begin());
        e.key = file.path();
        e.connections = connection_layers(*it, c.connections);
        s.events.push_back(e);
    }
    // A producer's record of WECON or WTEST: `set` gives it to the well at the start (a later
    // record at the start replaces an earlier one), else to an event at its time.
    const auto producer_record = [&](double time, const std::string& well, const std::string& where,
                                     const char* refusal, const auto& set) {
        const auto it = std::find_if(ws.begin(), ws.end(),
                                     [&](const wells::WellSpec& w) { return w.name == well; });
        if (it->type == wells::WellType::injector)
            file.fail(where + "well " + well + " is an injector (WCONINJE): " + refusal);
        if (time == 0.0) {
            set(*it);
            return;
        }
        sim::WellEvent e;
        e.time = time;
        e.well = static_cast<std::size_t>(it - ws.begin());
        e.key = file.path();
        set(e);
        s.events.push_back(e);
    };
    // WECON (design decision 86): a producer's economic limits, at the start or by an event.
    for (const grid::EclipseEconomics& x : es.economics) {
        producer_record(x.time, x.well, x.where, "economic limits are a producer's",
                        [&](auto& target) {
                            target.min_oil_rate = x.min_oil_rate;
                            target.max_water_cut = x.max_water_cut;
                        });
    }
    // WTEST (design decision 88): a producer's well tests, at the start or by an event.
    for (const grid::EclipseWellTest& x : es.tests) {
        producer_record(x.time, x.well, x.where,
                        "well tests reopen a producer its economic limits shut", [&](auto& target) {
                            target.test_interval = x.interval;
                            target.test_count = x.count;
                        });
    }
    // A well SHUT at the start: shut by an event at time 0, before the first step.
    for (std::size_t n = ws.size(); n-- > 0;) {
        if (!shut_at_start[n]) continue;
        sim::WellEvent e;
        e.well = n;
        e.key = file.path();
        e.open = false;
        s.events.insert(s.events.begin(), e);
    }
}

/// schedule.start: an ISO 8601 date, YYYY-MM-DD, optionally with THH:MM:SS (the calendar day
/// of time 0: the summary table's DATE column), as a day number.
double calendar_day(const Value& v) {
    const std::string text = v.string();
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, used = 0;
    const bool date =
        std::sscanf(text.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &used) == 3 && used == 10;
    const bool time = date && text.size() == 19 &&
                      std::sscanf(text.c_str() + 10, "T%2d:%2d:%2d%n", &h, &mi, &sec, &used) == 3 &&
                      used == 9;
    if (!date || (text.size() != 10 && !time) || y < 1 || mo < 1 || mo > 12 || d < 1 ||
        d > calendar::month_length(y, mo) || h > 23 || mi > 59 || sec > 59) {
        v.fail("'" + text + "' is not a date YYYY-MM-DD (or YYYY-MM-DDTHH:MM:SS)");
    }
    return static_cast<double>(calendar::days_since_1970(y, mo, d)) +
           (h * 3600.0 + mi * 60.0 + sec) / 86400.0;
}

}  // namespace

wells::ControlKind read_control_kind(const Value& kind) {
    constexpr wells::ControlKind kinds[] = {
        wells::ControlKind::rate, wells::ControlKind::bhp, wells::ControlKind::oil_rate,
        wells::ControlKind::water_rate, wells::ControlKind::reservoir_rate};
    return kinds[kind.choice({"rate", "bhp", "oil_rate", "water_rate", "reservoir_rate"})];
}

ControlRead read_control(const Value& v, const UnitFactors& u, bool injector, bool positive) {
    Mapping control(v);
    ControlRead c;
    c.kind = read_control_kind(control.required("kind"));
    std::optional<Value> surface;
    if (c.kind == wells::ControlKind::reservoir_rate) surface = control.optional("surface");
    if (surface) {
        Mapping rates(*surface);
        c.voidage.given = true;
        if (auto x = rates.optional("oil_rate")) {
            if (injector) x->fail("an injector's surface rate is its water_rate");
            c.voidage.oil = x->number() * u.rate;
        }
        if (auto x = rates.optional("water_rate")) c.voidage.water = x->number() * u.rate;
        rates.finish();
        if (!(c.voidage.oil >= 0.0 && c.voidage.water >= 0.0) ||
            !(c.voidage.oil + c.voidage.water > 0.0)) {
            surface->fail("the oil and water rates must be >= 0, not both 0");
        }
        c.target = c.voidage.oil + c.voidage.water;
        if (auto x = control.optional("value")) {
            x->fail("a reservoir rate of surface rates has no value: remove this key");
        }
    } else {
        const Value value = control.required("value");
        c.target = value.number() * (wells::is_rate(c.kind) ? u.rate : u.pressure);
        if (positive && c.target <= 0.0) value.fail("must be > 0");
    }
    control.finish();
    return c;
}

void read_schedule(const Value& v, Deck& deck, const UnitFactors& u,
                   const std::function<std::string(const Value&)>& resolve_existing) {
    if (deck.model.model != wells::FluidModel::two_phase) {
        v.fail("a simulation needs fluid.model two_phase");
    }
    sim::Schedule& s = deck.schedule;
    s.present = true;
    Mapping m(v);
    const std::optional<Value> end = m.optional("end_time");
    const std::optional<Value> times = m.optional("report_times");
    const std::optional<Value> interval = m.optional("report_interval");
    const std::optional<Value> file = m.optional("eclipse");
    if (file) {
        for (const char* key : {"end_time", "report_times", "report_interval", "events"}) {
            if (auto x = m.optional(key)) {
                x->fail("schedule.eclipse's TSTEP, WCONINJE and WCONPROD give it: remove this key");
            }
        }
        read_eclipse_schedule(*file, resolve_existing(*file), deck, u);
        if (auto x = m.optional("start"); x && !std::isnan(deck.start_day)) {
            x->fail("schedule.eclipse's START gives it: remove this key");
        }
    } else if (!end && !times) {
        v.fail("give end_time (days) or report_times (days), or eclipse (a SCHEDULE section)");
    }
    if (auto x = m.optional("start")) deck.start_day = calendar_day(*x);
    double end_time = end ? days(*end) : 0.0;
    if (times) {
        for (const Value& t : times->elements()) {
            const double x = days(t);
            if (!s.report_times.empty() && x <= s.report_times.back()) {
                t.fail("report times must increase");
            }
            s.report_times.push_back(x);
        }
        if (s.report_times.empty()) times->fail("must list at least one time");
        if (end && s.report_times.back() > end_time) {
            times->fail("the last report time is after end_time");
        }
    }
    if (interval) {
        if (!end) interval->fail("needs end_time");
        const double every = days(*interval);
        for (double t = every; t < end_time * (1.0 - 1e-12); t += every) {
            s.report_times.push_back(t);
        }
        std::sort(s.report_times.begin(), s.report_times.end());
        s.report_times.erase(std::unique(s.report_times.begin(), s.report_times.end()),
                             s.report_times.end());
    }
    if (end && (s.report_times.empty() || s.report_times.back() < end_time)) {
        s.report_times.push_back(end_time);
    }
    end_time = s.end_time();

    sim::TimeStepping& dt = s.dt;
    const std::optional<Value> initial = m.optional("dt_initial");
    if (initial) dt.initial = days(*initial);
    if (dt.initial > end_time) {
        (initial ? *initial : v).fail("dt_initial is longer than the schedule");
    }
    dt.max = std::max(dt.max, dt.initial);
    if (auto x = m.optional("dt_max")) {
        dt.max = days(*x);
        if (dt.max < dt.initial) x->fail("must be >= dt_initial");
    }
    dt.min = std::min(dt.min, dt.initial);
    if (auto x = m.optional("dt_min")) {
        dt.min = days(*x);
        if (dt.min > dt.initial) x->fail("must be <= dt_initial");
    }
    if (auto x = m.optional("growth_factor")) {
        dt.growth = x->number();
        if (dt.growth < 1.0) x->fail("must be >= 1");
    }
    if (auto x = m.optional("cut_factor")) {
        dt.cut = x->number();
        if (dt.cut <= 0.0 || dt.cut >= 1.0) x->fail("must be in (0, 1)");
    }
    if (auto x = m.optional("max_cuts")) {
        const long long n = x->integer();
        if (n < 0 || n > 100) x->fail("must be in [0, 100]");
        dt.max_cuts = static_cast<int>(n);
    }
    if (auto x = m.optional("newton")) read_newton(*x, s.newton, deck.solver.tolerance);
    if (auto x = m.optional("events")) {
        for (const Value& e : x->elements()) {
            if (auto event = read_event(e, deck.model.wells, u, deck.history)) {
                s.events.push_back(*event);
            }
        }
    }
    m.finish();
    // Each well's observations in time order (the events may come in any order; a well's
    // own at the start first): observed_history reads them so.
    std::stable_sort(
        deck.history.begin(), deck.history.end(),
        [](const WellObservation& a, const WellObservation& b) { return a.time < b.time; });
    deck.model.dt = dt.initial;  // info, export and bench see the first Newton system
}

void read_wells(const Value& v, Deck& deck, const UnitFactors& u, bool simulation) {
    for (const Value& e : v.elements()) {
        Mapping m(e);
        wells::WellSpec w;
        w.name = m.required("name").string();
        w.type = m.required("type").choice({"producer", "injector"}) == 0
                     ? wells::WellType::producer
                     : wells::WellType::injector;
        const Value col = m.required("column");
        const auto ij = col.integers(2);
        w.i = to_int(col, ij[0]);
        w.j = to_int(col, ij[1]);
        w.k_first = 0;
        w.k_last = deck.model.grid.nz - 1;
        if (auto p = m.optional("perforations")) {
            const auto k = p->integers(2);
            w.k_first = to_int(*p, k[0]);
            w.k_last = to_int(*p, k[1]);
        }
        const ControlRead c =
            read_control(m.required("control"), u, w.type == wells::WellType::injector, false);
        w.control = c.kind;
        w.target = c.target;
        w.voidage = c.voidage;
        if (auto r = m.optional("radius")) w.radius = r->number() * u.length;
        if (auto z = m.optional("bhp_depth")) w.bhp_depth = z->number() * u.length;
        if (auto s = m.optional("skin")) w.skin = s->number();
        if (auto f = m.optional("connection_factors")) {  // design decision 102
            if (deck.model.model == wells::FluidModel::synthetic) {
                f->fail(
                    "the synthetic model's well couplings are random numbers: connection "
                    "factors act in two_phase models");
            }
            w.connections = read_connection_factors(*f, u);
        }
        if (auto p = m.optional("min_bhp")) w.min_bhp = p->number() * u.pressure;
        if (auto p = m.optional("max_bhp")) w.max_bhp = p->number() * u.pressure;
        if (auto x = m.optional("min_oil_rate")) w.min_oil_rate = x->number() * u.rate;
        if (auto x = m.optional("max_water_cut")) w.max_water_cut = x->number();
        if (auto x = m.optional("test_interval")) w.test_interval = x->number() * units::kDay;
        if (auto x = m.optional("test_count")) w.test_count = to_int(*x, x->integer());
        if (auto x = m.optional("observed")) {  // design decision 90
            if (!simulation) x->fail("observed rates are a simulation's: the deck has no schedule");
            deck.history.push_back(read_observed(*x, deck.model.wells.size(), 0.0,
                                                 w.type == wells::WellType::injector, u));
        }
        m.finish();
        deck.model.wells.push_back(w);
    }
}

}  // namespace heptane::app
