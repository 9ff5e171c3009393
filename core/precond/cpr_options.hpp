#pragma once
/// @file The choices of the CPR preconditioner (solver.cpr in a deck, inputs/README.md; design
/// decision 36): the decoupling weights, and the structured multigrid of its pressure stage.
#include <array>

namespace heptane {

/// The weights that combine a cell's K equations into its pressure equation.
enum class CprWeights {
    quasi_impes,  ///< D^T w = e_0 for the cell's diagonal block D, scaled to max |w| = 1
    /// The same with D the accumulation term's part of the diagonal block alone
    /// (GHMatrix::accumulation: two-phase Jacobians only)
    true_impes,
};

/// The multigrid cycle: the coarse problem of each level solved by one (V) or two (W) cycles
/// of the level below.
enum class MgCycle { v, w };

/// The smoother of every level but the coarsest: vertical-line solves (block Thomas), in
/// Jacobi fashion (every column from the same residual) or red-black Gauss-Seidel (the
/// columns with i + j even, then the odd ones and the wells from the new residual).
enum class MgSmoother { line_jacobi, line_gs };

/// The largest coarsest level that is inverted (the device sums a dense row in 64 chunks).
constexpr int kMaxCoarsestRows = 2048;

struct MgOptions {
    /// Cells aggregated per coarse cell along (i, j, k). The default coarsens horizontally:
    /// the vertical couplings (dz << dx in reservoirs) are taken by the line smoother.
    std::array<int, 3> factor{2, 2, 1};
    int max_levels = 30;  ///< levels, the finest included
    MgCycle cycle = MgCycle::v;
    MgSmoother smoother = MgSmoother::line_gs;
    int pre_sweeps = 1, post_sweeps = 1;
    /// Relaxation of the smoother's update; 0: the smoother's default (line_jacobi 0.8: the
    /// undamped one leaves the highest horizontal frequency as it is; line_gs 1.0).
    double omega = 0.0;
    /// The coarse correction is added times this (over-correction: piecewise-constant
    /// aggregation's Galerkin operator is too stiff for smooth errors; Blaheta 1986).
    double coarse_scale = 1.0;
    /// Coarsening stops at a level of at most this many rows, which is inverted (dense
    /// Gauss-Jordan in the setup, a dense product per cycle); at most kMaxCoarsestRows.
    int coarsest_rows = 400;
    /// Sweeps of the smoother (omega 1) on the coarsest level when it has more rows than
    /// coarsest_rows (max_levels stopped the coarsening, or one long column is left: one
    /// column without wells is solved exactly by one line solve).
    int coarsest_sweeps = 20;
};

/// The relaxation a smoother uses for `options.omega`.
inline double smoother_omega(const MgOptions& options) {
    if (options.omega > 0.0) return options.omega;
    return options.smoother == MgSmoother::line_jacobi ? 0.8 : 1.0;
}

struct CprOptions {
    CprWeights weights = CprWeights::quasi_impes;
    MgOptions mg;
};

}  // namespace heptane
