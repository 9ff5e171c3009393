#include "grid/rock.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/base/errors.hpp"
#include "core/base/random.hpp"
#include "core/base/units.hpp"
#include "grid/eclipse_grid.hpp"
#include "grid/eclipse_model.hpp"
#include "grid/eclipse_units.hpp"
#include "grid/end_points.hpp"
#include "grid/loaders.hpp"

namespace heptane::grid {
namespace {

using units::kMilliDarcy;

/// Deck key of member `member` of the field described by `spec`.
std::string key_of(const FieldSpec& spec, const char* member) {
    return spec.key.empty() ? std::string(member) : spec.key + "." + member;
}

std::string kind_name(FieldKind kind) {
    switch (kind) {
        case FieldKind::uniform:
            return "uniform";
        case FieldKind::layered:
            return "layered";
        case FieldKind::lognormal:
            return "lognormal";
        case FieldKind::spe10:
            return "spe10";
        case FieldKind::eclipse:
            return "eclipse";
    }
    return "unknown";
}

std::string dims_text(int nx, int ny, int nz) {
    std::ostringstream s;
    s << nx << " x " << ny << " x " << nz;
    return s.str();
}

bool is_permeability(double k) { return std::isfinite(k) && k >= 0.0; }
bool is_porosity(double phi) { return std::isfinite(phi) && phi > 0.0 && phi <= 1.0; }

/// A ratio such as kv_kh: finite and >= 0.
void check_ratio(const FieldSpec& spec, const char* member, double ratio) {
    if (!(std::isfinite(ratio) && ratio >= 0.0)) {
        std::ostringstream msg;
        msg << "must be a finite number >= 0, got " << ratio;
        throw InputError(key_of(spec, member), msg.str());
    }
}

/// layers.size() == nz; returns nothing, throws InputError(key.values).
void check_layer_count(const Grid3D& grid, const FieldSpec& spec) {
    if (spec.layers.size() != static_cast<std::size_t>(grid.nz)) {
        std::ostringstream msg;
        msg << spec.layers.size() << " values given, the grid has nz = " << grid.nz << " layers";
        throw InputError(key_of(spec, "values"), msg.str());
    }
}

/// Calls the loader and rethrows its errors under `key` (the loader's detail names the file
/// and line).
template <typename Load>
auto load_file(const std::string& key, Load&& load) {
    try {
        return std::forward<Load>(load)();
    } catch (const InputError& e) {
        throw InputError(key, e.detail());
    }
}

/// Reads the Eclipse file of `spec` as a GRID section on this grid (edits, boxes and
/// includes applied, read_eclipse_grid) and returns its rock arrays among `names`. A file
/// that describes more than the rock (ACTNUM, NTG, geometry, multipliers, a whole .DATA deck)
/// belongs to grid.eclipse, where those apply: here it is an error, never a silent skip.
std::map<std::string, std::vector<double>> read_eclipse_arrays(const Grid3D& grid,
                                                               const FieldSpec& spec,
                                                               const std::set<std::string>& names,
                                                               const std::string& required) {
    const std::string key = key_of(spec, "file");
    EclipseGridData data = load_file(key, [&] {
        return read_eclipse_grid(spec.file, {grid.nx, grid.ny, grid.nz});
    });
    const auto grid_eclipse = [&](const std::string& what) {
        return InputError(key,
                          spec.file + ": " + what +
                              "; a rock field file holds PERMX, PERMY, PERMZ, PORO, SATNUM, "
                              "FIPNUM, EQLNUM, SWL, SWCR, SWU, SOWCR, KRW, KRO, PCW and SWATINIT "
                              "only: give this file as grid.eclipse, where the rest applies");
    };
    if (!data.region_multipliers.empty()) throw grid_eclipse("gives MULTREGT");
    if (!data.notes.empty() || !data.units.empty() || !data.endscale.empty())
        throw grid_eclipse("is a whole Eclipse deck");
    if (!data.faults.empty()) throw grid_eclipse("defines FAULTS");
    if (!data.tranmult.empty()) throw grid_eclipse("gives GRIDOPTS");
    if (!std::isnan(data.minpv)) throw grid_eclipse("gives MINPV");
    std::map<std::string, std::vector<double>> arrays;
    for (auto& [name, values] : data.arrays) {
        if (name != "PERMX" && name != "PERMY" && name != "PERMZ" && name != "PORO" &&
            name != "SATNUM" && name != "FIPNUM" && name != "EQLNUM" && name != "SWL" &&
            name != "SWCR" && name != "SWU" && name != "SOWCR" && name != "SWATINIT")
            throw grid_eclipse("defines " + name);
        if (names.count(name) != 0) arrays.emplace(name, std::move(values));
    }
    if (arrays.count(required) == 0) {
        throw InputError(key, spec.file + ": has no " + required + " keyword");
    }
    return arrays;
}

/// Scatters Eclipse-ordered `values` (mD or fraction) into k-fastest `out`, times `scale`.
/// `valid` decides which values are accepted; the first bad one is reported with its cell.
template <typename Valid>
void scatter_eclipse(const Grid3D& grid, const FieldSpec& spec, const std::string& name,
                     const std::vector<double>& values, double scale, Valid valid,
                     const char* requirement, std::vector<double>& out) {
    const auto every = [](index_t) { return true; };
    out = eclipse_to_cells(grid, key_of(spec, "file"), spec.file, name, values, scale, every, valid,
                           requirement);
}

void build_permeability(const Grid3D& grid, const FieldSpec& spec, RockFields& rock) {
    const index_t n_cells = grid.num_cells();
    const auto n = static_cast<std::size_t>(n_cells);
    switch (spec.kind) {
        case FieldKind::uniform: {
            const auto& v = spec.value;
            if (!is_permeability(v[0]) || !is_permeability(v[1]) || !is_permeability(v[2]) ||
                (v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0)) {
                std::ostringstream msg;
                msg << "kx, ky, kz must be finite, >= 0 mD and not all 0, got " << v[0] << ", "
                    << v[1] << ", " << v[2];
                throw InputError(key_of(spec, "value"), msg.str());
            }
            rock.kx.assign(n, v[0] * kMilliDarcy);
            rock.ky.assign(n, v[1] * kMilliDarcy);
            rock.kz.assign(n, v[2] * kMilliDarcy);
            return;
        }
        case FieldKind::layered: {
            check_layer_count(grid, spec);
            check_ratio(spec, "kv_kh", spec.kv_kh);
            bool any_positive = false;
            for (std::size_t k = 0; k < spec.layers.size(); ++k) {
                if (!is_permeability(spec.layers[k])) {
                    std::ostringstream msg;
                    msg << "layer " << k << " has " << spec.layers[k]
                        << " mD; permeabilities must be finite and >= 0";
                    throw InputError(key_of(spec, "values"), msg.str());
                }
                any_positive = any_positive || spec.layers[k] > 0.0;
            }
            if (!any_positive) {
                throw InputError(key_of(spec, "values"), "every layer has permeability 0");
            }
            rock.kx.resize(n);
            rock.ky.resize(n);
            rock.kz.resize(n);
#pragma omp parallel for schedule(static)
            for (index_t m = 0; m < n_cells; ++m) {
                const double k = spec.layers[static_cast<std::size_t>(m % grid.nz)] * kMilliDarcy;
                rock.kx[m] = k;
                rock.ky[m] = k;
                rock.kz[m] = spec.kv_kh * k;
            }
            return;
        }
        case FieldKind::lognormal: {
            if (!(std::isfinite(spec.mean) && spec.mean > 0.0)) {
                std::ostringstream msg;
                msg << "the geometric mean permeability (the median of k) must be finite and > 0 "
                       "mD, got "
                    << spec.mean;
                throw InputError(key_of(spec, "mean"), msg.str());
            }
            if (!(std::isfinite(spec.sigma) && spec.sigma >= 0.0)) {
                std::ostringstream msg;
                msg << "the standard deviation of ln k must be finite and >= 0, got " << spec.sigma;
                throw InputError(key_of(spec, "sigma"), msg.str());
            }
            check_ratio(spec, "kv_kh", spec.kv_kh);
            rock.kx.resize(n);
            rock.ky.resize(n);
            rock.kz.resize(n);
            const double median = spec.mean * kMilliDarcy;
            // One generator stream per cell: the field does not depend on the thread count.
#pragma omp parallel for schedule(static)
            for (index_t m = 0; m < n_cells; ++m) {
                Rng rng(spec.seed, spec.first_cell + static_cast<std::uint64_t>(m));
                const double k = median * std::exp(spec.sigma * rng.normal());
                rock.kx[m] = k;
                rock.ky[m] = k;
                rock.kz[m] = spec.kv_kh * k;
            }
            return;
        }
        case FieldKind::spe10: {
            const IndexBox box = spec.has_box ? spec.box : spe10_full_box();
            const auto in_model = [](const std::array<int, 2>& r, int size) {
                return r[0] >= 0 && r[0] <= r[1] && r[1] < size;
            };
            if (!in_model(box.i, kSpe10Nx) || !in_model(box.j, kSpe10Ny) ||
                !in_model(box.k, kSpe10Nz)) {
                std::ostringstream msg;
                msg << "box i " << box.i[0] << ".." << box.i[1] << ", j " << box.j[0] << ".."
                    << box.j[1] << ", k " << box.k[0] << ".." << box.k[1]
                    << " is reversed or outside the SPE10 model i 0.." << kSpe10Nx - 1 << ", j 0.."
                    << kSpe10Ny - 1 << ", k 0.." << kSpe10Nz - 1 << " (0-based, inclusive)";
                throw InputError(key_of(spec, "box"), msg.str());
            }
            if (box.nx() != grid.nx || box.ny() != grid.ny || box.nz() != grid.nz) {
                throw InputError(key_of(spec, "box"),
                                 std::string(spec.has_box ? "the box" : "the whole SPE10 model") +
                                     " is " + dims_text(box.nx(), box.ny(), box.nz()) +
                                     " cells but grid.dims is " +
                                     dims_text(grid.nx, grid.ny, grid.nz));
            }
            Spe10Window w =
                load_file(key_of(spec, "file"), [&] { return read_spe10(spec.file, box); });
            rock.kx = std::move(w.kx);
            rock.ky = std::move(w.ky);
            rock.kz = std::move(w.kz);
            for (auto* field : {&rock.kx, &rock.ky, &rock.kz}) {
                for (double& k : *field) k *= kMilliDarcy;
            }
            return;
        }
        case FieldKind::eclipse: {
            check_ratio(spec, "ky_kx", spec.ky_kx);
            check_ratio(spec, "kv_kh", spec.kv_kh);
            const auto arrays =
                read_eclipse_arrays(grid, spec, {"PERMX", "PERMY", "PERMZ"}, "PERMX");
            const char* requirement = "finite and >= 0 mD";
            scatter_eclipse(grid, spec, "PERMX", arrays.at("PERMX"), kMilliDarcy, is_permeability,
                            requirement, rock.kx);
            const auto derive = [&](const char* name, double ratio, std::vector<double>& out) {
                const auto it = arrays.find(name);
                if (it != arrays.end()) {
                    scatter_eclipse(grid, spec, name, it->second, kMilliDarcy, is_permeability,
                                    requirement, out);
                } else {
                    out.resize(n);
                    for (std::size_t m = 0; m < n; ++m) out[m] = ratio * rock.kx[m];
                }
            };
            derive("PERMY", spec.ky_kx, rock.ky);
            derive("PERMZ", spec.kv_kh, rock.kz);
            return;
        }
    }
    throw InputError(key_of(spec, "kind"), "unknown permeability kind");
}

void build_porosity(const Grid3D& grid, const FieldSpec& spec, RockFields& rock) {
    const auto n = static_cast<std::size_t>(grid.num_cells());
    const char* requirement = "a fraction in (0, 1]";
    switch (spec.kind) {
        case FieldKind::uniform: {
            if (!is_porosity(spec.value[0])) {
                std::ostringstream msg;
                msg << "porosity must be " << requirement << ", got " << spec.value[0];
                throw InputError(key_of(spec, "value"), msg.str());
            }
            rock.porosity.assign(n, spec.value[0]);
            return;
        }
        case FieldKind::layered: {
            check_layer_count(grid, spec);
            for (std::size_t k = 0; k < spec.layers.size(); ++k) {
                if (!is_porosity(spec.layers[k])) {
                    std::ostringstream msg;
                    msg << "layer " << k << " has porosity " << spec.layers[k] << ", must be "
                        << requirement;
                    throw InputError(key_of(spec, "values"), msg.str());
                }
            }
            rock.porosity.resize(n);
            const auto nz = static_cast<std::size_t>(grid.nz);
            for (std::size_t m = 0; m < n; ++m) rock.porosity[m] = spec.layers[m % nz];
            return;
        }
        case FieldKind::eclipse: {
            const auto arrays = read_eclipse_arrays(grid, spec, {"PORO"}, "PORO");
            scatter_eclipse(grid, spec, "PORO", arrays.at("PORO"), 1.0, is_porosity, requirement,
                            rock.porosity);
            return;
        }
        case FieldKind::spe10:
            throw InputError(key_of(spec, "kind"),
                             "spe10 provides permeability only; give porosity as a number, "
                             "layered or eclipse");
        case FieldKind::lognormal:
            throw InputError(key_of(spec, "kind"),
                             "lognormal is a permeability field; give porosity as a number, "
                             "layered or eclipse");
    }
    throw InputError(key_of(spec, "kind"), "unknown porosity kind " + kind_name(spec.kind));
}

}  // namespace

index_t RockFields::num_active() const {
    if (active.empty()) return static_cast<index_t>(porosity.size());
    index_t n = 0;
    for (std::uint8_t a : active) n += a != 0 ? 1 : 0;
    return n;
}

int RockFields::num_fip_regions() const {
    int n = 0;
    for (std::size_t m = 0; m < fip_region.size(); ++m) {
        if (is_active(static_cast<index_t>(m))) n = std::max(n, fip_region[m] + 1);
    }
    return n;
}

namespace {

/// Each cell's value of the array `keyword` (SATNUM, FIPNUM, SWL ...) from `spec` (uniform,
/// layered, or the keyword of an Eclipse file) or, with `from_files`, from the grid.eclipse
/// files' array. An active cell's value must pass `rule` (`requirement` says so in the error,
/// which names the key and the cell: "cell (i, j, k) = (...) " `said` " V; it must be ..."); an
/// inactive cell's is not checked. The values come back times `unit` (SI per value of the
/// source used).
template <class Rule>
std::vector<double> cell_values(const Grid3D& grid, const FieldSpec& spec, const char* keyword,
                                const char* said, Rule rule, const std::string& requirement,
                                double unit, bool from_files, const RockFields& rock,
                                const EclipseGridSpec* files, const EclipseGridData* eclipse) {
    const auto n = static_cast<std::size_t>(grid.num_cells());
    std::vector<double> values;
    std::string key = key_of(spec, "value");
    switch (from_files ? FieldKind::eclipse : spec.kind) {
        case FieldKind::uniform:
            values.assign(n, spec.value[0]);
            break;
        case FieldKind::layered:
            check_layer_count(grid, spec);
            key = key_of(spec, "values");
            values.resize(n);
            for (std::size_t m = 0; m < n; ++m)
                values[m] = spec.layers[m % static_cast<std::size_t>(grid.nz)];
            break;
        case FieldKind::eclipse: {
            const auto active = [&](index_t m) { return rock.is_active(m); };
            if (from_files) {
                return eclipse_to_cells(grid, files->key, "grid.eclipse's files", keyword,
                                        eclipse->arrays.at(keyword), unit, active, rule,
                                        requirement.c_str());
            }
            const auto arrays = read_eclipse_arrays(grid, spec, {keyword}, keyword);
            return eclipse_to_cells(grid, key_of(spec, "file"), spec.file, keyword,
                                    arrays.at(keyword), unit, active, rule, requirement.c_str());
        }
        default:
            throw InputError(key_of(spec, "kind"), kind_name(spec.kind) + " is not a kind of " +
                                                       keyword +
                                                       " field; give a number, layered or eclipse");
    }
    for (std::size_t m = 0; m < n; ++m) {
        if (!rock.is_active(static_cast<index_t>(m)) || rule(values[m])) continue;
        std::ostringstream msg;
        msg << "cell " << cell_text(grid, static_cast<index_t>(m)) << " " << said << " "
            << values[m] << "; it must be " << requirement;
        throw InputError(key, msg.str());
    }
    if (unit != 1.0) {
        for (double& v : values) v *= unit;
    }
    return values;
}

/// Each active cell's region of the region array `keyword` (SATNUM, FIPNUM), from 0
/// (cell_values' sources): a number must be an integer in [1, regions]; an inactive cell's is
/// not used (0).
std::vector<std::int32_t> region_numbers(const Grid3D& grid, const FieldSpec& spec,
                                         const char* keyword, int regions,
                                         const std::string& requirement, bool from_files,
                                         const RockFields& rock, const EclipseGridSpec* files,
                                         const EclipseGridData* eclipse) {
    const auto region_number = [&](double v) {
        return v >= 1.0 && v <= regions && v == std::floor(v);
    };
    const std::vector<double> numbers =
        cell_values(grid, spec, keyword, "is in region", region_number, requirement, 1.0,
                    from_files, rock, files, eclipse);
    std::vector<std::int32_t> out(numbers.size(), 0);
    for (std::size_t m = 0; m < numbers.size(); ++m) {
        if (rock.is_active(static_cast<index_t>(m)))
            out[m] = static_cast<std::int32_t>(numbers[m]) - 1;
    }
    return out;
}

/// Whether the grid.eclipse files give `keyword`; an error when `spec` gives it too.
bool files_give(const FieldSpec& spec, const char* keyword, const EclipseGridData* eclipse) {
    const bool in_files = eclipse != nullptr && eclipse->arrays.count(keyword) != 0;
    if (in_files && !spec.defaulted) {
        throw InputError(spec.key, std::string("grid.eclipse's files give ") + keyword +
                                       " too: give the regions once");
    }
    return in_files;
}

/// The regions of the array `keyword` (SATNUM, EQLNUM) numbering `regions` records of
/// `owner`'s (`what`: "saturation", "equilibration"): build_saturation_regions' rules.
std::vector<std::int32_t> numbered_regions(const Grid3D& grid, const FieldSpec& spec,
                                           const char* keyword, const std::string& what,
                                           const std::string& owner, int regions,
                                           const RockFields& rock, const EclipseGridSpec* files,
                                           const EclipseGridData* eclipse) {
    const bool from_files = files_give(spec, keyword, eclipse);
    if (spec.defaulted && !from_files) {
        if (regions > 1) {
            throw InputError(spec.key, "is required: " + owner + " has " + std::to_string(regions) +
                                           " " + what + " regions; give each cell's region here" +
                                           (eclipse != nullptr ? std::string(" or as ") + keyword +
                                                                     " in grid.eclipse"
                                                               : std::string()));
        }
        return {};
    }
    std::vector<std::int32_t> out = region_numbers(
        grid, spec, keyword, regions,
        "an integer in [1, " + std::to_string(regions) + "] (" + owner + "'s " + what + " regions)",
        from_files, rock, files, eclipse);
    if (std::all_of(out.begin(), out.end(), [](std::int32_t r) { return r == 0; })) return {};
    return out;
}

}  // namespace

std::vector<std::int32_t> build_saturation_regions(const Grid3D& grid, const FieldSpec& spec,
                                                   int regions, const RockFields& rock,
                                                   const EclipseGridSpec* files,
                                                   const EclipseGridData* eclipse) {
    return numbered_regions(grid, spec, "SATNUM", "saturation", "the fluid", regions, rock, files,
                            eclipse);
}

std::vector<std::int32_t> build_equilibration_regions(const Grid3D& grid, const FieldSpec& spec,
                                                      int regions, const RockFields& rock,
                                                      const EclipseGridSpec* files,
                                                      const EclipseGridData* eclipse) {
    return numbered_regions(grid, spec, "EQLNUM", "equilibration", "the initial state", regions,
                            rock, files, eclipse);
}

std::vector<std::int32_t> build_fip_regions(const Grid3D& grid, const FieldSpec& spec,
                                            const RockFields& rock, const EclipseGridSpec* files,
                                            const EclipseGridData* eclipse) {
    const bool from_files = files_give(spec, "FIPNUM", eclipse);
    if (spec.defaulted && !from_files) return {};
    return region_numbers(
        grid, spec, "FIPNUM", kMaxFipRegions,
        "an integer in [1, " + std::to_string(kMaxFipRegions) + "] (the fluid-in-place regions)",
        from_files, rock, files, eclipse);
}

std::vector<double> build_scaling_array(const Grid3D& grid, const FieldSpec& spec,
                                        const char* keyword, ScalingQuantity what,
                                        const RockFields& rock, const EclipseGridSpec* files,
                                        const EclipseGridData* eclipse,
                                        std::vector<std::string>& notes) {
    const bool endscale = eclipse != nullptr && !eclipse->endscale.empty();
    const bool in_files = eclipse != nullptr && eclipse->arrays.count(keyword) != 0;
    if (in_files && !endscale) {
        notes.push_back(files->key + ": " + keyword +
                        ": passed over, as Eclipse passes it over: end-point scaling needs "
                        "ENDSCALE in RUNSPEC");
    }
    const bool from_files = in_files && endscale;
    if (from_files && !spec.defaulted) {
        throw InputError(
            spec.key, std::string("grid.eclipse's files give ") + keyword + " too: give it once");
    }
    if (spec.defaulted && !from_files) return {};
    const bool pressure = what == ScalingQuantity::pressure;
    const auto valid = [pressure](double v) {
        return std::isnan(v) || (v >= 0.0 && (pressure ? std::isfinite(v) : v <= 1.0));
    };
    const char* requirement = pressure ? "a capillary pressure >= 0"
                              : what == ScalingQuantity::saturation
                                  ? "a saturation in [0, 1]"
                                  : "a relative permeability in [0, 1]";
    const double unit = !pressure    ? 1.0
                        : from_files ? detail::pressure_unit(*files, *eclipse)
                                     : spec.unit;
    return cell_values(grid, spec, keyword, (std::string("has ") + keyword).c_str(), valid,
                       requirement, unit, from_files, rock, files, eclipse);
}

RockFields build_rock(const Grid3D& grid, const FieldSpec& permeability, const FieldSpec& porosity,
                      const EclipseGridSpec* files, const EclipseGridData* eclipse) {
    grid.validate();
    RockFields rock;
    const auto in_files = [&](const char* name) {
        return eclipse != nullptr && eclipse->arrays.count(name) != 0;
    };
    const auto from_deck = [&](const FieldSpec& spec, const char* array, const char* what) {
        if (in_files(array)) return false;
        if (spec.defaulted && spec.required) {
            throw InputError(spec.key, std::string("is required: give ") + what +
                                           (eclipse != nullptr ? std::string(" here or as ") +
                                                                     array + " in grid.eclipse"
                                                               : std::string()));
        }
        return true;
    };
    // Porosity first: it is cheap, and a spe10 porosity spec fails before the big file read.
    if (from_deck(porosity, "PORO", "the porosity")) build_porosity(grid, porosity, rock);
    if (from_deck(permeability, "PERMX", "the permeability"))
        build_permeability(grid, permeability, rock);
    if (eclipse != nullptr) {
        apply_eclipse_rock(grid, *files, *eclipse, !permeability.defaulted, !porosity.defaulted,
                           rock);
    }
    // One rule for every source (a number and a layer list already say it in their words): a
    // field that is 0 everywhere in every direction lets nothing flow.
    const auto positive = [](const std::vector<double>& k) {
        return std::any_of(k.begin(), k.end(), [](double v) { return v > 0.0; });
    };
    if (!positive(rock.kx) && !positive(rock.ky) && !positive(rock.kz)) {
        if (in_files("PERMX")) {
            throw InputError(files->key,
                             "every active cell has permeability 0 in every "
                             "direction: nothing can flow");
        }
        const bool file =
            permeability.kind == FieldKind::eclipse || permeability.kind == FieldKind::spe10;
        throw InputError(key_of(permeability, file ? "file" : "value"),
                         (file ? permeability.file + ": " : std::string()) +
                             "every cell has permeability 0 in every direction: nothing can flow");
    }
    return rock;
}

}  // namespace heptane::grid
