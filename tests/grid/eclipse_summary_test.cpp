// An Eclipse deck's SUMMARY section as requests (grid/eclipse_summary.hpp, design decision
// 101): the SPE10 and Egg decks' own sections, every data layout of the keyword families, and
// the resdata key syntax of output.summary; bad records refused at the file's line; the
// calendar of its DATE column.
#include "grid/eclipse_summary.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "common/temp_file.hpp"
#include "common/test_systems.hpp"
#include "core/base/calendar.hpp"

namespace heptane::grid {
namespace {

using test::input_error_of;
using test::TempFile;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> keywords(const EclipseSummary& s) {
    std::vector<std::string> out;
    for (const SummaryRequest& q : s.vectors) out.push_back(q.keyword);
    return out;
}

TEST(EclipseSummary, TheSpe10DecksSection) {
    // RUNSUM (a note), FPR FOPR FOPT FWPT FWCT, WBHP of INJ, WOPR WWCT WOPT of P1..P4.
    const EclipseSummary s =
        read_eclipse_summary(test::source_path("inputs/data/spe10/SPE10_MODEL2.DATA"));
    EXPECT_TRUE(s.present);
    EXPECT_FALSE(s.report_only);
    EXPECT_THAT(keywords(s),
                ElementsAre("FPR", "FOPR", "FOPT", "FWPT", "FWCT", "WBHP", "WOPR", "WWCT", "WOPT"));
    EXPECT_THAT(s.vectors[5].names, ElementsAre("INJ"));
    EXPECT_THAT(s.vectors[8].names, ElementsAre("P1", "P2", "P3", "P4"));
    EXPECT_FALSE(s.vectors[8].every);
    EXPECT_THAT(s.vectors[0].where, HasSubstr("SPE10_MODEL2.DATA:174: FPR: "));
    ASSERT_EQ(s.notes.size(), 1u);
    EXPECT_THAT(s.notes[0], HasSubstr("SPE10_MODEL2.DATA:172: RUNSUM: not read"));
}

TEST(EclipseSummary, TheEggDecksSectionIsReportOnly) {
    // Its RPTONLY asks for rows at the report times; EXCEL is a note; the commented BRPV is not
    // read; SCHEDULE ends the section.
    const EclipseSummary s =
        read_eclipse_summary(test::source_path("inputs/data/egg/Egg_Model_ECL.DATA"));
    EXPECT_TRUE(s.report_only);
    EXPECT_THAT(keywords(s), ElementsAre("FOPR", "FWPR", "FWIR", "WOPR", "WWPR", "WWIR", "FOPT",
                                         "FWPT", "FWIT", "WLPR", "WBHP"));
    EXPECT_EQ(s.vectors[5].names.size(), 8u);
    ASSERT_EQ(s.notes.size(), 1u);
    EXPECT_THAT(s.notes[0], HasSubstr("EXCEL: not read"));
}

TEST(EclipseSummary, EachFamilysDataLayout) {
    const TempFile inc("WWCT\n/\nBWSAT\n 1 2 3 /\n/\n");
    const TempFile deck(
        "RUNSPEC\nFIELD\nGRID\nPERMX\n 8*100 /\nSUMMARY\n"
        "FOPR\nWOPR\n 'P1' P2 /\nRPR\n 2 1 /\nROIP\n/\n"
        "BPR\n 1 1 1 /\n 4 5 6 /\n/\n"
        "CWIR\n 'INJ' 1 1 1 /\n 'INJ' 1 1 2 /\n/\n"
        "GOPR\n 'G1' /\nTIMESTEP\nRPTSMRY\n 1 /\nRPTONLY\nRPTONLYO\n"
        "INCLUDE\n '" +
        inc.path() +
        "' /\nSEPARATE\n"
        "SCHEDULE\nWOPR\n 'P9' /\n");
    const EclipseSummary s = read_eclipse_summary(deck.path());
    EXPECT_FALSE(s.report_only);  // RPTONLYO undid RPTONLY
    EXPECT_THAT(keywords(s), ElementsAre("FOPR", "WOPR", "RPR", "ROIP", "BPR", "CWIR", "GOPR",
                                         "TIMESTEP", "WWCT", "BWSAT"));
    EXPECT_THAT(s.vectors[1].names, ElementsAre("P1", "P2"));
    EXPECT_THAT(s.vectors[2].regions, ElementsAre(2, 1));
    EXPECT_TRUE(s.vectors[3].every);
    EXPECT_THAT(s.vectors[4].cells,
                ElementsAre(std::array<int, 3>{1, 1, 1}, std::array<int, 3>{4, 5, 6}));
    EXPECT_TRUE(s.vectors[5].cells.empty());  // a connection's records: app/'s note
    EXPECT_TRUE(s.vectors[8].every);
    EXPECT_THAT(s.vectors[9].cells, ElementsAre(std::array<int, 3>{1, 2, 3}));
    EXPECT_THAT(s.vectors[9].where, HasSubstr(inc.path() + ":3: BWSAT: "));
    ASSERT_EQ(s.notes.size(), 2u);  // RPTSMRY and SEPARATE
    EXPECT_THAT(s.notes[0], HasSubstr(":25: RPTSMRY: not read"));
}

TEST(EclipseSummary, ADeckWithoutTheSectionAsksForNothing) {
    const TempFile deck("RUNSPEC\nFIELD\nSCHEDULE\nTSTEP\n 1 /\n");
    const EclipseSummary s = read_eclipse_summary(deck.path());
    EXPECT_FALSE(s.present);
    EXPECT_TRUE(s.vectors.empty());
}

TEST(EclipseSummary, BadRecordsAreRefusedAtTheirLine) {
    const auto error = [](const std::string& section) {
        const TempFile deck("RUNSPEC\nSUMMARY\n" + section);
        return input_error_of([&] { read_eclipse_summary(deck.path()); });
    };
    EXPECT_THAT(error("FOPR\nQOPR\n"),
                HasSubstr(":4: QOPR: not a summary keyword heptane can read"));
    EXPECT_THAT(error("BPR\n 1 2 /\n/\n"), HasSubstr(":4: BPR: a cell is three integers I J K"));
    EXPECT_THAT(error("RPR\n 0 /\n"), HasSubstr(":4: RPR: item 1 must be an integer >= 1"));
    EXPECT_THAT(error("WOPR\n 1* /\n"), HasSubstr(":4: WOPR: item 1 must be a name"));
    EXPECT_THAT(error("WOPR\n 'P1'\n"), HasSubstr("the file ends before the '/'"));
    EXPECT_THAT(error("FOPR\n 12\n"), HasSubstr(":4: '12' is not a keyword"));
}

TEST(EclipseSummary, KeysNameTheirVectorAsResdataDoes) {
    const SummaryRequest w = summary_request("WOPR:P1", "here: ");
    EXPECT_EQ(w.keyword, "WOPR");
    EXPECT_THAT(w.names, ElementsAre("P1"));
    EXPECT_EQ(w.where, "here: ");
    EXPECT_TRUE(summary_request("WBHP", "").every);
    EXPECT_FALSE(summary_request("FOPR", "").every);
    EXPECT_THAT(summary_request("RPR:3", "").regions, ElementsAre(3));
    EXPECT_TRUE(summary_request("RPR", "").every);
    EXPECT_THAT(summary_request("BPR:1,20,3", "").cells, ElementsAre(std::array<int, 3>{1, 20, 3}));
    const auto error = [](const std::string& name) {
        return input_error_of([&] { summary_request(name, "at: "); });
    };
    EXPECT_THAT(error("QOPR"), HasSubstr("at: 'QOPR' is not a summary vector"));
    EXPECT_THAT(error("RUNSUM"), HasSubstr("is not a summary vector"));
    EXPECT_THAT(error("FOPR:P1"), HasSubstr("FOPR takes no well, region or cell"));
    EXPECT_THAT(error("BPR"), HasSubstr("BPR takes a cell (BPR:I,J,K)"));
    EXPECT_THAT(error("BPR:1,2"), HasSubstr("a cell is I,J,K"));
    EXPECT_THAT(error("BPR:1,2,3,4"), HasSubstr("a cell is I,J,K"));
    EXPECT_THAT(error("BPR:1,x,3"), HasSubstr("'x' is not an integer >= 1"));
    EXPECT_THAT(error("RPR:0"), HasSubstr("'0' is not an integer >= 1"));
}

// The DATE column's dates (core/base/calendar.hpp): every day from 1600 to 2400 reads back
// as the date it was made from (leap years of 4, not of 100, of 400), fractions to the second.
TEST(Calendar, DayNumbersAndIsoDatesAreInverses) {
    EXPECT_EQ(calendar::days_since_1970(1970, 1, 1), 0);
    EXPECT_EQ(calendar::days_since_1970(2000, 3, 1), 11017);
    char want[64];
    long long expected = calendar::days_since_1970(1600, 1, 1);
    for (long long y = 1600; y < 2400; ++y) {
        for (int m = 1; m <= 12; ++m) {
            for (int d = 1; d <= calendar::month_length(y, m); ++d, ++expected) {
                ASSERT_EQ(calendar::days_since_1970(y, m, d), expected)
                    << y << "-" << m << "-" << d;
                std::snprintf(want, sizeof want, "%04lld-%02d-%02d", y, m, d);
                ASSERT_EQ(calendar::iso_date(static_cast<double>(expected)), want);
            }
        }
    }
    EXPECT_EQ(calendar::month_length(1900, 2), 28);
    EXPECT_EQ(calendar::month_length(2000, 2), 29);
    EXPECT_EQ(calendar::iso_date(0.1), "1970-01-01T02:24:00");
    EXPECT_EQ(calendar::iso_date(-0.5), "1969-12-31T12:00:00");
    EXPECT_EQ(calendar::iso_date(1.0 - 1e-9), "1970-01-02");  // to the nearest second
}

}  // namespace
}  // namespace heptane::grid
