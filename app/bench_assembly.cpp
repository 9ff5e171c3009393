// `heptane bench assembly DECK` (issue 23): the two-phase residual and Jacobian at the deck's
// initial state, assembled on the host (every OpenMP thread) and on the GPU (gpu/assembly.hpp),
// timed, checked bit for bit against each other, and the device's against the bytes it must
// move at the triad bandwidth measured in the same run.
#include <yaml-cpp/yaml.h>

#include <cstring>
#include <ostream>
#include <vector>

#include "app/bench.hpp"
#include "app/bench_common.hpp"
#include "app/deck.hpp"
#include "app/report.hpp"
#include "core/base/errors.hpp"
#include "gpu/assembly.hpp"
#include "gpu/device.hpp"
#include "wells/generator.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace heptane::app {
namespace {

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

}  // namespace

int cmd_bench_assembly(const BenchArgs& args, std::ostream& out) {
    const Deck deck = load_deck(args.deck, args.overrides);
    if (deck.system.present || deck.model.model != wells::FluidModel::two_phase) {
        throw InputError("DECK", "bench assembly takes a two_phase grid deck (model.type)");
    }
    const BenchDevice dev = measure_device(args, out);
    const wells::Model model = build_model(deck, false);
    const wells::TwoPhaseSystem sys(model.grid, model.rock, deck.model.two_phase, deck.model.wells,
                                    deck.model.relperm_regions);
    const wells::InitialState& init = deck.model.initial;
    const grid::CellState x = wells::initial_cell_state(sys.cells(), init);
    const std::vector<double> p_bh = sys.wells().initial_bhp(x);
    const std::vector<wells::WellControl> controls = sys.wells().initial_controls(x);
    const double dt = deck.model.dt;
    const grid::Grid3D& g = model.grid;

    GHMatrix J(g.nx, g.ny, g.nz, 2);
    std::vector<double> res, res_wells;
    auto host_assembly = [&] {
        sys.cells().assemble(x, x, dt, res, &J);
        sys.wells().assemble(x, p_bh, controls, res, res_wells, &J);
    };
    const double host_seconds = host_median(args.repeats, host_assembly);
    res.insert(res.end(), res_wells.begin(), res_wells.end());
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    out << "heptane bench assembly " << deck.path << ": " << with_commas(g.num_cells())
        << " cells, " << sys.wells().specs().size() << " wells\n"
        << "  host (" << threads << " OpenMP threads): " << fixed(host_seconds, 6)
        << " s (median of " << args.repeats << ")\n";

    YAML::Emitter y;
    begin_report(y, dev, "assembly", args.command);
    y << YAML::Key << "deck" << YAML::Value << deck.path;
    y << YAML::Key << "cells" << YAML::Value << g.num_cells();
    y << YAML::Key << "wells" << YAML::Value << sys.wells().specs().size();
    y << YAML::Key << "host_threads" << YAML::Value << threads;
    y << YAML::Key << "host_seconds_median" << YAML::Value << host_seconds;
    if (dev.gpu) {
        gpu::DeviceTwoPhase device(sys.cells(), sys.wells());
        std::vector<double> times;
        for (int k = 0; k < args.repeats + 2; ++k) {  // two warm-up assemblies
            const double t = device.assemble(x, p_bh, x, dt, controls);
            if (k >= 2) times.push_back(t);
        }
        const double device_seconds = median(times);
        const GHMatrix Jd = device.jacobian();
        const bool same = same_bits(res, device.residual()) && same_bits(J.bdia(), Jd.bdia()) &&
                          same_bits(J.accumulation(), Jd.accumulation()) &&
                          same_bits(J.wells().w_vals, Jd.wells().w_vals) &&
                          same_bits(J.wells().wt_vals, Jd.wells().wt_vals) &&
                          same_bits(J.wells().d, Jd.wells().d);
        const double bytes = device.minimal_bytes(true);
        const double gbs = bytes / device_seconds / 1e9;
        out << "  device: " << fixed(device_seconds, 6) << " s (median of " << times.size()
            << ", kernels only), " << fixed(host_seconds / device_seconds, 1) << "x the host; "
            << fixed(gbs, 1) << " GB/s for " << with_commas(bytes) << " bytes, "
            << fixed(gbs * 1e9 / dev.triad, 3)
            << " x triad; the host's bits: " << (same ? "yes" : "NO") << "\n";
        y << YAML::Key << "device_seconds_median" << YAML::Value << device_seconds;
        y << YAML::Key << "device_seconds" << YAML::Value << YAML::Flow << times;
        y << YAML::Key << "speedup_vs_host" << YAML::Value << host_seconds / device_seconds;
        y << YAML::Key << "minimal_bytes" << YAML::Value << bytes;
        y << YAML::Key << "effective_gb_s" << YAML::Value << gbs;
        y << YAML::Key << "ratio_to_triad" << YAML::Value << gbs * 1e9 / dev.triad;
        y << YAML::Key << "same_bits_as_host" << YAML::Value << same;
        if (!same) {
            write_report(args.report, y, out);
            return 1;
        }
    }
    write_report(args.report, y, out);
    return 0;
}

}  // namespace heptane::app
