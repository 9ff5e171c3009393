#pragma once
/// @file The wells and their controls from an Eclipse deck's SCHEDULE section, for heptane's
/// two-phase model (design decision 79; deck key schedule.eclipse): WELSPECS, COMPDAT,
/// WCONINJE, WCONPROD, WCONHIST and WCONINJH (decision 90), WELTARG (decision 91), WELOPEN, WECON
/// (decision 86), WTEST (decision 88), TSTEP and DATES, in SI, without heptane's well types (app/
/// maps them). WCONINJE, WCONPROD and WELOPEN take a well name pattern ('P*'; decision 83), a
/// record for each well it matches. COMPDAT, WPIMULT and WELOPEN's connection items after the
/// first TSTEP or DATES are workovers (decision 103).
#include <cmath>
#include <string>
#include <vector>

#include "grid/saturation_table.hpp"  // FluidUnits

namespace heptane::grid {

/// One WELSPECS well with its COMPDAT connections (0-based, inclusive layers).
/// One layer of a well's column as COMPDAT gives it (design decision 102), SI.
struct EclipseConnection {
    int k = 0;                     ///< the layer, 0-based
    bool open = true;              ///< item 6: OPEN, else SHUT
    double factor = std::nan("");  ///< [m^3] item 8, the connection factor; NaN: defaulted
    double kh = std::nan("");      ///< [m^3] item 10; NaN: defaulted (or a factor given)
    double radius = std::nan("");  ///< [m] half of item 9; NaN: defaulted (a factor given)
    double skin = 0.0;             ///< item 11 (0 where a factor is given: it holds the skin)
    double multiplier = 1.0;       ///< WPIMULT's, cumulative; a COMPDAT record sets it to 1
};

struct EclipseWell {
    std::string name;
    std::string where;  ///< "path:line: WELSPECS: " of its record
    int i = 0, j = 0;   ///< the well's column, 0-based
    /// The layers open at some time of the schedule, first to last: at the start or after a
    /// connection change (the well's perforated interval; design decision 103).
    int k_first = -1, k_last = -1;
    /// The layers COMPDAT named before the first TSTEP or DATES, top first, each once (a later
    /// record's replaces an earlier's); a layer between k_first and k_last that is not here is
    /// not connected at the start.
    std::vector<EclipseConnection> connections;
    /// [m] WELSPECS item 5, the depth the well's BHP refers to; NaN defaulted (the first
    /// connection's centre; design decision 94).
    double bhp_depth = std::nan("");
};

/// Which rate a rate control holds (design decisions 82, 100): a surface rate (the liquid's,
/// the oil's, the water's) or the reservoir volume rate of oil and water (RESV).
enum class RatePhase { liquid, oil, water, reservoir };

/// One WCONINJE, WCONPROD, WCONHIST or WCONINJH record: a well's control from `time` on; or a
/// WELOPEN record: its status alone (status_only).
struct EclipseControl {
    double time = 0.0;  ///< [s] from the start: the TSTEPs and DATES before the record
    std::string well;
    std::string where;  ///< "path:line: WCONPROD: " of the record
    bool injector = false;
    bool open = true;
    bool rate = false;  ///< rate control (WCONINJE RATE / RESV, WCONPROD LRAT / ORAT / WRAT /
                        ///< RESV), else BHP
    RatePhase phase = RatePhase::liquid;  ///< a rate's: WCONPROD ORAT the oil's, WRAT the
                                          ///< water's, RESV (either record) the reservoir's
    /// WELOPEN (design decision 83): `open` alone, the well's controls kept (the rest unused).
    bool status_only = false;
    /// WELTARG (design decision 91): the well's controls with one target or limit changed,
    /// its status kept (`open` unused).
    bool keeps_status = false;
    double target = 0.0;     ///< [m^3/s] surface rate, or [Pa] BHP
    double bhp_limit = 0.0;  ///< [Pa] an injector's maximum, a producer's minimum; 0: none
    /// WCONHIST and WCONINJH (design decision 90): the record is a history well's, and these
    /// are its observed surface rates [m^3/s] (an injector's injected water in `observed_water`,
    /// > 0) and BHP [Pa] over the record's period; NaN: not observed (every other record).
    bool history = false;
    /// A history record whose observed rate for its mode is 0: the well shut for the period,
    /// its control kept (at the start, where it has none, a placeholder BHP control at 1 atm);
    /// WELOPEN may not open it.
    bool zero_rate = false;
    double observed_oil = std::nan("");
    double observed_water = std::nan("");
    double observed_bhp = std::nan("");
};

/// One WECON record (design decision 86): a producer's economic limits from `time` on.
struct EclipseEconomics {
    double time = 0.0;  ///< [s] from the start
    std::string well;
    std::string where;           ///< "path:line: WECON: " of the record
    double min_oil_rate = 0.0;   ///< [m^3/s] surface; 0: none
    double max_water_cut = 0.0;  ///< 0: none (also where the workover is NONE: no action)
};

/// One WTEST record (design decision 88): a producer's well tests from `time` on.
struct EclipseWellTest {
    double time = 0.0;  ///< [s] from the start
    std::string well;
    std::string where;      ///< "path:line: WTEST: " of the record
    double interval = 0.0;  ///< [s]; 0: no tests
    int count = 0;          ///< 0: no bound
};

/// A well's connections changed after the first TSTEP or DATES (design decision 103): its
/// COMPDAT, WPIMULT and WELOPEN connection records at one time, merged.
struct EclipseConnectionChange {
    double time = 0.0;  ///< [s] from the start, > 0
    std::string well;
    std::string where;  ///< "path:line: KEYWORD: " of its first record (COMPDAT, WPIMULT, WELOPEN)
    /// The well's connections from `time` on, as EclipseWell::connections (its first one open).
    std::vector<EclipseConnection> connections;
};

/// What read_eclipse_schedule gives.
struct EclipseSchedule {
    std::vector<EclipseWell> wells;           ///< in WELSPECS order
    std::vector<EclipseControl> controls;     ///< in the file's order (times non-decreasing)
    std::vector<EclipseEconomics> economics;  ///< WECON's, in the file's order
    std::vector<EclipseWellTest> tests;       ///< WTEST's, in the file's order
    std::vector<EclipseConnectionChange> connection_changes;  ///< in time order
    std::vector<double> report_times;  ///< [s] each TSTEP step's end or DATES, increasing
    std::vector<std::string> notes;    ///< what was passed over (output and tuning controls)
    /// RUNSPEC's START as a day number (days since 1970-01-01, calendar.hpp), NaN without one.
    double start = std::nan("");
};

/// The SCHEDULE section of the deck `path` (from its SCHEDULE keyword to END or the file's
/// end; INCLUDE files followed, relative to the including file), units from the RUNSPEC
/// FIELD, METRIC or LAB keyword before it, else `fallback`'s. Read: WELSPECS (name, group,
/// I, J, the phase; the BHP reference depth and later items defaulted), COMPDAT (the well's
/// own column, K1..K2 OPEN or SHUT, the connection factor or the diameter, Kh and the skin; D
/// and a direction other than Z defaulted; design decision 102), WCONINJE (WATER, OPEN or SHUT,
/// RATE or BHP, the BHP limit), WCONPROD (OPEN or SHUT, BHP or LRAT, the BHP limit), WCONHIST (OPEN
/// or SHUT, ORAT, WRAT, LRAT or BHP with the observed oil and water rates and BHP as the target, a
/// BHP limit of 1 atm; an observed rate of 0 for the mode shuts the well for the period; a gas rate
/// or THP observed is a note), WCONINJH (WATER, OPEN or SHUT, the observed rate and BHP,
/// control RATE or BHP), WELTARG (a BHP limit, or the target of the well's control;
/// decision 91), WPIMULT (the well index of the connections it names times its multiplier;
/// decision 102; COMPDAT and WPIMULT after the first TSTEP or DATES change the well's
/// connections from then on: decision 103), WECON (the minimum oil
/// rate, the maximum water cut with workover WELL or NONE; gas limits, connection workovers,
/// the end-run flag and later items refused), WTEST (the interval, the reasons with E, the
/// number of tests; the start-up time defaulted or 0), TSTEP and DATES (counted
/// from RUNSPEC's START; JLY for July, an optional HH:MM:SS); RPTSCHED, RPTRST,
/// RPTONLY and TUNING are passed over with a note. InputError ("path:line: KEYWORD: ...") for
/// anything else, an item the model cannot take, a well named twice or unknown, a well
/// without an open connection (at the start or after a change), a control or connection
/// change after the last TSTEP, a well
/// without a control before the first TSTEP or DATES, no TSTEP or DATES, DATES without START
/// or not after the time so far, and an impossible date.
EclipseSchedule read_eclipse_schedule(const std::string& path, const FluidUnits& fallback);

}  // namespace heptane::grid
