#include "grid/end_points.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <stdexcept>

namespace heptane::grid {

std::array<std::vector<double>, kEndPointArrays> build_end_points(
    const Grid3D& grid, const EndPointSpecs& specs, const RockFields& rock,
    const EclipseGridSpec* files, const EclipseGridData* eclipse, std::vector<std::string>& notes) {
    std::array<std::vector<double>, kEndPointArrays> out;
    for (std::size_t q = 0; q < out.size(); ++q) {
        const ScalingQuantity what = q == kPcEndPoint             ? ScalingQuantity::pressure
                                     : q >= kFirstRelPermEndPoint ? ScalingQuantity::relperm
                                                                  : ScalingQuantity::saturation;
        out[q] = build_scaling_array(grid, specs[q], kEndPointKeywords[q], what, rock, files,
                                     eclipse, notes);
    }
    return out;
}

namespace {

/// The factor that makes a table's largest value `largest` the cell's `given` (KRW, KRO, PCW:
/// decision 98): 1 where not given (NaN); an error where the table's is 0 and given is not.
std::string vertical_factor(double given, double largest, const char* keyword, const char* what,
                            double& factor) {
    if (std::isnan(given)) return {};
    if (largest == 0.0) {
        if (given == 0.0) return {};
        std::ostringstream s;
        s << keyword << " " << given << (std::string(keyword) == "PCW" ? " Pa" : "")
          << ", but the table's " << what << " is 0: there is nothing to scale";
        return s.str();
    }
    factor = given / largest;
    return {};
}

}  // namespace

std::string end_point_check(const Grid3D& grid, const RockFields& rock,
                            const std::vector<RelPerm>& relperms, std::vector<EndPoints>& out) {
    out.clear();
    const auto& given = rock.end_points;
    const bool any = std::any_of(given.begin(), given.end(),
                                 [](const std::vector<double>& v) { return !v.empty(); }) ||
                     !rock.pc_scale.empty();
    if (!any) return {};
    const auto n = static_cast<std::size_t>(grid.num_cells());
    for (const std::vector<double>& v : given) {
        if (!v.empty() && v.size() != n) return "one end point a cell";
    }
    if (!rock.pc_scale.empty() && rock.pc_scale.size() != n) return "one Pc factor a cell";
    const auto given_at = [&](std::size_t q, std::size_t m) {
        return given[q].empty() ? std::nan("") : given[q][m];
    };
    out.resize(n);
    for (std::size_t m = 0; m < n; ++m) {
        const auto cell = static_cast<index_t>(m);
        const std::size_t r = rock.saturation_region.empty()
                                  ? 0
                                  : static_cast<std::size_t>(rock.saturation_region[m]);
        const RelPerm& law = relperms[r];
        const RelPermTable& t = law.table;
        EndPoints& e = out[m];
        e = t.ends;
        double* const ends[4] = {&e.swl, &e.swcr, &e.swu, &e.sowcr};
        bool own = false;
        for (std::size_t q = 0; q < given.size(); ++q) {
            if (std::isnan(given_at(q, m))) continue;
            if (q < 4) *ends[q] = given_at(q, m);
            own = true;
        }
        const bool swatinit = !rock.pc_scale.empty() && !std::isnan(rock.pc_scale[m]);
        own = own || swatinit;
        if (!own || !rock.is_active(cell)) {
            e = t.ends;  // an inactive cell's are not used
            continue;
        }
        const std::string region =
            "cell " + cell_text(grid, cell) +
            (relperms.size() > 1 ? " of saturation region " + std::to_string(r + 1)
                                 : std::string()) +
            ": ";
        if (t.rows == 0) {
            return region +
                   "end points scale a saturation table; the region's law is Corey's (its swc "
                   "and sor are its end points)";
        }
        const int last = t.rows - 1;
        std::string error =
            vertical_factor(given_at(4, m), t.krw[last], "KRW", "krw at SWU", e.krw_scale);
        if (error.empty())
            error = vertical_factor(given_at(5, m), t.kro[0], "KRO", "kro at SWL", e.kro_scale);
        if (error.empty()) {
            error = vertical_factor(given_at(kPcEndPoint, m), t.capillary ? t.pcow[0] : 0.0, "PCW",
                                    "Pc at SWL", e.pc_scale);
        }
        if (!error.empty()) return region + error;
        if (swatinit) e.pc_scale = rock.pc_scale[m];  // SWATINIT's replaces PCW's
        if (!(std::isfinite(e.pc_scale) && e.pc_scale >= 0.0))
            return region + "its Pc factor must be finite and >= 0";
        error = end_points_error(e);
        if (!error.empty()) return region + error;
    }
    return {};
}

std::array<std::vector<double>, kEndPointArrays> cell_end_point_values(
    const Grid3D& grid, const RockFields& rock, const std::vector<RelPerm>& relperms) {
    std::vector<EndPoints> cells;
    const std::string error = end_point_check(grid, rock, relperms, cells);
    if (!error.empty()) throw std::invalid_argument(error);
    std::array<std::vector<double>, kEndPointArrays> out;
    if (cells.empty()) return out;
    for (std::vector<double>& v : out) v.resize(cells.size());
    for (std::size_t m = 0; m < cells.size(); ++m) {
        const std::size_t r = rock.saturation_region.empty()
                                  ? 0
                                  : static_cast<std::size_t>(rock.saturation_region[m]);
        const RelPermTable& t = relperms[r].table;
        const EndPoints& e = cells[m];
        out[0][m] = e.swl;
        out[1][m] = e.swcr;
        out[2][m] = e.swu;
        out[3][m] = e.sowcr;
        out[4][m] = e.krw_scale * t.krw[t.rows - 1];
        out[5][m] = e.kro_scale * t.kro[0];
        out[6][m] = t.capillary ? e.pc_scale * t.pcow[0] : 0.0;
    }
    return out;
}

SwatinitCount scale_to_swatinit(const TwoPhaseCells& cells, const std::vector<Equilibrium>& regions,
                                const std::vector<double>& swatinit, RockFields& rock) {
    const std::vector<double> pc_eq = cells.equilibrium_capillary_pressure(regions);
    const std::size_t n = pc_eq.size();
    rock.swatinit.assign(n, std::nan(""));
    rock.pc_scale.assign(n, std::nan(""));
    SwatinitCount count;
    for (std::size_t m = 0; m < n; ++m) {
        const auto cell = static_cast<index_t>(m);
        const double sw_i = swatinit[m];
        if (std::isnan(sw_i) || !rock.is_active(cell)) continue;
        const CellRelPerm c = cells.relperm(cell);
        const RelPermTable& t = c.law->table;
        EndPoints e = c.ends != nullptr ? *c.ends : t.ends;
        e.pc_scale = 1.0;  // the table's Pc (horizontally scaled): SWATINIT's factor replaces PCW's
        const double pc_i = t.capillary ? capillary_pressure(CellRelPerm(*c.law, &e), sw_i) : 0.0;
        const double pc_last = t.capillary ? t.pcow[t.rows - 1] : 0.0;
        const bool scaled =
            pc_eq[m] > 0.0 && sw_i > e.swl && sw_i < e.swu && pc_i > pc_last && pc_i > 0.0;
        if (!scaled) {
            ++count.kept;
            continue;
        }
        const double factor = pc_eq[m] / pc_i;
        const double cap = c.law->swatinit_pc_max / t.pcow[0];  // PPCWMAX's (decision 99)
        if (factor > cap) {  // the cap's factor: the cell starts below its SWATINIT
            rock.pc_scale[m] = cap;
            ++count.capped;
            continue;
        }
        rock.swatinit[m] = sw_i;
        rock.pc_scale[m] = factor;
        ++count.honoured;
    }
    return count;
}

}  // namespace heptane::grid
