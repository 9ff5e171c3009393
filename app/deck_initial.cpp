// The deck's `initial` section (inputs/README.md "initial"; design decisions 77, 78): the
// datum and its pressure, a uniform saturation or a water-oil contact, a list of them (one per
// equilibration region, decision 92) or an Eclipse file's EQUIL; split from deck.cpp by concern.
#include "app/deck_initial.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "grid/eclipse_solution.hpp"
#include "grid/saturation_table.hpp"

namespace heptane::app {
namespace {

/// The state keys a record of the initial state has (besides `eclipse` and `regions`).
const char* const kStateKeys[] = {"pressure",
                                  "datum_depth",
                                  "water_saturation",
                                  "water_oil_contact",
                                  "contact_capillary_pressure",
                                  "sublayers"};

/// A record's keys from `m` into `s` (its defaults set).
void read_state(Mapping& m, wells::InitialState& s, const UnitFactors& u) {
    if (auto x = m.optional("pressure")) s.pressure = x->number() * u.pressure;
    if (auto x = m.optional("datum_depth")) s.datum_depth = x->number() * u.length;
    const std::optional<Value> sw = m.optional("water_saturation");
    if (sw) s.water_saturation = sw->number();
    if (auto x = m.optional("water_oil_contact")) {  // design decision 77
        if (sw) x->fail("give water_saturation or water_oil_contact, not both");
        s.has_contact = true;
        s.water_oil_contact = x->number() * u.length;
    }
    if (auto x = m.optional("contact_capillary_pressure")) {
        if (!s.has_contact) x->fail("a capillary pressure at the contact needs water_oil_contact");
        s.contact_capillary_pressure = x->number() * u.pressure;
    }
    if (auto x = m.optional("sublayers")) {
        if (!s.has_contact) x->fail("sub-layers need water_oil_contact");
        const long long n = x->integer();
        if (n < 1 || n > 40) x->fail("must be in [1, 40] (1: the cell-centre rule)");
        s.sublayers = static_cast<int>(n);
    }
}

/// An EQUIL record as the initial state of its region (design decision 78).
wells::InitialState state_of(const grid::Equilibration& q) {
    wells::InitialState s;
    s.pressure = q.datum_pressure;
    s.datum_depth = q.datum_depth;
    s.has_contact = true;
    s.water_oil_contact = q.water_oil_contact;
    s.contact_capillary_pressure = q.contact_capillary_pressure;
    s.sublayers = q.sublayers;
    s.gas_oil_contact = q.gas_oil_contact;
    s.gas_oil_contact_where = q.where;
    s.eclipse_length_unit = q.length_unit;
    return s;
}

/// The regions' records, region 1 first, as `init` (region 1 with the others after it).
void set_regions(wells::InitialState& init, std::vector<wells::InitialState> records) {
    init = records.front();
    init.more_regions.assign(records.begin() + 1, records.end());
}

}  // namespace

void read_initial(const std::optional<Value>& v, wells::ModelSpec& model, const UnitFactors& u,
                  const std::function<std::string(const Value&)>& resolve_existing) {
    wells::InitialState& s = model.initial;
    s.pressure = model.two_phase.reference_pressure;
    s.datum_depth = model.grid.top_depth;
    // Each cell's connate water (its saturation region's; design decision 87).
    s.water_saturation = std::nan("");
    if (!v) return;
    const wells::InitialState defaults = s;
    Mapping m(*v);
    const auto refuse_state_keys = [&](const char* why) {
        for (const char* key : kStateKeys) {
            if (auto x = m.optional(key)) x->fail(why);
        }
    };
    if (auto e = m.optional("eclipse")) {  // the deck's EQUIL (design decisions 78, 92)
        refuse_state_keys("initial.eclipse's EQUIL gives the initial state: remove this key");
        if (auto r = m.optional("regions")) {
            r->fail("initial.eclipse's EQUIL gives the initial state: remove this key");
        }
        const std::string path = resolve_existing(*e);
        std::vector<wells::InitialState> records;
        try {
            for (const grid::Equilibration& q :
                 grid::read_eclipse_equil(path, {u.pressure, u.density, u.length})) {
                records.push_back(state_of(q));
            }
        } catch (const InputError& err) {
            e->fail(err.detail());
        }
        set_regions(s, records);
    } else if (auto r = m.optional("regions")) {  // design decision 92
        refuse_state_keys("each of initial.regions' records gives it: move this key there");
        if (!r->is_sequence() || r->elements().empty()) {
            r->fail("a list of records, one per equilibration region (region 1 first)");
        }
        if (r->elements().size() > static_cast<std::size_t>(grid::kMaxEquilibrationRegions)) {
            r->fail("more than " + std::to_string(grid::kMaxEquilibrationRegions) +
                    " equilibration regions");
        }
        std::vector<wells::InitialState> records;
        for (const Value& x : r->elements()) {
            Mapping rm(x);
            records.push_back(defaults);
            read_state(rm, records.back(), u);
            rm.finish();
        }
        set_regions(s, records);
    } else {
        read_state(m, s, u);
    }
    m.finish();
}

}  // namespace heptane::app
