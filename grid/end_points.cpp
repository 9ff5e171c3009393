#include "grid/end_points.hpp"

#include <cmath>
#include <cstddef>

namespace heptane::grid {

std::array<std::vector<double>, 4> build_end_points(const Grid3D& grid, const EndPointSpecs& specs,
                                                    const RockFields& rock,
                                                    const EclipseGridSpec* files,
                                                    const EclipseGridData* eclipse,
                                                    std::vector<std::string>& notes) {
    std::array<std::vector<double>, 4> out;
    for (std::size_t q = 0; q < out.size(); ++q) {
        out[q] = build_saturation_array(grid, specs[q], kEndPointKeywords[q], rock, files, eclipse,
                                        notes);
    }
    return out;
}

std::string end_point_check(const Grid3D& grid, const RockFields& rock,
                            const std::vector<RelPerm>& relperms, std::vector<EndPoints>& out) {
    out.clear();
    const auto& given = rock.end_points;
    const bool any = !given[0].empty() || !given[1].empty() || !given[2].empty() ||
                     !given[3].empty() || !rock.pc_scale.empty();
    if (!any) return {};
    const auto n = static_cast<std::size_t>(grid.num_cells());
    for (const std::vector<double>& v : given) {
        if (!v.empty() && v.size() != n) return "one end point a cell";
    }
    if (!rock.pc_scale.empty() && rock.pc_scale.size() != n) return "one Pc factor a cell";
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
        if (!rock.pc_scale.empty() && rock.pc_scale[m] != 1.0) {
            e.pc_scale = rock.pc_scale[m];
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
        if (!(std::isfinite(e.pc_scale) && e.pc_scale > 0.0))
            return region + "its Pc factor must be finite and > 0";
        const std::string error = end_points_error(e);
        if (!error.empty()) return region + error;
    }
    return {};
}

SwatinitCount scale_to_swatinit(const TwoPhaseCells& cells, const std::vector<Equilibrium>& regions,
                                const std::vector<double>& swatinit, RockFields& rock) {
    const std::vector<double> pc_eq = cells.equilibrium_capillary_pressure(regions);
    const std::size_t n = pc_eq.size();
    rock.swatinit.assign(n, std::nan(""));
    rock.pc_scale.assign(n, 1.0);
    SwatinitCount count;
    for (std::size_t m = 0; m < n; ++m) {
        const auto cell = static_cast<index_t>(m);
        const double sw_i = swatinit[m];
        if (std::isnan(sw_i) || !rock.is_active(cell)) continue;
        const CellRelPerm c = cells.relperm(cell);
        const RelPermTable& t = c.law->table;
        const EndPoints& e = c.ends != nullptr ? *c.ends : t.ends;
        const double pc_i = t.capillary ? capillary_pressure(c, sw_i) : 0.0;
        const double pc_last = t.capillary ? t.pcow[t.rows - 1] : 0.0;
        const bool scaled =
            pc_eq[m] > 0.0 && sw_i > e.swl && sw_i < e.swu && pc_i > pc_last && pc_i > 0.0;
        if (!scaled) {
            ++count.kept;
            continue;
        }
        rock.swatinit[m] = sw_i;
        rock.pc_scale[m] = pc_eq[m] / pc_i;
        ++count.honoured;
    }
    return count;
}

}  // namespace heptane::grid
