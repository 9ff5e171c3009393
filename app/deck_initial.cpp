// The deck's `initial` section (inputs/README.md "initial"; design decisions 77, 78): the
// datum and its pressure, a uniform saturation or a water-oil contact, or an Eclipse file's
// EQUIL; split from deck.cpp by concern.
#include "app/deck_initial.hpp"

#include <cmath>
#include <string>

#include "grid/eclipse_solution.hpp"
#include "grid/saturation_table.hpp"

namespace heptane::app {

void read_initial(const std::optional<Value>& v, wells::ModelSpec& model, const UnitFactors& u,
                  const std::function<std::string(const Value&)>& resolve_existing) {
    wells::InitialState& s = model.initial;
    s.pressure = model.two_phase.reference_pressure;
    s.datum_depth = model.grid.top_depth;
    // Each cell's connate water (its saturation region's; design decision 87).
    s.water_saturation = std::nan("");
    if (!v) return;
    Mapping m(*v);
    if (auto e = m.optional("eclipse")) {  // the deck's EQUIL (design decision 78)
        for (const char* key : {"pressure", "datum_depth", "water_saturation", "water_oil_contact",
                                "contact_capillary_pressure", "sublayers"}) {
            if (auto x = m.optional(key)) {
                x->fail("initial.eclipse's EQUIL gives the initial state: remove this key");
            }
        }
        const std::string path = resolve_existing(*e);
        grid::Equilibration q;
        try {
            q = grid::read_eclipse_equil(path, {u.pressure, u.density, u.length});
        } catch (const InputError& err) {
            e->fail(err.detail());
        }
        s.pressure = q.datum_pressure;
        s.datum_depth = q.datum_depth;
        s.has_contact = true;
        s.water_oil_contact = q.water_oil_contact;
        s.contact_capillary_pressure = q.contact_capillary_pressure;
        s.sublayers = q.sublayers;
        s.gas_oil_contact = q.gas_oil_contact;
        s.gas_oil_contact_where = q.where;
        s.eclipse_length_unit = q.length_unit;
        m.finish();
        return;
    }
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
    m.finish();
}

}  // namespace heptane::app
