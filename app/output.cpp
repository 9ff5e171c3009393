#include "app/output.hpp"

#include <cstdint>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "app/atomic_file.hpp"
#include "app/hdf5_file.hpp"
#include "app/report.hpp"
#include "core/base/units.hpp"
#include "heptane_version.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;

std::string join(const std::vector<std::string>& items, const char* sep) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
    return out;
}

/// One component of a cell vector (k-fastest: already C order for (nx, ny, nz)).
std::vector<double> component(const std::vector<double>& x, int K, int c, index_t cells,
                              double scale = 1.0) {
    std::vector<double> out(static_cast<std::size_t>(cells));
    for (index_t m = 0; m < cells; ++m) out[m] = x[m * K + c] * scale;
    return out;
}

}  // namespace

void write_xdmf(const std::string& file, const std::string& h5_name, const grid::Grid3D& g,
                const std::vector<XdmfFrame>& frames) {
    const std::string dims =
        std::to_string(g.nx) + " " + std::to_string(g.ny) + " " + std::to_string(g.nz);
    const bool temporal = frames.size() != 1 || frames[0].time >= 0.0;
    std::ostringstream x;
    x.precision(17);
    x << "<?xml version=\"1.0\" ?>\n"
      << "<!-- heptane " << kVersion << ". Cell data in k-fastest order, shape (nx, ny, nz):\n"
      << "     the mesh's slowest axis is i, its fastest k, so ParaView's X axis is the layer\n"
      << "     index k (depth, downwards) and its Z axis is i. Inactive cells are NaN. -->\n"
      << "<Xdmf Version=\"3.0\">\n  <Domain>\n";
    std::string indent = "    ";
    if (temporal) {
        x << "    <Grid Name=\"heptane\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
        indent = "      ";
    }
    for (std::size_t n = 0; n < frames.size(); ++n) {
        const XdmfFrame& frame = frames[n];
        x << indent << "<Grid Name=\"" << (temporal ? "step " + std::to_string(n) : "heptane")
          << "\" GridType=\"Uniform\">\n";
        if (temporal) x << indent << "  <Time Value=\"" << frame.time << "\"/>\n";
        if (g.uniform()) {
            x << indent << "  <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << g.nx + 1
              << " " << g.ny + 1 << " " << g.nz + 1 << "\"/>\n"
              << indent << "  <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
              << indent
              << "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
                 "Format=\"XML\">0 0 "
              << g.top_depth << "</DataItem>\n"
              << indent
              << "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
                 "Format=\"XML\">"
              << g.dx << " " << g.dy << " " << g.dz << "</DataItem>\n"
              << indent << "  </Geometry>\n";
        } else {  // each cell its own hexahedron (8 nodes of its own), cells in k-fastest order
            const index_t M = g.num_cells();
            x << indent << "  <Topology TopologyType=\"Hexahedron\" NumberOfElements=\"" << M
              << "\">\n"
              << indent << "    <DataItem Dimensions=\"" << M
              << " 8\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">" << h5_name
              << ":/grid/mesh/connectivity</DataItem>\n"
              << indent << "  </Topology>\n"
              << indent << "  <Geometry GeometryType=\"XYZ\">\n"
              << indent << "    <DataItem Dimensions=\"" << 8 * M
              << " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << h5_name
              << ":/grid/mesh/nodes</DataItem>\n"
              << indent << "  </Geometry>\n";
        }
        for (const XdmfField& f : frame.fields) {
            x << indent << "  <Attribute Name=\"" << f.name
              << "\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
              << indent << "    <DataItem Dimensions=\"" << dims
              << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << h5_name << ":"
              << f.path << "</DataItem>\n"
              << indent << "  </Attribute>\n";
        }
        x << indent << "</Grid>\n";
    }
    if (temporal) x << "    </Grid>\n";
    x << "  </Domain>\n</Xdmf>\n";
    std::ofstream s(file, std::ios::binary | std::ios::trunc);
    s << x.str();
    if (!s.flush()) throw Error("cannot write '" + file + "'");
}

std::string xdmf_path(const std::string& h5_path) {
    return fs::path(h5_path).replace_extension(".xmf").string();
}

std::string component_units(const Deck& deck, const std::string& name) {
    if (deck.model.model == wells::FluidModel::two_phase && name == "dp") return "bar";
    return "1";
}

void write_root_attributes(h5::File& f, const Deck& deck,
                           const std::vector<std::string>& overrides) {
    f.attr("/", "heptane_version", std::string(kVersion));
    f.attr("/", "created", utc_now());
    f.attr("/", "deck", deck.text);
    f.attr("/", "deck_path", deck.path);
    f.attr("/", "title", deck.title);
    f.attr("/", "overrides", join(overrides, "\n"));
}

std::vector<double> blank_inactive(std::vector<double> values, const grid::RockFields& rock) {
    if (rock.active.empty()) return values;
    for (std::size_t m = 0; m < values.size(); ++m)
        if (rock.active[m] == 0) values[m] = std::numeric_limits<double>::quiet_NaN();
    return values;
}

namespace {

/// Per-cell geometry: the sizes and centre depths, and the hexahedral mesh of write_xdmf (each
/// cell's 8 corners in VTK order; axes as the 3DCoRectMesh's: X = depth, Y = y, Z = x; box
/// cells' x and y accumulated along each row of cells, corner-point cells' own corners).
void write_cell_geometry(h5::File& f, const grid::Grid3D& g, const std::vector<hsize_t>& shape) {
    const grid::CellGeometry& c = *g.geometry;
    f.write("/grid/cell_dx", c.dx, shape, "m");
    f.write("/grid/cell_dy", c.dy, shape, "m");
    f.write("/grid/cell_dz", c.dz, shape, "m");
    f.write("/grid/cell_depth", c.depth, shape, "m");
    const index_t M = g.num_cells();
    std::vector<double> nodes(static_cast<std::size_t>(24 * M));
    std::vector<std::int32_t> connectivity(static_cast<std::size_t>(8 * M));
    if (8 * M > std::numeric_limits<std::int32_t>::max())
        throw Error("the hexahedral mesh of " + std::to_string(M) + " cells needs 64-bit nodes");
    const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                              {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    // Each cell's x (y) corner: its -i (-j) neighbour's plus that neighbour's DX (DY); the
    // neighbours come first in k-fastest order.
    const index_t step_i = static_cast<index_t>(g.ny) * g.nz, step_j = g.nz;
    std::vector<double> x_lo(static_cast<std::size_t>(M)), y_lo(static_cast<std::size_t>(M));
    for (index_t m = 0; !c.corner_point() && m < M; ++m) {  // box cells only
        const auto [i, j, k] = g.ijk(m);
        x_lo[m] = i == 0 ? 0.0 : x_lo[m - step_i] + c.dx[m - step_i];
        y_lo[m] = j == 0 ? 0.0 : y_lo[m - step_j] + c.dy[m - step_j];
    }
    for (index_t m = 0; m < M; ++m) {
        const auto n = static_cast<std::size_t>(m);
        if (c.corner_point()) {  // the cell's own corners: (depth, y, x) of corner ci + 2 cj + 4 ck
            for (int v = 0; v < 8; ++v) {
                const int at = 3 * (corner[v][2] + 2 * corner[v][1] + 4 * corner[v][0]);
                for (int a = 0; a < 3; ++a)
                    nodes[24 * n + 3 * v + a] = c.corners[24 * n + at + 2 - a];
                connectivity[8 * n + v] = static_cast<std::int32_t>(8 * m + v);
            }
            continue;
        }
        const double x0 = x_lo[m], y0 = y_lo[m];
        const double top = c.depth[n] - 0.5 * c.dz[n];
        const double lo[3] = {top, y0, x0}, size[3] = {c.dz[n], c.dy[n], c.dx[n]};
        for (int v = 0; v < 8; ++v) {
            for (int a = 0; a < 3; ++a) nodes[24 * n + 3 * v + a] = lo[a] + corner[v][a] * size[a];
            connectivity[8 * n + v] = static_cast<std::int32_t>(8 * m + v);
        }
    }
    f.group("/grid/mesh");
    f.write("/grid/mesh/nodes", nodes, {static_cast<hsize_t>(8 * M), 3}, "m");
    f.write("/grid/mesh/connectivity", connectivity, {static_cast<hsize_t>(M), 8});
}

}  // namespace

std::vector<XdmfField> write_grid(h5::File& f, const wells::Model& model) {
    const grid::Grid3D& g = model.grid;
    const grid::RockFields& rock = model.rock;
    const index_t M = g.num_cells();
    const std::vector<hsize_t> shape = {static_cast<hsize_t>(g.nx), static_cast<hsize_t>(g.ny),
                                        static_cast<hsize_t>(g.nz)};
    const int K = model.system.matrix.rows() > 0 ? model.system.matrix.block_size() : 2;
    f.group("/grid");
    f.attr("/grid", "nx", static_cast<long long>(g.nx));
    f.attr("/grid", "ny", static_cast<long long>(g.ny));
    f.attr("/grid", "nz", static_cast<long long>(g.nz));
    f.attr("/grid", "K", static_cast<long long>(K));
    f.attr("/grid", "ordering", std::string("k-fastest"));
    f.attr("/grid", "top_depth", g.top_depth);
    f.attr("/grid", "active_cells", static_cast<long long>(rock.num_active()));
    f.attr("/grid", "uniform_cells", static_cast<long long>(g.uniform() ? 1 : 0));
    // Uniform cells: their size; per-cell geometry: cell_dx ... and the mesh.
    if (g.uniform()) {
        f.write("/grid/cell_size", {g.dx, g.dy, g.dz}, {3}, "m");
    } else {
        write_cell_geometry(f, g, shape);
    }
    std::vector<std::int32_t> active(static_cast<std::size_t>(M));
    for (index_t m = 0; m < M; ++m) active[static_cast<std::size_t>(m)] = rock.is_active(m);
    f.write("/grid/active", active, shape);
    const double md = units::kMilliDarcy;
    const auto field = [&](const std::vector<double>& v, double scale) {
        return blank_inactive(component(v, 1, 0, M, scale), rock);
    };
    f.write("/grid/permeability_x", field(rock.kx, 1.0 / md), shape, "mD");
    f.write("/grid/permeability_y", field(rock.ky, 1.0 / md), shape, "mD");
    f.write("/grid/permeability_z", field(rock.kz, 1.0 / md), shape, "mD");
    f.write("/grid/porosity", field(rock.porosity, 1.0), shape, "1");
    std::vector<XdmfField> fields;
    for (const char* name : {"permeability_x", "permeability_y", "permeability_z", "porosity"}) {
        fields.push_back({name, std::string("/grid/") + name});
    }
    // Eclipse's SATNUM, FIPNUM and EQLNUM, 1-based (design decisions 87, 89 and 92).
    const auto regions = [&](const std::vector<std::int32_t>& from_zero, const char* name) {
        if (from_zero.empty()) return;
        std::vector<double> region(from_zero.begin(), from_zero.end());
        for (double& r : region) r += 1.0;
        f.write(std::string("/grid/") + name, field(region, 1.0), shape, "1");
        fields.push_back({name, std::string("/grid/") + name});
    };
    regions(rock.saturation_region, "saturation_region");
    regions(rock.fip_region, "fip_region");
    regions(rock.equilibration_region, "equilibration_region");
    // Each cell's effective end points and largest krw, kro and Pc where the model scales its
    // tables (design decisions 95, 97, 98; pcw is Eclipse's PPCW, SWATINIT's factor included).
    if (!model.end_points[0].empty()) {
        for (std::size_t q = 0; q < model.end_points.size(); ++q) {
            const bool pc = q == grid::kPcEndPoint;
            const std::string name = grid::kEndPointKeys[q];
            f.write("/grid/" + name, field(model.end_points[q], pc ? 1.0 / units::kBar : 1.0),
                    shape, pc ? "bar" : "1");
            fields.push_back({name, "/grid/" + name});
        }
    }
    return fields;
}

namespace {

void write_root_attributes(h5::File& f, const RunRecord& run) {
    write_root_attributes(f, *run.deck, run.overrides);
}

void write_solver(h5::File& f, const RunRecord& run) {
    const SolveResult& r = run.result;
    f.write("/solver/residual_history", r.history, {r.history.size()});
    if (!r.quasi_history.empty()) {
        f.write("/solver/quasi_residual_history", r.quasi_history, {r.quasi_history.size()});
    }
    f.attr("/solver", "method", run.method);
    f.attr("/solver", "backend", run.backend);
    f.attr("/solver", "kernel", run.kernel);
    f.attr("/solver", "status", std::string(to_string(r.status)));
    f.attr("/solver", "detail", r.detail);
    f.attr("/solver", "iterations", static_cast<long long>(r.iterations));
    f.attr("/solver", "restarts", static_cast<long long>(r.restarts));
    f.attr("/solver", "tolerance", run.tolerance);
    f.attr("/solver", "relative_residual", r.relative_residual);
    f.attr("/solver", "true_relative_residual", r.true_relative_residual);
    // The iterate written as /x: the last (-1) or an earlier, better one (issue 19).
    f.attr("/solver", "returned_iteration", static_cast<long long>(r.returned_iteration));
    if (r.returned_iteration >= 0) {
        f.attr("/solver", "last_relative_residual", r.last_relative_residual);
        f.attr("/solver", "last_true_relative_residual", r.last_true_relative_residual);
    }
    f.attr("/solver", "setup_seconds", run.setup_seconds);
    f.attr("/solver", "solve_seconds", run.solve_seconds);
    const SolverSettings& s = run.deck->solver;
    f.attr("/solver", "preconditioner", std::string(to_string(s.preconditioner)));
    if (is_smoother(s.method)) f.attr("/solver", "omega", s.omega);
}

/// Adds /solver's `block_shape` (3 integers: bx, by, bz) for the spatial blocks of the
/// block_jacobi preconditioner and of the smoothers, to the closed file `path` (h5::File
/// writes scalar attributes only).
void write_block_shape(const std::string& path, const RunRecord& run) {
    const SolverSettings& s = run.deck->solver;
    if (!is_smoother(s.method) && s.preconditioner != PreconditionerKind::block_jacobi) return;
    const long long shape[3] = {s.block_shape[0], s.block_shape[1], s.block_shape[2]};
    const hsize_t dims[1] = {3};
    const h5::Id file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    const h5::Id group(file.valid() ? H5Gopen2(file.get(), "/solver", H5P_DEFAULT) : -1, H5Gclose);
    const h5::Id space(H5Screate_simple(1, dims, nullptr), H5Sclose);
    const h5::Id attr(group.valid() ? H5Acreate2(group.get(), "block_shape", H5T_NATIVE_LLONG,
                                                 space.get(), H5P_DEFAULT, H5P_DEFAULT)
                                    : -1,
                      H5Aclose);
    if (!attr.valid() || H5Awrite(attr.get(), H5T_NATIVE_LLONG, shape) < 0) {
        throw Error("cannot write the attribute /solver/block_shape to '" + path + "'");
    }
}

const char* rhs_name(RhsKind k) {
    switch (k) {
        case RhsKind::ones:
            return "ones";
        case RhsKind::random:
            return "random";
        case RhsKind::file:
            return "file";
    }
    return "?";
}

/// A matrix deck: no mesh, so no /grid and no XDMF sidecar.
void write_matrix_output(const std::string& h5_path, const RunRecord& run) {
    const Deck& deck = *run.deck;
    const MatrixSystemSpec& spec = deck.system;
    const MatrixSystem& sys = *run.matrix_system;
    const std::vector<double>& x = *run.x;
    AtomicOutput out(h5_path);
    {
        h5::File f = h5::File::create(out.temp_path());
        write_root_attributes(f, run);
        f.group("/system");
        f.attr("/system", "matrix", spec.matrix);
        f.attr("/system", "block_size", static_cast<long long>(spec.block_size));
        f.attr("/system", "seed", static_cast<long long>(spec.seed));
        f.attr("/system", "rhs", std::string(rhs_name(spec.rhs)));
        if (spec.rhs == RhsKind::file) f.attr("/system", "rhs_file", spec.rhs_file);
        f.attr("/system", "rows", static_cast<long long>(sys.rows()));
        f.attr("/system", "nonzeros", static_cast<long long>(sys.nonzeros()));
        if (deck.output.save_system) {
            f.write("/system/rhs", sys.rhs, {static_cast<hsize_t>(sys.rhs.size())});
        }
        f.write("/solution/x", x, {static_cast<hsize_t>(x.size())});
        write_solver(f, run);
    }  // the HDF5 file is closed before the rename
    write_block_shape(out.temp_path(), run);
    out.commit();
}

}  // namespace

void write_run_output(const std::string& h5_path, const RunRecord& run) {
    if (run.matrix_system != nullptr) {
        write_matrix_output(h5_path, run);
        return;
    }
    const Deck& deck = *run.deck;
    const wells::Model& model = *run.model;
    const grid::Grid3D& g = model.grid;
    // The matrix only where the system is saved: a run whose ranks built their own slabs
    // (design decision 52) has the whole grid's fields and x here, not the whole matrix.
    const GHMatrix& A = model.system.matrix;
    const std::vector<double>& x = *run.x;
    const int K = static_cast<int>(model.system.component_names.size());
    const index_t M = g.num_cells();
    const index_t cell_unknowns = M * K;
    const auto nw = static_cast<hsize_t>(model.system.well_names.size());
    const std::vector<hsize_t> shape = {static_cast<hsize_t>(g.nx), static_cast<hsize_t>(g.ny),
                                        static_cast<hsize_t>(g.nz)};
    std::vector<XdmfField> fields;

    AtomicOutput out(h5_path);
    {
        h5::File f = h5::File::create(out.temp_path());
        write_root_attributes(f, run);
        fields = write_grid(f, model);

        // /system (optional)
        if (deck.output.save_system) {
            if (A.rows() != static_cast<index_t>(x.size())) {
                throw std::logic_error("write_run_output: output.save_system without the matrix");
            }
            const WellArrays& w = A.wells();
            f.write("/system/rhs", model.system.rhs, {static_cast<hsize_t>(A.rows())});
            f.write("/system/bdia", A.bdia(),
                    {7, static_cast<hsize_t>(K), static_cast<hsize_t>(K), static_cast<hsize_t>(M)});
            f.attr("/system/bdia", "layout", std::string("[d][r][c][m], d = -i -j -k 0 +k +j +i"));
            f.write("/system/wells/first", w.first, {nw});
            f.write("/system/wells/cell0", w.cell0, {nw});
            f.write("/system/wells/count", w.count, {nw});
            f.write("/system/wells/w_vals", w.w_vals, {w.w_vals.size()});
            f.write("/system/wells/wt_vals", w.wt_vals, {w.wt_vals.size()});
            f.write("/system/wells/d", w.d, {nw});
            if (nw > 0) {
                f.write("/system/wells/well_of_column", w.well_of_column,
                        {static_cast<hsize_t>(g.nx), static_cast<hsize_t>(g.ny)});
            }
            if (A.has_nnc()) {  // a faulted grid's connections (design decision 63)
                const NncArrays& n = A.nnc();
                const auto entries = static_cast<hsize_t>(n.num_entries());
                f.write("/system/nnc/ptr", n.ptr, {static_cast<hsize_t>(M) + 1});
                f.write("/system/nnc/col", n.col, {entries});
                f.write("/system/nnc/vals", n.vals,
                        {entries, static_cast<hsize_t>(K), static_cast<hsize_t>(K)});
            }
        }

        // /solution
        const std::vector<double> cells(x.begin(), x.begin() + cell_unknowns);
        const std::vector<double> wells(x.begin() + cell_unknowns, x.end());
        f.write("/solution/x", cells, {static_cast<hsize_t>(cell_unknowns)});
        const bool two_phase = deck.model.model == wells::FluidModel::two_phase;
        f.write("/solution/well_bhp", wells, {nw}, two_phase ? "bar" : "1");
        f.attr("/solution/well_bhp", "well_names", join(model.system.well_names, ","));
        for (int c = 0; c < K; ++c) {
            const std::string& name = model.system.component_names[c];
            const std::string path = "/solution/fields/" + name;
            f.write(path, blank_inactive(component(x, K, c, M), model.rock), shape,
                    component_units(deck, name));
            fields.push_back({name, path});
        }

        write_solver(f, run);
    }  // the HDF5 file is closed before the rename
    write_block_shape(out.temp_path(), run);
    AtomicOutput xmf(xdmf_path(h5_path));
    write_xdmf(xmf.temp_path(), fs::path(h5_path).filename().string(), g, {{-1.0, fields}});
    // Both complete: publish the data first, then the sidecar that points at it.
    out.commit();
    xmf.commit();
}

}  // namespace heptane::app
