#include "proxy/problem.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "grid/synthetic.hpp"

namespace heptane::proxy {
namespace {

wells::WellSpec vertical_well(const std::string& name, bool injector, int i, int j, int nz,
                              double target) {
    wells::WellSpec w;
    w.name = name;
    w.type = injector ? wells::WellType::injector : wells::WellType::producer;
    w.i = i;
    w.j = j;
    w.k_first = 0;
    w.k_last = nz - 1;
    w.control = injector ? wells::ControlKind::rate : wells::ControlKind::bhp;
    w.target = target;
    w.radius = 1.0 * units::kFoot;  // SPE10's 2 ft wellbore diameter
    return w;
}

}  // namespace

wells::ModelSpec problem_model(const ProblemSize& size, std::uint64_t seed) {
    if (size.nx < kPattern || size.ny < kPattern || size.nz < 1) {
        throw InputError("dims", "the proxy problem needs at least one " +
                                     std::to_string(kPattern) + " x " + std::to_string(kPattern) +
                                     " pattern of columns and one layer");
    }
    wells::ModelSpec spec;
    grid::Grid3D& g = spec.grid;
    g.nx = size.nx;
    g.ny = size.ny;
    g.nz = size.nz;
    g.dx = 20.0 * units::kFoot;
    g.dy = 10.0 * units::kFoot;
    g.dz = 2.0 * units::kFoot;
    g.top_depth = 12000.0 * units::kFoot;
    spec.model = wells::FluidModel::two_phase;  // TwoPhaseParams' defaults: SPE10's fluids
    spec.permeability.kind = grid::FieldKind::lognormal;
    spec.permeability.key = "proxy.permeability";
    spec.permeability.mean = kGeometricMeanPermeability;
    spec.permeability.sigma = kSigmaLnPermeability;
    spec.permeability.kv_kh = kVerticalRatio;
    spec.permeability.seed = seed;
    spec.porosity.key = "proxy.porosity";
    spec.porosity.value = {0.2, 0.0, 0.0};
    spec.initial.pressure = 6000.0 * units::kPsi;
    spec.initial.datum_depth = g.top_depth;
    spec.initial.water_saturation = spec.two_phase.relperm.swc;
    spec.dt = units::kDay;

    const double pattern_pore_volume = 0.2 * kPattern * kPattern * size.nz * g.volume(0);
    const double injection = 1e-3 * pattern_pore_volume / units::kDay;  // m^3/s
    for (int i = 0; i < size.nx; i += kPattern) {
        for (int j = 0; j < size.ny; j += kPattern) {
            spec.wells.push_back(vertical_well("P_" + std::to_string(i) + "_" + std::to_string(j),
                                               false, i, j, size.nz, 4000.0 * units::kPsi));
        }
    }
    for (int i = kPattern / 2; i < size.nx; i += kPattern) {
        for (int j = kPattern / 2; j < size.ny; j += kPattern) {
            spec.wells.push_back(vertical_well("I_" + std::to_string(i) + "_" + std::to_string(j),
                                               true, i, j, size.nz, injection));
        }
    }
    return spec;
}

double bytes_per_cell(int K) {
    const double k = K;
    const double bdia = 7.0 * k * k * 8.0;
    const double vectors = 10.0 * k * 8.0;  // BiCGStab's x, b, r, r_hat, p, v, s, t and two
                                            // preconditioned directions
    const double inverses = k * k * 8.0;
    return bdia + vectors + inverses;
}

ProblemSize size_for_bytes(double bytes, int K, int nz) {
    const double columns = std::max(0.0, bytes / (bytes_per_cell(K) * nz));
    const int patterns = std::max(1, static_cast<int>(std::floor(std::sqrt(columns) / kPattern)));
    ProblemSize s;
    s.nx = s.ny = patterns * kPattern;
    s.nz = nz;
    return s;
}

wells::ModelSpec variant_model(const ProblemSize& size, int K, std::uint64_t seed) {
    wells::ModelSpec spec = problem_model(size, seed);
    spec.model = wells::FluidModel::synthetic;
    spec.synthetic.components = K;
    spec.synthetic.diagonal_dominance = kVariantDiagonalDominance;
    spec.synthetic.seed = seed;
    return spec;
}

wells::Model variant_system(const ProblemSize& size, int K, std::uint64_t seed) {
    wells::Model m = wells::generate(variant_model(size, K, seed));
    GHMatrix& A = m.system.matrix;
    const std::size_t cells = static_cast<std::size_t>(A.num_cells());
    std::vector<double>& bdia = A.bdia();
    for (int d = 0; d < kStencilSize; ++d) {
        for (int r = 0; r < K; ++r) {
            for (int c = 0; c < K; ++c) {
                if (d == kStencilSize / 2 && r == c) continue;  // the diagonal, set below
                double* v = bdia.data() + A.bdia_index(d, r, c, 0);
                for (std::size_t i = 0; i < cells; ++i) v[i] = -std::abs(v[i]);
            }
        }
    }
    for (double& v : A.wells().w_vals) v = -std::abs(v);
    for (double& v : A.wells().wt_vals) v = -std::abs(v);
    grid::impose_diagonal_dominance(A, kVariantDiagonalDominance);
    return m;
}

}  // namespace heptane::proxy
