#include "grid/eclipse_solution.hpp"

#include <cmath>
#include <string>

#include "core/base/errors.hpp"
#include "grid/text_input.hpp"

namespace heptane::grid {

namespace {

/// One EQUIL record in SI (read_eclipse_equil's rules).
Equilibration equilibration_of(const detail::KeywordRecord& r, const FluidUnits& units) {
    Equilibration e;
    e.where = r.where;
    e.length_unit = units.length;
    e.datum_depth = r.item(0, 0.0) * units.length;
    if (!r.given(1) || !(r.values[1] > 0.0)) {
        throw InputError(r.where +
                         "item 2, the pressure at the datum depth, must be given and > 0");
    }
    e.datum_pressure = r.values[1] * units.pressure;
    e.water_oil_contact = r.item(2, 0.0) * units.length;
    e.contact_capillary_pressure = r.item(3, 0.0) * units.pressure;
    e.gas_oil_contact = r.item(4, 0.0) * units.length;
    for (const std::size_t q : {std::size_t{6}, std::size_t{7}}) {
        if (r.item(q, 0.0) != 0.0) {
            throw InputError(r.where + "item " + std::to_string(q + 1) + " (the " +
                             (q == 6 ? "live-oil" : "wet-gas") +
                             " initialisation) must be 0 or defaulted: heptane's oil is dead and "
                             "it has no gas phase");
        }
    }
    const double n = r.item(8, -5.0);
    if (n != std::floor(n) || n > 0.0 || n < -20.0) {
        throw InputError(r.where +
                         "item 9 (the fluid-in-place accuracy N) must be an integer in "
                         "[-20, 0]: 0 the cell-centre rule, N < 0 the saturations "
                         "averaged over 2|N| sub-layers (N > 0, tilted fine gridding, "
                         "is not supported)");
    }
    e.sublayers = n == 0.0 ? 1 : static_cast<int>(-2.0 * n);
    for (std::size_t q = 9; q < 12; ++q) {  // Eclipse 300's and humid gas's
        if (r.given(q)) {
            throw InputError(r.where + "item " + std::to_string(q + 1) +
                             " (a compositional or humid-gas option) must be defaulted");
        }
    }
    return e;
}

}  // namespace

std::vector<Equilibration> read_eclipse_equil(const std::string& path, const FluidUnits& fallback) {
    std::string where, says;
    const int count =
        detail::dimension_count(path, "EQLDIMS", 5, "NTEQUL, the number of equilibration regions",
                                kMaxEquilibrationRegions, where, says);
    FluidUnits units = fallback;
    const std::vector<detail::KeywordRecord> records = detail::read_keyword_records(
        path, "EQUIL", count, 12, says, "EQLDIMS",
        [&](const std::string& keyword, const std::string&) { read_unit_keyword(keyword, units); });
    if (records.empty()) {
        throw InputError(path +
                         ": no EQUIL (initial.eclipse reads the SOLUTION section's EQUIL "
                         "from the file; INCLUDE files are not followed)");
    }
    std::vector<Equilibration> out;
    for (const detail::KeywordRecord& r : records) out.push_back(equilibration_of(r, units));
    return out;
}

}  // namespace heptane::grid
