#pragma once
/// @file The GRID-section reader's state (grid/eclipse_grid.hpp's read_eclipse_grid), shared by
/// the files that hold its keywords by concern: eclipse_grid.cpp (files, includes, RUNSPEC,
/// arrays and boxes), eclipse_edits.cpp (EQUALS and the other edits, the region edits,
/// OPERATE) and eclipse_connections.cpp (cell sizes, GRIDOPTS, MINPV, PINCH, FAULTS, MULTFLT).
#include <array>
#include <cstddef>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/errors.hpp"
#include "grid/eclipse_grid.hpp"
#include "grid/text_input.hpp"

namespace heptane::grid::detail {

constexpr double kUnset = std::numeric_limits<double>::quiet_NaN();

/// 0-based inclusive ranges of i, j, k.
struct Box {
    std::array<int, 6> r{0, 0, 0, 0, 0, 0};  // i0 i1 j0 j1 k0 k1
    std::size_t size() const {
        return static_cast<std::size_t>(r[1] - r[0] + 1) * (r[3] - r[2] + 1) * (r[5] - r[4] + 1);
    }
};

inline std::string number_text(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

/// An array the reader keeps (PERMX ... OPERNUM, and the region arrays SATNUM, PVTNUM, EQLNUM,
/// FIPNUM, IMBNUM).
bool is_array(std::string_view k);

/// An EDIT-section array the model computes (PORV, TRANX, TRANY, TRANZ): the reader keeps its
/// edits (EclipseGridData::ComputedEdit), not values.
bool is_computed(std::string_view k);

/// A token without its quotes and the blanks inside them ('PERMX' -> PERMX, 'METRES ' ->
/// METRES: Eclipse pads its strings with blanks, as Petrel's exports write them).
inline std::string_view unquoted(std::string_view t) {
    if (t.size() >= 2 && (t.front() == '\'' || t.front() == '"') && t.back() == t.front()) {
        t = t.substr(1, t.size() - 2);
        while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
        while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
    }
    return t;
}

/// One file being read: its text, tokens and name, for messages.
struct Source {
    std::string path;
    std::string text;
    EclipseTokenizer tokens;
    Source(std::string p, std::string t) : path(std::move(p)), text(std::move(t)), tokens(text) {}
    [[noreturn]] void fail(const Token& at, const std::string& what) const {
        throw InputError(where(path, text, at.offset) + what);
    }
};

class GridReader {
  public:
    explicit GridReader(std::array<int, 3> dims) {
        data_.dims = dims;
        full_.r = {0, dims[0] - 1, 0, dims[1] - 1, 0, dims[2] - 1};
        box_ = full_;
    }

    void read_file(const std::string& path, IncludeStack& stack);

    /// The data read; a PROPS section the files end in is said in a note.
    EclipseGridData take() {
        if (!props_at_.empty()) end_reading(props_at_, "PROPS");
        return std::move(data_);
    }

    /// "[nx, ny, nz]", the deck's grid.dims.
    std::string dims_text() const {
        return "[" + std::to_string(data_.dims[0]) + ", " + std::to_string(data_.dims[1]) + ", " +
               std::to_string(data_.dims[2]) + "]";
    }

    /// Past the GRID, EDIT and REGIONS sections, or inside PROPS: a further file is refused.
    bool ended() const { return ended_ || !props_at_.empty(); }

  private:
    std::size_t cells() const { return full_.size(); }

    std::size_t index(int i, int j, int k) const {
        return static_cast<std::size_t>(i) +
               static_cast<std::size_t>(data_.dims[0]) *
                   (static_cast<std::size_t>(j) + static_cast<std::size_t>(data_.dims[1]) * k);
    }

    template <class F>
    void for_box(const Box& b, F f) const {
        std::size_t n = 0;
        for (int k = b.r[4]; k <= b.r[5]; ++k)
            for (int j = b.r[2]; j <= b.r[3]; ++j)
                for (int i = b.r[0]; i <= b.r[1]; ++i) f(index(i, j, k), n++);
    }

    std::vector<double>& array(const std::string& name) {
        auto [it, inserted] = data_.arrays.try_emplace(name);
        if (inserted) it->second.assign(cells(), kUnset);
        return it->second;
    }

    /// The words and numbers of one record up to its '/' (quotes removed); false at the file's
    /// end.
    static bool read_words(Source& src, std::vector<Token>& words) {
        Token t;
        while (src.tokens.next(t)) {
            if (t.text == "/") return true;
            words.push_back(t);
        }
        return false;
    }

    /// f(words) for each record of `keyword` up to the empty one that ends the list.
    template <class F>
    static void each_record(Source& src, const Token& at, const std::string& keyword, F f) {
        for (;;) {
            std::vector<Token> words;
            if (!read_words(src, words))
                src.fail(at, keyword + ": the file ends before the '/' that ends its records");
            if (words.empty()) return;  // the empty record
            f(words);
        }
    }

    // ---- files, includes, RUNSPEC, arrays and boxes (eclipse_grid.cpp) -------------------------

    /// Data tokens up to '/', values appended (defaults as NaN).
    std::vector<double> read_values(Source& src, const Token& at, const std::string& keyword);

    void read_array(Source& src, const Token& at, const std::string& keyword);

    /// Numbers up to the '/' that ends a record (n* defaults as NaN); false at the file's end.
    /// A record holds at most a value and a box (box_from refuses more).
    static bool read_record(Source& src, const std::string& keyword, std::vector<double>& items);

    /// A box from up to six 1-based integers (n* defaults take `fallback`'s), then '/' when
    /// `own_keyword` (BOX), or ended by the '/' of a record.
    Box read_box(Source& src, const Token& at, const std::string& keyword, const Box& fallback,
                 bool own_keyword);

    Box box_from(const Source& src, const Token& at, const std::string& keyword,
                 const std::vector<double>& items, std::size_t first, const Box& fallback,
                 bool all_six) const;

    void read_include(Source& src, const Token& at, IncludeStack& stack);

    /// RUNSPEC: DIMENS and the unit system are read; every other keyword there describes
    /// what the YAML deck gives (phases, tables, dimensions of arrays heptane does not use)
    /// and is passed over, named once in the notes. GRID ends the section.
    void read_runspec_token(Source& src, const Token& t, const std::string& keyword);

    /// TITLE's line of free text.
    static void skip_line(Source& src);

    /// A token inside PROPS: passed over; REGIONS (at a line's start) goes on reading, SOLUTION,
    /// SUMMARY, SCHEDULE or END ends the reading (one note for PROPS and the rest).
    void pass_props_token(Source& src, const Token& t, const std::string& keyword);
    void read_endscale(Source& src, const Token& at);

    /// The reading ends at `keyword` (at "path:line: " `at`), said in a note.
    void end_reading(const std::string& at, const std::string& keyword);

    /// DIMENS NX NY NZ / or SPECGRID NX NY NZ NUMRES COORD /: must match the deck's grid.
    void read_dimensions(Source& src, const Token& at, const std::string& keyword);

    // ---- edits (eclipse_edits.cpp) -------------------------------------------------------------

    /// EQUALS, MULTIPLY, ADD, COPY, MINVALUE, MAXVALUE: records until an empty one.
    void read_edit(Source& src, const Token& at, const std::string& keyword);

    void apply_edit(const Source& src, const Token& at, const std::string& keyword,
                    const std::string& from, const std::string& to, double value, const Box& b);

    /// EQUALREG (ARRAY value), MULTIREG (ARRAY factor), ADDREG (ARRAY constant), COPYREG
    /// (FROM TO): records ending with a region number and optionally the region array (M:
    /// MULTNUM, the default; F: FLUXNUM; O: OPERNUM), over the whole grid whatever the box; a
    /// region array not given puts every cell in region 1.
    void read_region_edit(Source& src, const Token& at, const std::string& keyword);

    /// OPERATE: TARGET I1 I2 J1 J2 K1 K2 OPERATION SOURCE [alpha [beta]] / records until an
    /// empty one: the target array R = f(R, X) on the box's cells, X the source array; a
    /// defaulted box item (n*) is the current BOX's (or the whole grid's), alpha and beta
    /// default to 0.
    void read_operate(Source& src, const Token& at);

    /// COPYBOX: ARRAY I1 I2 J1 J2 K1 K2 I1' I2' J1' J2' K1' K2' / records until an empty one:
    /// the array's values on the first box copied onto the second, of the same shape.
    void read_copybox(Source& src, const Token& at);

    /// PORV, TRANX, TRANY, TRANZ given as an array over the box (EDIT section only).
    void read_computed_array(Source& src, const Token& at, const std::string& keyword);

    /// The edit `op` of the computed array `name` over `cells` (Eclipse order) with `values`
    /// (one, or one a cell), recorded for the model; refused before EDIT, and for a factor,
    /// value or bound that is not finite and >= 0 (ADD's constant may be negative).
    void add_computed_edit(const Source& src, const Token& at, const std::string& keyword,
                           const std::string& name, char op, std::vector<std::size_t> cells,
                           std::vector<double> values);

    // ---- cell sizes and connections (eclipse_connections.cpp) ----------------------------------

    /// MULTX- and the other negative-direction multipliers, refused after GRIDOPTS 'NO'; a
    /// face multiplier, MULTFLT or MULTREGT after a TRANX/Y/Z edit, and MULTPV after a PORV
    /// edit, refused (design decision 72).
    void check_multiplier(const Source& src, const Token& at, const std::string& keyword) const;

    /// The values of `keyword` up to its '/' (n*value repeats), at most count + 1 of them.
    static std::vector<double> read_counted(Source& src, const Token& at,
                                            const std::string& keyword, std::size_t count);

    /// DXV NX values / (DYV, DZV): every cell's DX (DY, DZ) by its column (row, layer).
    void read_size_vector(Source& src, const Token& at, const std::string& keyword);

    /// COORD (6 (NX + 1) (NY + 1) values) or ZCORN (8 NX NY NZ) /: corner-point geometry, over
    /// the whole grid (not inside a BOX).
    void read_corner_point(Source& src, const Token& at, const std::string& keyword);

    /// MAPAXES x1 y1 x0 y0 x2 y2 /: where the grid lies on a map (a note: nothing changes).
    void read_mapaxes(Source& src, const Token& at);

    /// GRIDFILE, RPTGRID, MESSAGES, MAPUNITS: one record of output or message controls (or
    /// the map's unit), passed over with a note.
    void read_output_control(Source& src, const Token& at, const std::string& keyword);

    /// COORDSYS 1 NZ [COMP|INCOMP [JOIN|SEPARATE]] /: one reservoir's record, a note.
    void read_coordsys(Source& src, const Token& at);

    /// NEWTRAN, OLDTRAN (EclipseGridData::transmissibility_rule).
    void read_transmissibility_rule(Source& src, const Token& at, const std::string& keyword);

    /// GRIDUNIT unit [MAP] /: FEET, METRES or CM (EclipseGridData::gridunit).
    void read_gridunit(Source& src, const Token& at);

    /// GRIDOPTS TRANMULT [NRMULT [NRPINC]] /.
    void read_gridopts(Source& src, const Token& at);

    /// The one number of `word`, finite and >= 0 (else an error naming it `what`).
    static double non_negative(const Source& src, const Token& word, const std::string& keyword,
                               const std::string& what);

    /// MINPV value /.
    void read_minpv(Source& src, const Token& at);

    /// PINCH [threshold [GAP|NOGAP [max-gap [TOPBOT|ALL [TOP|ALL]]]]] /.
    void read_pinch(Source& src, const Token& at);

    /// FACE of a FAULTS record: X, Y, Z (or I, J, K), with an optional + or -.
    static bool fault_face(std::string_view f, int& axis, int& side);

    /// FAULTS: NAME I1 I2 J1 J2 K1 K2 FACE / records until an empty one.
    void read_faults(Source& src, const Token& at);

    /// MULTFLT: NAME multiplier / records until an empty one; NAME may end with '*'.
    void read_multflt(Source& src, const Token& at);

    /// NNC or EDITNNC: I1 J1 K1 I2 J2 K2 value / records until an empty one.
    void read_cell_pairs(Source& src, const Token& at, const std::string& keyword);

    /// MULTREGT: FROM TO multiplier [directions [NNC-type [M|F|O]]] / records until an empty
    /// one (EclipseGridData::RegionMultiplier; applied by grid/eclipse_model.cpp).
    void read_multregt(Source& src, const Token& at);

    EclipseGridData data_;
    Box full_, box_;
    bool runspec_ = false;         ///< inside the RUNSPEC section of a whole .DATA file
    std::string runspec_skipped_;  ///< the RUNSPEC keywords passed over, for the note
    bool ended_ = false;           ///< at SOLUTION or later: nothing more is read
    std::string props_at_;         ///< "path:line: " of PROPS while its tokens are passed over
    bool regions_ = false;         ///< inside the REGIONS section (region arrays and edits only)
    bool edit_ = false;            ///< inside the EDIT section (PORV, TRANX/Y/Z allowed)
    std::string tran_edited_at_;   ///< "file:line" of the first TRANX/Y/Z edit, if any
    std::string porv_edited_at_;   ///< "file:line" of the first PORV edit, if any
    bool negative_multipliers_ = true;  ///< GRIDOPTS' TRANMULT (not given: allowed)
};

}  // namespace heptane::grid::detail
