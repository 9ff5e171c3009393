#include "grid/eclipse_props.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <map>
#include <sstream>
#include <vector>

#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "grid/saturation_table.hpp"
#include "grid/text_input.hpp"

namespace heptane::grid {
namespace {

using detail::KeywordRecord;

std::string number(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

}  // namespace

TwoPhaseParams read_eclipse_fluid(const std::string& path, const FluidUnits& fallback,
                                  TwoPhaseParams params) {
    FluidUnits units = fallback;
    std::map<std::string, KeywordRecord> records = detail::read_single_records(
        path, {"DENSITY", "PVCDO", "PVTW", "ROCK"}, 5, "PVTNUM",
        [&](const std::string& keyword, const std::string& here) {
            read_unit_keyword(keyword, units);
            if (keyword == "PVDO" || keyword == "PVTO") {
                throw InputError(here +
                                 "tabulated oil PVT is not supported: heptane's oil is slightly "
                                 "compressible with a constant viscosity (give PVCDO)");
            }
        });
    for (const char* k : {"DENSITY", "PVCDO", "PVTW", "ROCK"}) {
        if (records.count(k) == 0) {
            throw InputError(path + ": no " + k +
                             " (fluid.eclipse reads DENSITY, PVCDO, PVTW, ROCK and SWOF from "
                             "the file; INCLUDE files are not followed)");
        }
    }
    const KeywordRecord& density = records["DENSITY"];
    const KeywordRecord& rock = records["ROCK"];
    const double p_ref = rock.item(0, std::nan(""));
    const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
    const auto non_negative = [](double v) { return std::isfinite(v) && v >= 0.0; };
    if (!positive(p_ref)) throw InputError(rock.where + "the reference pressure must be > 0");
    const double cr = rock.item(1, 0.0);
    if (!non_negative(cr)) throw InputError(rock.where + "the compressibility must be >= 0");
    // PVCDO / PVTW: Pref B c mu Cv, each phase's.
    const auto phase = [&](const char* keyword, std::size_t density_item, PhaseProperties& ph) {
        const KeywordRecord& r = records[keyword];
        const double p = r.item(0, std::nan("")), b = r.item(1, 1.0), c = r.item(2, 0.0),
                     mu = r.item(3, std::nan("")), cv = r.item(4, 0.0);
        if (p != p_ref) {
            throw InputError(r.where + "the reference pressure " + number(p) +
                             " differs from "
                             "ROCK's " +
                             number(p_ref) + "; heptane's laws share one");
        }
        if (!positive(b)) throw InputError(r.where + "the formation volume factor must be > 0");
        if (!non_negative(c)) throw InputError(r.where + "the compressibility must be >= 0");
        if (!positive(mu)) throw InputError(r.where + "the viscosity must be > 0");
        if (cv != 0.0) {
            throw InputError(r.where + "the viscosibility is " + number(cv) +
                             "; heptane's viscosities are constant: give 0");
        }
        const double rho = density.item(density_item, std::nan(""));
        if (!positive(rho)) throw InputError(density.where + "the densities must be > 0");
        ph.density = rho * units.density;
        ph.viscosity = mu * units::kCentiPoise;
        ph.compressibility = c / units.pressure;
        ph.volume_factor = b;
    };
    phase("PVCDO", 0, params.oil);
    phase("PVTW", 1, params.water);
    params.reference_pressure = p_ref * units.pressure;
    params.rock_compressibility = cr / units.pressure;
    params.relperm = RelPerm{};
    params.relperm.table = relperm_table(read_swof(path, fallback));
    return params;
}

}  // namespace heptane::grid
