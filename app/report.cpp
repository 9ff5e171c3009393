#include "app/report.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <ostream>

#include "core/matrix/formats.hpp"
#include "gpu/device.hpp"
#include "grid/transmissibility.hpp"
#include "heptane_version.hpp"

namespace heptane::app {
namespace {

/// "3 of 5 layers connected, " where a well's layers have their own terms (design decision
/// 102) and some are not connected; else nothing.
std::string connected(const wells::WellSpec& w) {
    const auto open = std::count_if(w.connections.begin(), w.connections.end(),
                                    [](const wells::WellConnection& c) { return c.connected(); });
    if (static_cast<std::size_t>(open) == w.connections.size()) return "";
    return std::to_string(open) + " of " + std::to_string(w.connections.size()) +
           " layers connected, ";
}

std::string general(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

void row(std::ostream& out, const char* label, const std::string& text) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "  %-12s", label);
    out << buf << text << '\n';
}

}  // namespace

std::string sci(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", digits, v);
    return buf;
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

double host_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

std::string with_commas(long long n) {
    std::string digits = std::to_string(n < 0 ? -n : n);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
    return (n < 0 ? "-" : "") + digits;
}

std::string human_bytes(double bytes) {
    const char* units[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000.0 && u < 4) {
        bytes /= 1000.0;
        ++u;
    }
    return fixed(bytes, u == 0 ? 0 : 1) + " " + units[u];
}

std::size_t model_connections(const wells::Model& model) {
    const GHMatrix& A = model.system.matrix;
    if (A.num_cells() > 0) return static_cast<std::size_t>(A.nnc().num_entries() / 2);
    return grid::non_neighbour_connections(model.grid, model.rock);  // simulate: no system
}

std::string cells_note(const wells::Model& model) {
    std::vector<std::string> parts;
    if (!model.rock.active.empty())
        parts.push_back(with_commas(model.rock.num_active()) + " active");
    const std::size_t connections = model_connections(model);
    if (connections > 0) {
        parts.push_back(with_commas(static_cast<long long>(connections)) +
                        " non-neighbour connections");
    }
    std::string note;
    for (const std::string& p : parts) note += (note.empty() ? " (" : ", ") + p;
    return note.empty() ? note : note + ")";
}

void print_system_summary(std::ostream& out, const Deck& deck, const wells::Model& model) {
    const UnitFactors u = unit_factors(deck.units);
    const grid::Grid3D& g = model.grid;
    const std::size_t connections = model_connections(model);
    const GHMatrix& A = model.system.matrix;
    out << "heptane " << kVersion << ": " << deck.path;
    if (!deck.title.empty()) out << " (" << deck.title << ")";
    out << '\n';
    // Inactive cells (ACTNUM, no pore volume) are counted; per-cell sizes come from the files.
    const std::string active = model.rock.active.empty()
                                   ? std::string()
                                   : " (" + with_commas(model.rock.num_active()) + " active, " +
                                         with_commas(g.num_cells() - model.rock.num_active()) +
                                         " inactive)";
    const std::string sizes =
        g.uniform() ? " of " + general(g.dx / u.length) + " x " + general(g.dy / u.length) + " x " +
                          general(g.dz / u.length) + " " + u.length_name + ", top at " +
                          general(g.top_depth / u.length) + " " + u.length_name
        : g.geometry->corner_point()
            ? " in corner-point geometry (COORD, ZCORN), top at " +
                  general(g.top_depth / u.length) + " " + u.length_name +
                  (connections == 0 ? std::string()
                                    : ", " + with_commas(static_cast<long long>(connections)) +
                                          " non-neighbour connections")
            : " of their own sizes and depths (DX, DY, DZ, TOPS)";
    row(out, "grid",
        std::to_string(g.nx) + " x " + std::to_string(g.ny) + " x " + std::to_string(g.nz) + " = " +
            with_commas(g.num_cells()) + " cells" + active + sizes + " (k-fastest ordering)");
    std::string names;
    for (const auto& n : model.system.component_names) names += (names.empty() ? "" : ", ") + n;
    const bool synthetic = deck.model.model == wells::FluidModel::synthetic;
    const std::size_t regions = deck.model.relperm_regions.size() + 1;  // design decision 87
    row(out, "model",
        std::string(synthetic ? "synthetic" : "two_phase") +
            ", K = " + std::to_string(A.block_size()) + " (" + names + ")" +
            (synthetic || regions == 1 ? std::string()
                                       : ", " + std::to_string(regions) + " saturation regions") +
            (model.rock.fip_region.empty()  // design decision 89
                 ? std::string()
                 : ", " + std::to_string(model.rock.num_fip_regions()) + " fluid-in-place region" +
                       (model.rock.num_fip_regions() == 1 ? "" : "s")) +
            (synthetic || deck.model.initial.regions() == 1  // design decision 92
                 ? std::string()
                 : ", " + std::to_string(deck.model.initial.regions()) + " equilibration regions"));
    row(out, "wells", std::to_string(A.num_wells()));
    for (const wells::WellSpec& w : deck.model.wells) {
        const bool rate = wells::is_rate(w.control);
        out << "      " << w.name << ": "
            << (w.type == wells::WellType::producer ? "producer" : "injector") << " at (i, j) = ("
            << w.i << ", " << w.j << "), k " << w.k_first << ".." << w.k_last << ", "
            << connected(w)
            << (rate ? std::string(wells::control_kind_name(w.control)) + " " +
                           general(w.target / u.rate) + " " + rate_name(u, w.control)
                     : "bhp " + general(w.target / u.pressure) + " " + u.pressure_name)
            << '\n';
    }
    row(out, "unknowns",
        with_commas(A.rows()) + " (" + with_commas(A.cell_unknowns()) + " cell + " +
            with_commas(A.num_wells()) + " well)");
    row(out, "nonzeros",
        with_commas(A.nonzeros()) + " (H " + with_commas(A.h_nonzeros()) + ", wells " +
            with_commas(A.nonzeros() - A.h_nonzeros()) + ")");
    const double padding =
        1.0 - static_cast<double>(A.h_nonzeros()) / static_cast<double>(A.bdia().size());
    out << "  storage      Bdia + wells  " << human_bytes(static_cast<double>(A.storage_bytes()))
        << "  (padding " << fixed(100.0 * padding, 1) << "% of Bdia)\n";
    out << "               BSR (K x K)   " << human_bytes(static_cast<double>(bsr_bytes(A)))
        << "  (" << with_commas(bsr_blocks(A)) << " blocks, wells padded to "
        << with_commas(bsr_padded_rows(A)) << " rows)\n";
    out << "               CSR           " << human_bytes(static_cast<double>(csr_bytes(A)))
        << '\n';
}

void print_build_info(std::ostream& out) {
    out << "heptane " << kVersion << " (" << kBuildType << ", " << kCxxCompiler << ")\n";
    if (!gpu::compiled_with_cuda()) {
        out << "  CUDA backend: not compiled (HEPTANE_ENABLE_CUDA=OFF or no nvcc at build time)\n";
        return;
    }
    out << "  CUDA backend: " << kCudaCompiler << ", sm_" << kCudaArchitectures << ", "
        << gpu::runtime_version() << '\n';
    const auto devices = gpu::list_devices();
    if (devices.empty()) out << "  devices: none found\n";
    for (const gpu::DeviceInfo& d : devices) {
        out << "  device " << d.id << ": " << d.name << ", compute " << d.compute_major << "."
            << d.compute_minor << ", " << d.multiprocessors << " SMs, "
            << human_bytes(static_cast<double>(d.global_memory_bytes)) << ", L2 "
            << human_bytes(static_cast<double>(d.l2_cache_bytes))
            << (d.cooperative_launch ? ", cooperative launch" : "") << '\n';
    }
}

}  // namespace heptane::app
