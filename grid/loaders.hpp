#pragma once
/// @file Readers for permeability/porosity data files. Values are returned in the file's
/// own units (mD, fraction) and order; errors name the file and line (InputError).
#include <string>
#include <vector>

#include "grid/rock.hpp"

namespace heptane::grid {

/// SPE10 model 2 dimensions (Christie & Blunt 2001).
constexpr int kSpe10Nx = 60, kSpe10Ny = 220, kSpe10Nz = 85;

/// Permeability of a window of SPE10 model 2, k-fastest order inside the window (the
/// window's own nx, ny, nz), in mD.
struct Spe10Window {
    IndexBox box;
    std::vector<double> kx, ky, kz;
};

/// Reads the classic spe_perm.dat layout (all kx, then all ky, then all kz; each i fastest
/// (60), then j (220), then k (85, 0 = top); whitespace-separated, millidarcy), plain or
/// gzip-compressed, and keeps the window `box` (inclusive, 0-based).
Spe10Window read_spe10(const std::string& path, const IndexBox& box);

/// Whole-model box (0..59, 0..219, 0..84).
IndexBox spe10_full_box();

}  // namespace heptane::grid
