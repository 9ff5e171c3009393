#include "sim/schedule.hpp"

#include <algorithm>
#include <cmath>

#include "core/base/errors.hpp"

namespace heptane::sim {

std::vector<WellEvent> events_in_order(const Schedule& schedule) {
    std::vector<WellEvent> events = schedule.events;
    std::stable_sort(events.begin(), events.end(),
                     [](const WellEvent& a, const WellEvent& b) { return a.time < b.time; });
    return events;
}

void validate(const Schedule& schedule, const std::vector<wells::WellSpec>& wells) {
    if (!schedule.present) return;
    // Replay the events on the wells' specs: every control a well will run under must keep
    // its limits (wells::validate_wells checked the starting ones).
    std::vector<wells::WellSpec> now = wells;
    for (const WellEvent& e : events_in_order(schedule)) {
        if (e.time >= schedule.end_time()) {
            throw InputError(e.key + ".time", "the event is at or after the end of the schedule");
        }
        wells::WellSpec& w = now.at(e.well);
        const bool producer = w.type == wells::WellType::producer;
        if (e.kind) {
            if (!(std::isfinite(e.target) && e.target > 0.0)) {
                throw InputError(e.key + ".control.value", "must be > 0");
            }
            wells::check_voidage(e.voidage, *e.kind, e.key + ".control.surface");
            if (!producer && (*e.kind == wells::ControlKind::oil_rate ||
                              *e.kind == wells::ControlKind::water_rate)) {
                throw InputError(
                    e.key + ".control.kind",
                    "'" + w.name + "' is an injector: its rate is `rate` or `reservoir_rate`");
            }
            w.control = *e.kind;
            w.target = e.target;
            w.voidage = e.voidage;
        }
        if (e.min_bhp) {
            if (!producer) {
                throw InputError(e.key + ".min_bhp",
                                 "'" + w.name + "' is an injector: its limit is max_bhp");
            }
            w.min_bhp = *e.min_bhp;
        }
        if (e.max_bhp) {
            if (producer) {
                throw InputError(e.key + ".max_bhp",
                                 "'" + w.name + "' is a producer: its limit is min_bhp");
            }
            w.max_bhp = *e.max_bhp;
        }
        if (e.min_oil_rate || e.max_water_cut) {
            wells::check_economic_limits(e.min_oil_rate.value_or(0.0),
                                         e.max_water_cut.value_or(0.0), producer,
                                         e.key + ".min_oil_rate", e.key + ".max_water_cut");
        }
        if (e.test_interval || e.test_count) {
            wells::check_well_tests(e.test_interval.value_or(0.0), e.test_count.value_or(0),
                                    producer, e.key + ".test_interval", e.key + ".test_count");
        }
        if (!e.connections.empty()) {
            w.connections = e.connections;
            wells::check_connections(w, e.key + ".connection_factors");
        }
        if (w.control != wells::ControlKind::bhp) continue;
        if (producer && w.min_bhp > 0.0 && w.target < w.min_bhp) {
            throw InputError(e.key, "after this event '" + w.name +
                                        "' would produce at a BHP target below its min_bhp");
        }
        if (!producer && w.max_bhp > 0.0 && w.target > w.max_bhp) {
            throw InputError(e.key, "after this event '" + w.name +
                                        "' would inject at a BHP target above its max_bhp");
        }
    }
}

}  // namespace heptane::sim
