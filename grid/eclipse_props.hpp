#pragma once
/// @file The fluid of an Eclipse deck's PROPS section for heptane's two-phase model (design
/// decisions 75, 84; deck key fluid.eclipse): DENSITY, PVCDO or PVDO, PVTW, ROCK and SWOF (its
/// tables of several saturation regions too).
#include <string>
#include <vector>

#include "grid/saturation_table.hpp"  // FluidUnits
#include "grid/two_phase.hpp"

namespace heptane::grid {

/// The two-phase fluid `path` gives (an Eclipse deck or include file; its INCLUDEs are not
/// followed), in SI, the units RUNSPEC's FIELD, METRIC or LAB say (else `fallback`):
/// - DENSITY oil water [gas] /: the phases' surface densities (gas unused);
/// - PVCDO Pref Bo Co mu_o Cv / and PVTW Pref Bw Cw mu_w Cv /: each phase's formation volume
///   factor at Pref, compressibility, viscosity and viscosibility; heptane's law rho =
///   (rho_s / B_ref) exp(c (p - Pref)) is Eclipse's B(p) = B_ref / (1 + X + X^2 / 2), X = c
///   (p - Pref), to third order in X, and mu = mu_ref exp(Cv (p - Pref)) its viscosity law
///   (design decision 84);
/// - or, for the oil, PVDO: one table of rows p Bo mu_o (grid/pvt_table.hpp);
/// - ROCK Pref Cr /: the rock compressibility;
/// - SWOF: the relative permeability and capillary pressure tables, one for each saturation
///   region (TABDIMS item 1; read_swof_tables): region 1's in the returned params.relperm,
///   regions 2, 3, ... in `more_regions` (assigned; empty with one table).
/// Gravity keeps `params`' setting. InputError ("path:line: KEYWORD: ...") for a keyword
/// missing or given twice, PVCDO and PVDO both, a second PVT region's record, several SWOF
/// tables where `more_regions` is null (at TABDIMS's line, or the second table's), PVTO (live
/// oil, which the model cannot take), reference pressures that differ (the laws share one),
/// and values out of range.
/// Every other keyword of the PROPS section (of the whole file where it has no section
/// keyword: an include) is accounted for (design decision 96): the end-point arrays and their
/// edits are grid.eclipse's (decision 95); SWFN, SOF2, SOF3 (the saturation functions given
/// another way) are an InputError at their line; the rest (gas-phase tables such as SGOF and
/// PVDG, output controls, an INCLUDE, which is not followed, any other keyword) is passed over
/// with a note in `notes` naming its line and why.
/// @param[out] more_regions the relperms of saturation regions 2..N (SATNUM numbers them from
///   1), in order; null: the file must hold one table.
/// @param[out] notes where the notes go (appended); null: none kept.
TwoPhaseParams read_eclipse_fluid(const std::string& path, const FluidUnits& fallback,
                                  TwoPhaseParams params = {},
                                  std::vector<RelPerm>* more_regions = nullptr,
                                  std::vector<std::string>* notes = nullptr);

}  // namespace heptane::grid
