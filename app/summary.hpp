#pragma once
/// @file The run's summary table (design decision 101): the vectors a deck asks for
/// (schedule.eclipse's SUMMARY section, then output.summary), one column each under the key
/// Eclipse's and OPM's summary tools use (FOPR, WOPR:P1, RPR:2, BPR:1,2,3), one row per
/// accepted time step (or per report time: RPTONLY, output.summary_rows), in the deck's units;
/// written as OUT.csv and OUT.h5's /summary at every checkpoint.
#include <cstddef>
#include <string>
#include <vector>

#include "app/deck.hpp"
#include "app/hdf5_file.hpp"
#include "grid/rock.hpp"
#include "grid/two_phase.hpp"
#include "sim/simulator.hpp"

namespace heptane::app {

/// One column of the table.
struct SummaryColumn {
    std::string name;      ///< its key: FOPR, WOPR:P1, RPR:2, BPR:1,2,3
    std::string keyword;   ///< FOPR
    std::size_t well = 0;  ///< W keywords: the well (deck order)
    int region = -1;       ///< R keywords: the 0-based FIPNUM region; -1: the field (no FIPNUM)
    index_t cell = 0;      ///< B keywords
    std::string unit;      ///< in the deck's unit system
    int state = -1;        ///< >= 0: its place among the values sampled from each step's cells
};

/// The deck's summary resolved on its model.
struct SummaryPlan {
    std::vector<SummaryColumn> columns;  ///< in the order asked, each name once
    int state_values = 0;                ///< how many columns are sampled from the cells
    bool report_only = false;            ///< a row at the report times only
    std::vector<std::string> notes;      ///< vectors not computed, sets read as their members
};

/// The keywords heptane computes, space-separated (for messages and docs).
const char* summary_keywords();

/// deck.output.summary on `model`. InputError, at the request's place, for a well name or
/// pattern that matches no well, a region number beyond the model's FIPNUM regions (1 without
/// them), and a cell outside the grid or inactive. A keyword heptane does not compute (gas,
/// groups, aquifers, connections ...) is a note, not a column.
SummaryPlan plan_summary(const Deck& deck, const wells::Model& model);

/// OUT.csv beside OUT.h5 (its extension replaced).
std::string summary_path(const std::string& h5_path);

/// The table's columns and the values it samples from the cells at each accepted step; the
/// rest (rates, totals, BHP, iterations) comes from the simulator's step records when written.
class SummaryTable {
  public:
    explicit SummaryTable(SummaryPlan plan) : plan_(std::move(plan)) {}
    const SummaryPlan& plan() const { return plan_; }
    bool empty() const { return plan_.columns.empty(); }

    /// Samples the state columns at the end of the next accepted step (SI): FPR (and RPR of a
    /// model without regions) from `sim`'s mean hydrocarbon pressure, the GPU's reduction on the
    /// device; the other cell vectors from its state, copied to the host where it lives on a
    /// GPU, only when one of them is asked for.
    void sample(const sim::Simulator& sim, const grid::RockFields& rock);
    /// A restart's samples of its `steps` steps: `values` row-major, one column per name of
    /// `names` (the file's state columns); a column the file lacks is NaN there.
    void restore(const std::vector<std::string>& names, const std::vector<double>& values,
                 std::size_t steps);

    /// /summary: time and one dataset per column (the rows of the table, deck units), and
    /// /restart/summary_state, every step's samples in SI with their names (one a line), for a
    /// restart.
    void write(h5::File& f, const Deck& deck, const sim::Simulator& sim) const;
    /// The table as CSV: two '#' lines (what it is, each column's unit), the header (TIME,
    /// DATE where the deck has a start date, then the keys), a row per step (shortest
    /// round-trip numbers, nan where not observed; DATE as YYYY-MM-DD[THH:MM:SS]).
    void write_csv(const std::string& path, const Deck& deck, const sim::Simulator& sim) const;

    /// The table's rows in deck units: each row TIME [day] then the columns.
    std::vector<std::vector<double>> rows(const Deck& deck, const sim::Simulator& sim) const;

  private:
    SummaryPlan plan_;
    std::vector<double> samples_;  ///< steps x plan_.state_values, SI
};

}  // namespace heptane::app
