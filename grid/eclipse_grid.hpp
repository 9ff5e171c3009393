#pragma once
/// @file The GRID section of Eclipse keyword files, applied as Eclipse applies it (issue 20):
/// arrays, boxes, edit keywords and includes, in file order; and the REGIONS section's region
/// arrays (SATNUM ...). The deck's grid.eclipse
/// (grid/eclipse_model.hpp) and rock fields of kind eclipse (grid/rock.cpp) read through it.
#include <array>
#include <cstddef>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace heptane::grid {

/// The arrays a GRID section defines, each nx * ny * nz values in Eclipse order (i fastest,
/// then j, then k, k = 0 at the top); a cell the file never set is NaN. Units are the file's.
struct EclipseGridData {
    std::array<int, 3> dims{0, 0, 0};
    std::map<std::string, std::vector<double>> arrays;
    std::string units;  ///< FIELD, METRIC or LAB where RUNSPEC says; else empty
    /// "path:line: " of RUNSPEC's ENDSCALE (end-point scaling on: the PROPS arrays SWL, SWCR,
    /// SWU, SOWCR, KRW, KRO, PCW scale the cells' tables, design decisions 95, 98); empty
    /// without it.
    std::string endscale;
    std::vector<std::string> notes;  ///< what of the files was not read, for stderr

    /// A face set of a fault (FAULTS): the cells of `box` (0-based, inclusive i0 i1 j0 j1 k0
    /// k1) and their face towards +axis (side +1) or -axis (side -1), axis 0 = x.
    struct FaultFace {
        std::array<int, 6> box{0, 0, 0, 0, 0, 0};
        int axis = 0;
        int side = 1;
    };
    /// The faults FAULTS defined, by name, with their faces in file order.
    std::map<std::string, std::vector<FaultFace>> faults;
    /// Each MULTFLT record's multiplier of each face of the faults it named, in file order
    /// (they multiply: two records of one fault give their product).
    std::vector<std::pair<FaultFace, double>> fault_multipliers;
    /// A MULTREGT record: the transmissibility of a connection between a cell of region
    /// `from` and one of region `to` of the region array `regions` (MULTNUM, FLUXNUM or
    /// OPERNUM), along `directions` (bits: 1 x, 2 y, 4 z), times `multiplier`; a region 0 is
    /// every region of the array; `adjacent` is false for a record of non-neighbour
    /// connections only (NNC type NNC), `nnc` false for one of neighbour connections only
    /// (NONNC): a faulted grid's non-neighbour connections (design decision 63).
    struct RegionMultiplier {
        std::string regions = "MULTNUM";
        int from = 0, to = 0;
        double multiplier = 1.0;
        int directions = 7;
        bool adjacent = true;
        bool nnc = true;
        std::string where;  ///< "file:line: " of the record, for messages
    };
    std::vector<RegionMultiplier> region_multipliers;  ///< MULTREGT's records, in file order
    std::string tranmult;  ///< GRIDOPTS' TRANMULT (YES or NO) where the files give GRIDOPTS
    /// MINPV: cells of less pore volume are inactive (the file's unit: rb with FIELD, m^3
    /// METRIC, cm^3 LAB); NaN where not given.
    double minpv = std::numeric_limits<double>::quiet_NaN();
    /// Corner-point geometry where the files give it (else empty), in the file's units:
    /// COORD's pillars (x, y, z at the top, then at the bottom; i fastest over NX + 1, then j
    /// over NY + 1) and ZCORN's corner depths (Eclipse order: i fastest over 2 NX, then j over
    /// 2 NY, then k over 2 NZ); "file:line: " of each keyword, for messages.
    std::vector<double> coord, zcorn;
    std::string coord_where, zcorn_where;
    /// An NNC or EDITNNC record (design decision 63): cells a and b (0-based i, j, k) and the
    /// record's value (NNC: the transmissibility in the file's unit system; EDITNNC: a
    /// multiplier), with the record's "file:line: ".
    struct CellPair {
        std::array<int, 3> a{0, 0, 0}, b{0, 0, 0};
        double value = 0.0;
        std::string where;
    };
    std::vector<CellPair> nnc;      ///< NNC's records, in file order
    std::vector<CellPair> editnnc;  ///< EDITNNC's records, in file order
    /// NEWTRAN or OLDTRAN where the files give one (the last), and its "file:line: ": heptane
    /// computes corner-point cells' transmissibilities from their faces (NEWTRAN's rule) and
    /// box cells' from their sizes (OLDTRAN's); grid/eclipse_model.cpp refuses the other.
    std::string transmissibility_rule, transmissibility_rule_where;
    /// GRIDUNIT's unit (FEET, METRES or CM) where the files give it, and its "file:line: ".
    std::string gridunit, gridunit_where;
    /// PINCH (design decision 69): connections between the active cells above and below a run
    /// of inactive cells of one column (grid/eclipse_model.cpp). Lengths in the file's unit.
    struct Pinch {
        bool given = false;
        double threshold = 0.001;  ///< item 1: an inactive cell at most this thick is bypassed
        bool gap = true;           ///< item 2: GAP (true) or NOGAP
        double max_gap = 1e20;     ///< item 3: the most void a connection may cross
        bool all_cells = false;    ///< item 4: ALL (true) or TOPBOT: whose T the connection takes
        bool all_multz = false;    ///< item 5: ALL (true) or TOP: whose MULTZ multiplies it
        std::string where;         ///< "file:line: " of the keyword
    };
    Pinch pinch;
    /// An EDIT-section edit of an array the model computes (design decision 72): PORV (each
    /// cell's pore volume) or TRANX, TRANY, TRANZ (the transmissibility of each cell's face
    /// towards +i, +j, +k). `op`: '=' EQUALS, EQUALREG or the array keyword itself; '*'
    /// MULTIPLY, MULTIREG; '+' ADD, ADDREG; '>' MINVALUE (at least); '<' MAXVALUE (at most).
    /// `cells` in Eclipse order (i fastest), `values` one for each cell or one for all (in the
    /// file's unit system; a factor for '*'), "file:line: KEYWORD" of the record in `where`.
    struct ComputedEdit {
        std::string array;
        char op = '=';
        std::vector<std::size_t> cells;
        std::vector<double> values;
        std::string where;
        double value(std::size_t q) const { return values.size() == 1 ? values[0] : values[q]; }
    };
    std::vector<ComputedEdit> computed_edits;  ///< in file order
};

/// Reads `path` for a grid of `dims` cells. Applied in file order:
/// - arrays PERMX PERMY PERMZ PORO NTG ACTNUM DX DY DZ TOPS MULTX MULTY MULTZ MULTX- MULTY-
///   MULTZ- MULTPV MINPVV: one value per cell of the current box, `n*value` repeats, `n*` leaves n
///   cells as they are; TOPS over the whole grid may give the top layer only (nx * ny
///   values);
/// - DXV, DYV, DZV: nx (ny, nz) sizes, one for each column (row, layer) of cells: DX (DY, DZ)
///   of every cell, whatever the box;
/// - COORD (6 (nx + 1) (ny + 1) values) and ZCORN (8 nx ny nz): corner-point geometry over the
///   whole grid (refused inside a BOX), kept as given (grid/corner_point.hpp builds the cells);
///   MAPAXES (6 numbers: a note, nothing changes) and GRIDUNIT (FEET, METRES or CM [MAP]: must
///   be the unit the lengths are read in, grid/eclipse_model.cpp checks);
/// - NEWTRAN, OLDTRAN: the transmissibility rule (`transmissibility_rule`); GRIDFILE, RPTGRID,
///   MESSAGES: one record of output or message controls, passed over with a note;
/// - GRIDOPTS TRANMULT [NRMULT [NRPINC]] /: TRANMULT YES or NO (NO refuses MULTX- and the
///   other negative-direction multipliers, as Eclipse does); region counts other than 0 are
///   refused (MULTNUM and PINCHNUM regions are not read);
/// - the region arrays SATNUM (saturation regions), PVTNUM, EQLNUM, FIPNUM and IMBNUM (arrays,
///   as above, in GRID or REGIONS; kept as the file gives them: grid/rock.cpp checks and uses
///   them);
/// - MULTNUM, FLUXNUM, OPERNUM (arrays, as above) and the region edits EQUALREG (ARRAY value),
///   MULTIREG (ARRAY factor), ADDREG (ARRAY constant), COPYREG (FROM TO): records ending with a
///   region number and the region array (M, the default; F; O), over every cell of that region
///   whatever the box (a region array not given: every cell in region 1);
/// - MINPV value /: the least pore volume of an active cell (>= 0); the array MINPVV, each
///   cell's own (grid/eclipse_model.cpp refuses both);
/// - PINCH [threshold [GAP|NOGAP [max-gap [TOPBOT|ALL [TOP|ALL]]]]] /: the pinch-out
///   connections' rules (EclipseGridData::Pinch; `n*` defaults items; lengths >= 0);
/// - FAULTS: records NAME I1 I2 J1 J2 K1 K2 FACE / (FACE X, Y, Z or I, J, K, with + or -; a
///   face along x needs I1 = I2, and so on), ended by an empty record; MULTFLT: records NAME
///   multiplier / (NAME may end with '*': every fault it starts), each multiplying the
///   transmissibility of its faults' faces;
/// - MULTREGT: records FROM TO multiplier [directions [NNC-type [M|F|O]]] /, ended by an empty
///   record: the transmissibility between cells of regions FROM and TO of MULTNUM (M, the
///   default for the first record; a later defaulted one takes the record before's), FLUXNUM
///   (F) or OPERNUM (O) along the directions (X, Y, Z, XY, XZ, YZ or XYZ, the default); a
///   defaulted or negative region number is every region; NNC-type ALL (default), NNC (no
///   connection here: a note says so), NONNC or NOAQUNNC. Applied once the arrays are final
///   (grid/eclipse_model.hpp), as OPM applies them;
/// - NNC: records I1 J1 K1 I2 J2 K2 TRAN / (1-based cells, TRAN >= 0 in the unit system's
///   transmissibility unit), EDITNNC: records I1 J1 K1 I2 J2 K2 TRANM / (a multiplier >= 0),
///   each list ended by an empty record; the items Eclipse allows after the seventh (NNC's
///   SIM1, ISATNUM ..., EDITNNC's ISATNUM ...) are refused unless defaulted (`n*`); a cell
///   paired with itself is an error (grid/eclipse_model.cpp applies them);
/// - BOX i1 i2 j1 j2 k1 k2 / (1-based, inclusive) sets the box of the arrays and edits that
///   follow, ENDBOX restores the whole grid;
/// - EQUALS (ARRAY value), MULTIPLY (ARRAY factor), ADD (ARRAY constant), COPY (FROM TO),
///   MINVALUE / MAXVALUE (ARRAY bound): records ended by '/', the list by an empty record;
///   each record may end with a box (1-based; `n*` or a missing item takes it from the
///   previous record of the keyword, or from BOX or the whole grid);
/// - COPYBOX: records ARRAY I1 I2 J1 J2 K1 K2 I1' I2' J1' J2' K1' K2' / (12 items, none
///   defaulted), the list ended by an empty record: the array's values on the first box copied
///   onto the second, of the same shape (read before any is written: the boxes may overlap);
/// - OPERATE: records TARGET I1 I2 J1 J2 K1 K2 OPERATION SOURCE [alpha [beta]] /, the list
///   ended by an empty record: TARGET = f(TARGET, SOURCE) on the box's cells with the Eclipse
///   manual's operations (MULTA alpha X + beta, POLY R + alpha X^beta, SLOG 10^(alpha + beta
///   X), LOG10, LOGE, INV 1 / X, MULTX alpha X, ADDX X + alpha, COPY, MAXLIM min(alpha, X),
///   MINLIM max(alpha, X), MULTP alpha X^beta, ABS, MULTIPLY R X); a defaulted box item is the
///   current BOX's (or the whole grid's), alpha and beta default to 0; a source cell without a
///   value, a result that is not finite, or POLY / MULTIPLY on a target not yet defined is an
///   error;
/// - INCLUDE 'file' / : the file's keywords, relative to the including file, nested; an
///   include cycle is an error;
/// - the EDIT section's arrays, which the model computes from the GRID section (design
///   decision 72): PORV (pore volume, rb FIELD, m^3 METRIC, cm^3 LAB) and TRANX, TRANY, TRANZ
///   (cP rb/day/psi FIELD, cP m^3/day/bar METRIC, cP cm^3/hr/atm LAB), given as arrays over the
///   box (`n*` leaves cells as computed) or edited by EQUALS, MULTIPLY, ADD, MINVALUE, MAXVALUE
///   and EQUALREG, MULTIREG, ADDREG, kept in order as `computed_edits` (COPY, COPYREG, COPYBOX
///   and OPERATE on them, or any of them before EDIT, are errors);
/// - GRID, EDIT (where PORV and TRANX/Y/Z may follow), ECHO, NOECHO and INIT are accepted and
///   do nothing else (INIT asks for the arrays
///   in an output file: heptane's /grid always has them); DIMENS and SPECGRID must match
///   `dims`;
/// - a whole .DATA deck: its RUNSPEC section gives DIMENS and the unit system (FIELD, METRIC
///   or LAB, `units`) and is otherwise passed over; PROPS is passed over up to the next section
///   keyword at the start of a line (its tables and its INCLUDEs are not read: fluid.eclipse
///   and relperm.swof read PROPS); REGIONS is read: the region arrays and the edits, boxes,
///   INCLUDE, ECHO and NOECHO (any other keyword there is an error); SOLUTION, SUMMARY,
///   SCHEDULE or END ends the reading (the YAML deck gives the initial state, wells and
///   schedule). RUNSPEC, PROPS and the end are said in `notes`.
/// Anything else is an InputError naming file, line and keyword: other keywords, a count that
/// does not fill the box (or COORD's, ZCORN's counts), an
/// edit of an array not yet defined, a box outside the grid, a missing '/'.
EclipseGridData read_eclipse_grid(const std::string& path, std::array<int, 3> dims);

/// The files in order, as one deck (arrays, boxes and the section carry over from file to
/// file: a file after one that ends in REGIONS goes on in REGIONS); a file after one that ends
/// in PROPS, or at SOLUTION, SUMMARY, SCHEDULE or END, is an InputError.
EclipseGridData read_eclipse_grid(const std::vector<std::string>& paths, std::array<int, 3> dims);

}  // namespace heptane::grid
