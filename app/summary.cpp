#include "app/summary.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "app/atomic_file.hpp"
#include "app/simulation_output.hpp"  // field_history, observed_history, volume_name
#include "core/base/calendar.hpp"
#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "sim/in_place.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

/// What heptane computes, by family: field rates, totals, cut and state; well series; region
/// and cell state; the run's own (time, steps, iterations, wall time).
constexpr const char* kField[] = {"FOPR", "FWPR", "FWIR", "FLPR", "FOPT", "FWPT", "FWIT",
                                  "FLPT", "FWCT", "FPR",  "FOIP", "FWIP", "FRPV"};
constexpr const char* kWell[] = {"WOPR", "WWPR", "WWIR", "WLPR",  "WOPT",  "WWPT",  "WWIT",
                                 "WLPT", "WWCT", "WBHP", "WOPRH", "WWPRH", "WWIRH", "WBHPH"};
constexpr const char* kRegion[] = {"RPR", "ROIP", "RWIP", "RRPV"};
constexpr const char* kBlock[] = {"BPR", "BWSAT", "BOSAT"};
constexpr const char* kRun[] = {"YEARS",    "TIMESTEP", "NEWTON", "MLINEARS", "NLINEARS",
                                "MSUMNEWT", "MSUMLINS", "TCPU",   "ELAPSED"};
/// ALL, read as heptane's field and well vectors (Eclipse's set adds gas, groups, aquifers).
constexpr const char* kAllField[] = {"FOPR", "FWPR", "FWIR", "FLPR", "FOPT", "FWPT",
                                     "FWIT", "FLPT", "FWCT", "FPR",  "FOIP", "FWIP"};
constexpr const char* kAllWell[] = {"WOPR", "WWPR", "WWIR", "WLPR", "WOPT",
                                    "WWPT", "WWIT", "WLPT", "WWCT", "WBHP"};
/// PERFORMA, read as the run's iteration counts and times.
constexpr const char* kPerforma[] = {"TIMESTEP", "NEWTON",   "MLINEARS", "NLINEARS",
                                     "MSUMNEWT", "MSUMLINS", "TCPU",     "ELAPSED"};

template <std::size_t N>
bool in(const char* const (&set)[N], const std::string& k) {
    return std::find_if(std::begin(set), std::end(set), [&](const char* x) { return k == x; }) !=
           std::end(set);
}

/// The keywords sampled from the cells at each step.
bool from_state(const std::string& k) {
    return k == "FPR" || k == "FOIP" || k == "FWIP" || k == "FRPV" || in(kRegion, k) ||
           in(kBlock, k);
}

std::string unit_of(const std::string& k, const UnitFactors& u, UnitSystem system) {
    const std::string volume = volume_name(u);
    const std::string reservoir = system == UnitSystem::field ? "rb" : "rm3";
    if (k == "FWCT" || k == "WWCT" || k == "BWSAT" || k == "BOSAT") return "1";
    if (k == "FPR" || k == "RPR" || k == "BPR" || k == "WBHP" || k == "WBHPH") {
        return u.pressure_name;
    }
    if (k == "FRPV" || k == "RRPV") return reservoir;
    if (k == "FOIP" || k == "FWIP" || k == "ROIP" || k == "RWIP") return volume;
    if (k.size() == 4 && k.back() == 'T' && (k[0] == 'F' || k[0] == 'W')) return volume;  // xxPT
    if (k == "YEARS") return "year";
    if (k == "TIMESTEP") return "day";
    if (k == "TCPU" || k == "ELAPSED") return "s";
    if (in(kRun, k)) return "1";
    return u.rate_name;  // the surface rates, observed or simulated
}

/// Builds the plan: each request's columns, in order, each name once.
class Planner {
  public:
    Planner(const Deck& deck, const wells::Model& model)
        : deck_(deck), model_(model), u_(unit_factors(deck.units)) {}

    SummaryPlan take() { return std::move(plan_); }

    void add(const grid::SummaryRequest& q) {
        const std::string& k = q.keyword;
        if (k == "ALL" || k == "PERFORMA") {
            plan_.notes.push_back(place(q) +
                                  (k == "ALL" ? "read as heptane's field and well vectors (" +
                                                    joined(kAllField) + " " + joined(kAllWell) + ")"
                                              : "read as " + joined(kPerforma)));
            grid::SummaryRequest member = q;
            member.every = true;
            const auto each = [&](const auto& set) {
                for (const char* x : set) {
                    member.keyword = x;
                    add(member);
                }
            };
            if (k == "ALL") {
                each(kAllField);
                each(kAllWell);
            } else {
                each(kPerforma);
            }
            return;
        }
        if (k == "TIME") return;  // the table's first column
        if (in(kField, k) || in(kRun, k)) {
            column(k, k);
        } else if (in(kWell, k)) {
            for (std::size_t w : wells(q)) column(k, k + ":" + deck_.model.wells[w].name).well = w;
        } else if (in(kRegion, k)) {
            const int regions = std::max(1, model_.rock.num_fip_regions());
            std::vector<int> numbers = q.regions;
            if (q.every) {
                for (int n = 1; n <= regions; ++n) numbers.push_back(n);
            }
            for (int n : numbers) {
                if (n > regions) {
                    fail(q, "region " + std::to_string(n) + " does not exist (" +
                                (model_.rock.fip_region.empty()
                                     ? std::string("no FIPNUM: region 1 is the field")
                                     : std::to_string(regions) + " FIPNUM regions") +
                                ")");
                }
                column(k, k + ":" + std::to_string(n)).region =
                    model_.rock.fip_region.empty() ? -1 : n - 1;
            }
        } else if (in(kBlock, k)) {
            const grid::Grid3D& g = model_.grid;
            for (const auto& c : q.cells) {
                const std::string ijk =
                    std::to_string(c[0]) + "," + std::to_string(c[1]) + "," + std::to_string(c[2]);
                if (c[0] > g.nx || c[1] > g.ny || c[2] > g.nz) {
                    fail(q, "cell (" + ijk + ") lies outside the grid (" + std::to_string(g.nx) +
                                ", " + std::to_string(g.ny) + ", " + std::to_string(g.nz) + ")");
                }
                const index_t m = g.cell(c[0] - 1, c[1] - 1, c[2] - 1);
                if (!model_.rock.is_active(m)) {
                    fail(q, "cell (" + ijk + ") is inactive (ACTNUM 0 or no pore volume)");
                }
                column(k, k + ":" + ijk).cell = m;
            }
        } else {
            plan_.notes.push_back(place(q) +
                                  "not computed: no column (heptane's model has oil and water, "
                                  "wells without groups, no aquifers; it computes " +
                                  std::string(summary_keywords()) + ")");
        }
    }

  private:
    /// An InputError at q's place: its file's line, or its deck key (the deck's line or the
    /// --set argument that gave it).
    [[noreturn]] void fail(const grid::SummaryRequest& q, const std::string& detail) const {
        if (q.key.empty()) throw InputError(q.where + detail);
        deck_.rethrow_located(InputError(q.key, detail));
    }

    /// "path:line: KEYWORD: " of a file's keyword; "deck:line: key: " of a deck key, or
    /// "--set ARGUMENT: key: " where a --set gave it (as Deck::rethrow_located says).
    std::string place(const grid::SummaryRequest& q) const {
        if (q.key.empty()) return q.where;
        const std::string set_by = deck_.lines.override_of(q.key);
        const std::string key = q.key + ": " + q.keyword + ": ";
        if (!set_by.empty()) return "--set " + set_by + ": " + key;
        return deck_.path + ":" + std::to_string(deck_.lines.line_of(q.key)) + ": " + key;
    }

    template <std::size_t N>
    static std::string joined(const char* const (&set)[N]) {
        std::string s;
        for (const char* x : set) s += (s.empty() ? "" : " ") + std::string(x);
        return s;
    }

    /// The wells q names (names or patterns, each well it matches in deck order), or all.
    std::vector<std::size_t> wells(const grid::SummaryRequest& q) const {
        const auto& ws = deck_.model.wells;
        std::vector<std::size_t> out;
        if (q.every) {
            for (std::size_t w = 0; w < ws.size(); ++w) out.push_back(w);
            return out;
        }
        for (const std::string& name : q.names) {
            const bool pattern = name.find_first_of("*?") != std::string::npos;
            bool any = false;
            for (std::size_t w = 0; w < ws.size(); ++w) {
                if (pattern ? fnmatch(name.c_str(), ws[w].name.c_str(), 0) == 0
                            : ws[w].name == name) {
                    out.push_back(w);
                    any = true;
                }
            }
            if (!any) {
                fail(q, (pattern ? "the pattern '" : "'") + name + "' names no well of the deck");
            }
        }
        return out;
    }

    /// A new column (or a scratch one where the name is in the plan already).
    SummaryColumn& column(const std::string& k, const std::string& name) {
        for (const SummaryColumn& c : plan_.columns) {
            if (c.name == name) return scratch_;
        }
        SummaryColumn c;
        c.name = name;
        c.keyword = k;
        c.unit = unit_of(k, u_, deck_.units);
        if (from_state(k)) c.state = plan_.state_values++;
        plan_.columns.push_back(c);
        return plan_.columns.back();
    }

    const Deck& deck_;
    const wells::Model& model_;
    UnitFactors u_;
    SummaryPlan plan_;
    SummaryColumn scratch_;
};

/// The shortest text that reads back as x ("nan" for NaN).
std::string number(double x) {
    if (std::isnan(x)) return "nan";
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, r.ptr);
}

}  // namespace

const char* summary_keywords() {
    return "FOPR FWPR FWIR FLPR FOPT FWPT FWIT FLPT FWCT FPR FOIP FWIP FRPV, WOPR WWPR WWIR "
           "WLPR WOPT WWPT WWIT WLPT WWCT WBHP WOPRH WWPRH WWIRH WBHPH, RPR ROIP RWIP RRPV, BPR "
           "BWSAT BOSAT, YEARS TIMESTEP NEWTON MLINEARS NLINEARS MSUMNEWT MSUMLINS TCPU ELAPSED";
}

SummaryPlan plan_summary(const Deck& deck, const wells::Model& model) {
    Planner p(deck, model);
    for (const grid::SummaryRequest& q : deck.output.summary) p.add(q);
    SummaryPlan plan = p.take();
    plan.report_only = deck.output.summary_report_only;
    return plan;
}

std::string summary_path(const std::string& h5_path) {
    return fs::path(h5_path).replace_extension(".csv").string();
}

void SummaryTable::sample(const sim::Simulator& sim, const grid::RockFields& rock) {
    if (plan_.state_values == 0) return;
    // FPR: 32 bytes from a GPU; the rest needs the cells on the host.
    bool pressure = false, field = false, regions = false, cells = false;
    for (const SummaryColumn& c : plan_.columns) {
        if (c.state < 0) continue;
        const bool whole = c.keyword[0] == 'F' || (c.keyword[0] == 'R' && c.region < 0);
        const bool mean = whole && c.keyword.substr(1) == "PR";
        pressure = pressure || mean;
        field = field || (whole && !mean);
        regions = regions || (c.keyword[0] == 'R' && c.region >= 0);
        cells = cells || c.keyword[0] == 'B';
    }
    const double fpr = pressure ? sim.mean_hydrocarbon_pressure() : kNan;
    const grid::CellState* x = field || regions || cells ? &sim.state().cells : nullptr;
    const grid::TwoPhaseCells& model = sim.system().cells();
    const sim::InPlace whole = field ? sim::fluid_in_place(model, *x) : sim::InPlace{};
    const std::vector<sim::InPlace> parts =
        regions ? sim::fluid_in_place(model, *x, rock.fip_region, rock.num_fip_regions())
                : std::vector<sim::InPlace>{};
    const std::size_t at = samples_.size();
    samples_.resize(at + static_cast<std::size_t>(plan_.state_values), kNan);
    for (const SummaryColumn& c : plan_.columns) {
        if (c.state < 0) continue;
        const std::string& k = c.keyword;
        const std::string what = k.substr(1);  // PR, OIP, WIP, RPV; a cell's PR, WSAT, OSAT
        double v = kNan;
        if (k[0] == 'B') {
            const auto m = static_cast<std::size_t>(c.cell);
            v = what == "PR" ? x->p[m] : what == "WSAT" ? x->sw[m] : 1.0 - x->sw[m];
        } else if (c.region < 0 && what == "PR") {
            v = fpr;
        } else {
            const sim::InPlace& g =
                c.region >= 0 ? parts[static_cast<std::size_t>(c.region)] : whole;
            v = what == "PR"    ? g.pressure
                : what == "OIP" ? g.oil
                : what == "WIP" ? g.water
                                : g.pore_volume;
        }
        samples_[at + static_cast<std::size_t>(c.state)] = v;
    }
}

void SummaryTable::restore(const std::vector<std::string>& names, const std::vector<double>& values,
                           std::size_t steps) {
    const std::size_t n = static_cast<std::size_t>(plan_.state_values);
    samples_.assign(steps * n, kNan);
    if (names.empty() || values.size() != steps * names.size()) return;
    for (const SummaryColumn& c : plan_.columns) {
        if (c.state < 0) continue;
        const auto it = std::find(names.begin(), names.end(), c.name);
        if (it == names.end()) continue;
        const std::size_t from = static_cast<std::size_t>(it - names.begin());
        for (std::size_t s = 0; s < steps; ++s) {
            samples_[s * n + static_cast<std::size_t>(c.state)] = values[s * names.size() + from];
        }
    }
}

std::vector<std::vector<double>> SummaryTable::rows(const Deck& deck,
                                                    const sim::Simulator& sim) const {
    const UnitFactors u = unit_factors(deck.units);
    const double volume_unit = u.rate * units::kDay;  // m^3 per deck volume unit
    const auto& steps = sim.steps();
    const std::size_t n = steps.size(), width = plan_.columns.size();
    const std::size_t states = static_cast<std::size_t>(plan_.state_values);
    // All steps' values, column by column (the totals run over the steps).
    std::vector<std::vector<double>> table(n, std::vector<double>(width + 1, kNan));
    for (std::size_t s = 0; s < n; ++s) table[s][0] = steps[s].time / units::kDay;
    const std::vector<FieldStep> field = field_history(sim);
    const auto& specs = sim.system().wells().specs();
    for (std::size_t col = 0; col < width; ++col) {
        const SummaryColumn& c = plan_.columns[col];
        const std::string& k = c.keyword;
        const bool injector = k[0] == 'W' && specs[c.well].type == wells::WellType::injector;
        std::vector<WellObservation> observed;
        if (k.size() == 5 && k.back() == 'H') observed = observed_history(deck, sim, c.well);
        double oil_total = 0.0, water_total = 0.0, wall = 0.0;
        long long newton = 0, linear = 0;
        for (std::size_t s = 0; s < n; ++s) {
            const sim::StepRecord& r = steps[s];
            double v = kNan;
            if (c.state >= 0) {
                const std::size_t at = s * states + static_cast<std::size_t>(c.state);
                const double x = at < samples_.size() ? samples_[at] : kNan;
                const std::string what = k.substr(1);
                v = k == "BWSAT" || k == "BOSAT" ? x
                    : what == "PR"               ? x / u.pressure
                                                 : x / volume_unit;
            } else if (k[0] == 'F') {
                const FieldStep& f = field[s];
                v = k == "FOPR"   ? f.oil_rate / u.rate
                    : k == "FWPR" ? f.water_rate / u.rate
                    : k == "FWIR" ? f.injection_rate / u.rate
                    : k == "FLPR" ? (f.oil_rate + f.water_rate) / u.rate
                    : k == "FOPT" ? f.oil_total / volume_unit
                    : k == "FWPT" ? f.water_total / volume_unit
                    : k == "FWIT" ? f.injection_total / volume_unit
                    : k == "FLPT" ? (f.oil_total + f.water_total) / volume_unit
                                  : f.water_cut();
            } else if (k[0] == 'W' && k.back() == 'H') {  // observed (design decision 90)
                const WellObservation o =
                    observed.empty() ? WellObservation{c.well, 0.0, kNan, kNan, kNan} : observed[s];
                v = k == "WBHPH"   ? o.bhp / u.pressure
                    : k == "WOPRH" ? (injector ? 0.0 : o.oil / u.rate)
                    : k == "WWPRH" ? (injector ? 0.0 : o.water / u.rate)
                                   : (injector ? injected(o.water) / u.rate : 0.0);
            } else if (k[0] == 'W') {
                // Production as /wells has it (> 0; a cross-flowing producer's < 0), an
                // injector's water as injected (> 0), Eclipse's signs.
                const wells::WellRates& q = r.rates[c.well];
                const double oil = injector ? 0.0 : q.oil, water = injector ? 0.0 : q.water;
                const double inj = injector ? injected(q.water) : 0.0;
                oil_total += oil * r.dt;
                water_total += (injector ? inj : water) * r.dt;
                const double liquid = oil + water;
                v = k == "WOPR"   ? oil / u.rate
                    : k == "WWPR" ? water / u.rate
                    : k == "WWIR" ? inj / u.rate
                    : k == "WLPR" ? liquid / u.rate
                    : k == "WOPT" ? oil_total / volume_unit
                    : k == "WWPT" ? (injector ? 0.0 : water_total / volume_unit)
                    : k == "WWIT" ? (injector ? water_total / volume_unit : 0.0)
                    : k == "WLPT" ? (injector ? 0.0 : (oil_total + water_total) / volume_unit)
                    : k == "WWCT" ? (liquid > 0.0 && water > 0.0 ? water / liquid : 0.0)
                                  : r.bhp[c.well] / u.pressure;
            } else {  // the run's
                newton += r.newton_iterations;
                linear += r.linear_iterations;
                wall += r.assembly_seconds + r.linear_setup_seconds + r.linear_solve_seconds +
                        r.other_seconds;
                v = k == "YEARS"      ? r.time / (365.25 * units::kDay)
                    : k == "TIMESTEP" ? r.dt / units::kDay
                    : k == "NEWTON"   ? r.newton_iterations
                    : k == "MLINEARS" ? static_cast<double>(r.linear_iterations)
                    : k == "NLINEARS"
                        ? (r.newton_iterations > 0
                               ? static_cast<double>(r.linear_iterations) / r.newton_iterations
                               : 0.0)
                    : k == "MSUMNEWT" ? static_cast<double>(newton)
                    : k == "MSUMLINS" ? static_cast<double>(linear)
                                      : wall;  // TCPU, ELAPSED: the steps' wall time
            }
            table[s][col + 1] = v;
        }
    }
    if (!plan_.report_only) return table;
    std::vector<std::vector<double>> reports;
    const std::vector<double>& times = deck.schedule.report_times;
    for (std::size_t s = 0; s < n; ++s) {
        if (std::binary_search(times.begin(), times.end(), steps[s].time)) {
            reports.push_back(std::move(table[s]));
        }
    }
    return reports;
}

void SummaryTable::write(h5::File& f, const Deck& deck, const sim::Simulator& sim) const {
    if (empty()) return;
    const std::vector<std::vector<double>> t = rows(deck, sim);
    const hsize_t n = t.size();
    f.group("/summary");
    f.attr("/summary", "rows",
           std::string(plan_.report_only ? "report times" : "accepted time steps"));
    const auto series = [&](std::size_t col) {
        std::vector<double> out;
        out.reserve(t.size());
        for (const auto& row : t) out.push_back(row[col]);
        return out;
    };
    f.write("/summary/TIME", series(0), {n}, "day");
    if (!std::isnan(deck.start_day)) {
        f.attr("/summary", "start_date", calendar::iso_date(deck.start_day));  // TIME 0's
    }
    for (std::size_t col = 0; col < plan_.columns.size(); ++col) {
        const SummaryColumn& c = plan_.columns[col];
        f.write("/summary/" + c.name, series(col + 1), {n}, c.unit);
    }
    if (plan_.state_values == 0) return;
    // Every step's samples, SI, for a restart (the rows above may be the report times').
    std::string names;
    for (const SummaryColumn& c : plan_.columns) {
        if (c.state >= 0) names += (names.empty() ? "" : "\n") + c.name;
    }
    std::vector<double> all = samples_;
    const std::size_t width = static_cast<std::size_t>(plan_.state_values);
    all.resize(sim.steps().size() * width, kNan);
    f.write("/restart/summary_state", all, {sim.steps().size(), width});
    f.attr("/restart/summary_state", "columns", names);
}

void SummaryTable::write_csv(const std::string& path, const Deck& deck,
                             const sim::Simulator& sim) const {
    if (empty()) return;
    AtomicOutput out(path);
    {
        std::ofstream csv(out.temp_path());
        csv << "# heptane simulate " << deck.path << ": the summary, one row per "
            << (plan_.report_only ? "report time" : "accepted time step") << "\n# units: TIME day";
        const bool dated = !std::isnan(deck.start_day);  // a DATE column after TIME
        if (dated) csv << ", DATE ISO 8601";
        for (const SummaryColumn& c : plan_.columns) csv << ", " << c.name << ' ' << c.unit;
        csv << (dated ? "\nTIME,DATE" : "\nTIME");  // a cell's key (BPR:1,2,3) quoted
        for (const SummaryColumn& c : plan_.columns) {
            const bool comma = c.name.find(',') != std::string::npos;
            csv << ',' << (comma ? "\"" + c.name + "\"" : c.name);
        }
        csv << '\n';
        for (const std::vector<double>& row : rows(deck, sim)) {
            for (std::size_t col = 0; col < row.size(); ++col) {
                csv << (col == 0 ? "" : ",") << number(row[col]);
                if (col == 0 && dated) csv << ',' << calendar::iso_date(deck.start_day + row[0]);
            }
            csv << '\n';
        }
        csv.flush();
        if (!csv) throw Error("cannot write '" + out.temp_path() + "'");
    }
    out.commit();
}

}  // namespace heptane::app
