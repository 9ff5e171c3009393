#pragma once
// The CPR settings the distributed tests run on CPU and GPU ranks: each smoother and cycle,
// no pre-smoothing with two sweeps after, both weightings; spatial-block Jacobi's cases; and the
// system whose last block is singular, which only the last rank's part of the setup meets.
#include <array>
#include <string>
#include <vector>

#include "core/krylov/solver_settings.hpp"
#include "core/matrix/gh_matrix.hpp"

namespace heptane::test {

struct CprCase {
    const char* name;
    MgSmoother smoother;
    MgCycle cycle;
    int pre, post;
    CprWeights weights;
    /// BiCGStab with this CPR, its coarsest level at most `coarsest_rows` rows.
    SolverSettings settings(int coarsest_rows) const {
        SolverSettings s;
        s.preconditioner = PreconditionerKind::cpr;
        s.cpr.weights = weights;
        s.cpr.mg.smoother = smoother;
        s.cpr.mg.cycle = cycle;
        s.cpr.mg.pre_sweeps = pre;
        s.cpr.mg.post_sweeps = post;
        s.cpr.mg.coarsest_rows = coarsest_rows;
        return s;
    }
};

inline std::vector<CprCase> cpr_cases() {
    return {{"line_gs, V", MgSmoother::line_gs, MgCycle::v, 1, 1, CprWeights::quasi_impes},
            {"line_jacobi, W", MgSmoother::line_jacobi, MgCycle::w, 1, 1, CprWeights::quasi_impes},
            {"line_jacobi, V", MgSmoother::line_jacobi, MgCycle::v, 1, 1, CprWeights::quasi_impes},
            {"no pre-smoothing, 2 after, true-IMPES", MgSmoother::line_gs, MgCycle::v, 0, 2,
             CprWeights::true_impes}};
}

/// Spatial-block Jacobi with BiCGStab and with QMR for each block shape, named for a trace.
struct BlockCase {
    std::string name;
    SolverSettings settings;
};

inline std::vector<BlockCase> block_cases(const std::vector<std::array<int, 3>>& shapes) {
    std::vector<BlockCase> cases;
    for (const std::array<int, 3>& shape : shapes) {
        for (Method method : {Method::bicgstab, Method::qmr}) {
            BlockCase c;
            c.name = std::string(method == Method::bicgstab ? "bicgstab" : "qmr") +
                     ", block_shape [" + std::to_string(shape[0]) + ", " +
                     std::to_string(shape[1]) + ", " + std::to_string(shape[2]) + "]";
            c.settings.method = method;
            c.settings.preconditioner = PreconditionerKind::block_jacobi;
            c.settings.block_shape = shape;
            cases.push_back(c);
        }
    }
    return cases;
}

/// A copy of A whose last cell's diagonal block is zero.
inline GHMatrix singular_last_block(const GHMatrix& A) {
    GHMatrix bad = A;
    const index_t last = A.num_cells() - 1;
    for (int r = 0; r < A.block_size(); ++r)
        for (int c = 0; c < A.block_size(); ++c) bad.at(kCenter, last, r, c) = 0.0;
    return bad;
}

}  // namespace heptane::test
