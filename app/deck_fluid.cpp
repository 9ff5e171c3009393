#include "app/deck_fluid.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "grid/pvt_table.hpp"
#include "grid/saturation_table.hpp"

namespace heptane::app {

void read_relperm_regions(const Value& v, grid::RelPerm& first, std::vector<grid::RelPerm>& more,
                          const grid::FluidUnits& units,
                          const std::function<std::string(const Value&)>& resolve_existing) {
    if (!v.is_sequence()) {
        read_relperm(v, first, units, resolve_existing);
        return;
    }
    const std::vector<Value> regions = v.elements();
    if (regions.empty()) v.fail("a list of saturation regions needs one or more");
    more.clear();
    for (std::size_t q = 0; q < regions.size(); ++q) {
        grid::RelPerm rp = grid::TwoPhaseParams{}.relperm;  // Corey's defaults
        read_relperm(regions[q], rp, units, resolve_existing);
        if (q == 0) {
            first = rp;
        } else {
            more.push_back(rp);
        }
    }
}

void read_relperm(const Value& v, grid::RelPerm& rp, const grid::FluidUnits& units,
                  const std::function<std::string(const Value&)>& resolve_existing) {
    Mapping m(v);
    const std::optional<Value> table = m.optional("table");
    const std::optional<Value> swof = m.optional("swof");
    if (table || swof) {  // a tabulated relperm (design decision 74)
        if (table && swof) swof->fail("give table or swof, not both");
        for (const char* corey : {"swc", "sor", "nw", "no", "krw_max", "kro_max"}) {
            if (auto x = m.optional(corey)) {
                x->fail(std::string("a Corey parameter beside ") + (table ? "table" : "swof") +
                        ": the table gives the relative permeabilities");
            }
        }
        std::vector<grid::RelPermRow> rows;
        if (table) {
            for (const Value& row : table->elements()) {
                const std::vector<double> n = row.numbers();
                if (n.size() != 3 && n.size() != 4) {
                    row.fail("a row is [Sw, krw, kro] or [Sw, krw, kro, pcow]: " +
                             std::to_string(n.size()) + " numbers");
                }
                rows.push_back({n[0], n[1], n[2], n.size() == 4 ? n[3] * units.pressure : 0.0});
            }
            const std::string error = grid::relperm_table_error(rows);
            if (!error.empty())
                table->fail(error + " (rows: [Sw, krw, kro] or [Sw, krw, kro, pcow])");
        } else {
            const std::string path = resolve_existing(*swof);
            try {
                rows = grid::read_swof(path, units);
            } catch (const InputError& e) {
                swof->fail(e.detail());
            }
        }
        rp.table = grid::relperm_table(rows);
        if (auto x = m.optional("ppcwmax")) {  // design decision 99
            const double cap = x->number();
            if (!(std::isfinite(cap) && cap > 0.0)) x->fail("must be > 0");
            if (!rp.table.capillary) x->fail("the table has no capillary pressure to cap");
            rp.swatinit_pc_max = cap * units.pressure;
        }
        m.finish();
        return;
    }
    if (auto x = m.optional("ppcwmax")) {
        x->fail(
            "Corey's law has no capillary pressure: ppcwmax caps a table's (design "
            "decision 99)");
    }
    if (auto x = m.optional("swc")) rp.swc = x->number();
    if (auto x = m.optional("sor")) rp.sor = x->number();
    if (auto x = m.optional("nw")) rp.nw = x->number();
    if (auto x = m.optional("no")) rp.no = x->number();
    if (auto x = m.optional("krw_max")) rp.krw_max = x->number();
    if (auto x = m.optional("kro_max")) rp.kro_max = x->number();
    m.finish();
}

void read_phase(const Value& v, grid::PhaseProperties& ph, grid::PvtTable* table,
                const grid::FluidUnits& u) {
    Mapping m(v);
    if (auto x = m.optional("density")) ph.density = x->number() * u.density;
    const std::optional<Value> pvdo = table != nullptr ? m.optional("pvdo") : std::nullopt;
    for (const char* key :
         {"viscosity", "compressibility", "formation_volume_factor", "viscosibility"}) {
        const std::optional<Value> x = m.optional(key);
        if (!x) continue;
        if (pvdo) x->fail("fluid.oil.pvdo gives the oil's B and viscosity: remove this key");
        const double value = x->number();
        if (std::string(key) == "viscosity") ph.viscosity = value * units::kCentiPoise;
        if (std::string(key) == "compressibility") ph.compressibility = value / u.pressure;
        if (std::string(key) == "formation_volume_factor") ph.volume_factor = value;
        if (std::string(key) == "viscosibility") ph.viscosibility = value / u.pressure;
    }
    if (pvdo) {  // rows [p, B, mu] (design decision 84)
        std::vector<grid::PvtRow> rows;
        for (const Value& row : pvdo->elements()) {
            const std::vector<double> r = row.numbers(3);
            rows.push_back({r[0] * u.pressure, r[1], r[2] * units::kCentiPoise});
        }
        const std::string error = grid::pvt_table_error(rows);
        if (!error.empty()) pvdo->fail(error);
        *table = grid::pvt_table(rows);
    }
    m.finish();
}

}  // namespace heptane::app
