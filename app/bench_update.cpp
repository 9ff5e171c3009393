// `heptane bench update DECK`: what a Newton loop pays per linear solve with a solver object
// made once (issue 16). The deck's solver is made once (upload, factors, plan, graph), then
// `--solves` times its values are updated from the deck's matrix and the system is solved
// from x = 0. Before the solver objects every solve paid the first setup; now the second and
// later pay update_values.
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "app/bench.hpp"
#include "app/bench_common.hpp"
#include "app/deck.hpp"
#include "app/report.hpp"
#include "app/solver_setup.hpp"
#include "core/base/errors.hpp"
#include "gpu/device.hpp"

namespace heptane::app {

int cmd_bench_update(const BenchArgs& args, std::ostream& out) {
    Deck deck = load_deck(args.deck, args.overrides);
    if (deck.system.present) {
        throw InputError("DECK",
                         "bench update takes a grid deck (update_values needs a GH matrix)");
    }
    const bool gpu = bench_on_gpu(args.backend, "bench update");
    const std::string device = gpu ? gpu::list_devices()[0].name : "CPU";

    const auto t_model = std::chrono::steady_clock::now();
    const wells::Model model = build_model(deck);
    const double model_seconds = seconds_since(t_model);
    const GHSystem& sys = model.system;
    const std::unique_ptr<LinearSolver> solver =
        make_deck_solver(deck, sys.matrix, gpu, deck_gpu_kernel(deck));
    const SolveOptions options = solve_options(deck);
    const SolverInfo first = solver->info();
    out << "heptane bench update " << deck.path << " on " << device << ": " << first.backend << " "
        << to_string(deck.solver.method) << ", " << first.kernel << ", preconditioner "
        << to_string(deck.solver.preconditioner) << ", " << with_commas(sys.matrix.rows())
        << " unknowns\n";
    out << "  model built on the host in " << fixed(model_seconds, 3) << " s (not timed below)\n";
    out << "  solve  setup or update [s]  of it the preconditioner [s]  solve [s]  iterations  "
           "status\n";

    std::vector<double> updates, solves, precond;
    std::vector<int> iterations;
    for (int k = 0; k < args.solves; ++k) {
        if (k > 0) solver->update_values(sys.matrix);
        std::vector<double> x(sys.rhs.size(), 0.0);
        const SolveResult r = solver->solve(sys.rhs, x, options);
        const SolverInfo info = solver->info();
        const double setup = k == 0 ? info.setup_seconds : info.update_seconds;
        if (k > 0) {
            updates.push_back(setup);
            precond.push_back(info.preconditioner_setup_seconds);
        }
        solves.push_back(info.solve_seconds);
        iterations.push_back(r.iterations);
        char line[200];
        std::snprintf(line, sizeof line, "  %5d  %19.4f  %29s  %9.4f  %10d  %s\n", k + 1, setup,
                      info.preconditioner_setup_seconds > 0.0
                          ? fixed(info.preconditioner_setup_seconds, 4).c_str()
                          : "-",
                      info.solve_seconds, r.iterations, to_string(r.status));
        out << line;
    }
    const double update = median(updates);
    const SolverInfo last = solver->info();
    out << "  first setup " << fixed(first.setup_seconds, 4) << " s; later solves: update "
        << fixed(update, 4) << " s (median of " << updates.size() << "), "
        << (update > 0.0 ? fixed(first.setup_seconds / update, 1) + "x less" : std::string("-"))
        << "; solve " << fixed(median(solves), 4) << " s (median); plans " << last.counts.plans
        << ", matrix uploads " << last.counts.matrix_uploads << ", factorizations "
        << last.counts.factorizations << "\n";

    YAML::Emitter y;
    begin_report(y, "update", args.command, device);
    y << YAML::Key << "deck" << YAML::Value << deck.path;
    y << YAML::Key << "backend" << YAML::Value << last.backend;
    y << YAML::Key << "kernel" << YAML::Value << last.kernel;
    y << YAML::Key << "method" << YAML::Value << to_string(deck.solver.method);
    y << YAML::Key << "preconditioner" << YAML::Value << to_string(deck.solver.preconditioner);
    y << YAML::Key << "unknowns" << YAML::Value << sys.matrix.rows();
    y << YAML::Key << "model_build_seconds" << YAML::Value << model_seconds;
    y << YAML::Key << "first_setup_seconds" << YAML::Value << first.setup_seconds;
    y << YAML::Key << "update_seconds_median" << YAML::Value << update;
    y << YAML::Key << "solve_seconds_median" << YAML::Value << median(solves);
    y << YAML::Key << "update_seconds" << YAML::Value << YAML::Flow << updates;
    // the preconditioner's part of each update where measured apart (GPU CPR), else 0
    y << YAML::Key << "preconditioner_update_seconds" << YAML::Value << YAML::Flow << precond;
    y << YAML::Key << "solve_seconds" << YAML::Value << YAML::Flow << solves;
    y << YAML::Key << "iterations" << YAML::Value << YAML::Flow << iterations;
    y << YAML::Key << "plans" << YAML::Value << last.counts.plans;
    y << YAML::Key << "matrix_uploads" << YAML::Value << last.counts.matrix_uploads;
    y << YAML::Key << "factorizations" << YAML::Value << last.counts.factorizations;
    y << YAML::Key << "workspace_bytes" << YAML::Value << last.workspace_bytes;
    write_report(args.report, y, out);
    return 0;
}

}  // namespace heptane::app
