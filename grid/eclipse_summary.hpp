#pragma once
/// @file The vectors an Eclipse deck's SUMMARY section asks for (design decision 101; the
/// deck key schedule.eclipse), as requests: the keyword and the wells, regions or cells it
/// names. Which of them heptane computes, and how, is app/'s (app/summary.hpp); this reader
/// knows only the layout of each keyword's data, from its first letter as Eclipse lays it out.
#include <array>
#include <string>
#include <vector>

namespace heptane::grid {

/// One summary keyword with its data.
struct SummaryRequest {
    std::string keyword;  ///< FOPR, WBHP, RPR, BPR, TIMESTEP ...
    /// W, G and A keywords: the wells (groups, aquifers) named, as given (a well name may be
    /// a pattern with * and ?); empty with `every`.
    std::vector<std::string> names;
    /// R keywords: the region numbers (>= 1) as given; empty with `every`.
    std::vector<int> regions;
    bool every = false;  ///< W, G, A and R keywords: a record of none, every one
    /// B keywords: the cells (I, J, K), 1-based as the deck gives them.
    std::vector<std::array<int, 3>> cells;
    std::string where;  ///< "path:line: KEYWORD: " of the keyword
    /// The deck key that asked for it where not a file's keyword (app/'s output.summary[i]),
    /// which app/ locates in the deck or a --set argument; empty: `where` locates it.
    std::string key;
};

/// What a SUMMARY section asks for.
struct EclipseSummary {
    bool present = false;      ///< the deck has a SUMMARY section
    bool report_only = false;  ///< RPTONLY: a row at the report times only (RPTONLYO undoes it)
    std::vector<SummaryRequest> vectors;
    /// The keywords that shape Eclipse's own output files (RUNSUM, EXCEL, SEPARATE, ...), one
    /// note each (ALL and PERFORMA, the sets, are requests: app/ names their members).
    std::vector<std::string> notes;
};

/// The SUMMARY section of the deck `path`, from its SUMMARY keyword (one that starts a line) to
/// the next section keyword or the file's end; INCLUDE files in it followed, relative to the
/// including file (a SUMMARY keyword inside an INCLUDE of an earlier section is not seen). No data:
/// F, T, M, N, E, Y and D keywords (FOPR, TCPU, MLINEARS, NEWTON, ELAPSED, YEARS, DAY) and RUNSUM,
/// EXCEL, SEPARATE, NARROW, DATE, NOMONITO, MONITOR, RPTONLY, RPTONLYO, ALL, PERFORMA, FMWSET,
/// GMWSET; one record of names or numbers: W, G, R and A keywords (WOPR 'P1' 'P2' /, a bare / for
/// every one), RPTSMRY and SUMTHIN; records ended by an empty one: B (I J K /), C, L and S
/// keywords. InputError ("path:line: KEYWORD:
/// ...") for a keyword of any other letter, an R item that is not an integer >= 1, a B record
/// that is not three of them, a defaulted name, and a file that ends inside a record.
EclipseSummary read_eclipse_summary(const std::string& path);

/// The request a vector's name means, in the key syntax of Eclipse's and OPM's summary tools
/// (resdata): KEYWORD (a W, G, A or R keyword alone: every one), KEYWORD:NAME (W, G, A),
/// KEYWORD:N (R) or KEYWORD:I,J,K (B). InputError (`where` + detail) for a keyword of no
/// family read above, an entity on a keyword that takes none, a B name without its cell, and
/// numbers that are not integers >= 1.
SummaryRequest summary_request(const std::string& name, const std::string& where);

}  // namespace heptane::grid
