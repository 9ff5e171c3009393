#include "grid/grid3d.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include "core/base/errors.hpp"

namespace heptane::grid {

void Grid3D::validate() const {
    if (nx < 1 || ny < 1 || nz < 1) {
        std::ostringstream msg;
        msg << "every dimension must be at least 1, got " << nx << " x " << ny << " x " << nz;
        throw InputError("grid.dims", msg.str());
    }
    const auto bad_size = [](double h) { return !(std::isfinite(h) && h > 0.0); };
    if (bad_size(dx) || bad_size(dy) || bad_size(dz)) {
        std::ostringstream msg;
        msg << "cell sizes must be positive and finite, got dx = " << dx << ", dy = " << dy
            << ", dz = " << dz << " m";
        throw InputError("grid.cell_size", msg.str());
    }
    // The largest system has num_cells() * kMaxBlockSize scalar unknowns (plus wells), and
    // kernels form that count + 1; it must stay inside index_t. nx * ny < 2^62 cannot
    // overflow, so test the last factor by division instead of forming the product.
    constexpr index_t kLimit = (std::numeric_limits<index_t>::max() - 1) / kMaxBlockSize;
    const index_t columns = static_cast<index_t>(nx) * ny;
    if (columns > kLimit / nz) {
        std::ostringstream msg;
        msg << nx << " x " << ny << " x " << nz << " cells with up to " << kMaxBlockSize
            << " unknowns each overflow 64-bit indices";
        throw InputError("grid.dims", msg.str());
    }
}

}  // namespace heptane::grid
