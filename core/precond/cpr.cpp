#include "core/precond/cpr.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <string>

#include "core/base/eigen_interop.hpp"
#include "core/base/errors.hpp"
#include "core/base/vector_ops.hpp"
#include "core/matrix/formats.hpp"
#include "core/precond/block_smoothers.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane {

// ---- pressure system ---------------------------------------------------------------------

std::vector<double> quasi_impes_weights(const GHMatrix& A) {
    std::vector<double> w;
    quasi_impes_weights(A, w);
    return w;
}

void quasi_impes_weights(const GHMatrix& A, std::vector<double>& w) {
    const int K = A.block_size();
    const index_t M = A.num_cells();
    w.resize(static_cast<std::size_t>(M * K));
    bool singular = false;
    index_t first_singular = -1;
#pragma omp parallel for schedule(static)
    for (index_t m = 0; m < M; ++m) {
        Eigen::MatrixXd Dt(K, K);  // D_m^T
        for (int r = 0; r < K; ++r)
            for (int c = 0; c < K; ++c) Dt(c, r) = A.at(kCenter, m, r, c);
        Eigen::VectorXd e0 = Eigen::VectorXd::Zero(K);
        e0(0) = 1.0;
        const Eigen::FullPivLU<Eigen::MatrixXd> lu(Dt);
        const Eigen::VectorXd x = lu.solve(e0);
        const bool ok = lu.isInvertible() && x.allFinite();
        for (int r = 0; r < K; ++r) w[static_cast<std::size_t>(m * K + r)] = ok ? x(r) : 0.0;
        if (!ok) {
#pragma omp critical
            {
                singular = true;
                if (first_singular < 0 || m < first_singular) first_singular = m;
            }
        }
    }
    if (singular) {
        throw InputError("solver.preconditioner",
                         "cpr: the diagonal block of cell " + std::to_string(first_singular) +
                             " is singular (no quasi-IMPES weights)");
    }
}

GHMatrix pressure_structure(const GHMatrix& A) {
    GHMatrix P(A.nx(), A.ny(), A.nz(), 1);
    const WellArrays& a = A.wells();
    WellArrays p;
    p.cell0 = a.cell0;
    p.count = a.count;
    p.well_of_column = a.well_of_column;
    index_t offset = 0;
    for (index_t w = 0; w < a.num_wells(); ++w) {
        p.first.push_back(offset);
        offset += a.count[w];
    }
    p.w_vals.assign(static_cast<std::size_t>(offset), 0.0);
    p.wt_vals.assign(static_cast<std::size_t>(offset), 0.0);
    p.d.assign(a.d.size(), 0.0);
    P.set_wells(std::move(p));
    return P;
}

void extract_pressure(const GHMatrix& A, const std::vector<double>& weights, GHMatrix& P) {
    const int K = A.block_size();
    const index_t M = A.num_cells();
    if (!(P.nx() == A.nx() && P.ny() == A.ny() && P.nz() == A.nz() && P.block_size() == 1 &&
          P.num_wells() == A.num_wells()) ||
        weights.size() != static_cast<std::size_t>(M * K)) {
        throw std::invalid_argument("extract_pressure: P is not A's pressure structure");
    }
#pragma omp parallel for schedule(static)
    for (index_t m = 0; m < M; ++m) {
        const double* w = &weights[static_cast<std::size_t>(m * K)];
        for (int d = 0; d < kStencilSize; ++d) {
            double v = 0.0;
            if (A.has_neighbour(m, d)) {
                for (int r = 0; r < K; ++r) v += w[r] * A.at(d, m, r, 0);
            }
            P.at(d, m, 0, 0) = v;
        }
    }
    const WellArrays& a = A.wells();
    WellArrays& p = P.wells();
    for (index_t n = 0; n < a.num_wells(); ++n) {
        for (index_t l = 0; l < a.count[n]; ++l) {
            const index_t m = a.cell0[n] + l;
            const index_t src = a.first[n] + l * K, dst = p.first[n] + l;
            p.w_vals[dst] = a.w_vals[src];  // d eq_w / d p(m)
            double v = 0.0;                 // w_m^T (d eq_m / d p_bh)
            for (int r = 0; r < K; ++r) v += weights[m * K + r] * a.wt_vals[src + r];
            p.wt_vals[dst] = v;
        }
        p.d[n] = a.d[n];
    }
}

// ---- structured multigrid ----------------------------------------------------------------

std::array<int, 3> coarse_dims(int nx, int ny, int nz, const std::array<int, 3>& f) {
    return {(nx + f[0] - 1) / f[0], (ny + f[1] - 1) / f[1], (nz + f[2] - 1) / f[2]};
}

namespace {

/// The aggregation factor at a level of these dims: `factor` where an axis can shrink; when
/// none can (a single column, factor 1 in k), 2 along every axis longer than 1.
std::array<int, 3> level_factor(int nx, int ny, int nz, const std::array<int, 3>& factor) {
    const int n[3] = {nx, ny, nz};
    std::array<int, 3> f{};
    bool shrinks = false;
    for (int a = 0; a < 3; ++a) {
        f[a] = n[a] > 1 ? factor[a] : 1;
        shrinks |= f[a] > 1;
    }
    if (!shrinks) {
        for (int a = 0; a < 3; ++a) f[a] = n[a] > 1 ? 2 : 1;
    }
    return f;
}

}  // namespace

void galerkin_coarse(const GHMatrix& A, const std::array<int, 3>& f, GHMatrix& C) {
    const auto dims = coarse_dims(A.nx(), A.ny(), A.nz(), f);
    if (A.block_size() != 1 || C.block_size() != 1 || C.nx() != dims[0] || C.ny() != dims[1] ||
        C.nz() != dims[2]) {
        throw std::invalid_argument("galerkin_coarse: K = 1 and coarse_dims expected");
    }
    const auto off = A.offsets();
    const index_t Mc = C.num_cells();
    // Gathered per coarse cell (its fine cells in order i, j, k; the diagonals in order):
    // deterministic and parallel.
#pragma omp parallel for schedule(static)
    for (index_t mc = 0; mc < Mc; ++mc) {
        const int ic = static_cast<int>(mc / (static_cast<index_t>(dims[2]) * dims[1]));
        const int jc = static_cast<int>((mc / dims[2]) % dims[1]);
        const int kc = static_cast<int>(mc % dims[2]);
        double v[kStencilSize] = {0, 0, 0, 0, 0, 0, 0};
        for (int i = ic * f[0]; i < std::min(A.nx(), (ic + 1) * f[0]); ++i) {
            for (int j = jc * f[1]; j < std::min(A.ny(), (jc + 1) * f[1]); ++j) {
                for (int k = kc * f[2]; k < std::min(A.nz(), (kc + 1) * f[2]); ++k) {
                    const index_t m = k + static_cast<index_t>(A.nz()) * (j + static_cast<index_t>(A.ny()) * i);
                    for (int d = 0; d < kStencilSize; ++d) {
                        if (!A.has_neighbour(m, d)) continue;
                        const index_t n = m + off[d];
                        const int in = static_cast<int>(n / (static_cast<index_t>(A.nz()) * A.ny()));
                        const int jn = static_cast<int>((n / A.nz()) % A.ny());
                        const int kn = static_cast<int>(n % A.nz());
                        const bool same =
                            in / f[0] == ic && jn / f[1] == jc && kn / f[2] == kc;
                        v[same ? kCenter : d] += A.at(d, m, 0, 0);
                    }
                }
            }
        }
        for (int d = 0; d < kStencilSize; ++d) C.at(d, mc, 0, 0) = C.has_neighbour(mc, d) ? v[d] : 0.0;
    }
}

struct StructuredMg::Level {
    GHMatrix own;                  ///< the operator (levels > 0)
    const GHMatrix* A = nullptr;   ///< the operator of this level
    std::array<int, 3> factor{};   ///< aggregation to the next level
    std::vector<index_t> coarse;   ///< cell -> its aggregate's cell on the next level
    std::vector<index_t> members;  ///< the cells of each aggregate, aggregate by aggregate
    std::vector<index_t> member_start;  ///< aggregate I's cells: members[start[I] .. start[I+1])
    std::unique_ptr<LineJacobi> smoother;
    mutable std::vector<double> b, x, r, z;  ///< b, x: this level's problem (levels > 0)
};

struct StructuredMg::Coarsest {
    Eigen::PartialPivLU<Eigen::MatrixXd> lu;
};

StructuredMg::~StructuredMg() = default;
StructuredMg::StructuredMg(StructuredMg&&) noexcept = default;

StructuredMg::StructuredMg(const GHMatrix& A, const MgOptions& options) : options_(options) {
    if (A.block_size() != 1) throw std::invalid_argument("StructuredMg: K = 1 expected");
    const auto add_level = [&](std::unique_ptr<Level> L) {
        const auto rows = static_cast<std::size_t>(L->A->rows());
        L->r.assign(rows, 0.0);
        L->z.assign(rows, 0.0);
        if (!levels_.empty()) {  // a coarse level's problem
            L->b.assign(rows, 0.0);
            L->x.assign(rows, 0.0);
        }
        levels_.push_back(std::move(L));
    };
    auto first = std::make_unique<Level>();
    first->A = &A;
    add_level(std::move(first));
    for (;;) {
        Level& top = *levels_.back();
        const GHMatrix& cur = *top.A;
        if (cur.num_cells() <= options_.coarsest_cells || levels() >= options_.max_levels) break;
        top.factor = level_factor(cur.nx(), cur.ny(), cur.nz(), options_.factor);
        const auto cd = coarse_dims(cur.nx(), cur.ny(), cur.nz(), top.factor);
        auto next = std::make_unique<Level>();
        next->own = GHMatrix(cd[0], cd[1], cd[2], 1);
        next->A = &next->own;  // the Level lives on the heap: the address stays
        // The transfer maps, both ways (restriction gathers, prolongation scatters: both
        // parallel, and the gather sums each aggregate in one fixed order).
        const auto f = top.factor;
        top.coarse.resize(static_cast<std::size_t>(cur.num_cells()));
        std::vector<index_t> count(static_cast<std::size_t>(next->own.num_cells()) + 1, 0);
        for (index_t m = 0; m < cur.num_cells(); ++m) {
            const index_t i = m / (static_cast<index_t>(cur.nz()) * cur.ny());
            const index_t j = (m / cur.nz()) % cur.ny(), k = m % cur.nz();
            const index_t c = k / f[2] + cd[2] * (j / f[1] + static_cast<index_t>(cd[1]) * (i / f[0]));
            top.coarse[static_cast<std::size_t>(m)] = c;
            ++count[static_cast<std::size_t>(c) + 1];
        }
        for (std::size_t c = 1; c < count.size(); ++c) count[c] += count[c - 1];
        top.member_start = count;
        top.members.resize(static_cast<std::size_t>(cur.num_cells()));
        for (index_t m = 0; m < cur.num_cells(); ++m)
            top.members[static_cast<std::size_t>(count[static_cast<std::size_t>(top.coarse[m])]++)] = m;
        add_level(std::move(next));
    }
    coarsest_ = std::make_unique<Coarsest>();
    update(A);
}

void StructuredMg::update(const GHMatrix& A) {
    levels_[0]->A = &A;
    const std::size_t last = levels_.size() - 1;
    for (std::size_t l = 1; l <= last; ++l)
        galerkin_coarse(*levels_[l - 1]->A, levels_[l - 1]->factor, levels_[l]->own);
    for (std::size_t l = 0; l < last; ++l) {
        Level& L = *levels_[l];
        if (L.smoother) {
            L.smoother->update(*L.A);
        } else {
            L.smoother = std::make_unique<LineJacobi>(*L.A);
        }
    }
    const Eigen::MatrixXd dense = Eigen::MatrixXd(to_eigen(to_csr(*levels_[last]->A)));
    coarsest_->lu.compute(dense);
}

const GHMatrix& StructuredMg::level(int l) const { return *levels_.at(static_cast<std::size_t>(l))->A; }

void StructuredMg::vcycle(const double* b, double* x) const { cycle(0, b, x); }

void StructuredMg::cycle(int l, const double* b, double* x) const {
    const Level& L = *levels_[static_cast<std::size_t>(l)];
    const GHMatrix& A = *L.A;
    const index_t n = A.rows();
    if (l + 1 == levels()) {
        const Eigen::VectorXd sol = coarsest_->lu.solve(Eigen::Map<const Eigen::VectorXd>(b, n));
        for (index_t i = 0; i < n; ++i) x[i] = sol(i);
        return;
    }
    const bool parallel = n >= vec::kParallelMin;
    const double omega = options_.omega;
    double* r = L.r.data();
    double* z = L.z.data();
    const auto residual = [&] {  // r = b - A x
        spmv(A, x, r);
#pragma omp parallel for schedule(static) if (parallel)
        for (index_t i = 0; i < n; ++i) r[i] = b[i] - r[i];
    };
    const auto smooth = [&](int sweeps, bool from_zero) {
        for (int s = 0; s < sweeps; ++s) {
            if (from_zero && s == 0) {  // x = 0: the residual is b
                L.smoother->apply(b, z);
#pragma omp parallel for schedule(static) if (parallel)
                for (index_t i = 0; i < n; ++i) x[i] = omega * z[i];
                continue;
            }
            residual();
            L.smoother->apply(r, z);
#pragma omp parallel for schedule(static) if (parallel)
            for (index_t i = 0; i < n; ++i) x[i] += omega * z[i];
        }
    };
    if (options_.pre_sweeps > 0) {
        smooth(options_.pre_sweeps, true);
    } else {
        std::fill(x, x + n, 0.0);
    }
    // Restrict the cells' residual (the wells stay on level 0): each aggregate's sum.
    residual();
    const Level& C = *levels_[static_cast<std::size_t>(l) + 1];
    const index_t nc = C.A->num_cells();
    double* bc = C.b.data();
#pragma omp parallel for schedule(static) if (parallel)
    for (index_t c = 0; c < nc; ++c) {
        double v = 0.0;
        for (index_t q = L.member_start[c]; q < L.member_start[c + 1]; ++q) v += r[L.members[q]];
        bc[c] = v;
    }
    cycle(l + 1, bc, C.x.data());
    const double alpha = options_.coarse_scale;
    const double* xc = C.x.data();
    const index_t cells = A.num_cells();
#pragma omp parallel for schedule(static) if (parallel)
    for (index_t m = 0; m < cells; ++m) x[m] += alpha * xc[L.coarse[m]];
    smooth(options_.post_sweeps, false);
}

// ---- CPR ---------------------------------------------------------------------------------

CprPreconditioner::CprPreconditioner(const GHMatrix& A, const MgOptions& options)
    : A_(&A),
      weights_(quasi_impes_weights(A)),
      pressure_(pressure_structure(A)),
      stage2_(std::make_unique<PointBlockJacobi>(A)) {
    extract_pressure(A, weights_, pressure_);
    mg_ = std::make_unique<StructuredMg>(pressure_, options);
    rp_.assign(static_cast<std::size_t>(pressure_.rows()), 0.0);
    xp_ = rp_;
    x_.assign(static_cast<std::size_t>(A.rows()), 0.0);
    s_ = x_;
}

CprPreconditioner::~CprPreconditioner() = default;

void CprPreconditioner::update(const GHMatrix& A) {
    check_same_structure(*A_, A, "CprPreconditioner::update");
    A_ = &A;
    quasi_impes_weights(A, weights_);
    extract_pressure(A, weights_, pressure_);
    mg_->update(pressure_);
    stage2_->update(A);
}

void CprPreconditioner::apply(const double* r, double* z) const {
    const GHMatrix& A = *A_;
    const int K = A.block_size();
    const index_t M = A.num_cells(), Nw = A.num_wells();
    // Stage 1: r_p = R r, x_p = V-cycle(P, r_p), x = E x_p.
    const bool parallel = A.rows() >= vec::kParallelMin;
#pragma omp parallel for schedule(static) if (parallel)
    for (index_t m = 0; m < M; ++m) {
        double v = 0.0;
        for (int c = 0; c < K; ++c) v += weights_[m * K + c] * r[m * K + c];
        rp_[m] = v;
    }
    for (index_t w = 0; w < Nw; ++w) rp_[M + w] = r[M * K + w];
    mg_->vcycle(rp_.data(), xp_.data());
#pragma omp parallel for schedule(static) if (parallel)
    for (index_t m = 0; m < M; ++m) {
        x_[m * K] = xp_[m];
        for (int c = 1; c < K; ++c) x_[m * K + c] = 0.0;
    }
    for (index_t w = 0; w < Nw; ++w) x_[M * K + w] = xp_[M + w];
    // Stage 2: z = x + B^{-1} (r - A x).
    spmv(A, x_.data(), s_.data());
    const index_t n = A.rows();
#pragma omp parallel for schedule(static) if (parallel)
    for (index_t i = 0; i < n; ++i) s_[i] = r[i] - s_[i];
    stage2_->apply(s_.data(), z);
#pragma omp parallel for schedule(static) if (parallel)
    for (index_t i = 0; i < n; ++i) z[i] += x_[i];
}

void CprPreconditioner::apply_transpose(const double*, double*) const {
    throw NotSupported("CPR has no transpose (QMR): use BiCGStab");
}

}  // namespace heptane
