#pragma once
/// @file What the `heptane bench` commands share (app/bench*.cpp): the
/// machine measured once per run, and the YAML report's header and atomic write.
#include <yaml-cpp/yaml.h>

#include <iosfwd>
#include <string>

#include "app/bench.hpp"

namespace heptane::app {

/// "g^3": a cubic grid's name in tables.
std::string grid_name(int g);

/// Whether a bench with --backend `backend` (auto | cpu | gpu) runs on the GPU: auto when one
/// is there; gpu without one is an Error naming `command`.
bool bench_on_gpu(const std::string& backend, const std::string& command);

/// Where a bench runs and its own limit.
struct BenchDevice {
    bool gpu = false;
    std::string name;
    double triad = 0.0;  ///< bytes / s
};

/// The GPU when there is one (else the CPU) and its STREAM triad, measured now; one line on
/// `out`.
BenchDevice measure_device(const BenchArgs& args, std::ostream& out);

/// Opens the report's map with benchmark, version, date, command and device.
YAML::Emitter& begin_report(YAML::Emitter& y, const std::string& what, const std::string& command,
                            const std::string& device);
/// The same, and the device's triad.
YAML::Emitter& begin_report(YAML::Emitter& y, const BenchDevice& d, const std::string& what,
                            const std::string& command);

/// Closes the report's map and writes it atomically to `path`; says where on `out`.
void write_report(const std::string& path, YAML::Emitter& y, std::ostream& out);

}  // namespace heptane::app
