#include "grid/eclipse_summary.hpp"

#include <array>
#include <cmath>
#include <string>

#include "core/base/errors.hpp"
#include "core/base/text.hpp"        // quote_input
#include "grid/eclipse_reader.hpp"   // Source, Token
#include "grid/eclipse_records.hpp"  // read_record
#include "grid/text_input.hpp"

namespace heptane::grid {
namespace {

using detail::read_record;
using detail::Source;
using detail::Token;
using Items = detail::RecordItems;

/// The keywords that shape Eclipse's own output (the print file, the summary files' format,
/// the run-time monitor): heptane writes one table, the run's CSV and /summary.
bool is_format_keyword(const std::string& k) {
    return k == "RUNSUM" || k == "EXCEL" || k == "SEPARATE" || k == "NARROW" || k == "DATE" ||
           k == "NOMONITO" || k == "MONITOR" || k == "ECHO" || k == "NOECHO";
}

/// How a summary keyword's data is laid out, from its first letter (Eclipse's families).
enum class Layout { none, names, regions, records };

bool layout_of(const std::string& k, Layout& out) {
    if (k == "ALL" || k == "PERFORMA" || k == "FMWSET" || k == "GMWSET") {
        out = Layout::none;
        return true;
    }
    switch (k.front()) {
        case 'F':
        case 'T':
        case 'M':
        case 'N':
        case 'E':
        case 'Y':
        case 'D':
            out = Layout::none;
            return true;
        case 'W':
        case 'G':
        case 'A':
            out = Layout::names;
            return true;
        case 'R':
            out = Layout::regions;
            return true;
        case 'B':
        case 'C':
        case 'L':
        case 'S':
            out = Layout::records;
            return true;
        default:
            return false;
    }
}

/// Item q of r as an integer >= 1 (a region number, a cell index).
int positive_integer(const Items& r, std::size_t q) {
    const int n = r.integer(q, 0);
    if (n < 1) r.fail(q, "must be an integer >= 1");
    return n;
}

class SummaryReader {
  public:
    void read_file(const std::string& path) {
        stack_.enter(path);
        Source src(path, detail::read_whole_file(path));
        Token t;
        while (!ended_ && src.tokens.next(t)) {
            if (!detail::is_keyword(t.text)) {
                if (out_.present && t.text != "/") {
                    src.fail(t, quote_input(t.text) + " is not a keyword");
                }
                continue;
            }
            const std::string keyword(t.text);
            if (!out_.present) {  // the sections before SUMMARY are other readers'
                out_.present = keyword == "SUMMARY" && detail::starts_line(src.text, t.offset);
                continue;
            }
            if (detail::is_section_keyword(keyword)) {
                ended_ = true;
            } else {
                read_keyword(src, t, keyword);
            }
        }
        stack_.leave();
    }

    EclipseSummary take() { return std::move(out_); }

  private:
    void read_keyword(Source& src, const Token& at, const std::string& k) {
        const std::string here = detail::where(src.path, src.text, at.offset) + k + ": ";
        Items r;
        if (k == "INCLUDE") {
            read_record(src, k, at, r);
            if (r.v.size() != 1 || !r.given(0))
                src.fail(at, "INCLUDE: expected a file name, then '/'");
            detail::read_included(here,
                                  [&] { read_file(detail::included_path(src.path, *r.v[0])); });
            return;
        }
        if (is_format_keyword(k)) {
            out_.notes.push_back(here +
                                 "not read (Eclipse's output format: heptane writes its "
                                 "summary table as OUT.csv and OUT.h5's /summary)");
            return;
        }
        if (k == "RPTONLY" || k == "RPTONLYO") {
            out_.report_only = k == "RPTONLY";
            return;
        }
        if (k == "RPTSMRY" || k == "SUMTHIN") {
            read_record(src, k, at, r);
            out_.notes.push_back(here + "not read (" +
                                 (k == "SUMTHIN" ? "heptane's table has every time step's row, or "
                                                   "the report times' with RPTONLY"
                                                 : "Eclipse's print file") +
                                 ")");
            return;
        }
        Layout layout = Layout::none;
        if (!layout_of(k, layout)) {
            src.fail(at, k + ": not a summary keyword heptane can read (it reads the F, W, G, R, "
                             "B, C, L, S, A, T, M, N, E, Y and D families)");
        }
        SummaryRequest q;
        q.keyword = k;
        q.where = here;
        if (layout == Layout::names || layout == Layout::regions) {
            read_record(src, k, at, r);
            q.every = r.v.empty();
            for (std::size_t n = 0; n < r.v.size(); ++n) {
                if (layout == Layout::regions) {
                    q.regions.push_back(positive_integer(r, n));
                } else if (!r.given(n)) {
                    r.fail(n, "must be a name");
                } else {
                    q.names.push_back(*r.v[n]);
                }
            }
        } else if (layout == Layout::records) {
            while (read_record(src, k, at, r) && !r.v.empty()) {
                if (k.front() != 'B') continue;  // C, L, S: their records are app/'s note
                if (r.v.size() != 3) {
                    throw InputError(r.where + "a cell is three integers I J K, not " +
                                     std::to_string(r.v.size()) + " items");
                }
                q.cells.push_back(
                    {positive_integer(r, 0), positive_integer(r, 1), positive_integer(r, 2)});
            }
        }
        out_.vectors.push_back(std::move(q));
    }

    EclipseSummary out_;
    detail::IncludeStack stack_;  ///< the files being read, for INCLUDE cycles
    bool ended_ = false;
};

}  // namespace

SummaryRequest summary_request(const std::string& name, const std::string& where) {
    const std::size_t colon = name.find(':');
    const std::string k = name.substr(0, colon);
    const std::string entity = colon == std::string::npos ? "" : name.substr(colon + 1);
    Layout layout = Layout::none;
    if (k.empty() || !detail::is_keyword(k) || !layout_of(k, layout) || is_format_keyword(k)) {
        throw InputError(where + quote_input(name) +
                         " is not a summary vector (KEYWORD of the F, W, G, R, B, A, T, M, N, E, "
                         "Y or D families, with :NAME, :N or :I,J,K where it takes one)");
    }
    SummaryRequest q;
    q.keyword = k;
    q.where = where;
    const auto integer = [&](const std::string& text) {
        double x = 0.0;
        if (!detail::parse_double(text, x) || x != std::floor(x) || x < 1 || x > 1e9) {
            throw InputError(where + quote_input(name) + ": " + quote_input(text) +
                             " is not an integer >= 1");
        }
        return static_cast<int>(x);
    };
    if (layout == Layout::none || (layout == Layout::records && k.front() != 'B')) {
        if (colon != std::string::npos) {
            throw InputError(where + quote_input(name) + ": " + k +
                             " takes no well, region or cell");
        }
    } else if (entity.empty()) {
        if (layout == Layout::records) {
            throw InputError(where + quote_input(name) + ": " + k + " takes a cell (" + k +
                             ":I,J,K)");
        }
        q.every = true;
    } else if (layout == Layout::names) {
        q.names.push_back(entity);
    } else if (layout == Layout::regions) {
        q.regions.push_back(integer(entity));
    } else {
        std::array<int, 3> c{};
        std::size_t b = 0;
        for (int n = 0; n < 3; ++n) {
            const std::size_t e = entity.find(',', b);
            if ((e == std::string::npos) != (n == 2)) {
                throw InputError(where + quote_input(name) + ": a cell is I,J,K");
            }
            c[n] = integer(entity.substr(b, e == std::string::npos ? e : e - b));
            b = e + 1;
        }
        q.cells.push_back(c);
    }
    return q;
}

EclipseSummary read_eclipse_summary(const std::string& path) {
    SummaryReader reader;
    reader.read_file(path);
    return reader.take();
}

}  // namespace heptane::grid
