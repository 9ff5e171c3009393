#pragma once
/// @file The control records of an Eclipse deck's SCHEDULE (WCONINJE, WCONPROD, WCONHIST,
/// WCONINJH) read into a well's control; grid/eclipse_schedule.cpp's reader gives each to the
/// wells its item 1 names (design decisions 79, 82, 90, 93).
#include <cstddef>
#include <string>
#include <vector>

#include "grid/eclipse_records.hpp"
#include "grid/eclipse_schedule.hpp"
#include "grid/saturation_table.hpp"  // FluidUnits

namespace heptane::grid::detail {

/// What a control record takes from the schedule read so far: the file's units, the time,
/// where notes go, and the BHPs records leave out (FBHPDEF's).
struct ControlContext {
    const FluidUnits& units;
    double time;
    std::vector<std::string>& notes;
    const BhpDefaults& bhp;
};

/// STOP (a wellbore that cross-flows between its connections) as SHUT, with a note in
/// `notes`: heptane's shut well has no flow at all.
std::string stop_as_shut(const RecordItems& r, std::vector<std::string>& notes);

/// WCONINJE: a water injector on its rate (with a BHP limit) or on its BHP. A BHP item
/// defaulted takes FBHPDEF's (decision 93), else none (a BHP control's target must be given).
EclipseControl wconinje_control(const RecordItems& r, const ControlContext& x);
/// WCONPROD (decision 82): a producer on its oil, water or liquid rate (ORAT, WRAT, LRAT; the
/// other rates defaulted) with a BHP limit, or on its BHP; the BHP item as WCONINJE's.
EclipseControl wconprod_control(const RecordItems& r, const ControlContext& x);
/// WCONHIST (decision 90): a history-matching producer on the observed rate of its mode, or
/// on its observed BHP; the observations are the control's. Its BHP limit on a rate is the
/// well's (the reader's add_controls: BhpDefaults::history).
EclipseControl wconhist_control(const RecordItems& r, const ControlContext& x);
/// WCONINJH (decision 90): a history-matching water injector, as WCONHIST.
EclipseControl wconinjh_control(const RecordItems& r, const ControlContext& x);

}  // namespace heptane::grid::detail
