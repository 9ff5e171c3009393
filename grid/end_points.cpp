#include "grid/end_points.hpp"

#include <cmath>
#include <cstddef>

namespace heptane::grid {

std::string end_point_check(const Grid3D& grid, const RockFields& rock,
                            const std::vector<RelPerm>& relperms, std::vector<EndPoints>& out) {
    out.clear();
    const auto& given = rock.end_points;
    const bool any =
        !given[0].empty() || !given[1].empty() || !given[2].empty() || !given[3].empty();
    if (!any) return {};
    const auto n = static_cast<std::size_t>(grid.num_cells());
    for (const std::vector<double>& v : given) {
        if (!v.empty() && v.size() != n) return "one end point a cell";
    }
    out.resize(n);
    for (std::size_t m = 0; m < n; ++m) {
        const auto cell = static_cast<index_t>(m);
        const std::size_t r = rock.saturation_region.empty()
                                  ? 0
                                  : static_cast<std::size_t>(rock.saturation_region[m]);
        const RelPerm& law = relperms[r];
        EndPoints& e = out[m];
        e = law.table.ends;
        double* const ends[4] = {&e.swl, &e.swcr, &e.swu, &e.sowcr};
        bool own = false;
        for (std::size_t q = 0; q < given.size(); ++q) {
            if (given[q].empty() || std::isnan(given[q][m])) continue;
            *ends[q] = given[q][m];
            own = true;
        }
        if (!own || !rock.is_active(cell)) {
            e = law.table.ends;  // an inactive cell's are not used
            continue;
        }
        const std::string region =
            "cell " + cell_text(grid, cell) +
            (relperms.size() > 1 ? " of saturation region " + std::to_string(r + 1)
                                 : std::string()) +
            ": ";
        if (law.table.rows == 0) {
            return region +
                   "end points scale a saturation table; the region's law is Corey's (its swc "
                   "and sor are its end points)";
        }
        const std::string error = end_points_error(e);
        if (!error.empty()) return region + error;
    }
    return {};
}

}  // namespace heptane::grid
