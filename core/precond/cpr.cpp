#include "core/precond/cpr.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/base/errors.hpp"
#include "core/base/vector_ops.hpp"
#include "core/precond/block_arith.hpp"
#include "core/precond/cpr_part.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane {

using namespace cpr_detail;  // Part, agreed, throw_first, parallel_for, add, mul, sub

// ---- pressure system ---------------------------------------------------------------------

std::vector<double> decoupling_weights(const GHMatrix& A, CprWeights weights) {
    std::vector<double> w;
    decoupling_weights(A, weights, w);
    return w;
}

void check_weights_available(const GHMatrix& A, CprWeights weights) {
    if (weights == CprWeights::true_impes && !A.has_accumulation()) {
        throw InputError("solver.cpr.weights",
                         "true_impes needs the accumulation term's blocks, which only two-phase "
                         "Jacobians carry (generator two_phase, simulate); this system has none: "
                         "use quasi_impes");
    }
}

namespace {

/// decoupling_weights on a part's cells (the others' are left as they are).
void weights_on(const GHMatrix& A, CprWeights weights, std::vector<double>& w, const Part& part) {
    check_weights_available(A, weights);
    const int K = A.block_size();
    const index_t M = A.num_cells();
    w.resize(static_cast<std::size_t>(M * K));
    std::vector<char> bad(static_cast<std::size_t>(M), 0);
    const bool accumulation = weights == CprWeights::true_impes;
#pragma omp parallel for schedule(static) if (parallel_for(part.cell1 - part.cell0))
    for (index_t m = part.cell0; m < part.cell1; ++m) {
        const auto D = [&](int r, int c) {
            return accumulation ? A.accumulation_at(m, r, c) : A.at(kCenter, m, r, c);
        };
        bad[m] = cpr::impes_cell(D, K, &w[static_cast<std::size_t>(m * K)]) ? 0 : 1;
    }
    throw_first(bad,
                accumulation ? "the accumulation block (no true-IMPES weights)"
                             : "the diagonal block (no quasi-IMPES weights)",
                part.cell_base);
}

}  // namespace

void decoupling_weights(const GHMatrix& A, CprWeights weights, std::vector<double>& w) {
    weights_on(A, weights, w, Part(A, nullptr));
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
    if (A.has_nnc()) {  // the connections' layout, a value an entry
        NncArrays n = A.nnc();
        n.vals.assign(n.col.size(), 0.0);
        P.set_nnc(std::move(n));
    }
    return P;
}

namespace {

/// extract_pressure on a part's cells and wells (the others' are left as they are).
void pressure_on(const GHMatrix& A, const std::vector<double>& weights, GHMatrix& P,
                 const Part& part) {
    const int K = A.block_size();
    const index_t M = A.num_cells();
    if (!(P.nx() == A.nx() && P.ny() == A.ny() && P.nz() == A.nz() && P.block_size() == 1 &&
          P.num_wells() == A.num_wells() && P.nnc().num_entries() == A.nnc().num_entries()) ||
        weights.size() != static_cast<std::size_t>(M * K)) {
        throw std::invalid_argument("extract_pressure: P is not A's pressure structure");
    }
#pragma omp parallel for schedule(static) if (parallel_for(part.cell1 - part.cell0))
    for (index_t m = part.cell0; m < part.cell1; ++m) {
        const double* w = &weights[static_cast<std::size_t>(m * K)];
        for (int d = 0; d < kStencilSize; ++d) {
            P.at(d, m, 0, 0) = A.has_neighbour(m, d)
                                   ? cpr::weighted(w, K, [&](int r) { return A.at(d, m, r, 0); })
                                   : 0.0;
        }
        // each connection's pressure coupling: w_m^T times its block's column 0
        const NncArrays& an = A.nnc();
        if (an.empty()) continue;
        for (index_t e = an.ptr[m]; e < an.ptr[m + 1]; ++e) {
            const double* block = &an.vals[static_cast<std::size_t>(e * K * K)];
            P.nnc().vals[e] = cpr::weighted(w, K, [&](int r) { return block[r * K]; });
        }
    }
    const WellArrays& a = A.wells();
    WellArrays& p = P.wells();
    part.each_well(static_cast<int>(a.num_wells()), [&](int n) {
        for (index_t l = 0; l < a.count[n]; ++l) {
            const index_t m = a.cell0[n] + l;
            const index_t src = a.first[n] + l * K, dst = p.first[n] + l;
            p.w_vals[dst] = a.w_vals[src];  // d eq_w / d p(m)
            p.wt_vals[dst] = cpr::weighted(&weights[static_cast<std::size_t>(m * K)], K,
                                           [&](int r) { return a.wt_vals[src + r]; });
        }
        p.d[n] = a.d[n];
    });
}

}  // namespace

void extract_pressure(const GHMatrix& A, const std::vector<double>& weights, GHMatrix& P) {
    pressure_on(A, weights, P, Part(A, nullptr));
}

// ---- CPR ---------------------------------------------------------------------------------

namespace {

/// cpr_stage2_inverses on a part's cells and wells (the others' are left as they are).
void stage2_on(const GHMatrix& A, std::vector<double>& inv, const Part& part) {
    const int K = A.block_size();
    const index_t M = A.num_cells(), kk = static_cast<index_t>(K) * K;
    const auto& d = A.wells().d;
    inv.resize(static_cast<std::size_t>(M * kk) + d.size());
    std::vector<char> bad(static_cast<std::size_t>(M), 0);
#pragma omp parallel for schedule(static) if (parallel_for(part.cell1 - part.cell0))
    for (index_t m = part.cell0; m < part.cell1; ++m) {
        const auto D = [&](int r, int c) { return A.at(kCenter, m, r, c); };
        bad[m] = cpr::invert_cell(D, K, &inv[static_cast<std::size_t>(m * kk)]) ? 0 : 1;
    }
    throw_first(bad, "the diagonal block (stage 2)", part.cell_base);
    part.each_well(static_cast<int>(d.size()), [&](int w) {
        if (!cpr::usable_pivot(d[w])) {
            throw InputError(
                "solver.preconditioner",
                "cpr: well " + std::to_string(part.well_number(w)) + " has a zero diagonal");
        }
        inv[static_cast<std::size_t>(M * kk) + w] = 1.0 / d[w];
    });
}

}  // namespace

void cpr_stage2_inverses(const GHMatrix& A, std::vector<double>& inv) {
    stage2_on(A, inv, Part(A, nullptr));
}

CprPreconditioner::CprPreconditioner(const GHMatrix& A, const CprOptions& options,
                                     const CprPlanes* planes)
    : A_(&A), options_(options), pressure_(pressure_structure(A)) {
    const Part part(A, planes);
    agreed(planes, [&] { weights_on(A, options_.weights, weights_, part); });
    pressure_on(A, weights_, pressure_, part);
    mg_ = std::make_unique<StructuredMg>(pressure_, options_.mg, planes);
    agreed(planes, [&] { stage2_on(A, inv_, part); });
    rp_.assign(static_cast<std::size_t>(pressure_.rows()), 0.0);
    xp_ = rp_;
}

CprPreconditioner::~CprPreconditioner() = default;

void CprPreconditioner::update(const GHMatrix& A) { setup(A, nullptr); }

void CprPreconditioner::update(const GHMatrix& A, const CprPlanes& planes) { setup(A, &planes); }

void CprPreconditioner::setup(const GHMatrix& A, const CprPlanes* planes) {
    check_same_structure(*A_, A, "CprPreconditioner::update");
    A_ = &A;
    const Part part(A, planes);
    agreed(planes, [&] { weights_on(A, options_.weights, weights_, part); });
    pressure_on(A, weights_, pressure_, part);
    mg_->update(pressure_, planes);
    agreed(planes, [&] { stage2_on(A, inv_, part); });
}

void CprPreconditioner::apply(const double* r, double* z) const { run(r, z, nullptr); }

void CprPreconditioner::apply(const double* r, double* z, const CprPlanes& planes) const {
    run(r, z, &planes);
}

void CprPreconditioner::run(const double* r, double* z, const CprPlanes* planes) const {
    const GHMatrix& A = *A_;
    const int K = A.block_size();
    const index_t M = A.num_cells(), Nw = A.num_wells(), kk = static_cast<index_t>(K) * K;
    const Part part(A, planes);
    const bool parallel = parallel_for((part.cell1 - part.cell0) * K);
    // Stage 1: r_p = R r, x_p = cycle(P, r_p).
#pragma omp parallel for schedule(static) if (parallel)
    for (index_t m = part.cell0; m < part.cell1; ++m) {
        rp_[m] = cpr::weighted(&weights_[m * K], K, [&](int c) { return r[m * K + c]; });
    }
    part.each_well(static_cast<int>(Nw), [&](int w) { rp_[M + w] = r[M * K + w]; });
    if (planes != nullptr) {
        mg_->vcycle(rp_.data(), xp_.data(), *planes);
        part.exchange(xp_.data());  // stage 2 reads the neighbours' pressures
    } else {
        mg_->vcycle(rp_.data(), xp_.data());
    }
    // Stage 2: z = B^{-1} (r - A E x_p) + E x_p, cell by cell from x_p (cpr::stage2_cell).
    const block::BdiaRef a{A.bdia().data(), M, K};
    const WellArrays& wells = A.wells();
    const int nx = A.nx(), ny = A.ny(), nz = A.nz();
    const cpr::NncRef<index_t> nnc = nnc_ref(A);
#pragma omp parallel for schedule(static) if (parallel)
    for (index_t m = part.cell0; m < part.cell1; ++m) {
        const double* wt = nullptr;
        double xpw = 0.0;
        if (Nw > 0) {
            const index_t w = wells.well_of_column[m / nz];
            if (w >= 0 && m >= wells.cell0[w] && m < wells.cell0[w] + wells.count[w]) {
                wt = &wells.wt_vals[wells.first[w] + (m - wells.cell0[w]) * K];
                xpw = xp_[M + w];
            }
        }
        cpr::stage2_cell(a, K, nx, ny, nz, m, xp_.data(), nnc, wt, xpw, r + m * K, &inv_[m * kk],
                         z + m * K);
    }
    part.each_well(static_cast<int>(Nw), [&](int w) {
        z[M * K + w] =
            cpr::stage2_well(&wells.w_vals[wells.first[w]], K, wells.cell0[w], wells.count[w],
                             wells.d[w], inv_[M * kk + w], xp_.data(), xp_[M + w], r[M * K + w]);
    });
}

void CprPreconditioner::apply_transpose(const double*, double*) const {
    throw NotSupported("CPR has no transpose (QMR): use BiCGStab");
}

}  // namespace heptane
