#pragma once
/// @file Rock property fields (permeability kx, ky, kz and porosity) and how a deck
/// describes them. The specs keep deck units (mD, fraction); build_rock converts to SI.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "grid/grid3d.hpp"

namespace heptane::grid {

/// An inclusive, 0-based i/j/k window, e.g. of the SPE10 model.
struct IndexBox {
    std::array<int, 2> i{0, 0}, j{0, 0}, k{0, 0};
    int nx() const { return i[1] - i[0] + 1; }
    int ny() const { return j[1] - j[0] + 1; }
    int nz() const { return k[1] - k[0] + 1; }
};

enum class FieldKind { uniform, layered, lognormal, spe10, eclipse };

/// How a deck describes one field. Which members are used depends on `kind`:
///   uniform:   value = (kx, ky, kz) [mD]; for porosity value[0]
///   layered:   layers = one value per layer (k = 0 top); kx = ky = value, kz = kv_kh kx
///   lognormal: k = mean exp(sigma N(0, 1)) per cell, seeded (same field on every machine);
///              kx = ky, kz = kv_kh kx
///   spe10:     file in the spe_perm.dat layout (plain or gzip), window `box` (the grid's
///              dims must equal the box's); kx, ky, kz from the file
///   eclipse:   file of Eclipse keywords PERMX/PERMY/PERMZ (permeability) or PORO
///              (porosity); missing PERMY = ky_kx PERMX, missing PERMZ = kv_kh PERMX
struct FieldSpec {
    FieldKind kind = FieldKind::uniform;
    std::string key;  ///< deck key path for error messages (e.g. "rock.permeability")
    std::array<double, 3> value{0.0, 0.0, 0.0};
    std::vector<double> layers;
    double mean = 0.0;
    double sigma = 0.0;
    std::uint64_t seed = 0;
    /// lognormal: cell m draws from generator stream first_cell + m (a window of i-planes of
    /// a larger grid draws the larger grid's numbers: wells::generate_planes).
    std::uint64_t first_cell = 0;
    double kv_kh = 1.0;
    double ky_kx = 1.0;
    std::string file;  ///< absolute, or relative to the working directory
    bool has_box = false;
    IndexBox box;  ///< spe10 window; the whole model when !has_box
    /// SI per value of a number, layer or eclipse file the deck gives, where the field is a
    /// quantity with a unit of the deck's (rock.end_points.pcw: its pressure unit); 1 else.
    double unit = 1.0;
    /// The deck did not give this field (its default stands in); grid.eclipse files may.
    bool defaulted = false;
    /// With `defaulted`: the model needs the field, so the files must give it.
    bool required = false;
};

struct EclipseGridSpec;
struct EclipseGridData;

/// The end-point arrays a cell may give (grid/end_points.hpp's kEndPointKeywords).
inline constexpr std::size_t kEndPointArrays = 7;

/// Rock fields in SI, one value per cell in k-fastest order. An inactive cell (Eclipse ACTNUM
/// 0, or no pore volume) takes no part in the flow: its permeabilities and porosity are 0, and
/// the generators give it an identity block row and column (issue 20, design decision 35).
struct RockFields {
    std::vector<double> kx, ky, kz;    ///< permeability [m^2] (NTG already applied to kx, ky)
    std::vector<double> porosity;      ///< [-] at the reference pressure (NTG applied)
    std::vector<std::uint8_t> active;  ///< 1: active; empty: every cell is active
    /// Each cell's saturation region, numbered from 0 (Eclipse's SATNUM - 1; design decision
    /// 87): which of the fluid's relative permeabilities it takes; empty: every cell region 0.
    std::vector<std::int32_t> saturation_region;
    /// Each cell's fluid-in-place region, numbered from 0 (Eclipse's FIPNUM - 1; design
    /// decision 89): the regions `simulate` reports the fluid in place of, besides the
    /// field's. Empty: none given (the field's alone); an inactive cell's is 0, unused.
    std::vector<std::int32_t> fip_region;
    /// Each cell's equilibration region, numbered from 0 (Eclipse's EQLNUM - 1; design
    /// decision 92): which record of the initial state it takes. Empty: every cell region 0.
    std::vector<std::int32_t> equilibration_region;
    /// Each cell's own saturation end points (design decision 95; grid/end_points.hpp), SWL,
    /// SWCR, SWU and SOWCR, and its largest krw, kro and Pc [Pa] (KRW, KRO, PCW: decision 98),
    /// in kEndPointKeywords' order: NaN where a cell takes its table's; an empty vector: every
    /// cell's table's.
    std::array<std::vector<double>, kEndPointArrays> end_points;
    /// SWATINIT (design decision 97): each cell's initial water saturation where its Pc was
    /// scaled to hold it (the initial state takes it), NaN elsewhere; empty: none. pc_scale:
    /// each cell's factor of its Pc where SWATINIT scaled it (held, or capped by PPCWMAX:
    /// decision 99), NaN elsewhere (a PCW's factor or none); empty: none.
    std::vector<double> swatinit, pc_scale;
    /// Transmissibility multipliers of each cell's +i, +j, +k face (Eclipse MULTX/Y/Z);
    /// empty: 1.
    std::vector<double> multx, multy, multz;
    /// The EDIT section's transmissibility [m^3] of each cell's +i, +j, +k face where its
    /// TRANX, TRANY, TRANZ edits set it, NaN elsewhere; empty: no edit of that direction
    /// (design decision 72). It replaces the computed value, multipliers included; the NNC
    /// records between stencil neighbours still add to it.
    std::vector<double> tx_edited, ty_edited, tz_edited;
    /// Each fault connection's multiplier (CellGeometry::nnc's order; empty: 1): MULTX/Y and
    /// MULTFLT of its - side cell's face, MULTX-/Y- of its + side cell's, MULTREGT of its
    /// cells' regions (design decision 63).
    std::vector<double> nnc_mult;
    /// The connections of Eclipse NNC records (a < b, T in SI with MULTREGT and EDITNNC
    /// applied), in file order: added to the stencil face where the two cells are
    /// neighbours, else non-neighbour connections (grid/transmissibility.hpp).
    std::vector<NncTransmissibility> nnc_given;
    /// How many of nnc_given are PINCH's pinch-out connections (after the NNC records; design
    /// decision 69).
    std::size_t pinch_outs = 0;

    bool is_active(index_t m) const { return active.empty() || active[m] != 0; }
    index_t num_active() const;
    /// How many fluid-in-place regions: the largest number an active cell has (a number
    /// between with no cell is a region of nothing, as Eclipse reports it); 0 without them.
    int num_fip_regions() const;
};

/// Builds the fields on `grid` (files are read here). Throws InputError with the spec's key
/// for bad values, missing or malformed files and size mismatches. With `eclipse` (the
/// grid.eclipse files and what read_grid_files read from them), the files' arrays give the
/// fields they define, ACTNUM and pore volume the active cells (apply_eclipse_rock).
RockFields build_rock(const Grid3D& grid, const FieldSpec& permeability, const FieldSpec& porosity,
                      const EclipseGridSpec* files = nullptr,
                      const EclipseGridData* eclipse = nullptr);

/// Each cell's saturation region (RockFields::saturation_region, from 0; design decision 87)
/// for a fluid of `regions` relative permeabilities: from `spec` (uniform: value[0]; layered:
/// one number a layer; eclipse: the file's SATNUM, read as a rock field file is) unless it is
/// defaulted, then from the grid.eclipse files' SATNUM (`eclipse`, errors at `files`' key)
/// where they give one, else region 1 everywhere. The numbers are 1-based, as Eclipse's: an
/// active cell's must be an integer in [1, regions] (InputError naming the key, the cell and
/// the number), an inactive cell's is not used (region 1). Empty where every cell is in
/// region 1. Several regions without any source: an InputError at spec.key.
std::vector<std::int32_t> build_saturation_regions(const Grid3D& grid, const FieldSpec& spec,
                                                   int regions, const RockFields& rock,
                                                   const EclipseGridSpec* files = nullptr,
                                                   const EclipseGridData* eclipse = nullptr);

/// Each cell's equilibration region (RockFields::equilibration_region, from 0; design
/// decision 92) for an initial state of `regions` records: as build_saturation_regions, with
/// EQLNUM for SATNUM.
std::vector<std::int32_t> build_equilibration_regions(const Grid3D& grid, const FieldSpec& spec,
                                                      int regions, const RockFields& rock,
                                                      const EclipseGridSpec* files = nullptr,
                                                      const EclipseGridData* eclipse = nullptr);

/// The most fluid-in-place regions a deck may number (each is a column of the report).
inline constexpr int kMaxFipRegions = 10000;

/// Each cell's fluid-in-place region (RockFields::fip_region, from 0; design decision 89):
/// from `spec` as build_saturation_regions reads its regions (an Eclipse file's FIPNUM), else
/// from the grid.eclipse files' FIPNUM, else none (empty). An active cell's number must be an
/// integer in [1, kMaxFipRegions] (InputError naming the key, the cell and the number).
std::vector<std::int32_t> build_fip_regions(const Grid3D& grid, const FieldSpec& spec,
                                            const RockFields& rock,
                                            const EclipseGridSpec* files = nullptr,
                                            const EclipseGridData* eclipse = nullptr);

}  // namespace heptane::grid
