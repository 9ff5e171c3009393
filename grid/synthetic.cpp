#include "grid/synthetic.hpp"

#include <cmath>

#include "core/base/random.hpp"

namespace heptane::grid {

void fill_random_blocks(GHMatrix& A, std::uint64_t seed) {
    const index_t M = A.num_cells();
    const int K = A.block_size();
#pragma omp parallel for schedule(static)
    for (index_t m = 0; m < M; ++m) {
        // One stream per cell: 7 K^2 draws in (d, r, c) order, padding included, so a
        // cell's values do not depend on where the grid boundary is or on the thread count.
        Rng rng(seed, static_cast<std::uint64_t>(m));
        for (int d = 0; d < kStencilSize; ++d) {
            const bool inside = A.has_neighbour(m, d);
            for (int r = 0; r < K; ++r) {
                for (int c = 0; c < K; ++c) {
                    const double v = rng.uniform(-1.0, 1.0);
                    A.at(d, m, r, c) = inside ? v : 0.0;
                }
            }
        }
    }
}

void impose_diagonal_dominance(GHMatrix& A, double delta) {
    const index_t M = A.num_cells();
    const int K = A.block_size();
    WellArrays& wells = A.wells();
    const bool have_wells = A.num_wells() > 0;
    auto diagonal_for = [delta](double off_sum) { return delta * (off_sum > 0.0 ? off_sum : 1.0); };
#pragma omp parallel for schedule(static)
    for (index_t m = 0; m < M; ++m) {
        index_t well_base = -1;
        if (have_wells) {
            const int w = wells.well_of_column[m / A.nz()];
            if (w >= 0 && m >= wells.cell0[w] && m < wells.cell0[w] + wells.count[w]) {
                well_base = wells.first[w] + (m - wells.cell0[w]) * K;
            }
        }
        for (int r = 0; r < K; ++r) {
            double sum = well_base >= 0 ? std::abs(wells.wt_vals[well_base + r]) : 0.0;
            for (int d = 0; d < kStencilSize; ++d) {
                if (!A.has_neighbour(m, d)) continue;
                for (int c = 0; c < K; ++c) {
                    if (d != kCenter || c != r) sum += std::abs(A.at(d, m, r, c));
                }
            }
            A.at(kCenter, m, r, r) = diagonal_for(sum);
        }
    }
    for (index_t w = 0; w < A.num_wells(); ++w) {
        double sum = 0.0;
        for (index_t i = 0; i < wells.count[w] * K; ++i)
            sum += std::abs(wells.w_vals[wells.first[w] + i]);
        wells.d[w] = diagonal_for(sum);
    }
}

}  // namespace heptane::grid
