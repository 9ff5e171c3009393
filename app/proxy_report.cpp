// The YAML report of `heptane proxy`, schema version kProxyReportVersion (docs/PROXY.md,
// "Report"; scripts/check_proxy_report.py checks a report against it).
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "app/proxy.hpp"
#include "app/report.hpp"
#include "core/krylov/names.hpp"
#include "gpu/device.hpp"
#include "heptane_commit.hpp"
#include "heptane_version.hpp"

namespace heptane::app {
namespace {

std::string hostname() {
    char buf[256] = {};
    return ::gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : std::string("unknown");
}

std::string cpu_model() {
    std::ifstream s("/proc/cpuinfo");
    std::string line;
    while (std::getline(s, line)) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) {
                const auto first = line.find_first_not_of(" \t", colon + 1);
                return first == std::string::npos ? "" : line.substr(first);
            }
        }
    }
    return "unknown";
}

template <class V>
void kv(YAML::Emitter& y, const char* key, const V& value) {
    y << YAML::Key << key << YAML::Value << value;
}

/// A number as YAML 1.1 and 1.2 readers both take it: 10 significant digits, and an exponent
/// always after a decimal point ("1.0e-06", not "1e-06", which YAML 1.1 reads as a string).
std::string number(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    std::string s(buf);
    const auto e = s.find('e');
    if (e != std::string::npos && s.find('.') == std::string::npos) s.insert(e, ".0");
    return s;
}

void kv(YAML::Emitter& y, const char* key, double value) {
    y << YAML::Key << key << YAML::Value << number(value);
}

/// A string that a reader could take for a number or a date (a version, a date, "90").
void kv_quoted(YAML::Emitter& y, const char* key, const std::string& value) {
    y << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
}

/// A list of numbers on one line.
void kv_list(YAML::Emitter& y, const char* key, const std::vector<double>& values) {
    y << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (double v : values) y << number(v);
    y << YAML::EndSeq;
}

void machine(YAML::Emitter& y, const ProxyRun& run) {
    y << YAML::Key << "machine" << YAML::Value << YAML::BeginMap;
    kv_quoted(y, "hostname", hostname());
    kv(y, "cpu_model", cpu_model());
    kv(y, "logical_cores", std::thread::hardware_concurrency());
    kv(y, "openmp_threads", run.openmp_threads);
    kv(y, "host_memory_bytes", host_memory_bytes());
    y << YAML::Key << "gpu" << YAML::Value;
    const std::vector<gpu::DeviceInfo> devices = gpu::list_devices();
    if (!run.gpu || devices.empty()) {
        y << YAML::Null;
    } else {
        const gpu::DeviceInfo& d = devices.front();
        y << YAML::BeginMap;
        kv(y, "name", d.name);
        kv_quoted(y, "compute_capability",
                  std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor));
        kv(y, "multiprocessors", d.multiprocessors);
        kv(y, "memory_bytes", static_cast<double>(d.global_memory_bytes));
        kv(y, "l2_cache_bytes", static_cast<double>(d.l2_cache_bytes));
        kv(y, "cuda", gpu::runtime_version());
        y << YAML::EndMap;
    }
    y << YAML::EndMap;
}

void build(YAML::Emitter& y) {
    y << YAML::Key << "build" << YAML::Value << YAML::BeginMap;
    kv_quoted(y, "heptane_version", kVersion);
    kv_quoted(y, "git_commit", kGitCommit);
    kv(y, "build_type", kBuildType);
    kv(y, "compiler", kCxxCompiler);
    kv(y, "cxx_flags", kCxxFlags);
    kv(y, "cuda_backend", gpu::compiled_with_cuda());
    kv(y, "cuda_compiler", kCudaCompiler);
    kv(y, "cuda_flags", kCudaFlags);
    kv_quoted(y, "cuda_architectures", kCudaArchitectures);
    y << YAML::EndMap;
}

void phases(YAML::Emitter& y, const ProxyRun& run) {
    const ProblemRun& d = run.defined;
    y << YAML::Key << "phases" << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "setup" << YAML::Value << YAML::BeginMap;
    kv(y, "generation_seconds", d.generation_seconds);
    kv(y, "solver_setup_seconds", d.setup_seconds);
    kv(y, "update_values_seconds", d.update_seconds);
    y << YAML::EndMap;
    y << YAML::Key << "validation" << YAML::Value << YAML::BeginMap;
    kv(y, "seconds", d.validation_seconds);
    y << YAML::EndMap;
    y << YAML::Key << "timed" << YAML::Value << YAML::BeginMap;
    kv(y, "seconds", d.timed_seconds);
    kv(y, "min_seconds", d.min_seconds);
    kv(y, "solves", static_cast<int>(d.solve_seconds.size()));
    kv(y, "iterations_per_solve", d.iterations);
    kv(y, "solve_seconds_median", d.solve_median);
    kv_list(y, "solve_seconds", d.solve_seconds);
    kv_list(y, "solve_wall_seconds", d.solve_wall_seconds);
    y << YAML::EndMap;
    y << YAML::Key << "final_check" << YAML::Value << YAML::BeginMap;
    kv(y, "seconds", d.final_seconds);
    y << YAML::EndMap;
    y << YAML::Key << "model" << YAML::Value << YAML::BeginMap;
    kv(y, "seconds", run.model_seconds);
    y << YAML::EndMap;
    y << YAML::EndMap;
}

void validation(YAML::Emitter& y, const std::vector<ValidationLine>& lines) {
    y << YAML::Key << "validation" << YAML::Value << YAML::BeginSeq;
    for (const ValidationLine& v : lines) {
        y << YAML::BeginMap;
        kv(y, "name", v.name);
        kv(y, "passed", v.passed);
        kv(y, "value", v.value);
        kv(y, "bound", v.bound);
        kv(y, "detail", v.detail);
        y << YAML::EndMap;
    }
    y << YAML::EndSeq;
}

double ratio(double a, double b) { return b > 0.0 ? a / b : 0.0; }

}  // namespace

std::string proxy_report_yaml(const ProxyRun& run) {
    YAML::Emitter y;
    y << YAML::BeginMap;
    kv(y, "schema", "heptane-proxy-report");
    kv(y, "schema_version", kProxyReportVersion);
    const bool valid = run.valid();
    kv(y, "result", valid ? "VALID" : "INVALID");
    const ProblemRun& d = run.defined;
    y << YAML::Key << "invalid_reasons" << YAML::Value << YAML::BeginSeq;
    for (const auto& [name, line] : failed_checks(run)) y << name + ": " + line->detail;
    if (d.validation.empty()) y << "no check ran";
    y << YAML::EndSeq;
    kv(y, "official", run.official);
    y << YAML::Key << "deviations" << YAML::Value << YAML::BeginSeq;
    for (const std::string& d : run.deviations) y << d;
    y << YAML::EndSeq;
    kv_quoted(y, "date", utc_now());
    kv(y, "command", run.args.command);
    machine(y, run);
    build(y);

    y << YAML::Key << "problem" << YAML::Value << YAML::BeginMap;
    kv(y, "version", proxy::kProblemVersion);
    kv(y, "seed", static_cast<unsigned long long>(proxy::kSeed));
    kv(y, "nx", d.size.nx);
    kv(y, "ny", d.size.ny);
    kv(y, "nz", d.size.nz);
    kv(y, "block_size", d.block_size);
    kv(y, "cells", d.cells);
    kv(y, "wells", d.wells);
    kv(y, "unknowns", d.unknowns);
    kv(y, "nonzeros", d.nonzeros);
    kv(y, "sizing", d.sizing);
    y << YAML::EndMap;

    y << YAML::Key << "solver" << YAML::Value << YAML::BeginMap;
    kv(y, "backend", run.gpu ? "gpu" : "cpu");
    kv(y, "kernel", d.kernel);
    kv(y, "method", deck_name(run.method));
    kv(y, "preconditioner", deck_name(run.preconditioner));
    kv(y, "tolerance", kProxyTolerance);
    kv(y, "max_iterations", kProxyMaxIterations);
    kv(y, "iterations", d.iterations);
    kv(y, "workspace_bytes", d.workspace_bytes);
    kv(y, "bytes_per_iteration", d.bytes_per_iteration);
    y << YAML::EndMap;

    kv(y, "ranks", run.ranks);
    kv(y, "halo_path", d.halo_path);
    phases(y, run);

    validation(y, d.validation);

    y << YAML::Key << "figure_of_merit" << YAML::Value << YAML::BeginMap;
    kv(y, "unknowns_per_second", d.fom);
    kv(y, "definition",
       "unknowns / (median solve seconds + solver setup seconds / " +
           std::to_string(kSetupAmortization) + ")");
    kv(y, "solve_unknowns_per_second", d.solve_rate);
    kv(y, "gdof_iterations_per_second", d.gdof_iterations);
    kv(y, "effective_gb_per_second", d.effective_bandwidth / 1e9);
    kv(y, "triad_gb_per_second", run.triad_all_ranks / 1e9);
    kv(y, "bandwidth_ratio", ratio(d.effective_bandwidth, run.triad_all_ranks));
    kv(y, "setup_seconds_charged", d.setup_seconds);
    kv(y, "setup_amortization_solves", kSetupAmortization);
    y << YAML::EndMap;

    y << YAML::Key << "model" << YAML::Value << YAML::BeginMap;
    kv(y, "bandwidth_gb_per_second", run.triad_bytes_per_second / 1e9);
    y << YAML::Key << "kernels" << YAML::Value << YAML::BeginSeq;
    for (const KernelLine& k : run.kernels) {
        y << YAML::BeginMap;
        kv(y, "name", k.model.name);
        kv(y, "what", k.model.what);
        kv(y, "bytes", k.model.bytes);
        kv(y, "flops", k.model.flops);
        kv(y, "intensity_flops_per_byte", k.model.intensity());
        kv(y, "per_iteration", k.model.per_iteration);
        kv(y, "predicted_seconds", k.predicted_seconds);
        kv(y, "measured_seconds", k.measured_seconds);
        kv(y, "measured_over_predicted", ratio(k.measured_seconds, k.predicted_seconds));
        y << YAML::EndMap;
    }
    y << YAML::EndSeq;
    y << YAML::Key << "iteration" << YAML::Value << YAML::BeginMap;
    kv(y, "bytes", d.bytes_per_iteration);
    kv(y, "predicted_seconds", run.iteration_predicted);
    kv(y, "measured_seconds", run.iteration_measured);
    kv(y, "measured_over_predicted", ratio(run.iteration_measured, run.iteration_predicted));
    kv(y, "kernel_sum_bytes", run.kernel_sum_bytes);
    kv(y, "kernel_sum_predicted_seconds", run.kernel_sum_predicted);
    kv(y, "kernel_sum_measured_seconds", run.kernel_sum_measured);
    y << YAML::EndMap;
    y << YAML::EndMap;

    y << YAML::Key << "secondary" << YAML::Value << YAML::BeginSeq;
    for (const ProblemRun& p : run.secondary) {
        y << YAML::BeginMap;
        kv(y, "name", p.name);
        kv(y, "block_size", p.block_size);
        kv(y, "nx", p.size.nx);
        kv(y, "ny", p.size.ny);
        kv(y, "nz", p.size.nz);
        kv(y, "cells", p.cells);
        kv(y, "wells", p.wells);
        kv(y, "unknowns", p.unknowns);
        kv(y, "kernel", p.kernel);
        kv(y, "iterations", p.iterations);
        kv(y, "solver_setup_seconds", p.setup_seconds);
        kv(y, "timed_seconds", p.timed_seconds);
        kv(y, "solves", static_cast<int>(p.solve_seconds.size()));
        kv(y, "solve_seconds_median", p.solve_median);
        kv(y, "unknowns_per_second", p.fom);
        kv(y, "gdof_iterations_per_second", p.gdof_iterations);
        kv(y, "effective_gb_per_second", p.effective_bandwidth / 1e9);
        kv(y, "bandwidth_ratio", ratio(p.effective_bandwidth, run.triad_bytes_per_second));
        validation(y, p.validation);
        y << YAML::EndMap;
    }
    y << YAML::EndSeq;

    y << YAML::Key << "per_rank" << YAML::Value << YAML::BeginSeq;
    for (const RankLine& r : run.per_rank) {
        y << YAML::BeginMap;
        kv(y, "rank", r.rank);
        kv(y, "cells", r.cells);
        kv(y, "unknowns", r.unknowns);
        kv(y, "wells", r.wells);
        kv(y, "solve_seconds_median", r.solve_median);
        kv(y, "halo_seconds_median", r.halo_median);
        kv(y, "reduction_seconds_median", r.reduction_median);
        kv(y, "transfer_seconds_median", r.transfer_median);
        y << YAML::EndMap;
    }
    y << YAML::EndSeq;
    y << YAML::EndMap;
    return std::string(y.c_str()) + "\n";
}

}  // namespace heptane::app
