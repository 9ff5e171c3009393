#include "grid/transmissibility.hpp"

#include <string>

#include "core/base/errors.hpp"

namespace heptane::grid {

Transmissibilities tpfa_transmissibilities(const Grid3D& grid, const RockFields& rock) {
    const index_t n_cells = grid.num_cells();
    const auto n = static_cast<std::size_t>(n_cells);
    if (rock.kx.size() != n || rock.ky.size() != n || rock.kz.size() != n) {
        throw Error("tpfa_transmissibilities: the permeability fields have " +
                    std::to_string(rock.kx.size()) + ", " + std::to_string(rock.ky.size()) + ", " +
                    std::to_string(rock.kz.size()) + " values, the grid has " +
                    std::to_string(n_cells) + " cells");
    }
    Transmissibilities t;
    t.tx.assign(n, 0.0);
    t.ty.assign(n, 0.0);
    t.tz.assign(n, 0.0);

    const double area_x = grid.dy * grid.dz, area_y = grid.dx * grid.dz, area_z = grid.dx * grid.dy;
    const index_t step_i = static_cast<index_t>(grid.ny) * grid.nz;  // m of (i+1) - m of i
    const index_t step_j = grid.nz;
#pragma omp parallel for schedule(static)
    for (index_t m = 0; m < n_cells; ++m) {
        const auto [i, j, k] = grid.ijk(m);
        // Faces on the last layer of each direction border the outside: no flow, T = 0.
        if (i + 1 < grid.nx) {
            t.tx[m] = harmonic_transmissibility(rock.kx[m], rock.kx[m + step_i], area_x, grid.dx);
        }
        if (j + 1 < grid.ny) {
            t.ty[m] = harmonic_transmissibility(rock.ky[m], rock.ky[m + step_j], area_y, grid.dy);
        }
        if (k + 1 < grid.nz) {
            t.tz[m] = harmonic_transmissibility(rock.kz[m], rock.kz[m + 1], area_z, grid.dz);
        }
    }
    return t;
}

}  // namespace heptane::grid
