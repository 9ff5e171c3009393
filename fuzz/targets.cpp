#include "fuzz/targets.hpp"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "app/deck.hpp"
#include "core/base/errors.hpp"
#include "core/matrix/matrix_market.hpp"
#include "grid/eclipse_grid.hpp"
#include "grid/eclipse_model.hpp"
#include "grid/eclipse_props.hpp"
#include "grid/eclipse_schedule.hpp"
#include "grid/eclipse_solution.hpp"
#include "grid/loaders.hpp"
#include "grid/saturation_table.hpp"

namespace heptane::fuzz {
namespace {

/// The readers take paths: the bytes go to one scratch file per process and tag, in /dev/shm
/// where there is one (the fuzzers run it hundreds of times a second).
std::string scratch_file(const char* tag, const char* data, std::size_t size) {
    static const std::string folder = [] {
        if (access("/dev/shm", W_OK) == 0) return std::string("/dev/shm");
        const char* tmp = std::getenv("TMPDIR");
        return std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
    }();
    const std::string path = folder + "/heptane_fuzz_" + std::to_string(getpid()) + "_" + tag;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(data, static_cast<std::streamsize>(size));
    out.close();
    if (!out) throw Error("fuzz: cannot write the scratch file " + path);  // not an input bug
    return path;
}

const char* chars(const std::uint8_t* data) { return reinterpret_cast<const char*>(data); }

}  // namespace

void deck(const std::uint8_t* data, std::size_t size) {
    const std::string bytes(chars(data), size);
    const std::size_t nul = bytes.find('\0');
    std::vector<std::string> overrides;
    if (nul != std::string::npos) {
        std::size_t begin = nul + 1;
        while (begin <= bytes.size()) {
            std::size_t end = bytes.find('\n', begin);
            if (end == std::string::npos) end = bytes.size();
            overrides.push_back(bytes.substr(begin, end - begin));
            begin = end + 1;
        }
    }
    const std::string text = bytes.substr(0, nul);
    const std::string path = scratch_file("deck.yaml", text.data(), text.size());
    try {
        const app::Deck d = app::load_deck(path, overrides);
        if (!d.system.present && d.model.grid.num_cells() <= 4000) app::build_model(d);
    } catch (const InputError&) {
    }
}

void matrix_market(const std::uint8_t* data, std::size_t size) {
    const std::string path = scratch_file("matrix.mtx", chars(data), size);
    try {
        read_matrix_market(path);
    } catch (const InputError&) {
    }
    try {
        read_matrix_market_vector(path);
    } catch (const InputError&) {
    }
}

void eclipse(const std::uint8_t* data, std::size_t size) {
    // The GRID-section reader and the cells it describes on a few grids (the length picks one,
    // so every byte is text):
    // the test grid, SPE9's, the Egg model's, one cell.
    static constexpr std::array<int, 3> kDims[] = {{3, 2, 1}, {24, 25, 15}, {60, 60, 7}, {1, 1, 1}};
    const std::string path = scratch_file("grid.inc", chars(data), size);
    try {
        // The reader, then the cells' geometry (DX .. TOPS, or COORD and ZCORN).
        grid::Grid3D g;
        g.nx = kDims[size % 4][0], g.ny = kDims[size % 4][1], g.nz = kDims[size % 4][2];
        grid::EclipseGridSpec spec;
        spec.files = {path};
        grid::read_grid_files(g, spec);
    } catch (const InputError&) {
    }
    try {  // the same text as a PROPS section's SWOF (fluid.relperm.swof, design decision 74)
        grid::read_swof(path, {});
    } catch (const InputError&) {
    }
    try {                                    // and as the fluid (fluid.eclipse, design decision 75)
        std::vector<grid::RelPerm> regions;  // every SWOF table (SATNUM, decision 87)
        grid::read_eclipse_fluid(path, {}, {}, &regions);
    } catch (const InputError&) {
    }
    try {  // as the initial state (initial.eclipse: EQUIL, decision 78)
        grid::read_eclipse_equil(path, {});
    } catch (const InputError&) {
    }
    try {  // and as the schedule (schedule.eclipse, decision 79; INCLUDEs relative to /dev/shm)
        grid::read_eclipse_schedule(path, {});
    } catch (const InputError&) {
    }
}

void spe10(const std::uint8_t* data, std::size_t size) {
    // The first byte picks the window: the whole model, or one of a few small boxes.
    grid::IndexBox box = grid::spe10_full_box();
    if (size > 0) {
        const int pick = data[0] % 4;
        if (pick == 1) box = {{0, 0}, {0, 0}, {0, 0}};
        if (pick == 2) box = {{10, 59}, {100, 219}, {80, 84}};
        if (pick == 3) box = {{5, 4}, {0, 10}, {0, 1}};  // reversed: must be refused
    }
    const std::string path = scratch_file("spe_perm.dat", chars(data), size);
    try {
        grid::read_spe10(path, box);
    } catch (const InputError&) {
    }
}

}  // namespace heptane::fuzz
