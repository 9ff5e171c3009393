// The GRID-section reader (grid/eclipse_grid.hpp): files, includes, RUNSPEC, arrays and boxes;
// the edits and the connections keywords are in eclipse_edits.cpp and eclipse_connections.cpp.
#include "grid/eclipse_grid.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/base/errors.hpp"
#include "core/base/text.hpp"
#include "grid/eclipse_reader.hpp"

namespace heptane::grid::detail {
namespace {

/// The sections after GRID and EDIT (refused inside RUNSPEC: the file has no GRID section).
bool is_later_section(std::string_view k) {
    return is_section_keyword(k) && k != "RUNSPEC" && k != "GRID" && k != "EDIT";
}

/// The sections after REGIONS, which end the reading: heptane's YAML deck gives the initial
/// state, the output and the schedule (initial.eclipse and schedule.eclipse read them).
bool ends_reading(std::string_view k) {
    return k == "SOLUTION" || k == "SUMMARY" || k == "SCHEDULE" || k == "END";
}

/// The region arrays: SATNUM (saturation regions), PVTNUM, EQLNUM, FIPNUM, IMBNUM (kept for
/// the model to check, grid/rock.cpp), and MULTNUM, FLUXNUM, OPERNUM (the region edits' and
/// MULTREGT's). Eclipse reads them in GRID and REGIONS.
bool is_region_array(std::string_view k) {
    return k == "SATNUM" || k == "PVTNUM" || k == "EQLNUM" || k == "FIPNUM" || k == "IMBNUM" ||
           k == "MULTNUM" || k == "FLUXNUM" || k == "OPERNUM";
}

/// The end-point arrays of end-point scaling (design decisions 95, 98) and SWATINIT (97),
/// PROPS-section arrays.
bool is_end_point_array(std::string_view k) {
    return k == "SWL" || k == "SWCR" || k == "SWU" || k == "SOWCR" || k == "KRW" || k == "KRO" ||
           k == "PCW" || k == "SWATINIT";
}

/// What grid.eclipse reads of PROPS, for its notes.
constexpr const char* kEndPointArraysText =
    "the end-point arrays SWL, SWCR, SWU, SOWCR, KRW, KRO, PCW, SWATINIT and their edits";

/// PROPS keywords of the end-point scaling heptane does not build: each would change the
/// saturation functions, so it is refused, never passed over.
bool is_unbuilt_scaling(std::string_view k) {
    static constexpr std::string_view kUnbuilt[] = {
        "SWLPC",    "KRWR",  "KRORW", "KRORG", "ISWL",   "ISWCR",  "ISWU",
        "ISOWCR",   "IKRW",  "IKRO",  "IPCW",  "ENPTVD", "ENKRVD", "ENPCVD",
        "SCALECRS", "SGL",   "SGCR",  "SGU",   "SOGCR",  "KRG",    "KRGR",
        "PCG",      "SGLPC", "SWLX",  "SWCRX", "SOWCRX", "KRWX",   "KROX"};
    return std::find(std::begin(kUnbuilt), std::end(kUnbuilt), k) != std::end(kUnbuilt);
}

/// EQUALREG, MULTIREG, ADDREG, COPYREG: edits over the cells of one region number.
bool is_region_edit(std::string_view k) {
    return k == "EQUALREG" || k == "MULTIREG" || k == "ADDREG" || k == "COPYREG";
}

bool is_edit(std::string_view k) {
    return k == "EQUALS" || k == "MULTIPLY" || k == "ADD" || k == "COPY" || k == "MINVALUE" ||
           k == "MAXVALUE";
}

/// What the REGIONS section may hold: the region arrays, the edits, boxes and includes that
/// apply to any array, ECHO / NOECHO, and the section keywords that end it. An array of the
/// GRID section (PERMX ...) or a GRID keyword (FAULTS ...) there is an error, as in Eclipse.
bool in_regions_section(std::string_view k) {
    return is_region_array(k) || is_edit(k) || is_region_edit(k) || k == "OPERATE" ||
           k == "COPYBOX" || k == "BOX" || k == "ENDBOX" || k == "INCLUDE" || k == "ECHO" ||
           k == "NOECHO" || k == "REGIONS" || ends_reading(k);
}

}  // namespace

bool is_array(std::string_view k) {
    static constexpr std::string_view kArrays[] = {
        "PERMX", "PERMY", "PERMZ", "PORO",  "NTG",    "ACTNUM", "DX",     "DY",     "DZ",
        "TOPS",  "MULTX", "MULTY", "MULTZ", "MULTX-", "MULTY-", "MULTZ-", "MULTPV", "MINPVV"};
    return is_region_array(k) || is_end_point_array(k) ||
           std::find(std::begin(kArrays), std::end(kArrays), k) != std::end(kArrays);
}

void GridReader::read_file(const std::string& path, IncludeStack& stack) {
    stack.enter(path);
    Source src(path, read_whole_file(path));
    Token t;
    while (!ended_ && src.tokens.next(t)) {
        const std::string keyword(t.text);
        if (runspec_) {
            read_runspec_token(src, t, keyword);
            continue;
        }
        if (!props_at_.empty()) {
            pass_props_token(src, t, keyword);
            continue;
        }
        if (!is_keyword(t.text)) src.fail(t, quote_input(t.text) + " is not a keyword");
        if (regions_ && !in_regions_section(keyword)) {
            src.fail(t, quote_input(keyword) +
                            " is not a REGIONS-section keyword heptane applies (it reads the "
                            "region arrays SATNUM, PVTNUM, EQLNUM, FIPNUM, IMBNUM, MULTNUM, "
                            "FLUXNUM, OPERNUM, and BOX, ENDBOX, EQUALS, MULTIPLY, ADD, COPY, "
                            "COPYBOX, MINVALUE, MAXVALUE, EQUALREG, MULTIREG, ADDREG, COPYREG, "
                            "OPERATE, INCLUDE, ECHO, NOECHO there)");
        }
        if (is_array(keyword)) {
            read_array(src, t, keyword);
        } else if (is_computed(keyword)) {
            read_computed_array(src, t, keyword);
        } else if (is_edit(keyword)) {
            read_edit(src, t, keyword);
        } else if (is_region_edit(keyword)) {
            read_region_edit(src, t, keyword);
        } else if (keyword == "COPYBOX") {
            read_copybox(src, t);
        } else if (keyword == "BOX") {
            box_ = read_box(src, t, keyword, full_, true);
        } else if (keyword == "ENDBOX") {
            box_ = full_;
        } else if (keyword == "INCLUDE") {
            read_include(src, t, stack);
        } else if (keyword == "RUNSPEC") {
            runspec_ = true;
        } else if (keyword == "DIMENS" || keyword == "SPECGRID") {
            read_dimensions(src, t, keyword);
        } else if (keyword == "DXV" || keyword == "DYV" || keyword == "DZV") {
            read_size_vector(src, t, keyword);
        } else if (keyword == "GRIDOPTS") {
            read_gridopts(src, t);
        } else if (keyword == "FAULTS") {
            read_faults(src, t);
        } else if (keyword == "MULTFLT") {
            read_multflt(src, t);
        } else if (keyword == "MULTREGT") {
            read_multregt(src, t);
        } else if (keyword == "NNC" || keyword == "EDITNNC") {
            read_cell_pairs(src, t, keyword);
        } else if (keyword == "MINPV") {
            read_minpv(src, t);
        } else if (keyword == "PINCH") {
            read_pinch(src, t);
        } else if (keyword == "OPERATE") {
            read_operate(src, t);
        } else if (keyword == "PROPS") {
            props_at_ = where(src.path, src.text, t.offset);  // passed over up to REGIONS
            edit_ = false;
        } else if (keyword == "REGIONS") {
            regions_ = true;
            edit_ = false;
        } else if (ends_reading(keyword)) {
            end_reading(where(src.path, src.text, t.offset), keyword);
        } else if (keyword == "GRID" || keyword == "EDIT" || keyword == "ECHO" ||
                   keyword == "NOECHO" || keyword == "INIT") {
            // Section headers and print/output switches (INIT asks for the grid's arrays
            // in an output file: heptane's /grid always holds them). They take no data; a
            // '/' right after one (the Egg model's "INIT /") is its empty record. EDIT lets
            // the arrays the model computes (PORV, TRANX/Y/Z) follow.
            if (keyword == "EDIT") edit_ = true;
            EclipseTokenizer probe = src.tokens;
            Token next;
            if (probe.next(next) && next.text == "/") src.tokens = probe;
        } else if (keyword == "COORD" || keyword == "ZCORN") {
            read_corner_point(src, t, keyword);
        } else if (keyword == "MAPAXES") {
            read_mapaxes(src, t);
        } else if (keyword == "GRIDFILE" || keyword == "RPTGRID" || keyword == "MESSAGES" ||
                   keyword == "MAPUNITS") {
            read_output_control(src, t, keyword);
        } else if (keyword == "COORDSYS") {
            read_coordsys(src, t);
        } else if (keyword == "NEWTRAN" || keyword == "OLDTRAN") {
            read_transmissibility_rule(src, t, keyword);
        } else if (keyword == "GRIDUNIT") {
            read_gridunit(src, t);
        } else {
            src.fail(
                t,
                quote_input(keyword) +
                    " is not a GRID-section keyword heptane applies (it reads "
                    "PERMX/Y/Z, PORO, NTG, ACTNUM, DX, DY, DZ, DXV, DYV, DZV, TOPS, COORD, ZCORN, "
                    "MAPAXES, MAPUNITS, GRIDUNIT, COORDSYS, NEWTRAN, OLDTRAN, GRIDFILE, RPTGRID, "
                    "MESSAGES, "
                    "MULTX/Y/Z, MULTX-/Y-/Z-, MULTPV, MINPV, PINCH, GRIDOPTS, FAULTS, MULTFLT, "
                    "MULTREGT, "
                    "NNC, EDITNNC, "
                    "MULTNUM, FLUXNUM, OPERNUM, the region arrays SATNUM, PVTNUM, EQLNUM, "
                    "FIPNUM, IMBNUM (in GRID or REGIONS), EQUALREG, MULTIREG, ADDREG, COPYREG, "
                    "BOX, ENDBOX, EQUALS, MULTIPLY, ADD, COPY, COPYBOX, MINVALUE, MAXVALUE, "
                    "OPERATE, "
                    "INCLUDE, SPECGRID, the EDIT section's PORV, TRANX, TRANY, TRANZ, and the "
                    "RUNSPEC section's DIMENS and units)");
        }
    }
    stack.leave();
}

/// Data tokens up to '/', values appended (defaults as NaN).
std::vector<double> GridReader::read_values(Source& src, const Token& at,
                                            const std::string& keyword) {
    std::vector<double> values;
    Token t;
    while (src.tokens.next(t)) {
        if (t.text == "/") return values;
        append_values(src.path, src.text, t, keyword, values, cells(), true);
        if (values.size() > cells()) break;
    }
    src.fail(at, keyword + ": " +
                     (values.size() > cells()
                          ? "more values than the grid's " + std::to_string(cells()) +
                                " cells (is the '/' that ends it missing?)"
                          : std::string("the file ends before the '/' that closes its data")));
}

void GridReader::read_array(Source& src, const Token& at, const std::string& keyword) {
    check_multiplier(src, at, keyword);
    const std::vector<double> values = read_values(src, at, keyword);
    Box b = box_;
    const bool top_layer_only = keyword == "TOPS" && b.r == full_.r &&
                                values.size() == static_cast<std::size_t>(data_.dims[0]) *
                                                     static_cast<std::size_t>(data_.dims[1]);
    if (top_layer_only) b.r[5] = 0;
    if (values.size() != b.size()) {
        src.fail(at, keyword + ": " + std::to_string(values.size()) + " values, the box has " +
                         std::to_string(b.size()) + " cells" +
                         (b.r == full_.r ? " (the whole grid of grid.dims " + dims_text() + ")"
                                         : std::string(" (BOX)")));
    }
    std::vector<double>& a = array(keyword);
    for_box(b, [&](std::size_t cell, std::size_t n) {
        if (!std::isnan(values[n])) a[cell] = values[n];
    });
}

/// Numbers up to the '/' that ends a record (n* defaults as NaN); false at the file's end.
/// A record holds at most a value and a box (box_from refuses more).
bool GridReader::read_record(Source& src, const std::string& keyword, std::vector<double>& items) {
    constexpr std::size_t kMostItems = 7;
    Token t;
    while (src.tokens.next(t)) {
        if (t.text == "/") return true;
        append_values(src.path, src.text, t, keyword, items, kMostItems, true);
    }
    return false;
}

/// A box from up to six 1-based integers (n* defaults take `fallback`'s), then '/' when
/// `own_keyword` (BOX), or ended by the '/' of a record.
Box GridReader::read_box(Source& src, const Token& at, const std::string& keyword,
                         const Box& fallback, bool own_keyword) {
    std::vector<double> items;
    if (!read_record(src, keyword, items))
        src.fail(at, keyword + ": the file ends before the '/' that closes it");
    return box_from(src, at, keyword, items, 0, fallback, own_keyword);
}

Box GridReader::box_from(const Source& src, const Token& at, const std::string& keyword,
                         const std::vector<double>& items, std::size_t first, const Box& fallback,
                         bool all_six) const {
    const std::size_t n = items.size() - first;
    if (n > 6 || (all_six && n != 6)) {
        src.fail(at, keyword + ": a box is 6 integers I1 I2 J1 J2 K1 K2, got " + std::to_string(n));
    }
    Box b = fallback;
    for (std::size_t q = 0; q < n; ++q) {
        const double v = items[first + q];
        if (std::isnan(v)) continue;  // defaulted
        if (v != std::floor(v) || v < 1 || v > data_.dims[q / 2]) {
            src.fail(at, keyword + ": box item " + std::to_string(q + 1) + " (" +
                             std::string("IJK").substr(q / 2, 1) + ") is " +
                             quote_input(number_text(v)) + "; it must be an integer 1.." +
                             std::to_string(data_.dims[q / 2]));
        }
        b.r[q] = static_cast<int>(v) - 1;
    }
    for (int d = 0; d < 3; ++d) {
        if (b.r[2 * d] > b.r[2 * d + 1]) {
            src.fail(at, keyword + ": the box's " + std::string("IJK").substr(d, 1) + " range " +
                             std::to_string(b.r[2 * d] + 1) + ".." +
                             std::to_string(b.r[2 * d + 1] + 1) + " is reversed");
        }
    }
    return b;
}

void GridReader::read_include(Source& src, const Token& at, IncludeStack& stack) {
    Token t;
    if (!src.tokens.next(t) || t.text == "/")
        src.fail(at, "INCLUDE: expected a file name, then '/'");
    const std::string name(unquoted(t.text));
    Token slash;
    if (!src.tokens.next(slash) || slash.text != "/")
        src.fail(at, "INCLUDE: the file name must be followed by '/'");
    read_included(where(src.path, src.text, at.offset) + "INCLUDE",
                  [&] { read_file(included_path(src.path, name), stack); });
}

/// PROPS: the end-point arrays SWL, SWCR, SWU, SOWCR, KRW, KRO, PCW and SWATINIT (design
/// decisions 95, 97, 98) are read, with the
/// edits and boxes that set them; the end-point scaling keywords heptane does not build are
/// refused; every other token is passed over up to the next section keyword that starts a
/// line (a table's numbers and '/'s are not keywords, nor the words of a record inside a line;
/// an INCLUDE there is not followed). REGIONS goes on reading; SOLUTION, SUMMARY, SCHEDULE or
/// END ends it, PROPS included, in one note.
void GridReader::pass_props_token(Source& src, const Token& t, const std::string& keyword) {
    if (!is_keyword(t.text) || !starts_line(src.text, t.offset)) return;
    if (is_end_point_array(keyword)) {
        read_array(src, t, keyword);
    } else if (is_edit(keyword)) {
        read_edit(src, t, keyword);
    } else if (keyword == "BOX") {
        box_ = read_box(src, t, keyword, full_, true);
    } else if (keyword == "ENDBOX") {
        box_ = full_;
    } else if (is_unbuilt_scaling(keyword)) {
        src.fail(t, keyword +
                        ": not supported: heptane's end-point scaling is the two-point scaling "
                        "of the water-oil table to SWL, SWCR, SWU and SOWCR (design decision "
                        "95), of its largest krw, kro and Pc to KRW, KRO and PCW (98), and "
                        "SWATINIT's scaling of Pc (97)");
    } else if (keyword == "REGIONS") {
        const std::string at = where(src.path, src.text, t.offset);
        data_.notes.push_back(props_at_ + "PROPS: grid.eclipse reads only " + kEndPointArraysText +
                              " from here on until REGIONS at " + at.substr(0, at.size() - 2) +
                              " (the YAML deck's fluid.eclipse and relperm.swof may read PROPS)");
        props_at_.clear();
        regions_ = true;
    } else if (ends_reading(keyword)) {
        end_reading(props_at_, "PROPS");
    }
}

/// The reading ends at `keyword` ("path:line: " `at`), said in a note.
void GridReader::end_reading(const std::string& at, const std::string& keyword) {
    ended_ = true;
    data_.notes.push_back(at + keyword +
                          (keyword == "PROPS"
                               ? ": grid.eclipse reads only " + std::string(kEndPointArraysText) +
                                     " from here on (the YAML deck's "
                               : ": grid.eclipse does not read the file from here on (the YAML "
                                 "deck's ") +
                          "fluid.eclipse, relperm.swof, initial.eclipse and schedule.eclipse may "
                          "read its PROPS, SOLUTION and SCHEDULE)");
    props_at_.clear();  // after the note: `at` may be props_at_
}

/// RUNSPEC: DIMENS and the unit system are read; every other keyword there describes
/// what the YAML deck gives (phases, tables, dimensions of arrays heptane does not use)
/// and is passed over, named once in the notes. GRID ends the section.
void GridReader::read_runspec_token(Source& src, const Token& t, const std::string& keyword) {
    if (keyword == "GRID") {
        runspec_ = false;
        if (!runspec_skipped_.empty()) {
            data_.notes.push_back(src.path +
                                  ": RUNSPEC: not used (the YAML deck says what they "
                                  "describe): " +
                                  runspec_skipped_);
        }
    } else if (keyword == "DIMENS") {
        read_dimensions(src, t, keyword);
    } else if (keyword == "FIELD" || keyword == "METRIC" || keyword == "LAB") {
        data_.units = keyword;
    } else if (keyword == "ENDSCALE") {
        read_endscale(src, t);
    } else if (keyword == "PVT-M") {
        src.fail(t, "PVT-M units are not supported (FIELD, METRIC or LAB)");
    } else if (is_later_section(keyword)) {
        src.fail(t, keyword + " before the GRID section: the file has no GRID section");
    } else if (keyword == "TITLE" || (is_keyword(t.text) && starts_line(src.text, t.offset))) {
        runspec_skipped_ += (runspec_skipped_.empty() ? "" : ", ") + keyword;
        if (keyword == "TITLE") skip_line(src);
    }
}

/// ENDSCALE [NODIR|DIRECT [REVERS|IRREVERS [NTENDP [NSENDP [NUMNODES]]]]] /: end-point
/// scaling on (design decision 95), non-directional and reversible (the others refused); the
/// numbers size the depth tables ENPTVD and ENKRVD, which heptane refuses.
void GridReader::read_endscale(Source& src, const Token& at) {
    Token t;
    int item = 0;
    while (src.tokens.next(t)) {
        if (t.text == "/") {
            data_.endscale = where(src.path, src.text, at.offset);
            return;
        }
        ++item;
        std::string word(unquoted(t.text));
        for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (item == 1 && word == "DIRECT") {
            src.fail(t,
                     "ENDSCALE: DIRECT (directional end points) is not supported: heptane's "
                     "scaling is non-directional (NODIR)");
        }
        if (item == 2 && word == "IRREVERS") {
            src.fail(t,
                     "ENDSCALE: IRREVERS (irreversible end points) is not supported: heptane's "
                     "scaling is reversible (REVERS)");
        }
    }
    src.fail(at, "ENDSCALE: the file ends before the '/' that closes it");
}

/// TITLE's line of free text.
void GridReader::skip_line(Source& src) {
    Token line_token;
    if (!src.tokens.next(line_token)) return;
    const std::size_t line = line_of(src.text, line_token.offset);
    Token peek;
    EclipseTokenizer probe = src.tokens;
    while (probe.next(peek) && line_of(src.text, peek.offset) == line) src.tokens = probe;
}

/// DIMENS NX NY NZ / or SPECGRID NX NY NZ NUMRES COORD /: must match the deck's grid.
void GridReader::read_dimensions(Source& src, const Token& at, const std::string& keyword) {
    std::vector<double> items;
    Token t;
    std::string coordinates;
    bool closed = false;
    const std::size_t most = keyword == "SPECGRID" ? 5 : 3;
    while (src.tokens.next(t)) {
        if (t.text == "/") {
            closed = true;
            break;
        }
        if (keyword == "SPECGRID" && items.size() == 4) {
            coordinates = std::string(unquoted(t.text));
            items.push_back(0.0);
            continue;
        }
        append_values(src.path, src.text, t, keyword, items, most, true);
    }
    if (!closed) src.fail(at, keyword + ": the file ends before the '/' that closes it");
    if (items.size() < 3 || items.size() > most || std::isnan(items[0]) || std::isnan(items[1]) ||
        std::isnan(items[2])) {
        src.fail(at,
                 keyword + (keyword == "SPECGRID" ? ": expected NX NY NZ [NUMRES [COORD]], then '/'"
                                                  : ": expected NX NY NZ, then '/'"));
    }
    if (keyword == "SPECGRID" && items.size() > 3 && !std::isnan(items[3]) && items[3] != 1.0)
        src.fail(at, "SPECGRID: several reservoirs (NUMRES > 1) are not supported");
    if (coordinates == "T") src.fail(at, "SPECGRID: radial (cylindrical) grids are not supported");
    const std::array<double, 3> file = {items[0], items[1], items[2]};
    for (int d = 0; d < 3; ++d) {
        if (file[d] != data_.dims[d]) {
            src.fail(at, keyword + " " + number_text(file[0]) + " " + number_text(file[1]) + " " +
                             number_text(file[2]) + " does not match grid.dims " + dims_text());
        }
    }
}

}  // namespace heptane::grid::detail

namespace heptane::grid {

EclipseGridData read_eclipse_grid(const std::vector<std::string>& paths, std::array<int, 3> dims) {
    if (dims[0] < 1 || dims[1] < 1 || dims[2] < 1)
        throw InputError("the grid dimensions must be positive");
    // The files are one deck in order: the section a file ends in goes on in the next (GRID,
    // EDIT or REGIONS: a file of SATNUM may follow a deck whose REGIONS it belongs to). A file
    // after one that ends in PROPS (passed over) or at SOLUTION, SUMMARY, SCHEDULE or END is an
    // error: it would be passed over whole, or it is out of order.
    detail::GridReader reader(dims);
    for (const std::string& path : paths) {
        if (reader.ended()) {
            throw InputError(path +
                             ": follows a file whose GRID and REGIONS sections have ended (in "
                             "PROPS, or at SOLUTION, SCHEDULE, ...); give the files in deck "
                             "order");
        }
        detail::IncludeStack stack;
        reader.read_file(path, stack);
    }
    return reader.take();
}

EclipseGridData read_eclipse_grid(const std::string& path, std::array<int, 3> dims) {
    return read_eclipse_grid(std::vector<std::string>{path}, dims);
}

}  // namespace heptane::grid
