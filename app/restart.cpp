#include "app/restart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <limits>

#include "core/base/errors.hpp"
#include "core/base/units.hpp"

namespace heptane::app {
namespace {

constexpr const char* kGroup = "/restart";

/// %.6g days.
std::string day_text(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", seconds / units::kDay);
    return text;
}

std::string joined_names(const std::vector<wells::WellSpec>& wells) {
    std::string s;
    for (const wells::WellSpec& w : wells) s += (s.empty() ? "" : "\n") + w.name;
    return s;
}

template <class T, class F>
std::vector<double> column(const std::vector<T>& rows, F f) {
    std::vector<double> out;
    out.reserve(rows.size());
    for (const T& r : rows) out.push_back(static_cast<double>(f(r)));
    return out;
}

/// Reads the file's datasets and attributes with errors that name the file and the path.
class Reader {
  public:
    explicit Reader(const std::string& path) : file_(h5::File::open(path)), path_(path) {}
    [[noreturn]] void fail(const std::string& where, const std::string& what) const {
        throw InputError(path_ + ": " + where, what);
    }
    bool exists(const std::string& p) const { return file_.exists(p); }
    /// A dataset of exactly n values.
    std::vector<double> values(const std::string& p, std::size_t n) const {
        if (!file_.exists(p)) fail(p, "missing (the file is not a complete heptane checkpoint)");
        h5::Dataset d = file_.read(p);
        if (d.values.size() != n) {
            fail(p, std::to_string(d.values.size()) + " values, expected " + std::to_string(n));
        }
        return std::move(d.values);
    }
    double number(const std::string& object, const std::string& name) const {
        return file_.attr_double(object, name);
    }
    /// A whole number attribute in [lo, hi].
    long long count(const std::string& object, const std::string& name, long long lo,
                    long long hi) const {
        const double v = number(object, name);
        if (!(v >= static_cast<double>(lo) && v <= static_cast<double>(hi)) || v != std::floor(v)) {
            fail(object + "@" + name,
                 "is not a whole number in " + std::to_string(lo) + ".." + std::to_string(hi));
        }
        return static_cast<long long>(v);
    }
    std::string text(const std::string& object, const std::string& name) const {
        return file_.attr_string(object, name);
    }
    const h5::File& file() const { return file_; }

  private:
    h5::File file_;
    std::string path_;
};

/// A control kind in a checkpoint: 0 bhp, 1 rate (the liquid's), 2 oil_rate, 3 water_rate,
/// 4 reservoir_rate.
constexpr wells::ControlKind kKinds[] = {
    wells::ControlKind::bhp, wells::ControlKind::rate, wells::ControlKind::oil_rate,
    wells::ControlKind::water_rate, wells::ControlKind::reservoir_rate};

wells::ControlKind control_kind(const Reader& r, const std::string& where, double code) {
    for (int c = 0; c < 5; ++c) {
        if (code == c) return kKinds[c];
    }
    r.fail(where,
           "a control kind is 0 (bhp), 1 (rate), 2 (oil_rate), 3 (water_rate) or 4 "
           "(reservoir_rate)");
}

/// A checkpoint's VoidageOf: its oil and water rates, NaN where not given.
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
double voidage_oil(const wells::VoidageOf& v) { return v.given ? v.oil : kNone; }
double voidage_water(const wells::VoidageOf& v) { return v.given ? v.water : kNone; }
wells::VoidageOf voidage_of(double oil, double water) {
    if (std::isnan(oil) && std::isnan(water)) return {};
    return {true, oil, water};
}
bool same_or_both_nan(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

bool flag(const Reader& r, const std::string& where, double v) {
    if (v != 0.0 && v != 1.0) r.fail(where, "a flag is 0 or 1");
    return v == 1.0;
}

double kind_code(wells::ControlKind k) {
    return static_cast<double>(std::find(std::begin(kKinds), std::end(kKinds), k) - kKinds);
}

void read_steps(const Reader& r, std::size_t nw, sim::Checkpoint& c) {
    const std::string g = std::string(kGroup) + "/steps";
    const auto n = static_cast<std::size_t>(r.count(kGroup, "steps", 0, 1LL << 40));
    const auto v = [&](const char* name, std::size_t per = 1) {
        return r.values(g + "/" + name, n * per);
    };
    const std::vector<double> step = v("step"), time = v("time"), dt = v("dt"),
                              newton = v("newton_iterations"), linear = v("linear_iterations"),
                              cuts = v("cuts"), cnv = v("cnv", 2), mb = v("mb", 2),
                              well = v("well"), finite = v("finite"),
                              assembly = v("assembly_seconds"), setup = v("linear_setup_seconds"),
                              solve = v("linear_solve_seconds"), other = v("other_seconds"),
                              rates = v("rates", 2 * nw), bhp = v("bhp", nw),
                              open = v("control_open", nw), kind = v("control_kind", nw),
                              target = v("control_target", nw);
    c.steps.resize(n);
    for (std::size_t s = 0; s < n; ++s) {
        sim::StepRecord& rec = c.steps[s];
        rec.step = static_cast<int>(step[s]);
        if (rec.step != static_cast<int>(s)) r.fail(g + "/step", "the steps are not 0, 1, 2, ...");
        rec.time = time[s];
        rec.dt = dt[s];
        rec.newton_iterations = static_cast<int>(newton[s]);
        rec.linear_iterations = static_cast<long long>(linear[s]);
        rec.cuts = static_cast<int>(cuts[s]);
        rec.convergence.cnv = {cnv[2 * s], cnv[2 * s + 1]};
        rec.convergence.mb = {mb[2 * s], mb[2 * s + 1]};
        rec.convergence.well = well[s];
        rec.convergence.finite = flag(r, g + "/finite", finite[s]);
        rec.assembly_seconds = assembly[s];
        rec.linear_setup_seconds = setup[s];
        rec.linear_solve_seconds = solve[s];
        rec.other_seconds = other[s];
        for (std::size_t w = 0; w < nw; ++w) {
            const std::size_t i = s * nw + w;
            rec.rates.push_back({rates[2 * i], rates[2 * i + 1]});
            rec.bhp.push_back(bhp[i]);
            rec.controls.push_back({flag(r, g + "/control_open", open[i]),
                                    control_kind(r, g + "/control_kind", kind[i]), target[i]});
        }
    }
}

void read_newton(const Reader& r, sim::Checkpoint& c) {
    const std::string g = std::string(kGroup) + "/newton";
    const auto n = static_cast<std::size_t>(r.count(kGroup, "newton_records", 0, 1LL << 40));
    const auto v = [&](const char* name) { return r.values(g + "/" + name, n); };
    const std::vector<double> attempt = v("attempt"), step = v("step"),
                              linear = v("linear_iterations"), converged = v("converged"),
                              cnv = v("cnv"), mb = v("mb"), tolerance = v("tolerance");
    c.newton.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        c.newton[i] = {static_cast<int>(attempt[i]),
                       static_cast<int>(step[i]),
                       static_cast<int>(linear[i]),
                       flag(r, g + "/converged", converged[i]),
                       cnv[i],
                       mb[i],
                       tolerance[i]};
    }
}

/// The file's report frames (/timesteps/NNNNN in name order: time order).
std::vector<ReportFrame> read_frames(const Reader& r, std::size_t cells) {
    std::vector<ReportFrame> frames;
    std::string last;
    for (const std::string& d : r.file().datasets("/timesteps")) {
        const std::string group = d.substr(0, d.rfind('/'));
        if (group == last) continue;
        last = group;
        ReportFrame f;
        f.time = r.values(group + "/time", 1)[0];
        f.dt = r.values(group + "/dt", 1)[0];
        f.steps = static_cast<int>(r.count(group, "step", 0, 1LL << 40));
        f.pressure = r.values(group + "/pressure", cells);
        f.water_saturation = r.values(group + "/water_saturation", cells);
        frames.push_back(std::move(f));
    }
    return frames;
}

}  // namespace

void write_restart(h5::File& f, const sim::Checkpoint& c, const grid::Grid3D& grid,
                   const std::vector<wells::WellSpec>& wells) {
    const std::string g = kGroup;
    const auto M = static_cast<hsize_t>(c.state.cells.p.size());
    const auto nw = static_cast<hsize_t>(wells.size());
    f.write(g + "/pressure", c.state.cells.p, {M}, "Pa");
    f.write(g + "/water_saturation", c.state.cells.sw, {M}, "1");
    f.write(g + "/bhp", c.state.p_bh, {nw}, "Pa");
    f.attr(g, "time", c.time);
    f.attr(g, "dt_next", c.dt_next);
    f.attr(g, "dt_initial", c.dt_initial);
    f.attr(g, "events", static_cast<long long>(c.events));
    f.attr(g, "attempts", static_cast<long long>(c.attempts));
    f.attr(g, "cuts", static_cast<long long>(c.cuts));
    f.attr(g, "nx", static_cast<long long>(grid.nx));
    f.attr(g, "ny", static_cast<long long>(grid.ny));
    f.attr(g, "nz", static_cast<long long>(grid.nz));
    f.attr(g, "wells", static_cast<long long>(nw));
    f.attr(g, "well_names", joined_names(wells));
    f.attr(g, "steps", static_cast<long long>(c.steps.size()));
    f.attr(g, "newton_records", static_cast<long long>(c.newton.size()));
    f.attr(g, "about",
           std::string("the state and history a run goes on from (heptane simulate --restart): "
                       "SI, times in s"));

    const std::string w = g + "/wells";
    using Well = sim::ScheduledWell;
    f.write(w + "/open", column(c.wells, [](const Well& s) { return s.open; }), {nw});
    f.write(w + "/kind", column(c.wells, [](const Well& s) { return kind_code(s.kind); }), {nw});
    f.write(w + "/target", column(c.wells, [](const Well& s) { return s.target; }), {nw});
    f.write(w + "/min_bhp", column(c.wells, [](const Well& s) { return s.min_bhp; }), {nw});
    f.write(w + "/max_bhp", column(c.wells, [](const Well& s) { return s.max_bhp; }), {nw});
    f.write(w + "/on_limit", column(c.wells, [](const Well& s) { return s.on_limit; }), {nw});
    f.write(w + "/shut_bhp", column(c.wells, [](const Well& s) { return s.shut_bhp; }), {nw});
    f.write(w + "/min_oil_rate", column(c.wells, [](const Well& s) { return s.min_oil_rate; }),
            {nw});
    f.write(w + "/max_water_cut", column(c.wells, [](const Well& s) { return s.max_water_cut; }),
            {nw});
    // Well tests (decision 88): the settings, and when the economic limits shut each well
    // (-1: not) with the tests it failed since.
    f.write(w + "/test_interval", column(c.wells, [](const Well& s) { return s.test_interval; }),
            {nw});
    f.write(w + "/test_count", column(c.wells, [](const Well& s) { return s.test_count; }), {nw});
    f.write(w + "/economic_shut_time",
            column(c.wells, [](const Well& s) { return s.economic_shut_time; }), {nw});
    f.write(w + "/tests", column(c.wells, [](const Well& s) { return s.tests; }), {nw});
    // A reservoir rate of surface rates (decision 100): those rates, NaN where not given.
    f.write(w + "/voidage_oil",
            column(c.wells, [](const Well& s) { return voidage_oil(s.voidage); }), {nw});
    f.write(w + "/voidage_water",
            column(c.wells, [](const Well& s) { return voidage_water(s.voidage); }), {nw});
    // The deck's controls and limits, which the scheduled ones above started from: a restart's
    // deck must have them (a change from there on is an event at the restart time).
    using Spec = wells::WellSpec;
    f.write(w + "/deck_kind", column(wells, [](const Spec& s) { return kind_code(s.control); }),
            {nw});
    f.write(w + "/deck_target", column(wells, [](const Spec& s) { return s.target; }), {nw});
    f.write(w + "/deck_voidage_oil",
            column(wells, [](const Spec& s) { return voidage_oil(s.voidage); }), {nw});
    f.write(w + "/deck_voidage_water",
            column(wells, [](const Spec& s) { return voidage_water(s.voidage); }), {nw});
    f.write(w + "/deck_min_bhp", column(wells, [](const Spec& s) { return s.min_bhp; }), {nw});
    f.write(w + "/deck_max_bhp", column(wells, [](const Spec& s) { return s.max_bhp; }), {nw});
    f.write(w + "/deck_min_oil_rate", column(wells, [](const Spec& s) { return s.min_oil_rate; }),
            {nw});
    f.write(w + "/deck_max_water_cut", column(wells, [](const Spec& s) { return s.max_water_cut; }),
            {nw});
    f.write(w + "/deck_test_interval", column(wells, [](const Spec& s) { return s.test_interval; }),
            {nw});
    f.write(w + "/deck_test_count", column(wells, [](const Spec& s) { return s.test_count; }),
            {nw});

    const std::string s = g + "/steps";
    const auto n = static_cast<hsize_t>(c.steps.size());
    using Step = sim::StepRecord;
    f.write(s + "/step", column(c.steps, [](const Step& r) { return r.step; }), {n});
    f.write(s + "/time", column(c.steps, [](const Step& r) { return r.time; }), {n});
    f.write(s + "/dt", column(c.steps, [](const Step& r) { return r.dt; }), {n});
    f.write(s + "/newton_iterations",
            column(c.steps, [](const Step& r) { return r.newton_iterations; }), {n});
    f.write(s + "/linear_iterations",
            column(c.steps, [](const Step& r) { return r.linear_iterations; }), {n});
    f.write(s + "/cuts", column(c.steps, [](const Step& r) { return r.cuts; }), {n});
    std::vector<double> cnv, mb, rates, bhp, open, kind, target;
    for (const Step& r : c.steps) {
        cnv.insert(cnv.end(), r.convergence.cnv.begin(), r.convergence.cnv.end());
        mb.insert(mb.end(), r.convergence.mb.begin(), r.convergence.mb.end());
        for (std::size_t k = 0; k < wells.size(); ++k) {
            rates.push_back(r.rates[k].oil);
            rates.push_back(r.rates[k].water);
            bhp.push_back(r.bhp[k]);
            open.push_back(r.controls[k].open ? 1.0 : 0.0);
            kind.push_back(kind_code(r.controls[k].kind));
            target.push_back(r.controls[k].target);
        }
    }
    f.write(s + "/cnv", cnv, {n, 2});
    f.write(s + "/mb", mb, {n, 2});
    f.write(s + "/well", column(c.steps, [](const Step& r) { return r.convergence.well; }), {n});
    f.write(s + "/finite", column(c.steps, [](const Step& r) { return r.convergence.finite; }),
            {n});
    f.write(s + "/assembly_seconds",
            column(c.steps, [](const Step& r) { return r.assembly_seconds; }), {n}, "s");
    f.write(s + "/linear_setup_seconds",
            column(c.steps, [](const Step& r) { return r.linear_setup_seconds; }), {n}, "s");
    f.write(s + "/linear_solve_seconds",
            column(c.steps, [](const Step& r) { return r.linear_solve_seconds; }), {n}, "s");
    f.write(s + "/other_seconds", column(c.steps, [](const Step& r) { return r.other_seconds; }),
            {n}, "s");
    f.write(s + "/rates", rates, {n, nw, 2}, "m3/s");
    f.write(s + "/bhp", bhp, {n, nw}, "Pa");
    f.write(s + "/control_open", open, {n, nw});
    f.write(s + "/control_kind", kind, {n, nw});
    f.write(s + "/control_target", target, {n, nw});

    const std::string q = g + "/newton";
    const auto nn = static_cast<hsize_t>(c.newton.size());
    using Newton = sim::NewtonRecord;
    f.write(q + "/attempt", column(c.newton, [](const Newton& r) { return r.attempt; }), {nn});
    f.write(q + "/step", column(c.newton, [](const Newton& r) { return r.step; }), {nn});
    f.write(q + "/linear_iterations",
            column(c.newton, [](const Newton& r) { return r.linear_iterations; }), {nn});
    f.write(q + "/converged", column(c.newton, [](const Newton& r) { return r.converged; }), {nn});
    f.write(q + "/cnv", column(c.newton, [](const Newton& r) { return r.cnv; }), {nn});
    f.write(q + "/mb", column(c.newton, [](const Newton& r) { return r.mb; }), {nn});
    f.write(q + "/tolerance", column(c.newton, [](const Newton& r) { return r.tolerance; }), {nn});
}

RestartFile read_restart(const std::string& path, const Deck& deck, const grid::Grid3D& grid) {
    const Reader r(path);
    if (!r.exists(kGroup)) {
        r.fail(kGroup, "missing: --restart takes a file written by heptane simulate");
    }
    const std::string units = deck.units == UnitSystem::field ? "field" : "metric";
    if (r.text("/", "unit_system") != units) {
        r.fail("/@unit_system", "'" + r.text("/", "unit_system") + "', this deck's is '" + units +
                                    "': the file's fields are kept in its units");
    }
    const int dims[3] = {grid.nx, grid.ny, grid.nz};
    const char* axis[3] = {"nx", "ny", "nz"};
    for (int d = 0; d < 3; ++d) {
        if (r.number(kGroup, axis[d]) != dims[d]) {
            r.fail(std::string(kGroup) + "@" + axis[d],
                   "the file's grid is " + std::to_string(r.count(kGroup, "nx", 1, 1LL << 31)) +
                       " x " + std::to_string(r.count(kGroup, "ny", 1, 1LL << 31)) + " x " +
                       std::to_string(r.count(kGroup, "nz", 1, 1LL << 31)) + ", this deck's " +
                       std::to_string(grid.nx) + " x " + std::to_string(grid.ny) + " x " +
                       std::to_string(grid.nz));
        }
    }
    const std::vector<wells::WellSpec>& specs = deck.model.wells;
    if (r.text(kGroup, "well_names") != joined_names(specs)) {
        r.fail(std::string(kGroup) + "@well_names",
               "the file's wells differ from this deck's (the same wells, in the same order)");
    }
    const std::size_t M = static_cast<std::size_t>(grid.num_cells()), nw = specs.size();

    RestartFile out;
    out.path = path;
    sim::Checkpoint& c = out.checkpoint;
    c.time = r.number(kGroup, "time");
    c.dt_next = r.number(kGroup, "dt_next");
    c.dt_initial = r.number(kGroup, "dt_initial");
    if (!(c.time >= 0.0) || !std::isfinite(c.time)) {
        r.fail(std::string(kGroup) + "@time", "not a time");
    }
    if (!(c.dt_next > 0.0) || !std::isfinite(c.dt_next)) {
        r.fail(std::string(kGroup) + "@dt_next", "not a step length");
    }
    c.events = static_cast<int>(r.count(kGroup, "events", 0, 1LL << 30));
    c.attempts = static_cast<int>(r.count(kGroup, "attempts", 0, 1LL << 30));
    c.cuts = static_cast<int>(r.count(kGroup, "cuts", 0, 1LL << 30));
    const std::string g = kGroup;
    c.state.cells.p = r.values(g + "/pressure", M);
    c.state.cells.sw = r.values(g + "/water_saturation", M);
    c.state.p_bh = r.values(g + "/bhp", nw);
    const auto v = [&](const char* name) { return r.values(g + "/wells/" + name, nw); };
    // Economic limits (decision 86) and well tests (88): a file from before them has none
    // (zeros; no economic shut: -1).
    const auto v_or = [&](const char* name, double none) {
        return r.exists(g + "/wells/" + name) ? v(name) : std::vector<double>(nw, none);
    };
    const auto v_or_none = [&](const char* name) { return v_or(name, 0.0); };
    const std::vector<double> open = v("open"), kind = v("kind"), target = v("target"),
                              min_bhp = v("min_bhp"), max_bhp = v("max_bhp"),
                              on_limit = v("on_limit"), shut_bhp = v("shut_bhp"),
                              min_oil_rate = v_or_none("min_oil_rate"),
                              max_water_cut = v_or_none("max_water_cut"),
                              test_interval = v_or_none("test_interval"),
                              test_count = v_or_none("test_count"),
                              economic_shut_time = v_or("economic_shut_time", -1.0),
                              tests = v_or_none("tests"), void_oil = v_or("voidage_oil", kNone),
                              void_water = v_or("voidage_water", kNone);
    for (std::size_t w = 0; w < nw; ++w) {
        sim::ScheduledWell s;
        s.open = flag(r, g + "/wells/open", open[w]);
        s.kind = control_kind(r, g + "/wells/kind", kind[w]);
        s.target = target[w];
        s.min_bhp = min_bhp[w];
        s.max_bhp = max_bhp[w];
        s.on_limit = flag(r, g + "/wells/on_limit", on_limit[w]);
        s.shut_bhp = shut_bhp[w];
        s.min_oil_rate = min_oil_rate[w];
        s.max_water_cut = max_water_cut[w];
        s.test_interval = test_interval[w];
        s.test_count = static_cast<int>(test_count[w]);
        s.economic_shut_time = economic_shut_time[w];
        s.tests = static_cast<int>(tests[w]);
        s.voidage = voidage_of(void_oil[w], void_water[w]);
        c.wells.push_back(s);
    }
    // The deck's well controls and limits must be the earlier run's (the file's scheduled
    // controls replace them: a changed one would be ignored).
    const std::vector<double> deck_kind = v("deck_kind"), deck_target = v("deck_target"),
                              deck_min = v("deck_min_bhp"), deck_max = v("deck_max_bhp"),
                              deck_oil = v_or_none("deck_min_oil_rate"),
                              deck_cut = v_or_none("deck_max_water_cut"),
                              deck_interval = v_or_none("deck_test_interval"),
                              deck_count = v_or_none("deck_test_count"),
                              deck_void_oil = v_or("deck_voidage_oil", kNone),
                              deck_void_water = v_or("deck_voidage_water", kNone);
    for (std::size_t w = 0; w < nw; ++w) {
        const wells::WellSpec& s = specs[w];
        const bool voidage_differs =
            !same_or_both_nan(voidage_oil(s.voidage), deck_void_oil[w]) ||
            !same_or_both_nan(voidage_water(s.voidage), deck_void_water[w]);
        const char* key =
            kind_code(s.control) != deck_kind[w] || s.target != deck_target[w] || voidage_differs
                ? "control"
            : s.min_bhp != deck_min[w]            ? "min_bhp"
            : s.max_bhp != deck_max[w]            ? "max_bhp"
            : s.min_oil_rate != deck_oil[w]       ? "min_oil_rate"
            : s.max_water_cut != deck_cut[w]      ? "max_water_cut"
            : s.test_interval != deck_interval[w] ? "test_interval"
            : s.test_count != deck_count[w]       ? "test_count"
                                                  : nullptr;
        if (key != nullptr) {
            deck.rethrow_located(InputError(
                "wells[" + std::to_string(w) + "]." + key,
                "differs from the run of " + path +
                    " (a restart goes on with that run's controls and limits; change them "
                    "with a schedule event at the restart time, day " +
                    day_text(c.time) + ")"));
        }
    }
    read_steps(r, nw, c);
    read_newton(r, c);
    out.frames = read_frames(r, M);
    const char* summary = "/restart/summary_state";
    if (r.exists(summary)) {
        const std::string names = r.text(summary, "columns");
        for (std::size_t b = 0; b <= names.size();) {
            const std::size_t e = std::min(names.find('\n', b), names.size());
            out.summary_columns.push_back(names.substr(b, e - b));
            b = e + 1;
        }
        out.summary_state = r.values(summary, c.steps.size() * out.summary_columns.size());
    }
    const std::string log = r.exists("/simulation") ? r.text("/simulation", "log") : "";
    for (std::size_t b = 0; b < log.size();) {
        const std::size_t e = log.find('\n', b);
        out.log.push_back(log.substr(b, e == std::string::npos ? e : e - b));
        b = e == std::string::npos ? log.size() : e + 1;
    }
    return out;
}

}  // namespace heptane::app
