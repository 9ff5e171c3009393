#pragma once
/// @file Small systems and comparison helpers shared by the test suites.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "grid/pvt_table.hpp"
#include "grid/saturation_table.hpp"
#include "wells/generator.hpp"

namespace heptane::test {

/// Project root, for data files.
inline std::string source_path(const std::string& relative) {
    return std::string(HEPTANE_SOURCE_DIR) + "/" + relative;
}

/// A producer/injector at (i, j) perforated in [k0, k1]; BHP or rate control (SI).
wells::WellSpec make_well(const std::string& name, int i, int j, int k0, int k1,
                          bool injector = false, bool rate = false);

/// Wells in the four corner columns, alternating full and edge-only perforations
/// (top layer, bottom layer), so every boundary case of the well coupling is hit.
std::vector<wells::WellSpec> corner_wells(int nx, int ny, int nz);

/// Synthetic model (uniform rock) with the given wells.
wells::Model synthetic_model(int nx, int ny, int nz, int K, std::vector<wells::WellSpec> wells,
                             std::uint64_t seed = 7, double dominance = 1.5);

/// A two_phase spec on a lognormal field with gravity (SI), ready for wells::generate.
wells::ModelSpec two_phase_spec(int nx, int ny, int nz, std::vector<wells::WellSpec> wells,
                                std::uint64_t seed = 3);

/// A synthetic system (wells at the corners) with non-neighbour connections between the
/// cells (i, j, k) and (i + 1, j, k + 1), and (i, j, k) and (i, j + 1, k + 2), where those
/// exist (what a fault's throw gives), their blocks random in [-0.1, 0.1] (design decision 63);
/// with `diagonal` also (i, j, k) and (i + 1, j + 1, k) (an NNC record's: columns of one
/// red-black colour, design decision 66).
GHMatrix with_connections(int nx, int ny, int nz, int K, std::uint64_t seed, bool diagonal = false);

/// The spec's box grid as corner-point cells with the columns i >= nx / 2 thrown down by 1.5
/// layers (design decision 63): non-neighbour connections across the fault.
void add_fault(wells::ModelSpec& spec);

/// A relperm table's rows (design decision 74): Sw 0.2 .. 0.8 by 0.1, krw from 0 to 0.7, kro
/// from 0.9 to 0, neither linear.
std::vector<grid::RelPermRow> relperm_rows();

/// relperm_rows()' table with a capillary pressure (design decision 76): Pc falling linearly
/// from 3 bar at Sw 0.2 to 0 at Sw 0.8.
grid::RelPermTable capillary_relperm_table();

/// The hydrostatic state of 6000 psi at 12,000 ft with every cell's pressure moved by up to
/// 5 bar and its water saturation drawn from [sw_lo, sw_hi] (seeded): a state away from
/// equilibrium for the cell-by-cell comparisons of two models.
grid::CellState varied_state(const grid::TwoPhaseCells& cells, std::uint64_t seed, double sw_lo,
                             double sw_hi);

/// Pressure-dependent PVT (design decision 84): a PVDO table for the oil and a water
/// viscosibility of 5e-5 1/psi, exaggerated so that d mu / d p is seen. The oil's rows, at
/// 300, 2900, 6150 and 8000 psi (B 1.05 to 1.01, mu 2.85 to 3.4 cP: 1/(B mu) stays positive
/// when extrapolated to 20,000 psi), lie where the tests need them: none within the finite
/// difference tests' 6000 +- 100 psi, 2900 psi inside the device assembly test's states
/// (2.0e7 +- 1e6 Pa) and 6150 psi inside the three-well reservoir's run (5,870 to 6,270 psi).

void set_pressure_dependent_pvt(grid::TwoPhaseParams& prm);

/// The regression decks (tests/regression/*.yaml), file names in sorted order.
std::vector<std::string> regression_decks();

/// n terms of wildly different magnitudes (a tenth of them 1e12 times the others), seeded: a
/// sum of them in another order gives other bits (the canonical reduction's tests).
std::vector<double> mixed_terms(std::size_t n, std::uint64_t seed);

/// Uniform(-1, 1) vector, seeded.
std::vector<double> random_vector(std::size_t n, std::uint64_t seed);

/// Largest |v_i|.
double max_abs(const std::vector<double>& v);

/// Tolerance for one SpMV result entry computed two ways in double:
/// c eps nnz_row max|A| max|x| (STYLE section 3).
double spmv_tolerance(int nnz_row, double max_abs_a, double max_abs_x, double c = 4.0);

/// spmv_tolerance for y = GH x (or GH^T x): row length 7 K + 1, max|A| over Bdia and the
/// well arrays, c = 8.
double gh_spmv_tolerance(const GHMatrix& A, const std::vector<double>& x);

/// Element-wise |ref_i - got_i| <= tol; on failure lists the first 20 (i, ref, got, err, tol).
::testing::AssertionResult vectors_near(const std::vector<double>& ref,
                                        const std::vector<double>& got, double tol);

}  // namespace heptane::test

namespace heptane::test {

/// A two_phase model whose Eclipse file (written to `folder`) makes every cell outside the box
/// i in [1, nx-2], j in [1, ny-2], k in [0, nz-2] inactive (ACTNUM 0), beside the same model
/// with those cells removed by hand: the box alone as a smaller grid, its own file. Rock and
/// geometry (DX growing with i, DY with j, DZ with k, TOPS dipping along i) are formulas of the
/// big grid's (i, j, k), so both files give each cell the same values; an injector and a
/// producer sit in opposite corners of the box (shifted by one in the big grid). Issue 20:
/// ACTNUM in every solver and in the simulator against the smaller grid.
struct ActnumPair {
    wells::Model with_actnum;  ///< nx x ny x nz, inactive cells around the box
    wells::Model removed;      ///< (nx - 2) x (ny - 2) x (nz - 1)
    wells::ModelSpec spec_with_actnum, spec_removed;  ///< what generated them
    /// Cell of `removed` -> its cell in `with_actnum`.
    index_t big_cell(index_t small) const;
};
ActnumPair actnum_pair(const std::string& folder, int nx = 7, int ny = 6, int nz = 5);

}  // namespace heptane::test
