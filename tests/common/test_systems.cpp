#include "common/test_systems.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

#include "core/base/random.hpp"
#include "core/base/units.hpp"
#include "grid/corner_point.hpp"

namespace heptane::test {

wells::WellSpec make_well(const std::string& name, int i, int j, int k0, int k1, bool injector,
                          bool rate) {
    wells::WellSpec w;
    w.name = name;
    w.i = i;
    w.j = j;
    w.k_first = k0;
    w.k_last = k1;
    w.type = injector ? wells::WellType::injector : wells::WellType::producer;
    w.control = rate ? wells::ControlKind::rate : wells::ControlKind::bhp;
    w.target = rate ? 200.0 / units::kDay : (injector ? 7000.0 : 5000.0) * units::kPsi;
    w.radius = 0.1;
    return w;
}

std::vector<wells::WellSpec> corner_wells(int nx, int ny, int nz) {
    std::vector<wells::WellSpec> w;
    w.push_back(make_well("W0", 0, 0, 0, nz - 1));
    if (ny > 1) w.push_back(make_well("W1", 0, ny - 1, 0, 0, true, true));
    if (nx > 1) w.push_back(make_well("W2", nx - 1, 0, nz - 1, nz - 1, false, true));
    if (nx > 1 && ny > 1) w.push_back(make_well("W3", nx - 1, ny - 1, 0, nz - 1, true));
    return w;
}

wells::Model synthetic_model(int nx, int ny, int nz, int K, std::vector<wells::WellSpec> wells,
                             std::uint64_t seed, double dominance) {
    wells::ModelSpec spec;
    spec.grid.nx = nx;
    spec.grid.ny = ny;
    spec.grid.nz = nz;
    spec.model = wells::FluidModel::synthetic;
    spec.synthetic.components = K;
    spec.synthetic.seed = seed;
    spec.synthetic.diagonal_dominance = dominance;
    spec.permeability.value = {100.0, 100.0, 10.0};
    spec.porosity.value = {0.2, 0.0, 0.0};
    spec.wells = std::move(wells);
    return wells::generate(spec);
}

wells::ModelSpec two_phase_spec(int nx, int ny, int nz, std::vector<wells::WellSpec> wells,
                                std::uint64_t seed) {
    wells::ModelSpec spec;
    spec.grid.nx = nx;
    spec.grid.ny = ny;
    spec.grid.nz = nz;
    spec.grid.dx = 20.0 * units::kFoot;
    spec.grid.dy = 10.0 * units::kFoot;
    spec.grid.dz = 2.0 * units::kFoot;
    spec.grid.top_depth = 12000.0 * units::kFoot;
    spec.model = wells::FluidModel::two_phase;
    spec.permeability.kind = grid::FieldKind::lognormal;
    spec.permeability.mean = 100.0;
    spec.permeability.sigma = 1.0;
    spec.permeability.seed = seed;
    spec.permeability.kv_kh = 0.1;
    spec.porosity.value = {0.2, 0.0, 0.0};
    spec.initial.pressure = 6000.0 * units::kPsi;
    spec.initial.datum_depth = spec.grid.top_depth;
    spec.initial.water_saturation = 0.3;
    spec.dt = units::kDay;
    spec.wells = std::move(wells);
    return spec;
}

std::vector<std::string> regression_decks() {
    std::vector<std::string> decks;
    for (const auto& e : std::filesystem::directory_iterator(source_path("tests/regression"))) {
        if (e.path().extension() == ".yaml") decks.push_back(e.path().filename().string());
    }
    std::sort(decks.begin(), decks.end());
    return decks;
}

std::vector<double> mixed_terms(std::size_t n, std::uint64_t seed) {
    Rng rng(seed);
    std::vector<double> t(n);
    for (auto& v : t) v = (rng.uniform() - 0.5) * (rng.uniform() < 0.1 ? 1e12 : 1.0);
    return t;
}

std::vector<double> random_vector(std::size_t n, std::uint64_t seed) {
    Rng rng(seed, 12345);
    std::vector<double> v(n);
    for (double& x : v) x = rng.uniform(-1.0, 1.0);
    return v;
}

double max_abs(const std::vector<double>& v) {
    double m = 0.0;
    for (double x : v) m = std::max(m, std::abs(x));
    return m;
}

double spmv_tolerance(int nnz_row, double max_abs_a, double max_abs_x, double c) {
    return c * std::numeric_limits<double>::epsilon() * nnz_row * max_abs_a * max_abs_x;
}

double gh_spmv_tolerance(const GHMatrix& A, const std::vector<double>& x) {
    const WellArrays& w = A.wells();
    const double max_a =
        std::max({max_abs(A.bdia()), max_abs(w.d), max_abs(w.w_vals), max_abs(w.wt_vals)});
    return spmv_tolerance(kStencilSize * A.block_size() + 1, max_a, max_abs(x), 8.0);
}

::testing::AssertionResult vectors_near(const std::vector<double>& ref,
                                        const std::vector<double>& got, double tol) {
    if (ref.size() != got.size()) {
        return ::testing::AssertionFailure()
               << "sizes differ: ref " << ref.size() << ", got " << got.size();
    }
    std::ostringstream bad;
    std::size_t failures = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double err = std::abs(ref[i] - got[i]);
        if (!(err <= tol)) {  // also catches NaN
            if (failures < 20) {
                bad << "\n  i = " << i << "  ref " << ref[i] << "  got " << got[i] << "  err "
                    << err << "  tol " << tol;
            }
            ++failures;
        }
    }
    if (failures == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << failures << " of " << ref.size() << " entries differ:" << bad.str();
}

GHMatrix with_connections(int nx, int ny, int nz, int K, std::uint64_t seed, bool diagonal) {
    GHMatrix A = synthetic_model(nx, ny, nz, K, corner_wells(nx, ny, nz), seed).system.matrix;
    grid::Grid3D g;
    g.nx = nx, g.ny = ny, g.nz = nz;
    std::vector<std::array<index_t, 2>> pairs;
    for (int i = 0; i < nx; ++i) {
        for (int j = 0; j < ny; ++j) {
            for (int k = 0; k < nz; ++k) {
                if (i + 1 < nx && k + 1 < nz)
                    pairs.push_back({g.cell(i, j, k), g.cell(i + 1, j, k + 1)});
                if (j + 1 < ny && k + 2 < nz)
                    pairs.push_back({g.cell(i, j + 1, k + 2), g.cell(i, j, k)});
                if (diagonal && i + 1 < nx && j + 1 < ny)
                    pairs.push_back({g.cell(i, j, k), g.cell(i + 1, j + 1, k)});
            }
        }
    }
    NncArrays nnc = nnc_layout(A.num_cells(), K, pairs);
    Rng rng(seed + 1);
    for (double& v : nnc.vals) v = rng.uniform(-0.1, 0.1);
    A.set_nnc(std::move(nnc));
    return A;
}

std::vector<grid::RelPermRow> relperm_rows() {
    return {{0.2, 0.0, 0.9},   {0.3, 0.01, 0.6},  {0.4, 0.05, 0.38}, {0.5, 0.12, 0.2},
            {0.6, 0.25, 0.09}, {0.7, 0.45, 0.02}, {0.8, 0.7, 0.0}};
}

grid::RelPermTable capillary_relperm_table() {
    std::vector<grid::RelPermRow> rows = relperm_rows();
    const double last = static_cast<double>(rows.size() - 1);
    for (std::size_t q = 0; q < rows.size(); ++q)
        rows[q][3] = 3.0 * units::kBar * (last - static_cast<double>(q)) / last;
    return grid::relperm_table(rows);
}

grid::CellState varied_state(const grid::TwoPhaseCells& cells, std::uint64_t seed, double sw_lo,
                             double sw_hi) {
    grid::CellState x = cells.equilibrium_state(6000.0 * units::kPsi, 12000.0 * units::kFoot, 0.5);
    Rng rng(seed);
    for (std::size_t m = 0; m < x.p.size(); ++m) {
        x.p[m] += rng.uniform(-5.0, 5.0) * units::kBar;
        x.sw[m] = rng.uniform(sw_lo, sw_hi);
    }
    return x;
}

void set_pressure_dependent_pvt(grid::TwoPhaseParams& prm) {
    const double cp = units::kCentiPoise;
    prm.oil_pvt = grid::pvt_table({{300.0 * units::kPsi, 1.05, 2.85 * cp},
                                   {2900.0 * units::kPsi, 1.035, 2.9 * cp},
                                   {6150.0 * units::kPsi, 1.02, 3.1 * cp},
                                   {8000.0 * units::kPsi, 1.01, 3.4 * cp}});
    prm.water.viscosibility = 5.0e-5 / units::kPsi;
}

void add_fault(wells::ModelSpec& spec) {
    grid::Grid3D& g = spec.grid;
    std::vector<double> coord, zcorn;
    for (int pj = 0; pj <= g.ny; ++pj) {
        for (int pi = 0; pi <= g.nx; ++pi) {
            for (double z : {g.top_depth - 10.0, g.top_depth + 10.0 + 3.0 * g.nz * g.dz})
                for (double v : {pi * g.dx, pj * g.dy, z}) coord.push_back(v);
        }
    }
    for (int k = 0; k < g.nz; ++k)
        for (int bottom = 0; bottom < 2; ++bottom)
            for (int j = 0; j < 2 * g.ny; ++j)
                for (int i = 0; i < 2 * g.nx; ++i)
                    zcorn.push_back(g.top_depth + (k + bottom) * g.dz +
                                    (i / 2 >= g.nx / 2 ? 1.5 * g.dz : 0.0));
    grid::CornerPointInput in;
    in.nx = g.nx, in.ny = g.ny, in.nz = g.nz;
    in.coord = &coord;
    in.zcorn = &zcorn;
    in.key = "grid.eclipse";
    g.geometry = std::make_shared<grid::CellGeometry>(grid::corner_point_cells(in));
}

}  // namespace heptane::test

namespace heptane::test {

namespace {

/// GRID-section text: ACTNUM (when `box` is given) and the rock formula of actnum_pair.
std::string actnum_grid_text(int nx, int ny, int nz, int i0, int j0, const int* box) {
    std::ostringstream s;
    s.precision(17);
    const auto each = [&](const char* name, auto value) {
        s << name << "\n";
        for (int k = 0; k < nz; ++k)
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) s << ' ' << value(i + i0, j + j0, k);
        s << " /\n";
    };
    if (box != nullptr) {
        each("ACTNUM", [&](int i, int j, int k) {
            return i >= box[0] && i <= box[1] && j >= box[2] && j <= box[3] && k <= box[4] ? 1 : 0;
        });
    }
    // (i, j, k) of the big grid: the same value in both files.
    const auto perm = [](int i, int j, int k) {
        return 20.0 + 15.0 * (1.0 + std::sin(1.3 * i + 0.7 * j)) * (1.0 + 0.5 * k);
    };
    each("PERMX", perm);
    s << "COPY\n PERMX PERMY /\n PERMX PERMZ /\n/\nMULTIPLY\n PERMZ 0.1 /\n/\n";
    each("PORO", [](int i, int j, int k) { return 0.15 + 0.01 * ((i + 2 * j + 3 * k) % 7); });
    each("DX", [](int i, int, int) { return 10.0 + 2.0 * i; });
    each("DY", [](int, int j, int) { return 8.0 + j; });
    each("DZ", [](int, int, int k) { return 1.0 + 0.5 * k; });
    s << "TOPS\n";  // the top layer only: the others stack on it
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) s << ' ' << 3650.0 + 0.25 * (i + i0);
    s << " /\n";
    return s.str();
}

/// The spec of `text` (written to `file_path`) on nx x ny x nz cells; `shift` moves the
/// wells' columns (1 in the big grid: the box starts at i = j = 1). Box-relative wells: an
/// injector in the box's first column, perforated through it, and a producer in its last,
/// in the top layer.
wells::ModelSpec actnum_spec(const std::string& file_path, const std::string& text, int nx, int ny,
                             int nz, int shift, int box_nx, int box_ny, int box_nz) {
    {
        std::ofstream out(file_path);
        out << text;
    }
    wells::ModelSpec spec = two_phase_spec(nx, ny, nz, {});
    spec.eclipse.files = {file_path};
    spec.permeability.defaulted = spec.porosity.defaulted = true;
    spec.permeability.required = spec.porosity.required = true;
    spec.wells = {make_well("INJ", shift, shift, 0, box_nz - 1, true, true),
                  make_well("PROD", shift + box_nx - 1, shift + box_ny - 1, 0, 0)};
    spec.initial.datum_depth = 3650.0;  // the top of the files' TOPS
    return spec;
}

}  // namespace

index_t ActnumPair::big_cell(index_t small) const {
    const grid::Grid3D& s = removed.grid;
    const grid::Grid3D& b = with_actnum.grid;
    const auto [i, j, k] = s.ijk(small);
    return b.cell(i + 1, j + 1, k);
}

ActnumPair actnum_pair(const std::string& folder, int nx, int ny, int nz) {
    const int box[5] = {1, nx - 2, 1, ny - 2, nz - 2};
    ActnumPair p;
    const int bx = nx - 2, by = ny - 2, bz = nz - 1;
    p.spec_with_actnum =
        actnum_spec(folder + "/with_actnum.grdecl", actnum_grid_text(nx, ny, nz, 0, 0, box), nx, ny,
                    nz, 1, bx, by, bz);
    p.spec_removed =
        actnum_spec(folder + "/removed.grdecl", actnum_grid_text(bx, by, bz, 1, 1, nullptr), bx, by,
                    bz, 0, bx, by, bz);
    p.with_actnum = wells::generate(p.spec_with_actnum, true);
    p.removed = wells::generate(p.spec_removed, true);
    return p;
}

}  // namespace heptane::test
