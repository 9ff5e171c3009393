#include "grid/eclipse_props.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "core/base/errors.hpp"
#include "core/base/text.hpp"
#include "core/base/units.hpp"
#include "grid/pvt_table.hpp"
#include "grid/saturation_table.hpp"
#include "grid/text_input.hpp"

namespace heptane::grid {
namespace {

using detail::is_section_keyword;
using detail::KeywordRecord;

std::string number(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

}  // namespace

namespace {

/// PVDO's table (design decision 84) from its one record, in SI.
std::vector<PvtRow> pvdo_rows(const KeywordRecord& r, const FluidUnits& units) {
    if (r.values.size() % 3 != 0) {
        throw InputError(r.where + std::to_string(r.values.size()) +
                         " values; a row is 3 (pressure, Bo, viscosity)");
    }
    std::vector<PvtRow> rows;
    for (std::size_t q = 0; q < r.values.size(); q += 3) {
        for (std::size_t c = 0; c < 3; ++c) {
            if (std::isnan(r.values[q + c])) {
                throw InputError(r.where + "row " + std::to_string(q / 3 + 1) +
                                 ": a defaulted item (n*): give every value (heptane does not "
                                 "interpolate defaults)");
            }
        }
        rows.push_back(
            {r.values[q] * units.pressure, r.values[q + 1], r.values[q + 2] * units::kCentiPoise});
    }
    const std::string error = pvt_table_error(rows);
    if (!error.empty()) throw InputError(r.where + error);
    return rows;
}

/// PPCWMAX (design decision 99): `count` records, one a saturation table, "Pcmax [YES|NO] /":
/// the largest Pc SWATINIT may scale the table's to [Pa] (the file's pressure unit, else
/// `fallback`'s; defaulted: no cap, infinity) and whether Eclipse moves the connate water
/// instead (NO, the default; YES refused). Empty without PPCWMAX. Errors at the record's line.
std::vector<double> read_ppcwmax(const std::string& path, std::size_t count,
                                 const FluidUnits& fallback) {
    const std::string text = detail::read_whole_file(path);
    detail::EclipseTokenizer tokens(text);
    detail::Token t;
    FluidUnits units = fallback;
    bool found = false;
    while (!found && tokens.next(t)) {
        if (!detail::starts_line(text, t.offset)) continue;
        read_unit_keyword(std::string(t.text), units);
        found = t.text == "PPCWMAX";
    }
    if (!found) return {};
    const std::string keyword = detail::where(path, text, t.offset) + "PPCWMAX: ";
    std::vector<double> caps;
    for (std::size_t q = 0; q < count; ++q) {
        std::vector<std::string> items;  // "n*" expanded to n empty (defaulted) items
        std::string here = keyword;
        bool ended = false;
        while (!ended && tokens.next(t)) {
            const std::string token(t.text);
            here = detail::where(path, text, t.offset) + "PPCWMAX: ";
            if (token == "/") {
                ended = true;
            } else if (detail::is_keyword(token) && detail::starts_line(text, t.offset) &&
                       token != "YES" && token != "NO") {
                break;
            } else if (token.size() > 1 && token.back() == '*' &&
                       token.find_first_not_of("0123456789") == token.size() - 1) {
                items.resize(items.size() + std::stoul(token.substr(0, token.size() - 1)));
            } else {
                items.push_back(token.front() == '\'' && token.size() >= 2
                                    ? token.substr(1, token.size() - 2)
                                    : token);
            }
        }
        if (!ended) {
            throw InputError(keyword + std::to_string(q) + " of the " + std::to_string(count) +
                             " records the saturation tables need (TABDIMS item 1), each ended "
                             "by '/'");
        }
        if (items.size() > 2) throw InputError(here + "a record is Pcmax [YES|NO]: too many items");
        double cap = std::numeric_limits<double>::infinity();
        if (!items.empty() && !items[0].empty()) {
            if (!detail::parse_double(items[0], cap) || !(cap > 0.0)) {
                throw InputError(here + "item 1 (the largest Pc) must be a number > 0, got " +
                                 quote_input(items[0]));
            }
            cap *= units.pressure;
        }
        const std::string modify = items.size() > 1 ? items[1] : std::string();
        if (modify == "YES") {
            throw InputError(here +
                             "item 2 YES (the connate water moved to hold SWATINIT) is not "
                             "supported: give NO (the Pc capped, the cell below its SWATINIT)");
        }
        if (!modify.empty() && modify != "NO")
            throw InputError(here + "item 2 must be YES or NO, got " + quote_input(modify));
        caps.push_back(cap);
    }
    return caps;
}

}  // namespace

namespace {

/// What the PROPS section holds besides what read_eclipse_fluid reads (design decision 96):
/// each keyword is read here, read by grid.eclipse (the end-point arrays and their edits,
/// decision 95), refused (another way to give the oil-water saturation functions), or passed
/// over with a note saying why (gas-phase tables, output controls, an INCLUDE, anything else).
/// A file without section keywords (an include) is all PROPS; in a file with them, what comes
/// before the first (the Egg model's NOECHO before RUNSPEC) is not.
class PropsKeywords {
  public:
    void see(const std::string& keyword, const std::string& here) {
        if (is_section_keyword(keyword)) {
            if (section_.empty()) pending_.clear();  // those were before the deck's first section
            section_ = keyword;
            return;
        }
        if (!section_.empty() && section_ != "PROPS") return;
        if (is_read(keyword)) return;
        if (keyword == "SWFN" || keyword == "SOF2" || keyword == "SOF3") {
            throw InputError(here +
                             "not supported: heptane reads the oil-water saturation functions "
                             "from SWOF (give SWOF)");
        }
        const char* why = is_gas(keyword)      ? "gas-phase data: heptane's model is oil-water"
                          : is_output(keyword) ? "an output control: heptane's output is its own"
                          : keyword == "INCLUDE"
                              ? "not followed: fluid.eclipse reads this file alone"
                              : "not read by fluid.eclipse";
        pending_.push_back({here, why});
    }
    /// The notes, once the file is read: a PROPS keyword the file's sections put there.
    void add_notes(std::vector<std::string>& notes) const {
        for (const auto& [here, why] : pending_)
            notes.push_back(here + "passed over (" + why + ")");
    }

  private:
    static bool is_read(const std::string& k) {
        return k == "DENSITY" || k == "PVCDO" || k == "PVDO" || k == "PVTW" || k == "ROCK" ||
               k == "SWOF" || k == "PVTO" || k == "SWL" || k == "SWCR" || k == "SWU" ||
               k == "SOWCR" || k == "KRW" || k == "KRO" || k == "PCW" || k == "SWATINIT" ||
               k == "EQUALS" || k == "MULTIPLY" || k == "ADD" || k == "COPY" || k == "MINVALUE" ||
               k == "MAXVALUE" || k == "BOX" || k == "ENDBOX" || k == "FIELD" || k == "METRIC" ||
               k == "LAB" || k == "TABDIMS" || k == "PPCWMAX";
    }
    static bool is_gas(const std::string& k) {
        return k == "SGOF" || k == "SGFN" || k == "SLGOF" || k == "PVDG" || k == "PVTG" ||
               k == "PVZG" || k == "SGWFN";
    }
    static bool is_output(const std::string& k) {
        return k == "RPTPROPS" || k == "ECHO" || k == "NOECHO" || k == "MESSAGES";
    }
    std::string section_;  ///< the section the scan is in; empty before any (an include)
    std::vector<std::pair<std::string, std::string>> pending_;
};

}  // namespace

TwoPhaseParams read_eclipse_fluid(const std::string& path, const FluidUnits& fallback,
                                  TwoPhaseParams params, std::vector<RelPerm>* more_regions,
                                  std::vector<std::string>* notes) {
    FluidUnits units = fallback;
    PropsKeywords props;
    bool first_scan = true;
    const auto refuse_live_oil = [&](const std::string& keyword, const std::string& here) {
        read_unit_keyword(keyword, units);
        if (keyword == "PVTO") {
            throw InputError(here +
                             "live oil (dissolved gas) is not supported: heptane's oil is dead "
                             "(give PVCDO or PVDO)");
        }
        if (first_scan) props.see(keyword, here);
    };
    std::map<std::string, KeywordRecord> records = detail::read_single_records(
        path, {"DENSITY", "PVCDO", "PVTW", "ROCK"}, 5, "PVTNUM", refuse_live_oil);
    // PVDO: one table, a record of rows (a second table is a second region's record).
    first_scan = false;
    if (notes != nullptr) props.add_notes(*notes);
    units = fallback;
    std::map<std::string, KeywordRecord> tables =
        detail::read_single_records(path, {"PVDO"}, 3 * 1000, "PVTNUM", refuse_live_oil);
    const bool pvdo = tables.count("PVDO") != 0;
    if (pvdo && records.count("PVCDO") != 0) {
        const std::string& pvcdo = records["PVCDO"].where;
        throw InputError(tables["PVDO"].where + "the oil is given twice, here and at " +
                         pvcdo.substr(0, pvcdo.size() - 2) + ": give one of them");
    }
    for (const char* k : {"DENSITY", "PVCDO", "PVTW", "ROCK"}) {
        if (records.count(k) == 0 && !(pvdo && std::string(k) == "PVCDO")) {
            throw InputError(path + ": no " + k + (std::string(k) == "PVCDO" ? " or PVDO" : "") +
                             " (fluid.eclipse reads DENSITY, PVCDO or PVDO, PVTW, ROCK and SWOF "
                             "from the file; INCLUDE files are not followed)");
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
    const auto surface_density = [&](std::size_t item) {
        const double rho = density.item(item, std::nan(""));
        if (!positive(rho)) throw InputError(density.where + "the densities must be > 0");
        return rho * units.density;
    };
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
        if (!std::isfinite(cv)) throw InputError(r.where + "the viscosibility must be finite");
        ph.density = surface_density(density_item);
        ph.viscosity = mu * units::kCentiPoise;
        ph.compressibility = c / units.pressure;
        ph.volume_factor = b;
        ph.viscosibility = cv / units.pressure;
    };
    if (pvdo) {
        params.oil = PhaseProperties{};
        params.oil.density = surface_density(0);
        params.oil_pvt = pvt_table(pvdo_rows(tables["PVDO"], units));
    } else {
        phase("PVCDO", 0, params.oil);
        params.oil_pvt = PvtTable{};
    }
    phase("PVTW", 1, params.water);
    params.reference_pressure = p_ref * units.pressure;
    params.rock_compressibility = cr / units.pressure;
    const std::vector<std::vector<RelPermRow>> swof =
        more_regions != nullptr
            ? read_swof_tables(path, fallback)
            : detail::read_swof_tables(path, fallback, "not supported here: give one table");
    const std::vector<double> caps = read_ppcwmax(path, swof.size(), fallback);
    params.relperm = RelPerm{};
    params.relperm.table = relperm_table(swof.front());
    if (!caps.empty()) params.relperm.swatinit_pc_max = caps[0];
    if (more_regions != nullptr) {
        more_regions->assign(swof.size() - 1, RelPerm{});
        for (std::size_t q = 1; q < swof.size(); ++q) {
            (*more_regions)[q - 1].table = relperm_table(swof[q]);
            if (!caps.empty()) (*more_regions)[q - 1].swatinit_pc_max = caps[q];
        }
    }
    return params;
}

}  // namespace heptane::grid
