#include "wells/generator.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>

#include "core/base/errors.hpp"
#include "core/base/random.hpp"

namespace heptane::wells {
namespace {

void require(bool ok, const std::string& key, const std::string& what) {
    if (!ok) throw InputError(key, what);
}

bool finite_positive(double v) { return std::isfinite(v) && v > 0.0; }
bool finite_nonnegative(double v) { return std::isfinite(v) && v >= 0.0; }

/// A depth in the unit of `init`'s EQUIL file, with metres where that unit is not the metre.
std::string depth_text(double z, const InitialState& init) {
    std::ostringstream s;
    s << z / init.eclipse_length_unit;
    if (init.eclipse_length_unit != 1.0) s << " (" << z << " m)";
    return s.str();
}

/// The grid.eclipse files' region arrays other than the rock's (design decision 87): SATNUM
/// is the saturation regions' (build_saturation_regions), FIPNUM the fluid-in-place regions'
/// (build_fip_regions) and EQLNUM the equilibration regions' (build_equilibration_regions,
/// decision 92; for the synthetic model, which has none of them, a note), PVTNUM must be 1 in
/// every active cell (heptane's fluid has one PVT region), IMBNUM is said in a note (no
/// hysteresis, so no imbibition tables).
void check_region_arrays(const grid::Grid3D& g, const ModelSpec& spec,
                         const grid::EclipseGridData& files, const grid::RockFields& rock,
                         std::vector<std::string>& notes) {
    const auto given = [&](const char* name) { return files.arrays.count(name) != 0; };
    if (given("PVTNUM")) {
        const auto one = [](double v) { return std::isnan(v) || v == 1.0; };
        const auto active = [&](index_t m) { return rock.is_active(m); };
        grid::eclipse_to_cells(g, spec.eclipse.key, "grid.eclipse's files", "PVTNUM",
                               files.arrays.at("PVTNUM"), 1.0, active, one,
                               "1: heptane's fluid has one PVT region");
    }
    if (given("IMBNUM")) {
        notes.push_back(spec.eclipse.key +
                        ": IMBNUM: heptane has no hysteresis; the drainage tables (SATNUM) hold");
    }
    if (given("SATNUM") && spec.model == FluidModel::synthetic) {
        notes.push_back(spec.eclipse.key +
                        ": SATNUM: the synthetic model has no saturation regions");
    }
    if (given("FIPNUM") && spec.model == FluidModel::synthetic) {
        notes.push_back(spec.eclipse.key + ": FIPNUM: the synthetic model has no fluid in place");
    }
    if (given("EQLNUM") && spec.model == FluidModel::synthetic) {
        notes.push_back(spec.eclipse.key + ": EQLNUM: the synthetic model has no initial state");
    }
}

/// Design decision 78: EQUIL's gas-oil contact at or above every active cell of its
/// equilibration region (no gas cap).
void validate_initial_state(const grid::Grid3D& g, const grid::RockFields& rock,
                            const InitialState& init) {
    for (index_t m = 0; m < g.num_cells(); ++m) {
        const InitialState& s =
            init.region(rock.equilibration_region.empty() ? 0 : rock.equilibration_region[m]);
        const double top = g.centre_depth(m) - 0.5 * g.size_z(m);
        if (rock.is_active(m) && top < s.gas_oil_contact) {  // -inf where none was given
            throw InputError("initial.eclipse",
                             s.gas_oil_contact_where + "the gas-oil contact (item 5) at " +
                                 depth_text(s.gas_oil_contact, s) + " lies below the top of cell " +
                                 grid::cell_text(g, m) + " at " + depth_text(top, s) +
                                 ": a gas cap, and heptane's model has no gas phase");
        }
    }
}

void validate_two_phase(const ModelSpec& s) {
    const grid::TwoPhaseParams& p = s.two_phase;
    const struct {
        const grid::PhaseProperties& ph;
        const char* density;
        const char* viscosity;
        const char* compressibility;
        const char* volume_factor;
    } phases[] = {{p.oil, "fluid.oil.density", "fluid.oil.viscosity", "fluid.oil.compressibility",
                   "fluid.oil.formation_volume_factor"},
                  {p.water, "fluid.water.density", "fluid.water.viscosity",
                   "fluid.water.compressibility", "fluid.water.formation_volume_factor"}};
    for (const auto& ph : phases) {
        require(finite_positive(ph.ph.density), ph.density, "must be > 0");
        require(finite_positive(ph.ph.viscosity), ph.viscosity, "must be > 0");
        require(finite_nonnegative(ph.ph.compressibility), ph.compressibility, "must be >= 0");
        require(finite_positive(ph.ph.volume_factor), ph.volume_factor, "must be > 0");
    }
    require(std::isfinite(p.oil.viscosibility), "fluid.oil.viscosibility", "must be finite");
    require(std::isfinite(p.water.viscosibility), "fluid.water.viscosibility", "must be finite");
    // Corey's keys of each saturation region (fluid.relperm, or its list's entries).
    for (std::size_t r = 0; r <= s.relperm_regions.size(); ++r) {
        const grid::RelPerm& rp = r == 0 ? p.relperm : s.relperm_regions[r - 1];
        const std::string key =
            "fluid.relperm" + (s.relperm_regions.empty() ? "" : "[" + std::to_string(r) + "]");
        require(rp.swc >= 0.0 && rp.swc < 1.0, key + ".swc", "must be in [0, 1)");
        require(rp.sor >= 0.0 && rp.sor < 1.0, key + ".sor", "must be in [0, 1)");
        require(rp.swc + rp.sor < 1.0, key + ".sor", "swc + sor must be < 1");
        require(std::isfinite(rp.nw) && rp.nw >= 1.0, key + ".nw", "must be >= 1");
        require(std::isfinite(rp.no) && rp.no >= 1.0, key + ".no", "must be >= 1");
        require(finite_positive(rp.krw_max), key + ".krw_max", "must be > 0");
        require(finite_positive(rp.kro_max), key + ".kro_max", "must be > 0");
    }
    require(finite_positive(p.reference_pressure), "fluid.reference_pressure", "must be > 0");
    require(finite_nonnegative(p.rock_compressibility), "rock.compressibility", "must be >= 0");
    require(finite_nonnegative(p.gravity), "fluid.gravity", "must be >= 0");
    require(finite_positive(s.dt), "timestep.dt", "must be > 0");
    require(finite_positive(s.initial.pressure), "initial.pressure", "must be > 0");
    require(std::isfinite(s.initial.datum_depth), "initial.datum_depth", "must be finite");
    require(std::isnan(s.initial.water_saturation) ||
                (s.initial.water_saturation >= 0.0 && s.initial.water_saturation <= 1.0),
            "initial.water_saturation", "must be in [0, 1]");
}

/// An inactive cell's block row becomes the identity, its block column zero and its
/// right-hand side zero (design decision 35): every solver then leaves it at 0.
void isolate_inactive_cells(const grid::RockFields& rock, GHSystem& sys) {
    if (rock.active.empty()) return;
    GHMatrix& A = sys.matrix;
    const int K = A.block_size();
    const auto off = A.offsets();
    for (index_t m = 0; m < A.num_cells(); ++m) {
        if (rock.is_active(m)) continue;
        for (int d = 0; d < kStencilSize; ++d) {
            for (int r = 0; r < K; ++r)
                for (int c = 0; c < K; ++c) A.at(d, m, r, c) = d == kCenter && r == c ? 1.0 : 0.0;
            // The neighbour's coupling to m sits on the mirrored diagonal 6 - d.
            if (d == kCenter || !A.has_neighbour(m, d)) continue;
            for (int r = 0; r < K; ++r)
                for (int c = 0; c < K; ++c) A.at(kStencilSize - 1 - d, m + off[d], r, c) = 0.0;
        }
        for (int c = 0; c < K; ++c) sys.rhs[static_cast<std::size_t>(m * K + c)] = 0.0;
    }
}

GHSystem synthetic_system(const ModelSpec& s, const grid::RockFields& rock) {
    const grid::SyntheticParams& p = s.synthetic;
    require(
        p.components >= 1 && p.components <= kMaxBlockSize, "fluid.components",
        "K = " + std::to_string(p.components) + " is outside 1.." + std::to_string(kMaxBlockSize));
    require(finite_positive(p.diagonal_dominance), "fluid.diagonal_dominance", "must be > 0");
    GHSystem sys;
    sys.matrix = GHMatrix(s.grid.nx, s.grid.ny, s.grid.nz, p.components);
    grid::fill_random_blocks(sys.matrix, p.seed);
    WellArrays wells = well_layout(s.grid, s.wells, p.components);
    // Stream numbers past every cell's keep the well values independent of the grid's.
    const std::uint64_t well_stream = static_cast<std::uint64_t>(s.grid.num_cells());
    for (std::size_t w = 0; w < s.wells.size(); ++w) {
        Rng rng(p.seed, well_stream + w);
        const index_t n = wells.count[w] * p.components;
        for (index_t i = 0; i < n; ++i) wells.w_vals[wells.first[w] + i] = rng.uniform(-1.0, 1.0);
        for (index_t i = 0; i < n; ++i) wells.wt_vals[wells.first[w] + i] = rng.uniform(-1.0, 1.0);
    }
    sys.matrix.set_wells(std::move(wells));
    grid::impose_diagonal_dominance(sys.matrix, p.diagonal_dominance);
    Rng rng(p.seed, well_stream + s.wells.size());
    sys.rhs.resize(static_cast<std::size_t>(sys.matrix.rows()));
    for (double& b : sys.rhs) b = rng.uniform(-1.0, 1.0);
    isolate_inactive_cells(rock, sys);
    for (int c = 0; c < p.components; ++c) sys.component_names.push_back("x" + std::to_string(c));
    return sys;
}

/// The two-phase system of spec's fluid and wells on (grid, rock) at the initial state.
GHSystem initial_system(const ModelSpec& spec, const grid::Grid3D& grid,
                        const grid::RockFields& rock) {
    const TwoPhaseSystem sys(grid, rock, spec.two_phase, spec.wells, spec.relperm_regions);
    const grid::CellState x0 = initial_cell_state(sys.cells(), spec.initial);
    const std::vector<double> p_bh = sys.wells().initial_bhp(x0);
    return sys.linearize(x0, p_bh, x0, spec.dt);
}

/// Planes [first, end) of a per-cell array (`plane` cells a plane); empty stays empty.
template <class T>
std::vector<T> planes_of(const std::vector<T>& v, index_t plane, int first, int end) {
    if (v.empty()) return v;
    return std::vector<T>(v.begin() + first * plane, v.begin() + end * plane);
}

/// Planes [first, end) of a grid and its fields: every per-cell value of those cells as it
/// is in the whole grid, and the non-neighbour connections between them (a connection to a
/// cell outside is dropped: the window's edge rows lack it, as they lack their outer faces).
void cut_planes(grid::Grid3D& g, grid::RockFields& rock, int first, int end) {
    const index_t plane = static_cast<index_t>(g.ny) * g.nz, shift = first * plane;
    const auto inside = [&](index_t m) { return m >= shift && m < end * plane; };
    if (g.geometry) {
        auto geo = std::make_shared<grid::CellGeometry>();
        geo->dx = planes_of(g.geometry->dx, plane, first, end);
        geo->dy = planes_of(g.geometry->dy, plane, first, end);
        geo->dz = planes_of(g.geometry->dz, plane, first, end);
        geo->depth = planes_of(g.geometry->depth, plane, first, end);
        // Corner-point cells: a volume, 6 half transmissibilities and 24 corner values each.
        geo->volume = planes_of(g.geometry->volume, plane, first, end);
        geo->half = planes_of(g.geometry->half, 6 * plane, first, end);
        geo->corners = planes_of(g.geometry->corners, 24 * plane, first, end);
        geo->max_void = g.geometry->max_void;
        // A fault's connections between the window's cells, with their multipliers.
        std::vector<double> mult;
        for (std::size_t q = 0; q < g.geometry->nnc.size(); ++q) {
            grid::CellConnection c = g.geometry->nnc[q];
            if (!inside(c.a) || !inside(c.b)) continue;
            c.a -= shift;
            c.b -= shift;
            geo->nnc.push_back(c);
            if (!rock.nnc_mult.empty()) mult.push_back(rock.nnc_mult[q]);
        }
        rock.nnc_mult = std::move(mult);
        g.geometry = std::move(geo);
    }
    std::vector<grid::NncTransmissibility> given;  // the NNC records', likewise
    for (grid::NncTransmissibility c : rock.nnc_given) {
        if (!inside(c.a) || !inside(c.b)) continue;
        c.a -= shift;
        c.b -= shift;
        given.push_back(c);
    }
    rock.nnc_given = std::move(given);
    g.nx = end - first;
    for (std::vector<double>* f :
         {&rock.kx, &rock.ky, &rock.kz, &rock.porosity, &rock.multx, &rock.multy, &rock.multz,
          &rock.tx_edited, &rock.ty_edited, &rock.tz_edited}) {
        *f = planes_of(*f, plane, first, end);
    }
    rock.active = planes_of(rock.active, plane, first, end);
    rock.saturation_region = planes_of(rock.saturation_region, plane, first, end);
    rock.fip_region = planes_of(rock.fip_region, plane, first, end);
    rock.equilibration_region = planes_of(rock.equilibration_region, plane, first, end);
    for (std::vector<double>& f : rock.end_points) f = planes_of(f, plane, first, end);
    rock.swatinit = planes_of(rock.swatinit, plane, first, end);
    rock.pc_scale = planes_of(rock.pc_scale, plane, first, end);
}

/// Each saturation region's law, region 1 first.
std::vector<grid::RelPerm> saturation_laws(const ModelSpec& spec) {
    std::vector<grid::RelPerm> laws{spec.two_phase.relperm};
    laws.insert(laws.end(), spec.relperm_regions.begin(), spec.relperm_regions.end());
    return laws;
}

/// Whether a saturation region caps SWATINIT's Pc (PPCWMAX, design decision 99).
bool has_swatinit_cap(const ModelSpec& spec) {
    const std::vector<grid::RelPerm> laws = saturation_laws(spec);
    return std::any_of(laws.begin(), laws.end(),
                       [](const grid::RelPerm& rp) { return std::isfinite(rp.swatinit_pc_max); });
}

/// The cells' end points against their tables (grid::end_point_check): an InputError at the
/// first end point's key the deck gives (else grid.eclipse's) naming the cell.
void check_end_points(const grid::Grid3D& g, const ModelSpec& spec, const grid::RockFields& rock) {
    std::vector<grid::EndPoints> cells;
    const std::string error = grid::end_point_check(g, rock, saturation_laws(spec), cells);
    if (error.empty()) return;
    std::string key = spec.eclipse.key;
    for (const grid::FieldSpec& f : spec.end_points) {
        if (!f.defaulted) {
            key = f.key.substr(0, f.key.rfind('.'));
            break;
        }
    }
    throw InputError(key, error);
}

/// SWATINIT (design decision 97): each cell's Pc scaled to hold it in the initial state
/// (grid::scale_to_swatinit), said in a note; an InputError without a water-oil contact.
void apply_swatinit(Model& out, const ModelSpec& spec, const std::vector<double>& swatinit) {
    const std::vector<grid::Equilibrium> regions = equilibrium_records(spec.initial);
    const std::string key = spec.swatinit.defaulted ? spec.eclipse.key : spec.swatinit.key;
    if (std::none_of(regions.begin(), regions.end(),
                     [](const grid::Equilibrium& e) { return e.contact; })) {
        throw InputError(key,
                         "SWATINIT scales each cell's capillary pressure to the capillary-gravity "
                         "equilibrium: give a water-oil contact (initial.water_oil_contact, or "
                         "EQUIL's)");
    }
    const grid::TwoPhaseCells cells(out.grid, out.rock, spec.two_phase, spec.relperm_regions);
    const grid::SwatinitCount n = grid::scale_to_swatinit(cells, regions, swatinit, out.rock);
    out.notes.push_back(key + ": SWATINIT: " + std::to_string(n.honoured) +
                        " cells start at it, their capillary pressure scaled to the "
                        "equilibrium's; " +
                        std::to_string(n.kept) +
                        " keep their equilibrium saturation (below the free-water level, at or "
                        "beyond their SWL or SWU, or without a capillary pressure there)" +
                        (n.capped > 0 ? "; " + std::to_string(n.capped) +
                                            " start below it, their capillary pressure capped "
                                            "at their table's PPCWMAX"
                                      : std::string()));
}

}  // namespace

Model generate(const ModelSpec& spec, bool with_system) {
    spec.grid.validate();
    validate_wells(spec.grid, spec.wells);
    Model out;
    out.grid = spec.grid;
    grid::EclipseGridData files;
    const bool eclipse = !spec.eclipse.empty();
    if (eclipse) {
        files = grid::read_grid_files(out.grid, spec.eclipse);
    }
    out.notes = spec.notes;
    out.notes.insert(out.notes.end(), files.notes.begin(), files.notes.end());
    out.rock = grid::build_rock(out.grid, spec.permeability, spec.porosity,
                                eclipse ? &spec.eclipse : nullptr, eclipse ? &files : nullptr);
    if (files.pinch.given) {  // how many PINCH made, as OPM Flow says it
        out.notes.push_back(files.pinch.where + "PINCH: " + std::to_string(out.rock.pinch_outs) +
                            " pinch-out connection" + (out.rock.pinch_outs == 1 ? "" : "s"));
    }
    if (eclipse) check_region_arrays(out.grid, spec, files, out.rock, out.notes);
    if (spec.model == FluidModel::two_phase) {
        out.rock.saturation_region = grid::build_saturation_regions(
            out.grid, spec.saturation_regions, 1 + static_cast<int>(spec.relperm_regions.size()),
            out.rock, eclipse ? &spec.eclipse : nullptr, eclipse ? &files : nullptr);
        out.rock.fip_region =
            grid::build_fip_regions(out.grid, spec.fip_regions, out.rock,
                                    eclipse ? &spec.eclipse : nullptr, eclipse ? &files : nullptr);
        out.rock.equilibration_region = grid::build_equilibration_regions(
            out.grid, spec.equilibration_regions, spec.initial.regions(), out.rock,
            eclipse ? &spec.eclipse : nullptr, eclipse ? &files : nullptr);
        out.rock.end_points = grid::build_end_points(out.grid, spec.end_points, out.rock,
                                                     eclipse ? &spec.eclipse : nullptr,
                                                     eclipse ? &files : nullptr, out.notes);
        check_end_points(out.grid, spec, out.rock);
        const std::vector<double> swatinit = grid::build_scaling_array(
            out.grid, spec.swatinit, "SWATINIT", grid::ScalingQuantity::saturation, out.rock,
            eclipse ? &spec.eclipse : nullptr, eclipse ? &files : nullptr, out.notes);
        if (!swatinit.empty()) {
            apply_swatinit(out, spec, swatinit);
        } else if (has_swatinit_cap(spec)) {
            out.notes.push_back(
                "fluid: PPCWMAX (ppcwmax) caps SWATINIT's scaling of Pc, and the deck has no "
                "SWATINIT: the cap changes nothing");
        }
        out.end_points = grid::cell_end_point_values(out.grid, out.rock, saturation_laws(spec));
    }
    validate_perforations(out.grid, out.rock, spec.wells);
    if (spec.model == FluidModel::synthetic) {
        if (with_system) out.system = synthetic_system(spec, out.rock);
    } else {
        validate_two_phase(spec);
        validate_initial_state(out.grid, out.rock, spec.initial);
        if (!with_system) return out;
        out.system = initial_system(spec, out.grid, out.rock);
    }
    for (const WellSpec& w : spec.wells) out.system.well_names.push_back(w.name);
    return out;
}

Model generate_planes(const ModelSpec& spec, const PlaneWindow& w, std::vector<int>& global_wells,
                      const Model* fields) {
    spec.grid.validate();
    validate_wells(spec.grid, spec.wells);
    if (spec.model != FluidModel::two_phase) {
        throw NotSupported(
            "a window of planes: two-phase models only (the synthetic model's random streams "
            "are not per cell)");
    }
    if (!(0 <= w.first && w.first < w.end && w.end <= spec.grid.nx && w.first <= w.wells_first &&
          w.wells_first <= w.wells_end && w.wells_end <= w.end)) {
        throw std::invalid_argument("generate_planes: a window outside the grid");
    }
    ModelSpec part = spec;
    part.wells.clear();
    global_wells.clear();
    for (std::size_t n = 0; n < spec.wells.size(); ++n) {
        const WellSpec& well = spec.wells[n];
        if (well.i < w.wells_first || well.i >= w.wells_end) continue;
        part.wells.push_back(well);
        part.wells.back().i -= w.first;
        global_wells.push_back(static_cast<int>(n));
    }
    const grid::FieldKind k = spec.permeability.kind;
    const bool generated_per_cell =
        spec.eclipse.empty() && spec.grid.uniform() &&
        (k == grid::FieldKind::uniform || k == grid::FieldKind::layered ||
         k == grid::FieldKind::lognormal) &&
        spec.porosity.kind == grid::FieldKind::uniform &&
        spec.saturation_regions.kind != grid::FieldKind::eclipse &&
        spec.fip_regions.kind != grid::FieldKind::eclipse &&
        spec.equilibration_regions.kind != grid::FieldKind::eclipse &&
        std::none_of(spec.end_points.begin(), spec.end_points.end(),
                     [](const grid::FieldSpec& f) { return f.kind == grid::FieldKind::eclipse; }) &&
        spec.swatinit.kind != grid::FieldKind::eclipse;
    if (generated_per_cell) {  // the window's fields drawn by themselves
        part.grid.nx = w.end - w.first;
        part.permeability.first_cell = static_cast<std::uint64_t>(w.first) *
                                       static_cast<std::uint64_t>(spec.grid.ny) *
                                       static_cast<std::uint64_t>(spec.grid.nz);
        return generate(part);
    }
    // Fields read from files (or per-cell geometry): the whole grid's fields are read and
    // cut to the window; only the system is the window's.
    Model out;
    if (fields != nullptr) {
        out.grid = fields->grid;
        out.rock = fields->rock;
    } else {
        ModelSpec no_wells = spec;
        no_wells.wells.clear();
        out = generate(no_wells, false);
    }
    cut_planes(out.grid, out.rock, w.first, w.end);
    part.grid = out.grid;
    validate_wells(part.grid, part.wells);
    validate_perforations(out.grid, out.rock, part.wells);
    validate_two_phase(part);
    out.system = initial_system(part, out.grid, out.rock);
    for (const WellSpec& well : part.wells) out.system.well_names.push_back(well.name);
    return out;
}

TwoPhaseSystem::TwoPhaseSystem(const grid::Grid3D& grid, const grid::RockFields& rock,
                               const grid::TwoPhaseParams& params,
                               const std::vector<WellSpec>& wells,
                               const std::vector<grid::RelPerm>& more_regions)
    : cells_(grid, rock, params, more_regions), wells_(cells_, wells) {}

std::vector<double> TwoPhaseSystem::residual(const grid::CellState& x,
                                             const std::vector<double>& p_bh,
                                             const grid::CellState& x_old, double dt) const {
    std::vector<double> res, res_wells;
    cells_.assemble(x, x_old, dt, res, nullptr);
    wells_.assemble(x, p_bh, res, res_wells, nullptr);
    res.insert(res.end(), res_wells.begin(), res_wells.end());
    return res;
}

GHSystem TwoPhaseSystem::linearize(const grid::CellState& x, const std::vector<double>& p_bh,
                                   const grid::CellState& x_old, double dt) const {
    GHSystem sys;
    sys.matrix = cells_.zero_jacobian();
    std::vector<double> res, res_wells;
    cells_.assemble(x, x_old, dt, res, &sys.matrix);
    wells_.assemble(x, p_bh, res, res_wells, &sys.matrix);
    res.insert(res.end(), res_wells.begin(), res_wells.end());
    sys.rhs.resize(res.size());
    for (std::size_t i = 0; i < res.size(); ++i) sys.rhs[i] = -res[i];
    sys.component_names = {"dp", "dSw"};
    return sys;
}

std::vector<grid::Equilibrium> equilibrium_records(const InitialState& init) {
    std::vector<grid::Equilibrium> regions;
    for (int r = 0; r < init.regions(); ++r) {
        const InitialState& s = init.region(r);
        grid::Equilibrium e;
        e.p_datum = s.pressure;
        e.z_datum = s.datum_depth;
        e.sw = s.water_saturation;
        e.contact = s.has_contact;
        e.z_contact = s.water_oil_contact;
        e.pc_contact = s.contact_capillary_pressure;
        e.sublayers = s.sublayers;
        regions.push_back(e);
    }
    return regions;
}

grid::CellState initial_cell_state(const grid::TwoPhaseCells& cells, const InitialState& init) {
    return cells.equilibrium_state(equilibrium_records(init));
}

}  // namespace heptane::wells
