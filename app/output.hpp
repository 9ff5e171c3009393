#pragma once
/// @file The result file of `heptane run`: HDF5 (DESIGN section 7) with an XDMF 3 sidecar
/// (3DCoRectMesh, grid decks only) so ParaView and VisIt open the fields directly. Both are written
/// under temporary names and renamed when complete.
#include <string>
#include <vector>

#include "app/deck.hpp"
#include "app/hdf5_file.hpp"
#include "core/krylov/krylov.hpp"

namespace heptane::app {

/// Everything a run reports.
struct RunRecord {
    const Deck* deck = nullptr;
    const wells::Model* model = nullptr;          ///< grid decks
    const MatrixSystem* matrix_system = nullptr;  ///< matrix decks (model is then null)
    std::vector<std::string> overrides;           ///< the --set arguments
    const std::vector<double>* x = nullptr;
    SolveResult result;
    std::string method, backend, kernel;
    double tolerance = 0.0;
    double setup_seconds = 0.0;
    double preconditioner_setup_seconds = 0.0;  ///< where measured apart (GPU CPR), else 0
    double solve_seconds = 0.0;
    /// Under mpirun: rank 0's halo exchanges and cross-rank sums in the solve, and the
    /// gather of x after it (SolverInfo).
    double halo_seconds = 0.0, reduction_seconds = 0.0, gather_seconds = 0.0;
};

/// Writes OUT.h5 and OUT.xmf (the .h5 extension replaced by .xmf). The .xmf names the .h5
/// by its file name, so the pair can be moved together. A matrix deck (run.matrix_system)
/// has no mesh: OUT.h5 only, with /system attributes instead of /grid and the whole solution
/// in /solution/x.
void write_run_output(const std::string& h5_path, const RunRecord& run);

/// A cell field ParaView shows: its name and its dataset in the .h5.
struct XdmfField {
    std::string name, path;
};
/// The fields of one time (time < 0: a single uniform grid without a time).
struct XdmfFrame {
    double time = -1.0;
    std::vector<XdmfField> fields;
};

/// Writes the XDMF 3 text to `file`: one uniform grid for a single frame without a time, else
/// a temporal collection (ParaView animates it). The mesh is a 3DCoRectMesh for cells of one
/// size, else (per-cell DX, DY, DZ, TOPS) hexahedra from /grid/mesh, which write_grid writes.
void write_xdmf(const std::string& file, const std::string& h5_name, const grid::Grid3D& g,
                const std::vector<XdmfFrame>& frames);

/// The root attributes every result file carries: version, time, the deck and its --set.
void write_root_attributes(h5::File& f, const Deck& deck,
                           const std::vector<std::string>& overrides);

/// /grid (dims, cell size, the active mask, permeability in mD, porosity; per-cell sizes,
/// depths and the hexahedral mesh where cells have their own); returns its fields for the
/// XDMF. Inactive cells are NaN in every field (blank in ParaView).
std::vector<XdmfField> write_grid(h5::File& f, const wells::Model& model);

/// `values` (one per cell) with NaN in the inactive cells of `rock`: what a field is written as.
std::vector<double> blank_inactive(std::vector<double> values, const grid::RockFields& rock);

/// The .xmf path beside an .h5 path.
std::string xdmf_path(const std::string& h5_path);

/// Physical unit of a solution component (e.g. "bar" for dp), "1" when dimensionless.
std::string component_units(const Deck& deck, const std::string& name);

}  // namespace heptane::app
