#include "app/deck.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/deck_fluid.hpp"
#include "app/deck_initial.hpp"
#include "app/deck_output.hpp"
#include "app/deck_overrides.hpp"
#include "app/deck_schedule.hpp"
#include "app/report.hpp"
#include "core/base/random.hpp"
#include "core/base/text.hpp"
#include "core/base/units.hpp"
#include "core/krylov/capabilities.hpp"
#include "core/matrix/matrix_market.hpp"
#include "grid/eclipse_props.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;

/// Rng stream of `rhs: random`: beyond the streams of promote_to_bsr's blocks (row x cols +
/// col < 2^62 with 32-bit sizes), so the rhs does not repeat a block's values.
constexpr std::uint64_t kRhsStream = 1ULL << 63;

/// Reads a deck: one member function per section, in dependency order.
class DeckReader {
  public:
    DeckReader(Deck& deck, const fs::path& dir) : deck_(deck), dir_(dir) {}

    void read(const Value& root) {
        Mapping top(root);
        if (auto v = top.optional("title")) deck_.title = v->string();
        if (auto v = top.optional("units")) {
            deck_.units =
                v->choice({"field", "metric"}) == 0 ? UnitSystem::field : UnitSystem::metric;
        }
        u_ = unit_factors(deck_.units);
        if (auto v = top.optional("system")) {
            read_system(*v);
            // A matrix deck has no model: its sections would be silently ignored.
            for (const char* key : {"grid", "rock", "fluid", "wells", "initial", "timestep"}) {
                if (auto x = top.optional(key)) {
                    x->fail("a deck with `system` (a matrix) has no " + std::string(key) +
                            " section; give either a matrix or a grid model");
                }
            }
            if (auto x = top.optional("solver")) read_solver(*x);
            read_output(top.optional("output"), deck_);
            top.finish();
            return;
        }
        read_grid(top.required("grid"));
        const Value fluid = top.required("fluid");
        read_fluid(fluid);
        read_rock(top.optional("rock"));
        if (auto v = top.optional("wells")) {
            read_wells(*v, deck_, u_, top.optional("schedule").has_value());
        }
        read_initial(top.optional("initial"), model(), u_,
                     [this](const Value& f) { return resolve_existing(f); });
        const std::optional<Value> schedule = top.optional("schedule");
        if (auto v = top.optional("timestep")) {
            if (schedule) {
                v->fail(
                    "a deck with a schedule takes its time steps from schedule (dt_initial, "
                    "dt_max, ...); remove the timestep section");
            }
            Mapping m(*v);
            if (auto dt = m.optional("dt")) deck_.model.dt = dt->number() * units::kDay;
            m.finish();
        }
        if (auto v = top.optional("solver")) read_solver(*v);
        if (schedule) {
            read_schedule(*schedule, deck_, u_,
                          [this](const Value& f) { return resolve_existing(f); });
        }
        read_output(top.optional("output"), deck_);
        top.finish();
    }

  private:
    wells::ModelSpec& model() { return deck_.model; }

    void read_grid(const Value& v) {
        Mapping m(v);
        const Value dims_v = m.required("dims");
        const auto dims = dims_v.integers(3);
        grid::Grid3D& g = model().grid;
        g.nx = to_int(dims_v, dims[0]);
        g.ny = to_int(dims_v, dims[1]);
        g.nz = to_int(dims_v, dims[2]);
        grid::EclipseGridSpec& files = model().eclipse;
        files = grid::EclipseGridSpec{};
        if (auto e = m.optional("eclipse")) {
            // One file or a list, read in order as one GRID section (relative to the deck).
            const std::vector<Value> list =
                e->is_sequence() ? e->elements() : std::vector<Value>{*e};
            if (list.empty()) e->fail("give a file or a list of files");
            for (const Value& f : list) files.files.push_back(resolve_existing(f));
            files.length_unit = u_.length;
        }
        // With grid.eclipse, DX/DY/DZ and TOPS may come from the files instead.
        const std::optional<Value> size_v =
            files.empty() ? std::optional<Value>(m.required("cell_size")) : m.optional("cell_size");
        files.has_cell_size = size_v.has_value();
        const auto size = size_v ? size_v->numbers(3) : std::vector<double>{1.0, 1.0, 1.0};
        g.dx = size[0] * u_.length;
        g.dy = size[1] * u_.length;
        g.dz = size[2] * u_.length;
        if (auto d = m.optional("depth")) {
            g.top_depth = d->number() * u_.length;
            files.has_depth = true;
        }
        m.finish();
        g.validate();
    }

    void read_system(const Value& v) {
        Mapping m(v);
        MatrixSystemSpec& s = deck_.system;
        s.present = true;
        s.matrix = resolve_existing(m.required("matrix"));
        if (auto x = m.optional("block_size")) {
            const long long bs = x->integer();
            if (bs < 1 || bs > kMaxPromotedBlockSize) {
                x->fail(std::to_string(bs) + " is outside 1.." +
                        std::to_string(kMaxPromotedBlockSize));
            }
            s.block_size = static_cast<int>(bs);
        }
        if (auto x = m.optional("seed")) {
            const long long seed = x->integer();
            if (seed < 0) x->fail("must be >= 0");
            s.seed = static_cast<std::uint64_t>(seed);
        }
        if (auto x = m.optional("rhs")) {
            const std::string r = x->string();
            if (r == "ones") {
                s.rhs = RhsKind::ones;
            } else if (r == "random") {
                s.rhs = RhsKind::random;
            } else if (is_mtx(r)) {
                s.rhs = RhsKind::file;
                s.rhs_file = resolve_existing(*x);
            } else {
                x->fail(quote_input(r) +
                        " is not allowed: ones, random or a MatrixMarket vector file (*.mtx)");
            }
        }
        m.finish();
    }

    static bool is_mtx(const std::string& name) {
        std::string ext = fs::path(name).extension().string();
        for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return ext == ".mtx";
    }

    /// resolve(), and the file must exist (checked here, so the error points at the key).
    std::string resolve_existing(const Value& v) const {
        const std::string path = resolve(v);
        std::error_code ec;
        if (!fs::is_regular_file(path, ec)) v.fail("no such file '" + path + "'");
        return path;
    }

    void read_fluid(const Value& v) {
        Mapping m(v);
        const bool synthetic = m.required("model").choice({"two_phase", "synthetic"}) == 1;
        model().model = synthetic ? wells::FluidModel::synthetic : wells::FluidModel::two_phase;
        if (synthetic) {
            grid::SyntheticParams& p = model().synthetic;
            const Value k = m.required("components");
            p.components = to_int(k, k.integer());
            if (auto d = m.optional("diagonal_dominance")) p.diagonal_dominance = d->number();
            if (auto s = m.optional("seed")) p.seed = static_cast<std::uint64_t>(s->integer());
        } else {
            grid::TwoPhaseParams& p = model().two_phase;
            if (auto k = m.optional("components"); k && k->integer() != 2) {
                k->fail("two_phase has K = 2 components (p_o, S_w)");
            }
            if (auto e = m.optional("eclipse")) {  // the deck's PROPS (design decision 75)
                for (const char* key : {"oil", "water", "relperm", "reference_pressure"}) {
                    if (auto x = m.optional(key)) {
                        x->fail("fluid.eclipse's file gives the fluid: remove this key");
                    }
                }
                const std::string path = resolve_existing(*e);
                try {
                    p = grid::read_eclipse_fluid(path, {u_.pressure, u_.density, u_.length}, p,
                                                 &model().relperm_regions, &model().notes);
                } catch (const InputError& err) {
                    e->fail(err.detail());
                }
                fluid_file_ = true;
            }
            const grid::FluidUnits units{u_.pressure, u_.density, u_.length};
            if (auto o = m.optional("oil")) read_phase(*o, p.oil, &p.oil_pvt, units);
            if (auto w = m.optional("water")) read_phase(*w, p.water, nullptr, units);
            if (auto r = m.optional("relperm")) {
                read_relperm_regions(*r, p.relperm, model().relperm_regions, units,
                                     [this](const Value& f) { return resolve_existing(f); });
            }
            if (auto r = m.optional("reference_pressure"))
                p.reference_pressure = r->number() * u_.pressure;
            if (auto g = m.optional("gravity"); g && !g->boolean()) p.gravity = 0.0;
        }
        m.finish();
    }

    void read_rock(const std::optional<Value>& v) {
        grid::FieldSpec& perm = model().permeability;
        grid::FieldSpec& poro = model().porosity;
        perm = grid::FieldSpec{};
        perm.key = "rock.permeability";
        perm.value = {100.0, 100.0, 100.0};
        poro = grid::FieldSpec{};
        poro.key = "rock.porosity";
        poro.value = {0.2, 0.0, 0.0};
        const bool needed = model().model == wells::FluidModel::two_phase;
        // Defaults stand in where the deck gives nothing; grid.eclipse files may give them.
        perm.defaulted = poro.defaulted = true;
        perm.required = poro.required = needed;
        const bool files = !model().eclipse.empty();
        if (!v) {
            if (needed && !files) throw InputError("rock", "is required for fluid.model two_phase");
            return;
        }
        Mapping m(*v);
        if (needed && !files) {
            perm = read_field(m.required("permeability"), true);
            poro = read_field(m.required("porosity"), false);
        } else {
            if (auto p = m.optional("permeability")) perm = read_field(*p, true);
            if (auto p = m.optional("porosity")) poro = read_field(*p, false);
        }
        // Design decisions 87, 89 and 92.
        read_regions(m, "saturation_regions", "saturation regions", "SATNUM", needed,
                     model().saturation_regions);
        read_regions(m, "fip_regions", "fluid in place", "FIPNUM", needed, model().fip_regions);
        read_regions(m, "equilibration_regions", "initial state", "EQLNUM", needed,
                     model().equilibration_regions);
        if (auto e = m.optional("end_points")) read_end_points(*e, needed);
        if (auto w = m.optional("swatinit")) {  // design decision 97
            if (!needed) w->fail("the synthetic model has no initial state");
            model().swatinit = read_saturation_field(*w, "SWATINIT");
        }
        if (auto c = m.optional("compressibility")) {
            if (fluid_file_) c->fail("fluid.eclipse's ROCK gives it: remove this key");
            model().two_phase.rock_compressibility = c->number() / u_.pressure;
        }
        m.finish();
    }

    /// rock.<name>: a region field (a number, layered, or an Eclipse file's `keyword`) of
    /// the two-phase model (`two_phase`), which the synthetic model has no `what` for.
    void read_regions(Mapping& m, const char* name, const char* what, const char* keyword,
                      bool two_phase, grid::FieldSpec& f) {
        auto r = m.optional(name);
        if (!r) return;
        if (!two_phase) r->fail(std::string("the synthetic model has no ") + what);
        if (r->is_sequence()) r->fail("give a region number or a field mapping");
        f = read_field(*r, false);
        if (f.kind != grid::FieldKind::uniform && f.kind != grid::FieldKind::layered &&
            f.kind != grid::FieldKind::eclipse) {
            Mapping(*r).required("kind").fail(
                std::string("a region field is a number, layered or eclipse (its ") + keyword +
                ")");
        }
    }

    /// rock.end_points (design decisions 95, 98): swl, swcr, swu, sowcr, krw, kro, pcw, each a
    /// number, layered or an Eclipse file's keyword (SWL ...); pcw in the deck's pressure unit.
    void read_end_points(const Value& v, bool two_phase) {
        if (!two_phase) v.fail("the synthetic model has no saturation tables");
        Mapping m(v);
        for (std::size_t q = 0; q < grid::kEndPointKeywords.size(); ++q) {
            auto f = m.optional(grid::kEndPointKeys[q]);
            if (!f) continue;
            model().end_points[q] = read_saturation_field(*f, grid::kEndPointKeywords[q]);
            if (q == grid::kPcEndPoint) model().end_points[q].unit = u_.pressure;
        }
        m.finish();
    }

    /// A saturation field (an end point, SWATINIT): a number, layered, or an Eclipse file's
    /// `keyword`.
    grid::FieldSpec read_saturation_field(const Value& f, const char* keyword) {
        if (f.is_sequence()) f.fail("give a number or a field mapping");
        grid::FieldSpec spec = read_field(f, false);
        if (spec.kind != grid::FieldKind::uniform && spec.kind != grid::FieldKind::layered &&
            spec.kind != grid::FieldKind::eclipse) {
            Mapping(f).required("kind").fail(
                std::string("a saturation field is a number, layered or eclipse (its ") + keyword +
                ")");
        }
        return spec;
    }

    grid::FieldSpec read_field(const Value& v, bool permeability) {
        grid::FieldSpec f;
        f.key = v.path();
        if (v.is_scalar()) {
            const double x = v.number();
            f.value = {x, x, x};
            return f;
        }
        if (v.is_sequence()) {
            if (!permeability) v.fail("porosity is one number or a field mapping");
            const auto k = v.numbers(3);
            f.value = {k[0], k[1], k[2]};
            return f;
        }
        Mapping m(v);
        const std::vector<std::string> kinds = {"uniform", "layered", "lognormal", "spe10",
                                                "eclipse"};
        f.kind = static_cast<grid::FieldKind>(m.required("kind").choice(kinds));
        switch (f.kind) {
            case grid::FieldKind::uniform: {
                const Value x = m.required("value");
                if (x.is_sequence() && permeability) {
                    const auto k = x.numbers(3);
                    f.value = {k[0], k[1], k[2]};
                } else {
                    const double s = x.number();
                    f.value = {s, s, s};
                }
                break;
            }
            case grid::FieldKind::layered:
                f.layers = m.required("values").numbers();
                if (permeability) read_ratio(m, "kv_kh", f.kv_kh);
                break;
            case grid::FieldKind::lognormal:
                f.mean = m.required("mean").number();
                f.sigma = m.required("sigma").number();
                if (auto s = m.optional("seed")) f.seed = static_cast<std::uint64_t>(s->integer());
                if (permeability) read_ratio(m, "kv_kh", f.kv_kh);
                break;
            case grid::FieldKind::spe10:
                f.file = resolve(m.required("file"));
                if (auto b = m.optional("box")) {
                    f.has_box = true;
                    Mapping box(*b);
                    f.box.i = read_range(box.required("i"));
                    f.box.j = read_range(box.required("j"));
                    f.box.k = read_range(box.required("k"));
                    box.finish();
                }
                break;
            case grid::FieldKind::eclipse:
                f.file = resolve(m.required("file"));
                if (permeability) {
                    read_ratio(m, "ky_kx", f.ky_kx);
                    read_ratio(m, "kv_kh", f.kv_kh);
                }
                break;
        }
        m.finish();
        return f;
    }

    static void read_ratio(Mapping& m, const char* key, double& out) {
        if (auto r = m.optional(key)) out = r->number();
    }

    static std::array<int, 2> read_range(const Value& v) {
        const auto r = v.integers(2);
        return {to_int(v, r[0]), to_int(v, r[1])};
    }

    std::string resolve(const Value& v) const {
        const fs::path p(v.string());
        return (p.is_absolute() ? p : dir_ / p).lexically_normal().string();
    }

    /// solver.ksparse: {kernel: auto | k1 | k2 | k3 | k4, balance: auto | on | off, lambda: N}.
    static void read_ksparse(const Value& v, KsparseParams& p) {
        Mapping m(v);
        if (auto x = m.optional("kernel")) {
            p.kernel = x->choice_of<KsparseKernel>();
        }
        if (auto x = m.optional("balance")) {
            p.balance = x->choice_of<KsparseBalance>();
            if (p.kernel == KsparseKernel::k4 && p.balance == KsparseBalance::off) {
                x->fail("kernel k4 always splits the rows longer than its chunk; use auto or on");
            }
        }
        if (auto x = m.optional("lambda")) {
            const long long n = x->integer();
            if (n < 1 || n > 1000000) x->fail("must be in [1, 1000000]");
            p.lambda = static_cast<int>(n);
        }
        m.finish();
    }

    /// solver.cpr: the CPR preconditioner's choices (inputs/README.md, design decision 36).
    static void read_cpr(const Value& v, CprOptions& o) {
        Mapping m(v);
        const auto count = [](const Value& x, long long lo, long long hi) {
            const long long n = x.integer();
            if (n < lo || n > hi) {
                x.fail("must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
            }
            return static_cast<int>(n);
        };
        MgOptions& g = o.mg;
        if (auto x = m.optional("weights")) o.weights = x->choice_of<CprWeights>();
        if (auto x = m.optional("cycle")) g.cycle = x->choice_of<MgCycle>();
        if (auto x = m.optional("smoother")) g.smoother = x->choice_of<MgSmoother>();
        if (auto x = m.optional("levels")) g.max_levels = count(*x, 1, 30);
        if (auto x = m.optional("coarsening")) {
            const auto f = x->integers(3);
            for (int d = 0; d < 3; ++d) {
                if (f[d] < 1 || f[d] > 8) x->fail("every factor must be in [1, 8]");
                g.factor[d] = static_cast<int>(f[d]);
            }
            if (f[0] * f[1] * f[2] == 1) x->fail("at least one factor must be > 1");
        }
        if (auto x = m.optional("sweeps")) {  // N (before and after) or [before, after]
            if (x->is_sequence()) {
                const auto n = x->integers(2);
                for (int d = 0; d < 2; ++d) {
                    if (n[d] < 0 || n[d] > 100) x->fail("every count must be in [0, 100]");
                }
                g.pre_sweeps = static_cast<int>(n[0]);
                g.post_sweeps = static_cast<int>(n[1]);
            } else {
                g.pre_sweeps = g.post_sweeps = count(*x, 0, 100);
            }
            if (g.pre_sweeps + g.post_sweeps == 0) x->fail("at least one sweep is needed");
        }
        if (auto x = m.optional("omega")) {
            g.omega = x->number();
            if (!(g.omega > 0.0 && g.omega < 2.0)) x->fail("must be in (0, 2)");
        }
        if (auto x = m.optional("coarse_scale")) {
            g.coarse_scale = x->number();
            if (!(g.coarse_scale > 0.0 && g.coarse_scale <= 3.0)) x->fail("must be in (0, 3]");
        }
        if (auto x = m.optional("coarsest_rows")) g.coarsest_rows = count(*x, 1, kMaxCoarsestRows);
        if (auto x = m.optional("coarsest_sweeps")) g.coarsest_sweeps = count(*x, 1, 1000);
        m.finish();
    }

    void read_solver(const Value& v) {
        Mapping m(v);
        SolverSettings& s = deck_.solver;
        const bool matrix_deck = deck_.system.present;
        if (auto x = m.optional("method")) s.method = x->choice_of<Method>();
        if (auto x = m.optional("preconditioner"))
            s.preconditioner = x->choice_of<PreconditionerKind>();
        if (auto x = m.optional("block_shape")) {
            const auto b = x->integers(3);
            for (int d = 0; d < 3; ++d) {
                if (b[d] < 1) x->fail("every block dimension must be >= 1");
                s.block_shape[d] = to_int(*x, b[d]);
            }
        }
        if (auto x = m.optional("omega")) {
            s.omega = x->number();
            if (s.omega <= 0.0 || s.omega >= 2.0) x->fail("must be in (0, 2)");
        }
        if (auto x = m.optional("backend")) s.backend = x->choice_of<Backend>();
        if (matrix_deck) {  // no Bdia form: the multi-kernel solvers with KSPARSE
            s.gpu_kernel = GpuKernel::multi_kernel;
            s.spmv = SpmvKind::ksparse;
        }
        if (s.preconditioner != PreconditionerKind::none &&
            (s.preconditioner != PreconditionerKind::point_block_jacobi ||
             s.method == Method::qmr)) {
            // The in-kernel solvers fuse point-block Jacobi into BiCGStab only: line and
            // spatial-block Jacobi and CPR (measured not to pay: design decisions 36, 37) and
            // QMR's M^-T run between kernels, so the multi-kernel solver is their default.
            s.gpu_kernel = GpuKernel::multi_kernel;
        }
        if (auto x = m.optional("gpu_kernel")) {
            s.gpu_kernel = x->choice_of<GpuKernel>();
            s.gpu_kernel_given = true;
        }
        if (auto x = m.optional("spmv")) s.spmv = x->choice_of<SpmvKind>();
        if (auto x = m.optional("ksparse")) read_ksparse(*x, s.ksparse);
        if (auto x = m.optional("cpr")) {
            if (s.preconditioner != PreconditionerKind::cpr) {
                x->fail("is for solver.preconditioner: cpr (nothing here may be ignored)");
            }
            read_cpr(*x, s.cpr);
        }
        if (auto x = m.optional("library_format")) s.library_format = x->choice_of<LibraryFormat>();
        if (auto x = m.optional("tolerance")) {
            s.tolerance = x->number();
            if (s.tolerance <= 0.0 || s.tolerance >= 1.0) x->fail("must be in (0, 1)");
        }
        if (auto x = m.optional("max_iterations")) {
            const long long n = x->integer();
            if (n < 1) x->fail("must be >= 1");
            s.max_iterations = to_int(*x, n);
        }
        m.finish();
        // The combinations that run nowhere (core/krylov/capabilities.hpp), at the key at fault.
        const Support ok =
            support(s, 0, Backend::cpu, matrix_deck ? DeckKind::matrix : DeckKind::grid);
        if (!ok) throw InputError(ok.key, ok.reason);
    }

    Deck& deck_;
    fs::path dir_;
    UnitFactors u_ = unit_factors(UnitSystem::field);
    bool fluid_file_ = false;  ///< fluid.eclipse gave the fluid and the rock's compressibility
};

}  // namespace

UnitFactors unit_factors(UnitSystem u) {
    if (u == UnitSystem::field) {
        return {units::kFoot,
                units::kPsi,
                units::kPoundPerCubicFoot,
                units::kStockTankBarrel / units::kDay,
                "ft",
                "psi",
                "stb/day",
                "rb/day"};
    }
    return {1.0, units::kBar, 1.0, 1.0 / units::kDay, "m", "bar", "sm3/day", "rm3/day"};
}

DeckError::DeckError(const std::string& where, const InputError& e)
    : InputError(e.key(), e.detail(), where + ": " + e.what()) {}

void Deck::rethrow_located(const InputError& e) const {
    const std::string set_by = lines.override_of(e.key());
    if (!set_by.empty()) throw DeckError("--set " + set_by, e);
    const int line = lines.line_of(e.key());
    throw DeckError(line > 0 ? path + ":" + std::to_string(line) : path, e);
}

namespace {

/// Refuses a grid whose system cannot fit in this machine's memory, before anything is
/// allocated (it ended in std::bad_alloc, exit 3, or the out-of-memory killer). The estimate is
/// a lower bound: Bdia (7 K^2 values a cell), the point-block inverses (K^2), ten solver vectors
/// (10 K) and ~200 bytes a cell of grid, rock, state and transmissibility fields; computed in
/// floating point, so no product overflows.
void check_memory(const Deck& deck) {
    if (deck.system.present) return;
    const grid::Grid3D& g = deck.model.grid;
    const double cells = static_cast<double>(g.nx) * g.ny * g.nz;
    const double K =
        deck.model.model == wells::FluidModel::synthetic ? deck.model.synthetic.components : 2.0;
    const double need = cells * (8.0 * (8.0 * K * K + 10.0 * K) + 200.0);
    const double have = host_memory_bytes();
    if (have > 0.0 && need > have) {
        throw InputError("grid.dims",
                         fixed(cells, 0) + " cells with K = " + fixed(K, 0) + " need at least " +
                             fixed(need / 1e9, 1) + " GB (the GH system and the solver's " +
                             "vectors), more than this machine's " + fixed(have / 1e9, 1) + " GB");
    }
}

}  // namespace

Deck load_deck(const std::string& path, const std::vector<std::string>& overrides) {
    Deck deck;
    deck.path = path;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw DeckError(path,
                        InputError("cannot open the deck: " + std::string(std::strerror(errno))));
    }
    std::ostringstream text;
    text << in.rdbuf();
    deck.text = text.str();
    YAML::Node root;
    try {
        OneDocument doc = load_one_document(deck.text);
        if (doc.extra_line > 0) {
            // A second document ("---") or trailing text would be ignored: a deck is one document.
            throw DeckError(path + ":" + std::to_string(doc.extra_line),
                            InputError(doc.extra + ": a deck is one document; put every "
                                                   "section in the first"));
        }
        root = doc.root;
    } catch (const YAML::Exception& e) {
        throw DeckError(path + ":" + std::to_string(e.mark.line + 1),
                        InputError("YAML syntax error: " + e.msg));
    }
    deck.overrides = overrides;
    for (const std::string& o : overrides) apply_override(root, o, deck.lines);
    deck.lines.record("", 1);
    try {
        if (!root.IsMap())
            throw InputError("the deck must be a mapping of sections (grid:, fluid:, ...)");
        DeckReader reader(deck, fs::path(path).parent_path());
        reader.read(Value(root, "", &deck.lines));
        check_memory(deck);
        sim::validate(deck.schedule, deck.model.wells);
    } catch (const DeckError&) {
        throw;
    } catch (const InputError& e) {
        deck.rethrow_located(e);
    }
    return deck;
}

wells::Model build_model(const Deck& deck, bool with_system, std::ostream* notes) {
    if (deck.system.present) {
        deck.rethrow_located(
            InputError("system",
                       "a matrix deck has no grid model; `heptane run` solves it (info and "
                       "export take grid decks)"));
    }
    try {
        wells::Model model = wells::generate(deck.model, with_system);
        // What of the Eclipse files was not read is said, never skipped silently.
        for (const std::string& note : model.notes)
            (notes != nullptr ? *notes : std::cerr) << "heptane: note: " << note << '\n';
        return model;
    } catch (const DeckError&) {
        throw;
    } catch (const InputError& e) {
        deck.rethrow_located(e);
    }
}

MatrixSystem build_matrix_system(const Deck& deck) {
    const MatrixSystemSpec& spec = deck.system;
    MatrixSystem sys;
    try {
        Csr a = read_matrix_market(spec.matrix, &sys.matrix_duplicates);
        if (a.rows != a.cols) {
            throw InputError("system.matrix", "the matrix is " + std::to_string(a.rows) + " x " +
                                                  std::to_string(a.cols) +
                                                  "; a linear system needs a square matrix");
        }
        if (spec.block_size == 1) {
            // The file's own values.
            sys.matrix.block_rows = a.rows;
            sys.matrix.block_cols = a.cols;
            sys.matrix.block_size = 1;
            sys.matrix.row_ptr = std::move(a.row_ptr);
            sys.matrix.col = std::move(a.col);
            sys.matrix.val = std::move(a.val);
        } else {
            sys.matrix = promote_to_bsr(a, spec.block_size, spec.seed);
        }
        const auto n = static_cast<std::size_t>(sys.rows());
        switch (spec.rhs) {
            case RhsKind::ones:
                sys.rhs.assign(n, 1.0);
                break;
            case RhsKind::random: {
                Rng rng(spec.seed, kRhsStream);
                sys.rhs.resize(n);
                for (double& b : sys.rhs) b = rng.uniform(-1.0, 1.0);
                break;
            }
            case RhsKind::file:
                sys.rhs = read_matrix_market_vector(spec.rhs_file, &sys.rhs_duplicates);
                if (sys.rhs.size() != n) {
                    throw InputError("system.rhs",
                                     "the vector has " + std::to_string(sys.rhs.size()) +
                                         " entries; the system has " + std::to_string(n) +
                                         " rows (matrix rows x block_size)");
                }
                break;
        }
    } catch (const MatrixMarketError&) {
        throw;  // already "FILE:LINE: detail"
    } catch (const DeckError&) {
        throw;
    } catch (const InputError& e) {
        deck.rethrow_located(e);
    }
    return sys;
}

}  // namespace heptane::app
