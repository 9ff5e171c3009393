#include "grid/loaders.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>

#include "core/base/errors.hpp"
#include "core/base/text.hpp"
#include "core/base/types.hpp"
#include "grid/text_input.hpp"

namespace heptane::grid {
namespace {

using namespace detail;  // grid/text_input.hpp

/// The token starting at `p` (up to whitespace), quoted and clipped for a message.
std::string token_at(const char* p, const char* end) {
    const char* q = p;
    while (q != end && !is_space(*q)) ++q;
    return quote_input(std::string_view(p, static_cast<std::size_t>(q - p)));
}

std::string box_text(const IndexBox& b) {
    std::ostringstream s;
    s << "i " << b.i[0] << ".." << b.i[1] << ", j " << b.j[0] << ".." << b.j[1] << ", k " << b.k[0]
      << ".." << b.k[1];
    return s.str();
}

}  // namespace

IndexBox spe10_full_box() {
    IndexBox box;
    box.i = {0, kSpe10Nx - 1};
    box.j = {0, kSpe10Ny - 1};
    box.k = {0, kSpe10Nz - 1};
    return box;
}

Spe10Window read_spe10(const std::string& path, const IndexBox& box) {
    const auto inside = [](const std::array<int, 2>& r, int n) {
        return r[0] >= 0 && r[0] <= r[1] && r[1] < n;
    };
    if (!inside(box.i, kSpe10Nx) || !inside(box.j, kSpe10Ny) || !inside(box.k, kSpe10Nz)) {
        throw InputError(path + ": SPE10 box " + box_text(box) +
                         " is reversed or outside the model i 0..59, j 0..219, k 0..84 " +
                         "(0-based, inclusive)");
    }

    const std::string text = read_whole_file(path);

    constexpr index_t kPerField = static_cast<index_t>(kSpe10Nx) * kSpe10Ny * kSpe10Nz;
    constexpr index_t kTotal = 3 * kPerField;
    Spe10Window out;
    out.box = box;
    const int wnx = box.nx(), wny = box.ny(), wnz = box.nz();
    const auto window_cells = static_cast<std::size_t>(wnx) * wny * wnz;
    std::vector<double>* fields[3] = {&out.kx, &out.ky, &out.kz};
    for (auto* f : fields) f->assign(window_cells, 0.0);

    const char* const begin = text.data();
    const char* const end = begin + text.size();
    const char* p = begin;
    index_t n = 0;
    int c = 0, i = 0, j = 0, k = 0;  // position of value n: field c, cell (i, j, k)
    for (;;) {
        while (p != end && is_space(*p)) ++p;
        if (p == end) break;
        if (n == kTotal) {
            throw InputError(where(path, text, static_cast<std::size_t>(p - begin)) + "more than " +
                             std::to_string(kTotal) +
                             " values (kx, ky, kz of 60 x 220 x 85 cells); extra value " +
                             token_at(p, end));
        }
        const char* q = p;
        while (q != end && !is_space(*q)) ++q;
        double v = 0.0;
        if (!parse_double(std::string_view(p, static_cast<std::size_t>(q - p)), v) || v < 0.0) {
            throw InputError(where(path, text, static_cast<std::size_t>(p - begin)) +
                             token_at(p, end) + " is not a permeability (a finite number " +
                             ">= 0 in mD)");
        }
        if (i >= box.i[0] && i <= box.i[1] && j >= box.j[0] && j <= box.j[1] && k >= box.k[0] &&
            k <= box.k[1]) {
            const std::size_t w =
                static_cast<std::size_t>(k - box.k[0]) +
                static_cast<std::size_t>(wnz) *
                    ((j - box.j[0]) + static_cast<std::size_t>(wny) * (i - box.i[0]));
            (*fields[c])[w] = v;
        }
        if (++i == kSpe10Nx) {
            i = 0;
            if (++j == kSpe10Ny) {
                j = 0;
                if (++k == kSpe10Nz) {
                    k = 0;
                    ++c;
                }
            }
        }
        ++n;
        p = q;
    }
    if (n < kTotal) {
        // Report the line of the last value, not the empty "line" after the final newline.
        std::size_t last = text.size();
        while (last > 0 && is_space(text[last - 1])) --last;
        throw InputError(where(path, text, last > 0 ? last - 1 : 0) + "the file ends after " +
                         std::to_string(n) + " values; SPE10 needs " + std::to_string(kTotal) +
                         " (kx, ky, kz of 60 x 220 x 85 cells)");
    }
    return out;
}

}  // namespace heptane::grid
