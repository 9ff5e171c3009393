#include "app/cli.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "app/atomic_file.hpp"
#include "app/bench.hpp"
#include "app/compare.hpp"
#include "app/deck.hpp"
#include "app/mpi_session.hpp"
#include "app/proxy.hpp"
#include "app/report.hpp"
#include "app/run.hpp"
#include "app/simulate.hpp"
#include "core/base/errors.hpp"
#include "core/base/text.hpp"
#include "core/krylov/names.hpp"
#include "core/matrix/formats.hpp"
#include "heptane_version.hpp"

namespace heptane::app {
namespace {

/// An output path given on the command line may not be empty (`-o ""` used to mean "the
/// default" silently).
const CLI::Validator kNonEmptyPath(
    [](std::string& s) { return s.empty() ? std::string("an empty path") : std::string(); },
    "PATH");

/// A finite number (not nan or inf, which CLI11's number checks let through) >= 0, or > 0.
CLI::Validator finite_number(bool positive) {
    return CLI::Validator(
        [positive](std::string& s) {
            char* end = nullptr;
            const double v = std::strtod(s.c_str(), &end);
            const bool number = !s.empty() && end == s.c_str() + s.size() && std::isfinite(v);
            if (number && (positive ? v > 0.0 : v >= 0.0)) return std::string();
            return quote_input(s) + " is not a finite number " + (positive ? "> 0" : ">= 0");
        },
        positive ? "NUMBER > 0" : "NUMBER >= 0");
}
const CLI::Validator kFinitePositive = finite_number(true);
const CLI::Validator kFiniteNonNegative = finite_number(false);

/// The subcommand names of `app`, for "unknown command" messages.
std::vector<std::string> subcommand_names(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    return names;
}

/// `heptane foo` and `heptane bench foo` name the unknown command (CLI11 would say "A
/// subcommand is required"): the first word after `app`'s own that is not an option, when
/// `app` needs a subcommand and no subcommand has that name. Empty when all is well.
std::string unknown_command(const CLI::App& app, int argc, const char* const* argv, int at) {
    if (at >= argc) return {};
    const std::string word = argv[at];
    if (word.empty() || word[0] == '-') return {};
    const std::vector<std::string> names = subcommand_names(app);
    if (std::find(names.begin(), names.end(), word) != names.end()) {
        const CLI::App* sub = app.get_subcommand(word);
        return sub->get_subcommands({}).empty() ? std::string()
                                                : unknown_command(*sub, argc, argv, at + 1);
    }
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    return "unknown command '" + word + "' (" +
           (at == 1 ? std::string("commands") : "commands of " + std::string(argv[at - 1])) + ": " +
           list + ")";
}

/// bench solve --solvers: the GPU kernels, and the multi-kernel solver with KSPARSE.
std::vector<std::string> bench_solver_names() {
    std::vector<std::string> names = deck_names<GpuKernel>();
    names.emplace_back("multi_kernel_ksparse");
    return names;
}

/// bench solve --methods: the Krylov methods of the method table.
std::vector<std::string> krylov_names() {
    std::vector<std::string> names;
    for (const NameRow<Method>& row : name_table<Method>()) {
        if (!is_smoother(row.value)) names.emplace_back(row.name);
    }
    return names;
}

int cmd_info(const std::string& deck_path, std::ostream& out, std::ostream& err) {
    if (deck_path.empty()) {
        print_build_info(out);
        return kExitOk;
    }
    const Deck deck = load_deck(deck_path);
    const wells::Model model = build_model(deck, true, &err);
    print_system_summary(out, deck, model);
    return kExitOk;
}

/// Opens `file` for writing or throws InputError naming it (a CLI argument).
std::ofstream open_output(const AtomicOutput& file, const char* option) {
    std::ofstream s(file.temp_path(), std::ios::binary | std::ios::trunc);
    if (!s) {
        throw InputError(option, "cannot write '" + file.path() + "' (does its folder exist?)");
    }
    return s;
}

int cmd_export(const std::string& deck_path, const std::string& matrix_path,
               const std::string& rhs_path, std::ostream& out, std::ostream& err) {
    const Deck deck = load_deck(deck_path);
    const wells::Model model = build_model(deck, true, &err);
    const GHSystem& sys = model.system;
    const std::string comment = "heptane " + std::string(kVersion) + " GH system of " + deck_path +
                                "\nrows: M K cell unknowns (cell m, component c at " +
                                "m K + c, k-fastest cells), then " +
                                std::to_string(sys.matrix.num_wells()) + " well unknowns";
    AtomicOutput matrix_file(matrix_path);
    {
        std::ofstream s = open_output(matrix_file, "--matrix");
        write_matrix_market(s, to_csr(sys.matrix), comment);
        if (!s.flush()) throw Error("write to '" + matrix_path + "' failed");
    }
    std::optional<AtomicOutput> rhs_file;
    if (!rhs_path.empty()) {
        rhs_file.emplace(rhs_path);
        std::ofstream s = open_output(*rhs_file, "--rhs");
        write_matrix_market(s, sys.rhs, "heptane right-hand side b of " + deck_path);
        if (!s.flush()) throw Error("write to '" + rhs_path + "' failed");
    }
    // Both files are complete: publish them.
    matrix_file.commit();
    if (rhs_file) rhs_file->commit();
    out << "wrote " << matrix_path << " (" << with_commas(sys.matrix.rows()) << " x "
        << with_commas(sys.matrix.rows()) << ", " << with_commas(sys.matrix.nonzeros())
        << " nonzeros)";
    if (rhs_file) out << " and " << rhs_path;
    out << '\n';
    return kExitOk;
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
            bool terminal) {
    CLI::App app{"heptane: GH linear systems for reservoir simulation (BiCGStab / QMR, CPU + GPU)",
                 "heptane"};
    app.set_version_flag("--version", std::string("heptane ") + kVersion);
    app.require_subcommand(1);

    RunArgs run_args;
    CLI::App* run = app.add_subcommand(
        "run",
        "Build the deck's system, solve it, print a report and write OUT.h5 + OUT.xmf. "
        "Exit 1 when the solver does not converge (the result is still written)");
    run->add_option("DECK", run_args.deck, "YAML deck")->required()->check(CLI::ExistingFile);
    run->add_option("-o,--output", run_args.output, "HDF5 output (default: the deck's output.file)")
        ->check(kNonEmptyPath);
    run->add_option("--backend", run_args.backend, "auto | cpu | gpu (default: the deck's)")
        ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
    run->add_option("--set", run_args.overrides,
                    "key.path=value: override a deck key, checked like the deck "
                    "(e.g. --set solver.method=qmr); repeatable")
        ->take_all();

    RunArgs sim_args;
    CLI::App* simulate = app.add_subcommand(
        "simulate",
        "Run the deck's schedule: a fully implicit two-phase simulation (time steps, Newton, "
        "wells) with the deck's linear solver; a progress line, a summary per well and per run, "
        "and OUT.h5 + OUT.xmf (checkpointed at report times). Exit 1 when a time step cannot "
        "be completed (every step up to it is written)");
    simulate->add_option("DECK", sim_args.deck, "YAML deck with a schedule section")
        ->required()
        ->check(CLI::ExistingFile);
    simulate
        ->add_option("-o,--output", sim_args.output,
                     "HDF5 output (default: the deck's output.file)")
        ->check(kNonEmptyPath);
    simulate->add_option("--backend", sim_args.backend, "auto | cpu | gpu (default: the deck's)")
        ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
    simulate
        ->add_option("--set", sim_args.overrides,
                     "key.path=value: override a deck key, checked like the deck "
                     "(e.g. --set schedule.end_time=100); repeatable")
        ->take_all();
    simulate
        ->add_option("--max-wall-time", sim_args.max_wall_seconds,
                     "stop after the first time step that ends past this many seconds of wall "
                     "time (a batch job's limit): everything up to it is written, exit 1")
        ->check(kFinitePositive);
    simulate
        ->add_option("--state", sim_args.state,
                     "auto | host | device: where the state, the assembly, the Newton update "
                     "and the convergence checks run (default auto: on the GPU with the gpu "
                     "backend in one process, else on the host; host with the gpu backend "
                     "leaves the GPU the linear solves only)")
        ->check(CLI::IsMember({"auto", "host", "device"}));
    simulate
        ->add_option("--restart", sim_args.restart,
                     "go on from the last accepted step of an earlier run's OUT.h5 (its "
                     "/restart group, written at every report time and at the end): the "
                     "same deck, or one with a later end_time or other settings from there; "
                     "the new file holds the whole run, as if it had not stopped")
        ->check(CLI::ExistingFile);

    std::string compare_a, compare_b;
    CompareOptions compare_opts;
    CLI::App* cmp = app.add_subcommand(
        "compare",
        "Compare the /solution, /timesteps and /wells datasets and the solver status of two "
        "result files: exit 0 within tolerance, 1 otherwise, 2 unreadable or "
        "mismatched");
    cmp->add_option("A", compare_a, "result file")->required();
    cmp->add_option("B", compare_b, "reference file")->required();
    cmp->add_option("--rtol", compare_opts.rtol, "relative tolerance (default 1e-8)")
        ->check(kFiniteNonNegative);
    cmp->add_option("--atol", compare_opts.atol, "absolute tolerance (default 0)")
        ->check(kFiniteNonNegative);

    BenchArgs bench_args;
    CLI::App* bench = app.add_subcommand(
        "bench", "Measure SpMV and solvers against the machine's own triad bandwidth");
    bench->require_subcommand(1);
    CLI::App* bench_spmv = bench->add_subcommand(
        "spmv",
        "y = GH x: Bdia variants vs cuSPARSE BSR (generic, bsrmv) and CSR (and the "
        "CPU reference with --cpu, or alone without a GPU)");
    CLI::App* bench_solve = bench->add_subcommand(
        "solve",
        "BiCGStab: in-kernel vs the multi-kernel (CUDA graph) and library baselines, fixed "
        "iteration count and to 1e-8; time over the bytes floor");
    CLI::App* bench_ksparse = bench->add_subcommand(
        "ksparse",
        "y = A x for a MatrixMarket matrix with every nonzero promoted to a dense bs x bs block "
        "(seeded values): KSPARSE kernels vs cuSPARSE BSR (generic, bsrmv) and CSR");
    std::vector<std::string> block_size_items{"1..16", "24", "32", "48", "64"};
    bench_ksparse->add_option("MATRIX", bench_args.matrix, "MatrixMarket file")
        ->required()
        ->check(CLI::ExistingFile);
    bench_ksparse
        ->add_option("--block-sizes", block_size_items,
                     "block sizes, ranges allowed: 1..16,24,32,48,64 (the default)")
        ->delimiter(',');
    bench_ksparse->add_option("--seed", bench_args.seed, "seed of the blocks' values");
    bench_ksparse->add_option("--repeat", bench_args.repeats, "timed repetitions (median)")
        ->check(CLI::Range(1, 10000));
    bench_ksparse
        ->add_option("--report", bench_args.report, "YAML report (default bench_ksparse.yaml)")
        ->check(kNonEmptyPath);
    bench_ksparse->add_flag("--tune", bench_args.tune,
                            "brute-force tune each KSPARSE kernel not yet in the tuning cache for "
                            "this device and block size (seed 001, section 5.7)");
    bench_ksparse->add_flag("--retune", bench_args.retune,
                            "tune again even when the cache has the kernel and block size");
    bench_ksparse->add_option("--tuning-cache", bench_args.tuning_cache,
                              "tuning cache file (default: $HEPTANE_TUNING_CACHE, else "
                              "$XDG_CACHE_HOME or ~/.cache /heptane/ksparse_tuning.txt)");
    for (CLI::App* sub : {bench_spmv, bench_solve}) {
        sub->add_option("--grids", bench_args.grids, "cubic grid sizes g (g^3 cells)")
            ->delimiter(',')
            ->check(CLI::Range(1, 1024));
        sub->add_option("--K", bench_args.ks, "block sizes")
            ->delimiter(',')
            ->check(CLI::Range(1, 16));
        sub->add_option("--repeat", bench_args.repeats, "timed repetitions (median)")
            ->check(CLI::Range(1, 10000));
        sub->add_option("--wells", bench_args.wells, "wells in each system")
            ->check(CLI::Range(0, 1000));
        sub->add_option("--max-host-gb", bench_args.max_host_gb,
                        "skip systems whose host arrays exceed this")
            ->check(kFinitePositive);
        sub->add_flag("--cpu", bench_args.cpu, "also time the CPU reference");
    }
    bench_solve->add_option("--iterations", bench_args.iterations, "fixed iteration count")
        ->check(CLI::Range(1, 1000000));
    bench_solve
        ->add_option("--solvers", bench_args.solvers,
                     "GPU solvers to time: in_kernel, multi_kernel, library (default), and "
                     "multi_kernel_ksparse (the multi-kernel solver with the KSPARSE SpMV)")
        ->delimiter(',')
        ->check(CLI::IsMember(bench_solver_names()));
    bench_solve
        ->add_option("--methods", bench_args.methods,
                     "Krylov methods to time: bicgstab, qmr (default: both)")
        ->delimiter(',')
        ->check(CLI::IsMember(krylov_names()));
    bench_solve
        ->add_option("--preconditioner", bench_args.preconditioner,
                     "right preconditioner of the GPU solvers: none (default), "
                     "point_block_jacobi, line_jacobi, block_jacobi (4x4x4 blocks)")
        ->check(CLI::IsMember(deck_names<PreconditionerKind>()));
    bench_spmv->add_option("--report", bench_args.report, "YAML report (default bench_spmv.yaml)")
        ->check(kNonEmptyPath);
    bench_solve->add_option("--report", bench_args.report, "YAML report (default bench_solve.yaml)")
        ->check(kNonEmptyPath);

    CLI::App* bench_update = bench->add_subcommand(
        "update",
        "What a Newton loop pays per linear solve: the deck's solver made once, then --solves "
        "times its values updated (update_values) and the system solved from x = 0; the first "
        "setup against the later updates, and the solve times");
    bench_update->add_option("DECK", bench_args.deck, "grid deck")
        ->required()
        ->check(CLI::ExistingFile);
    bench_update->add_option("--solves", bench_args.solves, "solves (the first sets up)")
        ->check(CLI::Range(1, 100000));
    bench_update->add_option("--backend", bench_args.backend, "auto | cpu | gpu")
        ->check(CLI::IsMember(deck_names<Backend>()));
    bench_update->add_option("--set", bench_args.overrides,
                             "key.path=value: override a deck key, checked like the deck");
    bench_update
        ->add_option("--report", bench_args.report, "YAML report (default bench_update.yaml)")
        ->check(kNonEmptyPath);

    CLI::App* bench_assembly = bench->add_subcommand(
        "assembly",
        "The two-phase residual and Jacobian at the deck's initial state, assembled on the host "
        "(all OpenMP threads) and on the GPU: times, the device's bytes against the triad, and "
        "whether the device gives the host's bits");
    bench_assembly->add_option("DECK", bench_args.deck, "two_phase grid deck")
        ->required()
        ->check(CLI::ExistingFile);
    bench_assembly->add_option("--repeat", bench_args.repeats, "timed assemblies (median)")
        ->check(CLI::Range(1, 100000));
    bench_assembly->add_option("--set", bench_args.overrides,
                               "key.path=value: override a deck key, checked like the deck");
    bench_assembly
        ->add_option("--report", bench_args.report, "YAML report (default bench_assembly.yaml)")
        ->check(kNonEmptyPath);

    CLI::App* bench_cpr = bench->add_subcommand(
        "cpr",
        "CPR's pressure multigrid on the deck's system: the convergence factor of each "
        "level's cycle as a stationary iteration, the cost of one cycle, BiCGStab with CPR to "
        "the deck's tolerance (CPU), and on a GPU the time of one cycle from each level "
        "(solver.cpr from the deck and --set)");
    bench_cpr->add_option("DECK", bench_args.deck, "grid deck")
        ->required()
        ->check(CLI::ExistingFile);
    bench_cpr
        ->add_option("--cycles", bench_args.cycles,
                     "cycles N; factor (||r_N|| / ||r_{N-5}||)^(1/5) (default 20)")
        ->check(CLI::Range(5, 100000));
    bench_cpr
        ->add_option("--backend", bench_args.backend,
                     "auto (default: the device's cycle timed when there is a GPU) | cpu | gpu")
        ->check(CLI::IsMember(deck_names<Backend>()));
    bench_cpr->add_option("--repeat", bench_args.repeats, "timed repetitions on the GPU (median)")
        ->check(CLI::Range(1, 100000));
    bench_cpr->add_option("--set", bench_args.overrides,
                          "key.path=value: override a deck key, checked like the deck");
    bench_cpr->add_option("--report", bench_args.report, "YAML report (default bench_cpr.yaml)")
        ->check(kNonEmptyPath);

    CLI::App* bench_smoother = bench->add_subcommand(
        "smoother",
        "Block Jacobi and block Gauss-Seidel (seed 003): the convergence study of its Fig. 4 "
        "(3D Poisson, f = 0, random x_0: error after 3 sweeps and the asymptotic convergence "
        "factor per block shape, CPU and/or GPU) and the throughput of the block "
        "preconditioners and smoothers (cells/s, GB/s, ratio to the triad)");
    std::vector<std::string> shape_items;
    bench_smoother->add_option("--grid", bench_args.study.grid, "Poisson grid g (g^3 cells)")
        ->check(CLI::Range(2, 1024));
    bench_smoother
        ->add_option("--shapes", shape_items,
                     "block shapes BXxBYxBZ, z fastest (default "
                     "2x2x2,2x2x4,2x4x4,4x4x4,4x4x8,4x8x8,8x8x8)")
        ->delimiter(',');
    bench_smoother
        ->add_option("--omega", bench_args.study.jacobi_omega,
                     "block Jacobi's damping (default 0.8, the seed's; Gauss-Seidel uses 1)")
        ->check(kFinitePositive & CLI::Range(0.0, 2.0));
    bench_smoother
        ->add_option("--sweeps", bench_args.study.sweeps,
                     "sweeps before the relative error ||r_s|| / ||r_0|| (default 3)")
        ->check(CLI::Range(1, 1000000));
    bench_smoother
        ->add_option("--asymptotic-sweeps", bench_args.asymptotic_sweeps,
                     "length of the run the convergence factor is taken from (default 2000 on "
                     "the GPU, 300 on the CPU)")
        ->check(CLI::Range(1, 10000000));
    bench_smoother
        ->add_option("--window", bench_args.study.window,
                     "k of the factor (||r_{i+k}|| / ||r_i||)^(1/k), the run's last k sweeps "
                     "(default 100)")
        ->check(CLI::Range(1, 10000000));
    bench_smoother->add_option("--seed", bench_args.study.seed, "seed of the random x_0");
    bench_smoother
        ->add_option("--backend", bench_args.backend,
                     "cpu | gpu | both (default: gpu if a device exists, else cpu)")
        ->check(CLI::IsMember({"auto", "cpu", "gpu", "both"}));
    bench_smoother
        ->add_option("--deck", bench_args.deck,
                     "time the throughput on this grid deck's system (default: the Poisson "
                     "matrix of --grid)")
        ->check(CLI::ExistingFile);
    bench_smoother->add_option("--repeat", bench_args.repeats, "timed repetitions (median)")
        ->check(CLI::Range(1, 10000));
    bench_smoother->add_flag("--cpu", bench_args.cpu,
                             "also time the CPU reference's throughput (timed anyway when the "
                             "backend is cpu)");
    bench_smoother
        ->add_option("--report", bench_args.report, "YAML report (default bench_smoother.yaml)")
        ->check(kNonEmptyPath);

    ProxyArgs proxy_args;
    CLI::App* proxy = app.add_subcommand(
        "proxy",
        "The procurement proxy run (docs/PROXY.md): the defined two-phase problem sized to the "
        "machine, setup, validation, a timed phase of repeated solves, a final check, the "
        "figure of merit and the performance model; a YAML report. Exit 0 VALID, 1 INVALID");
    proxy->add_option("--backend", proxy_args.backend, "auto | cpu | gpu (default auto)")
        ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
    proxy
        ->add_option("--kernel", proxy_args.kernel,
                     "GPU solver: auto (the faster for the problem's size) | in_kernel | "
                     "multi_kernel")
        ->default_val("auto");
    proxy
        ->add_option("--method", proxy_args.method,
                     "bicgstab (the defined solver, with point-block Jacobi) | qmr (no "
                     "preconditioner; not official)")
        ->default_val("bicgstab");
    proxy->add_flag("--quick", proxy_args.quick,
                    "a short run: 40 x 40 x 85 cells and a 5 s timed phase (not official)");
    proxy
        ->add_option("--min-seconds", proxy_args.min_seconds,
                     "least length of the timed phase (default 60; official: 60 or more)")
        ->check(kFinitePositive);
    proxy
        ->add_option("--memory-fraction", proxy_args.memory_fraction,
                     "size the problem to this share of the device (or host) memory "
                     "(default 0.25; official: 0.25 or more)")
        ->check(kFinitePositive & CLI::Range(1e-6, 1.0));
    proxy->add_option("--dims", proxy_args.dims, "explicit size NX NY NZ instead")->expected(3);
    proxy->add_flag("!--no-secondary", proxy_args.secondary,
                    "skip the K = 3, 4, 8 synthetic variants (not official)");
    proxy->add_option("--report", proxy_args.report, "YAML report (default heptane_proxy.yaml)")
        ->check(kNonEmptyPath);
    proxy->add_option("--test-fault", proxy_args.fault)->group("");  // tests: break a check

    std::string info_deck;
    CLI::App* info = app.add_subcommand(
        "info",
        "Without a deck: build and CUDA devices. With a deck: grid, K, wells, unknowns, "
        "nonzeros and the bytes of each storage form");
    info->add_option("DECK", info_deck, "YAML deck")->check(CLI::ExistingFile);

    std::string export_deck, matrix_path, rhs_path;
    CLI::App* exp = app.add_subcommand(
        "export",
        "Write the deck's GH system as MatrixMarket (general real, 1-based, full precision)");
    exp->add_option("DECK", export_deck, "YAML deck")->required()->check(CLI::ExistingFile);
    exp->add_option("--matrix", matrix_path, "output .mtx file for GH")
        ->required()
        ->check(kNonEmptyPath);
    exp->add_option("--rhs", rhs_path, "output .mtx file for b (n x 1 array)")
        ->check(kNonEmptyPath);

    if (const std::string unknown = unknown_command(app, argc, argv, 1); !unknown.empty()) {
        err << "heptane: " << unknown << "\nRun with --help for more information.\n";
        return kExitBadInput;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e, out, err) == 0 ? kExitOk : kExitBadInput;
        err << "heptane: " << e.what() << "\nRun with --help for more information.\n";
        return kExitBadInput;
    }

    try {
        if (mpi_ranks() > 1 && !run->parsed() && !simulate->parsed() && !proxy->parsed()) {
            err << "heptane: under mpirun only `heptane run`, `simulate` and `proxy` run so far "
                   "(issue 25); run this command without mpirun\n";
            return kExitBadInput;
        }
        if (run->parsed()) return cmd_run(run_args, out, err, terminal);
        if (simulate->parsed()) return cmd_simulate(sim_args, out, err, terminal);
        if (proxy->parsed()) {
            for (int i = 0; i < argc; ++i)
                proxy_args.command += (i ? " " : "") + std::string(argv[i]);
            return cmd_proxy(proxy_args, out);
        }
        if (bench_spmv->parsed() || bench_solve->parsed() || bench_ksparse->parsed() ||
            bench_smoother->parsed() || bench_update->parsed() || bench_cpr->parsed() ||
            bench_assembly->parsed()) {
            for (int i = 0; i < argc; ++i)
                bench_args.command += (i ? " " : "") + std::string(argv[i]);
            for (const CLI::App* sub : bench->get_subcommands()) {
                if (bench_args.report.empty())
                    bench_args.report = "bench_" + sub->get_name() + ".yaml";
            }
            check_output_path(bench_args.report, "--report");
            if (bench_update->parsed()) return cmd_bench_update(bench_args, out);
            if (bench_assembly->parsed()) return cmd_bench_assembly(bench_args, out);
            if (bench_cpr->parsed()) return cmd_bench_cpr(bench_args, out);
            if (bench_smoother->parsed()) {
                if (!shape_items.empty()) bench_args.study.shapes = parse_shapes(shape_items);
                return cmd_bench_smoother(bench_args, out);
            }
            if (bench_ksparse->parsed()) {
                bench_args.block_sizes = parse_block_sizes(block_size_items);
                return cmd_bench_ksparse(bench_args, out);
            }
            return bench_spmv->parsed() ? cmd_bench_spmv(bench_args, out)
                                        : cmd_bench_solve(bench_args, out);
        }
        if (cmp->parsed()) return compare_files(compare_a, compare_b, compare_opts, out);
        if (info->parsed()) return cmd_info(info_deck, out, err);
        if (exp->parsed()) {
            check_output_path(matrix_path, "--matrix");
            if (!rhs_path.empty()) check_output_path(rhs_path, "--rhs");
            return cmd_export(export_deck, matrix_path, rhs_path, out, err);
        }
    } catch (const InputError& e) {
        err << "heptane: " << e.what() << '\n';
        return kExitBadInput;
    } catch (const std::exception& e) {
        err << "heptane: error: " << e.what() << '\n';
        return kExitRuntime;
    }
    return kExitBadInput;
}

}  // namespace heptane::app
