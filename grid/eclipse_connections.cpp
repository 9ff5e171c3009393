// The GRID section's cell sizes and connections (grid/eclipse_reader.hpp): DXV, DYV, DZV,
// COORD and ZCORN,
// GRIDOPTS, MINPV, FAULTS and MULTFLT, and the negative-direction multipliers' check.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/errors.hpp"
#include "core/base/text.hpp"
#include "grid/eclipse_reader.hpp"

namespace heptane::grid::detail {

/// MULTX- and the other negative-direction multipliers, refused after GRIDOPTS 'NO'.
void GridReader::check_multiplier(const Source& src, const Token& at,
                                  const std::string& keyword) const {
    if (keyword.back() == '-' && !negative_multipliers_) {
        src.fail(at, keyword +
                         ": GRIDOPTS says 'NO' to negative-direction multipliers "
                         "(give GRIDOPTS 'YES' /)");
    }
    // heptane multiplies before the EDIT section's edits; Eclipse would multiply their result.
    const bool face = keyword.rfind("MULT", 0) == 0 && keyword != "MULTNUM" && keyword != "MULTPV";
    const std::string& edited = face ? tran_edited_at_ : keyword == "MULTPV" ? porv_edited_at_ : "";
    if (!edited.empty()) {
        src.fail(at, keyword + " after the EDIT section's " + (face ? "TRANX/Y/Z" : "PORV") +
                         " edits (" + edited +
                         "): heptane applies the multipliers before those edits, Eclipse to "
                         "their result; give " +
                         keyword + " before them");
    }
}

/// The values of `keyword` up to its '/' (n*value repeats), at most count + 1 of them: the
/// caller says what a count other than `count` means.
std::vector<double> GridReader::read_counted(Source& src, const Token& at,
                                             const std::string& keyword, std::size_t count) {
    std::vector<double> values;
    Token t;
    bool closed = false;
    while (src.tokens.next(t)) {
        if (t.text == "/") {
            closed = true;
            break;
        }
        append_values(src.path, src.text, t, keyword, values, count);
        if (values.size() > count) break;
    }
    if (!closed && values.size() <= count)
        src.fail(at, keyword + ": the file ends before the '/' that closes its data");
    return values;
}

/// DXV NX values / (DYV, DZV): every cell's DX (DY, DZ) by its column (row, layer).
void GridReader::read_size_vector(Source& src, const Token& at, const std::string& keyword) {
    const int axis = keyword[1] - 'X';
    const auto count = static_cast<std::size_t>(data_.dims[axis]);
    std::vector<double> values = read_counted(src, at, keyword, count);
    if (values.size() != count) {
        src.fail(at, keyword + ": " + std::to_string(values.size()) + " values, the grid has " +
                         std::to_string(count) + " cells along " +
                         std::string("IJK").substr(static_cast<std::size_t>(axis), 1) +
                         " (grid.dims " + dims_text() + ")");
    }
    std::vector<double>& a = array(std::string(1, 'D') + keyword[1]);
    for_box(full_, [&](std::size_t cell, std::size_t) {
        const std::size_t i = cell % static_cast<std::size_t>(data_.dims[0]);
        const std::size_t j = cell / static_cast<std::size_t>(data_.dims[0]) %
                              static_cast<std::size_t>(data_.dims[1]);
        const std::size_t k = cell / (static_cast<std::size_t>(data_.dims[0]) * data_.dims[1]);
        a[cell] = values[axis == 0 ? i : axis == 1 ? j : k];
    });
}

/// COORD (6 (NX + 1) (NY + 1) values) or ZCORN (8 NX NY NZ) /: corner-point geometry, over the
/// whole grid (not inside a BOX).
void GridReader::read_corner_point(Source& src, const Token& at, const std::string& keyword) {
    if (box_.r != full_.r) {
        src.fail(at, keyword +
                         ": corner-point geometry inside a BOX is not supported (give it "
                         "for the whole grid, after ENDBOX)");
    }
    const auto nx = static_cast<std::size_t>(data_.dims[0]);
    const auto ny = static_cast<std::size_t>(data_.dims[1]);
    const auto nz = static_cast<std::size_t>(data_.dims[2]);
    const bool coord = keyword == "COORD";
    const std::size_t count = coord ? 6 * (nx + 1) * (ny + 1) : 8 * nx * ny * nz;
    std::vector<double> values = read_counted(src, at, keyword, count);
    if (values.size() != count) {
        src.fail(at, keyword + ": " + std::to_string(values.size()) + " values; grid.dims " +
                         dims_text() + " needs " + std::to_string(count) +
                         (coord ? " (6 for each of the (NX + 1) (NY + 1) pillars)"
                                : " (8 corner depths a cell)"));
    }
    (coord ? data_.coord : data_.zcorn) = std::move(values);
    (coord ? data_.coord_where : data_.zcorn_where) = where(src.path, src.text, at.offset);
}

/// MAPAXES x1 y1 x0 y0 x2 y2 /: where the grid lies on a map; nothing in the model changes.
void GridReader::read_mapaxes(Source& src, const Token& at) {
    std::vector<Token> words;
    if (!read_words(src, words))
        src.fail(at, "MAPAXES: the file ends before the '/' that closes it");
    double v = 0.0;
    if (words.size() != 6 || !std::all_of(words.begin(), words.end(), [&](const Token& w) {
            return parse_double(w.text, v);
        })) {
        src.fail(at, "MAPAXES: expected 6 numbers (x1 y1 x0 y0 x2 y2), then '/'");
    }
    data_.notes.push_back(where(src.path, src.text, at.offset) +
                          "MAPAXES: the map's axes only place the grid on a map; heptane keeps "
                          "the files' x and y (the output's mesh is in them)");
}

/// GRIDFILE, RPTGRID, MESSAGES, MAPUNITS: one record of output or message controls (or the
/// map's unit), passed over with a note (heptane's output always holds the grid; its messages
/// are its own; MAPAXES places nothing).
void GridReader::read_output_control(Source& src, const Token& at, const std::string& keyword) {
    std::vector<Token> words;
    if (!read_words(src, words))
        src.fail(at, keyword + ": the file ends before the '/' that closes it");
    data_.notes.push_back(
        where(src.path, src.text, at.offset) + keyword +
        (keyword == "MESSAGES"   ? ": Eclipse's message limits, not used (heptane's messages "
                                   "are its own)"
         : keyword == "MAPUNITS" ? ": the unit of MAPAXES' map, which only places the grid on a "
                                   "map; nothing changes"
                                 : ": an Eclipse output request, not used (the output's /grid "
                                   "holds the grid and its arrays)"));
}

/// COORDSYS K1 K2 [COMP|INCOMP [JOIN|SEPARATE]] /: the one reservoir's coordinate system (one
/// record: SPECGRID's NUMRES is 1). Over every layer it changes nothing (COMP / INCOMP concern
/// radial grids, JOIN / SEPARATE the next reservoir): a note; anything else is an error.
void GridReader::read_coordsys(Source& src, const Token& at) {
    std::vector<Token> words;
    if (!read_words(src, words))
        src.fail(at, "COORDSYS: the file ends before the '/' that closes its record");
    std::vector<double> k;
    for (std::size_t q = 0; q < words.size() && q < 2; ++q)
        append_values(src.path, src.text, words[q], "COORDSYS", k, 2);
    const auto word = [&](std::size_t q) {
        return q < words.size() ? std::string(unquoted(words[q].text)) : std::string();
    };
    const bool one = k.size() == 2 && k[0] == 1.0 && k[1] == data_.dims[2] && words.size() <= 4;
    const std::string completeness = word(2), join = word(3);
    if (!one || !(completeness.empty() || completeness == "COMP" || completeness == "INCOMP") ||
        !(join.empty() || join == "JOIN" || join == "SEPARATE")) {
        src.fail(at, "COORDSYS: heptane reads one reservoir: a record 1 " +
                         std::to_string(data_.dims[2]) +
                         " [COMP|INCOMP [JOIN|SEPARATE]] / over every layer (several "
                         "coordinate systems, or radial items, are not supported)");
    }
    data_.notes.push_back(where(src.path, src.text, at.offset) +
                          "COORDSYS: one coordinate system over every layer, as without it");
}

/// NEWTRAN, OLDTRAN: how Eclipse computes the transmissibilities (from the cells' corner-point
/// faces, or from their centres and sizes); EclipseGridData::transmissibility_rule.
void GridReader::read_transmissibility_rule(Source& src, const Token& at,
                                            const std::string& keyword) {
    EclipseTokenizer probe = src.tokens;  // a '/' right after it: its empty record
    Token next;
    if (probe.next(next) && next.text == "/") src.tokens = probe;
    data_.transmissibility_rule = keyword;
    data_.transmissibility_rule_where = where(src.path, src.text, at.offset);
}

/// GRIDUNIT unit [MAP] /: the unit the grid's lengths are in (checked against the one they
/// are read in by grid/eclipse_model.cpp).
void GridReader::read_gridunit(Source& src, const Token& at) {
    std::vector<Token> words;
    if (!read_words(src, words))
        src.fail(at, "GRIDUNIT: the file ends before the '/' that closes it");
    const std::string unit = words.empty() ? std::string() : std::string(unquoted(words[0].text));
    const std::string map = words.size() == 2 ? std::string(unquoted(words[1].text)) : "";
    if (words.empty() || words.size() > 2 || (unit != "FEET" && unit != "METRES" && unit != "CM") ||
        (!map.empty() && map != "MAP")) {
        src.fail(at, "GRIDUNIT: expected FEET, METRES or CM [MAP], then '/'");
    }
    data_.gridunit = unit;
    data_.gridunit_where = where(src.path, src.text, at.offset);
}

/// GRIDOPTS TRANMULT [NRMULT [NRPINC]] /.
void GridReader::read_gridopts(Source& src, const Token& at) {
    std::vector<Token> words;
    if (!read_words(src, words))
        src.fail(at, "GRIDOPTS: the file ends before the '/' that closes it");
    if (words.empty() || words.size() > 3)
        src.fail(at, "GRIDOPTS: expected TRANMULT [NRMULT [NRPINC]], then '/'");
    const std::string tranmult(unquoted(words[0].text));
    if (tranmult != "YES" && tranmult != "NO" && tranmult != "1*") {
        src.fail(words[0],
                 "GRIDOPTS: TRANMULT is " + quote_input(tranmult) + "; it must be YES or NO");
    }
    negative_multipliers_ = tranmult == "YES";  // Eclipse's default is NO
    data_.tranmult = negative_multipliers_ ? "YES" : "NO";
    const char* what[3] = {"", "NRMULT (MULTNUM regions)", "NRPINC (PINCHNUM regions)"};
    for (std::size_t q = 1; q < words.size(); ++q) {
        std::vector<double> v;
        append_values(src.path, src.text, words[q], "GRIDOPTS", v, 1, true);
        if (v.size() != 1 || (!std::isnan(v[0]) && v[0] != 0.0)) {
            src.fail(words[q], std::string("GRIDOPTS: ") + what[q] + " is " +
                                   quote_input(words[q].text) +
                                   "; regions are not supported (0 or defaulted)");
        }
    }
}

/// The one number of `word`, finite and >= 0 (else an error naming it `what`).
double GridReader::non_negative(const Source& src, const Token& word, const std::string& keyword,
                                const std::string& what) {
    std::vector<double> v;
    append_values(src.path, src.text, word, keyword, v, 1);
    if (v.size() != 1 || !std::isfinite(v[0]) || v[0] < 0.0) {
        src.fail(word, keyword + ": " + what + " is " + quote_input(word.text) +
                           "; it must be finite and >= 0");
    }
    return v[0];
}

/// MINPV value /.
void GridReader::read_minpv(Source& src, const Token& at) {
    std::vector<Token> words;
    if (!read_words(src, words)) src.fail(at, "MINPV: the file ends before the '/' that closes it");
    if (words.size() != 1) src.fail(at, "MINPV: expected one pore volume, then '/'");
    data_.minpv = non_negative(src, words[0], "MINPV", "the pore volume");
}

/// PINCH [threshold [GAP|NOGAP [max-gap [TOPBOT|ALL [TOP|ALL]]]]] /: `n*` defaults n items.
void GridReader::read_pinch(Source& src, const Token& at) {
    std::vector<Token> words;
    if (!read_words(src, words)) src.fail(at, "PINCH: the file ends before the '/' that closes it");
    // The record's items, a defaulted one as null.
    std::vector<const Token*> items;
    for (const Token& w : words) {
        const std::string_view t = w.text;
        const std::size_t star = t.find('*');
        const bool defaults = star != std::string_view::npos && star + 1 == t.size() &&
                              t.find_first_not_of("0123456789") == star;
        if (!defaults) {
            items.push_back(&w);
            continue;
        }
        std::size_t n = star == 0 ? 1 : 0;  // '*' alone: one item
        for (std::size_t c = 0; c < star && n <= 5; ++c) n = 10 * n + (t[c] - '0');
        items.insert(items.end(), std::min<std::size_t>(n, 6), nullptr);
    }
    if (items.size() > 5) {
        src.fail(at,
                 "PINCH: expected at most 5 items (threshold thickness, GAP or NOGAP, the "
                 "largest empty gap, TOPBOT or ALL, TOP or ALL), then '/'");
    }
    items.resize(5, nullptr);
    EclipseGridData::Pinch p;
    p.given = true;
    p.where = where(src.path, src.text, at.offset);
    const auto word = [&](int q, const char* a, const char* b, const char* what) {
        const std::string v(unquoted(items[static_cast<std::size_t>(q)]->text));
        if (v != a && v != b) {
            src.fail(*items[static_cast<std::size_t>(q)], std::string("PINCH: ") + what + " is " +
                                                              quote_input(v) + "; it must be " + a +
                                                              " or " + b);
        }
        return v == a;
    };
    if (items[0]) p.threshold = non_negative(src, *items[0], "PINCH", "the threshold thickness");
    if (items[1]) p.gap = word(1, "GAP", "NOGAP", "item 2");
    if (items[2]) p.max_gap = non_negative(src, *items[2], "PINCH", "the largest empty gap");
    if (items[3]) p.all_cells = word(3, "ALL", "TOPBOT", "item 4 (the transmissibility's cells)");
    if (items[4]) p.all_multz = word(4, "ALL", "TOP", "item 5 (the MULTZ taken)");
    data_.pinch = p;
}

/// FACE of a FAULTS record: X, Y, Z (or I, J, K), with an optional + or -.
bool GridReader::fault_face(std::string_view f, int& axis, int& side) {
    if (f.empty() || f.size() > 2) return false;
    const char a = f[0];
    axis = a == 'X' || a == 'I' ? 0 : a == 'Y' || a == 'J' ? 1 : a == 'Z' || a == 'K' ? 2 : -1;
    side = f.size() == 2 && f[1] == '-' ? -1 : 1;
    return axis >= 0 && (f.size() == 1 || f[1] == '+' || f[1] == '-');
}

/// FAULTS: NAME I1 I2 J1 J2 K1 K2 FACE / records until an empty one.
void GridReader::read_faults(Source& src, const Token& at) {
    each_record(src, at, "FAULTS", [&](const std::vector<Token>& words) {
        const Token& record = words[0];
        if (words.size() != 8)
            src.fail(record, "FAULTS: a record is NAME I1 I2 J1 J2 K1 K2 FACE /");
        std::vector<double> items;
        for (std::size_t q = 1; q < 7; ++q)
            append_values(src.path, src.text, words[q], "FAULTS", items, 6);
        if (items.size() != 6)
            src.fail(record, "FAULTS: a record is NAME I1 I2 J1 J2 K1 K2 FACE /");
        EclipseGridData::FaultFace face;
        const std::string_view f = unquoted(words[7].text);
        if (!fault_face(f, face.axis, face.side)) {
            src.fail(words[7], "FAULTS: FACE is " + quote_input(f) +
                                   "; it must be X, Y or Z (or I, J, K), with + or -");
        }
        const Box b = box_from(src, record, "FAULTS", items, 0, full_, true);
        if (b.r[2 * face.axis] != b.r[2 * face.axis + 1]) {
            const std::string d = std::string("IJK").substr(face.axis, 1);
            src.fail(record, "FAULTS: a face along " + std::string("XYZ").substr(face.axis, 1) +
                                 " needs " + d + "1 = " + d + "2 (one layer of cells)");
        }
        face.box = b.r;
        data_.faults[std::string(unquoted(record.text))].push_back(face);
    });
}

/// MULTFLT: NAME multiplier / records until an empty one; NAME may end with '*'.
void GridReader::read_multflt(Source& src, const Token& at) {
    check_multiplier(src, at, "MULTFLT");
    each_record(src, at, "MULTFLT", [&](const std::vector<Token>& words) {
        const Token& record = words[0];
        if (words.size() != 2) src.fail(record, "MULTFLT: a record is NAME multiplier /");
        const double value = non_negative(src, words[1], "MULTFLT", "the multiplier");
        const std::string name(unquoted(record.text));
        const bool pattern = !name.empty() && name.back() == '*';
        const std::string stem = pattern ? name.substr(0, name.size() - 1) : name;
        bool found = false;
        for (const auto& [fault, faces] : data_.faults) {
            if (pattern ? fault.compare(0, stem.size(), stem) != 0 : fault != name) continue;
            found = true;
            for (const EclipseGridData::FaultFace& face : faces)
                data_.fault_multipliers.emplace_back(face, value);
        }
        if (!found) {
            src.fail(record, "MULTFLT: no fault " + quote_input(name) +
                                 " (FAULTS defines the faults before MULTFLT names them)");
        }
    });
}

/// NNC or EDITNNC: I1 J1 K1 I2 J2 K2 value / records until an empty one.
void GridReader::read_cell_pairs(Source& src, const Token& at, const std::string& keyword) {
    const bool edit = keyword == "EDITNNC";
    const std::string form =
        keyword + ": a record is I1 J1 K1 I2 J2 K2 " + (edit ? "TRANM" : "TRAN") + " /";
    each_record(src, at, keyword, [&](const std::vector<Token>& words) {
        const Token& record = words[0];
        std::vector<double> items;
        for (const Token& w : words) append_values(src.path, src.text, w, keyword, items, 64, true);
        if (items.size() < 7) src.fail(record, form);
        for (std::size_t q = 7; q < items.size(); ++q) {
            if (!std::isnan(items[q])) {
                src.fail(record, keyword + ": item " + std::to_string(q + 1) +
                                     " is given; heptane reads the two cells and " +
                                     (edit ? "the multiplier" : "the transmissibility") +
                                     " only (default the others with n*)");
            }
        }
        EclipseGridData::CellPair pair;
        for (int c = 0; c < 6; ++c) {
            const double v = items[static_cast<std::size_t>(c)];
            const int most = data_.dims[c % 3];
            if (std::isnan(v) || v != std::floor(v) || v < 1.0 || v > most) {
                src.fail(record, keyword + ": " + std::string(c < 3 ? "the first" : "the second") +
                                     " cell's " + "IJK"[c % 3] + " must be an integer in 1.." +
                                     std::to_string(most) + form.substr(keyword.size()));
            }
            (c < 3 ? pair.a : pair.b)[c % 3] = static_cast<int>(v) - 1;
        }
        if (pair.a == pair.b) src.fail(record, keyword + ": the two cells are the same cell");
        const double value = items[6];
        if (!std::isfinite(value) || value < 0.0) {
            src.fail(record, keyword + ": the " + (edit ? "multiplier" : "transmissibility") +
                                 " must be a finite number >= 0");
        }
        pair.value = value;
        pair.where = where(src.path, src.text, record.offset);
        (edit ? data_.editnnc : data_.nnc).push_back(std::move(pair));
    });
}

/// MULTREGT: FROM TO multiplier [directions [NNC-type [M|F|O]]] / records until an empty one.
void GridReader::read_multregt(Source& src, const Token& at) {
    check_multiplier(src, at, "MULTREGT");
    each_record(src, at, "MULTREGT", [&](const std::vector<Token>& words) {
        const Token& record = words[0];
        const std::string form =
            "MULTREGT: a record is FROM TO multiplier [directions [NNC-type [M|F|O]]] /";
        std::vector<const Token*> items;  // n* expanded to n defaults (null)
        for (const Token& w : words) {
            if (w.text.size() > 1 && w.text.back() == '*') {
                std::vector<double> defaults;
                append_values(src.path, src.text, w, "MULTREGT", defaults, 6, true);
                items.insert(items.end(), defaults.size(), nullptr);
            } else {
                items.push_back(&w);
            }
            if (items.size() > 6) src.fail(record, form);
        }
        if (items.size() < 3 || items[2] == nullptr) src.fail(record, form);
        EclipseGridData::RegionMultiplier r;
        const auto region = [&](const Token* t) {  // 0: every region
            if (t == nullptr) return 0;
            std::vector<double> v;
            append_values(src.path, src.text, *t, "MULTREGT", v, 1);
            if (v.size() != 1 || v[0] != std::floor(v[0]) || v[0] == 0.0 ||
                std::abs(v[0]) > INT_MAX) {
                src.fail(*t, "MULTREGT: the region number is " + quote_input(t->text) +
                                 "; it must be an integer >= 1 (negative or defaulted: every "
                                 "region)");
            }
            return v[0] < 0.0 ? 0 : static_cast<int>(v[0]);
        };
        r.from = region(items[0]);
        r.to = region(items[1]);
        r.multiplier = non_negative(src, *items[2], "MULTREGT", "the multiplier");
        if (items.size() > 3 && items[3] != nullptr) {
            const std::string_view d = unquoted(items[3]->text);
            r.directions = 0;
            for (char c : d) {
                const int bit = c == 'X' ? 1 : c == 'Y' ? 2 : c == 'Z' ? 4 : 0;
                if (bit == 0 || (r.directions & bit) != 0) {
                    r.directions = 0;
                    break;
                }
                r.directions |= bit;
            }
            if (r.directions == 0) {
                src.fail(*items[3], "MULTREGT: the directions are " + quote_input(d) +
                                        "; they must be X, Y, Z, XY, XZ, YZ or XYZ");
            }
        }
        if (items.size() > 4 && items[4] != nullptr) {
            const std::string_view type = unquoted(items[4]->text);
            if (type != "ALL" && type != "NNC" && type != "NONNC" && type != "NOAQUNNC") {
                src.fail(*items[4], "MULTREGT: the NNC type is " + quote_input(type) +
                                        "; it must be ALL, NNC, NONNC or NOAQUNNC");
            }
            r.adjacent = type != "NNC";
            r.nnc = type != "NONNC";
        }
        if (items.size() > 5 && items[5] != nullptr) {
            const std::string_view a = unquoted(items[5]->text);
            r.regions = a == "M" ? "MULTNUM" : a == "F" ? "FLUXNUM" : a == "O" ? "OPERNUM" : "";
            if (r.regions.empty()) {
                src.fail(*items[5], "MULTREGT: the region array is " + quote_input(a) +
                                        "; it must be M (MULTNUM), F (FLUXNUM) or O (OPERNUM)");
            }
        } else if (!data_.region_multipliers.empty()) {
            r.regions = data_.region_multipliers.back().regions;
        }
        r.where = where(src.path, src.text, record.offset);
        if (!r.adjacent) {
            data_.notes.push_back(r.where +
                                  "MULTREGT: a record for non-neighbour connections (NNC) only: "
                                  "it multiplies the connections of faults' throws, nothing "
                                  "on a grid without them");
        }
        data_.region_multipliers.push_back(std::move(r));
    });
}

}  // namespace heptane::grid::detail
