// `heptane simulate` on the GPU: the five-spot of inputs/ with the in-kernel solver (whose
// solves give the CPU reference's bits) takes the same Newton and linear iterations in every
// step as the CPU run and writes the same bits; the multi-kernel solver (other summation
// orders) agrees in every field to well within the Newton tolerance's effect.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/hdf5_file.hpp"
#include "common/cli_runner.hpp"
#include "common/gpu_test.hpp"
#include "common/test_systems.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;

class SimulateOnGpu : public test::GpuTest {
  protected:
    std::string run(const std::string& name, std::vector<std::string> extra) {
        const std::string out =
            (fs::path(::testing::TempDir()) / (name + "_" + std::to_string(::getpid()) + ".h5"))
                .string();
        std::vector<std::string> args = {"simulate", test::source_path("inputs/five_spot.yaml"),
                                         "-o", out};
        args.insert(args.end(), extra.begin(), extra.end());
        const test::CliResult r = test::run_heptane(args);
        EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
        std::printf("%s", r.out.c_str());
        return out;
    }
};

TEST_F(SimulateOnGpu, InKernelRunIsTheCpuRunBitForBit) {
    const std::string cpu = run("cpu", {"--backend", "cpu"});
    const std::string gpu =
        run("gpu", {"--backend", "gpu", "--set", "solver.gpu_kernel=in_kernel"});
    const h5::File a = h5::File::open(cpu);
    const h5::File b = h5::File::open(gpu);
    EXPECT_EQ(b.attr_string("/simulation", "backend"), "gpu");
    // The state on the device, point-block Jacobi factored there.
    EXPECT_EQ(b.attr_string("/simulation", "state"), "GPU (J handed to the solver on the device)");
    EXPECT_EQ(a.attr_string("/simulation", "state"), "host");
    for (const char* name : {"/simulation/newton_iterations", "/simulation/linear_iterations",
                             "/simulation/dt", "/simulation/newton/linear_iterations"}) {
        EXPECT_EQ(a.read(name).values, b.read(name).values) << name;
    }
    const test::CliResult cmp = test::run_heptane({"compare", gpu, cpu, "--rtol", "0"});
    EXPECT_EQ(cmp.code, kExitOk) << cmp.out;
    // One solver object for the run: planned once, given every Jacobian's values, no
    // device allocation after the first step.
    EXPECT_EQ(b.attr_double("/simulation", "solver_plans"), 1.0);
    EXPECT_EQ(b.attr_double("/simulation", "solver_matrix_uploads"),
              static_cast<double>(b.read("/simulation/newton/linear_iterations").values.size()));
    EXPECT_EQ(b.attr_double("/simulation", "device_allocations_at_end"),
              b.attr_double("/simulation", "device_allocations_after_first_step"));
    EXPECT_GT(b.attr_double("/simulation", "device_allocations_at_end"), 0.0);
}

// CPR is set up on the device: the device Newton loop hands it every Jacobian without the
// host (issue 23), and the run is the CPU's bit for bit, as is the GPU run with the state on
// the host (--state host: the GPU for the linear solves only).
TEST_F(SimulateOnGpu, CprRunKeepsItsJacobianOnTheDeviceAndGivesTheCpuBits) {
    const std::vector<std::string> cpr = {"--set", "solver.preconditioner=cpr"};
    auto with = [&cpr](std::vector<std::string> v) {
        v.insert(v.end(), cpr.begin(), cpr.end());
        return v;
    };
    const std::string cpu = run("cpu_cpr", with({"--backend", "cpu"}));
    const std::string gpu = run("gpu_cpr", with({"--backend", "gpu"}));
    const std::string host = run("gpu_cpr_host", with({"--backend", "gpu", "--state", "host"}));
    EXPECT_EQ(h5::File::open(gpu).attr_string("/simulation", "state"),
              "GPU (J handed to the solver on the device)");
    EXPECT_EQ(h5::File::open(host).attr_string("/simulation", "state"), "host");
    for (const std::string& f : {gpu, host}) {
        const test::CliResult cmp = test::run_heptane({"compare", f, cpu, "--rtol", "0"});
        EXPECT_EQ(cmp.code, kExitOk) << f << "\n" << cmp.out;
    }
}

// A faulted corner-point deck (design decision 63) on the GPU: the in-kernel solver (decision
// 68; the default with none and point-block Jacobi) and the multi-kernel one (the only one for
// line Jacobi and CPR) take its non-neighbour connections and write the CPU's file bit for bit
// with each preconditioner; the simulation keeps its state on the device (decision 65) and
// gives the CPU's bits too. The same with PINCH (eclipse_pinch.inc, decision 69): connections
// between the layers of one column.
TEST_F(SimulateOnGpu, FaultedDeckIsTheCpuRunBitForBit) {
    const std::string deck = test::source_path("tests/app/decks/eclipse_fault.yaml");
    const std::vector<std::vector<std::string>> variants = {
        {}, {"--set", "grid.eclipse=[eclipse_fault.grdecl, eclipse_pinch.inc]"}};
    for (std::size_t v = 0; v < variants.size(); ++v) {
        SCOPED_TRACE(v == 0 ? "faults" : "faults and PINCH");
        const std::string tag = std::to_string(v) + "_" + std::to_string(::getpid());
        for (const char* pc : {"none", "point_block_jacobi", "line_jacobi", "cpr"}) {
            SCOPED_TRACE(pc);
            const bool fused = std::string(pc) == "none" || std::string(pc) == "point_block_jacobi";
            // The CPU, the GPU's default kernel, and for the fused ones the multi-kernel
            // solver too.
            std::vector<std::vector<std::string>> ways = {{"--backend", "cpu"},
                                                          {"--backend", "gpu"}};
            if (fused) {
                ways.push_back({"--backend", "gpu", "--set", "solver.gpu_kernel=multi_kernel"});
            }
            std::vector<std::string> files;
            for (std::size_t n = 0; n < ways.size(); ++n) {
                files.push_back(
                    (fs::path(::testing::TempDir()) /
                     (std::string("fault_") + pc + "_" + std::to_string(n) + "_" + tag + ".h5"))
                        .string());
                std::vector<std::string> args = {
                    "run",        deck,    "-o",
                    files.back(), "--set", std::string("solver.preconditioner=") + pc};
                args.insert(args.end(), ways[n].begin(), ways[n].end());
                args.insert(args.end(), variants[v].begin(), variants[v].end());
                const test::CliResult r = test::run_heptane(args);
                ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
                if (n == 1) {
                    EXPECT_NE(r.out.find(fused ? "in_kernel" : "multi_kernel"), std::string::npos)
                        << r.out;
                }
                if (n == 0) continue;
                const test::CliResult cmp = test::run_heptane(
                    {"compare", files[n], files[0], "--rtol", "0", "--atol", "0"});
                EXPECT_EQ(cmp.code, kExitOk) << ways[n].back() << "\n" << cmp.out;
            }
        }
        const std::string flood = test::source_path("tests/app/decks/eclipse_fault_sim.yaml");
        std::vector<std::string> runs;
        for (const char* backend : {"cpu", "gpu"}) {
            runs.push_back((fs::path(::testing::TempDir()) /
                            (std::string("fault_sim_") + backend + "_" + tag + ".h5"))
                               .string());
            std::vector<std::string> args = {"simulate",  flood,       "-o",
                                             runs.back(), "--backend", backend};
            args.insert(args.end(), variants[v].begin(), variants[v].end());
            const test::CliResult r = test::run_heptane(args);
            ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
        }
        // The state and the assembly on the device (design decision 65).
        EXPECT_EQ(h5::File::open(runs[1]).attr_string("/simulation", "state"),
                  "GPU (J handed to the solver on the device)");
        const test::CliResult cmp = test::run_heptane({"compare", runs[1], runs[0], "--rtol", "0"});
        EXPECT_EQ(cmp.code, kExitOk) << cmp.out;
    }
}

/// The faulted deck's simulation with `sets` (--set each) on the CPU and with its state and
/// assembly on the GPU: the GPU's file is the CPU's bit for bit.
std::vector<std::string> expect_device_simulation_is_the_cpus(
    const std::string& tag, const std::vector<std::string>& sets,
    const std::string& deck = "tests/app/decks/eclipse_fault_sim.yaml") {
    const std::string flood = test::source_path(deck);
    std::vector<std::string> runs;
    for (const char* backend : {"cpu", "gpu"}) {
        runs.push_back((fs::path(::testing::TempDir()) /
                        (tag + "_" + backend + "_" + std::to_string(::getpid()) + ".h5"))
                           .string());
        std::vector<std::string> args = {"simulate",  flood,       "-o",
                                         runs.back(), "--backend", backend};
        for (const std::string& set : sets) args.insert(args.end(), {"--set", set});
        const test::CliResult r = test::run_heptane(args);
        EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
        if (r.code != kExitOk) return {};
    }
    EXPECT_EQ(h5::File::open(runs[1]).attr_string("/simulation", "state"),
              "GPU (J handed to the solver on the device)");
    const test::CliResult cmp = test::run_heptane({"compare", runs[1], runs[0], "--rtol", "0"});
    EXPECT_EQ(cmp.code, kExitOk) << cmp.out;
    return runs;
}

// A tabulated relperm (design decision 74: the Egg model's SWOF, 16 rows) evaluated on the
// device by the shared property code.
TEST_F(SimulateOnGpu, TabulatedRelpermOnTheDeviceGivesTheCpuBits) {
    expect_device_simulation_is_the_cpus(
        "swof",
        {"fluid.relperm={swof: " + test::source_path("inputs/data/egg/Egg_Model_ECL.DATA") + "}"});
}

// A capillary pressure (design decision 76): the device's assembly and Newton loop.
TEST_F(SimulateOnGpu, CapillaryPressureOnTheDeviceGivesTheCpuBits) {
    expect_device_simulation_is_the_cpus(
        "pc",
        {"fluid.relperm={table: [[0.2, 0, 0.8, 8], [0.4, 0.05, 0.35, 2.2], [0.6, 0.2, 0.09, 0.6], "
         "[0.8, 0.5, 0, 0]]}"});
}

// Formation volume factors (design decision 81): the device's densities, rates and
// convergence measures with B != 1.
TEST_F(SimulateOnGpu, FormationVolumeFactorsOnTheDeviceGiveTheCpuBits) {
    expect_device_simulation_is_the_cpus("fvf", {"fluid.oil.formation_volume_factor=1.27",
                                                 "fluid.water.formation_volume_factor=1.013"});
}

// SPE10 model 2's PVDO oil and a water viscosibility (design decision 84): the device's
// tabulated density and pressure-dependent mobilities, and B(p_ref) in its convergence.
TEST_F(SimulateOnGpu, PressureDependentPvtOnTheDeviceGivesTheCpuBits) {
    expect_device_simulation_is_the_cpus(
        "pvdo", {"fluid.oil={density: 53, pvdo: [[300, 1.05, 2.85], [800, 1.02, 2.99], "
                 "[8000, 1.01, 3]]}",
                 "fluid.water.viscosibility=1e-5"});
}

// Two saturation regions by layer (design decision 87), the second with a capillary
// pressure: each cell's law from its region in the device's assembly and Newton loop.
TEST_F(SimulateOnGpu, SaturationRegionsOnTheDeviceGiveTheCpuBits) {
    expect_device_simulation_is_the_cpus(
        "satnum", {"fluid.relperm=[{swc: 0.2, sor: 0.2, nw: 2, no: 2}, {table: [[0.15, 0, 0.9, 6], "
                   "[0.4, 0.05, 0.35, 2.2], [0.6, 0.2, 0.09, 0.6], [0.85, 0.6, 0, 0]]}]",
                   "rock.saturation_regions={kind: layered, values: [1, 2, 2, 1]}"});
}

// A producer on its oil rate (design decision 82) that reaches its BHP limit: the device's
// well equation and the way to the limit.
TEST_F(SimulateOnGpu, OilRateProducerOnTheDeviceGivesTheCpuBits) {
    expect_device_simulation_is_the_cpus(
        "orat", {"wells[1].control={kind: oil_rate, value: 150}", "wells[1].min_bhp=3000"});
}

// Fluid-in-place regions (design decision 89): the device run's reports, from its fields
// copied to the host, are the CPU run's to the bit.
TEST_F(SimulateOnGpu, FipRegionsOfTheDeviceRunAreTheCpus) {
    const std::vector<std::string> runs = expect_device_simulation_is_the_cpus(
        "fip", {"rock.fip_regions={kind: layered, values: [1, 2, 2, 3]}"});
    ASSERT_EQ(runs.size(), 2u);
    const h5::File cpu = h5::File::open(runs[0]), gpu = h5::File::open(runs[1]);
    for (const char* name : {"oil", "water", "pressure", "pore_volume"}) {
        const std::string d = std::string("/regions/in_place/") + name;
        EXPECT_EQ(gpu.read(d).dims, (std::vector<hsize_t>{3, 3})) << d;
        EXPECT_EQ(gpu.read(d).values, cpu.read(d).values) << d;
    }
}

// Equilibration regions (design decision 92): the regression deck's two regions, out of
// equilibrium with each other at the start, flow on the device as on the CPU, to the bit.
TEST_F(SimulateOnGpu, EquilibrationRegionsOnTheDeviceGiveTheCpuBits) {
    const std::vector<std::string> runs = expect_device_simulation_is_the_cpus(
        "eqlnum", {}, "tests/regression/simulation/equil_regions.yaml");
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(h5::File::open(runs[1]).read("/grid/equilibration_region").values,
              h5::File::open(runs[0]).read("/grid/equilibration_region").values);
}

// End-point scaling (design decision 95): the regression deck's cells, each with its own SWL,
// SWCR, SWU and SOWCR (the device's view reads them per cell), from the CPU's initial state
// inverted through the scaled Pc, give the CPU's bits on the device.
TEST_F(SimulateOnGpu, EndPointsOnTheDeviceGiveTheCpuBits) {
    expect_device_simulation_is_the_cpus("end_points", {},
                                         "tests/regression/simulation/end_points_waterflood.yaml");
}

// SWATINIT (design decision 97): the same deck's cells above the contact start at 0.45, their Pc
// scaled by a factor of their own (the device's end points carry it), with the CPU's bits.
TEST_F(SimulateOnGpu, SwatinitOnTheDeviceGivesTheCpuBits) {
    expect_device_simulation_is_the_cpus("swatinit", {"rock.swatinit=0.45"},
                                         "tests/regression/simulation/end_points_waterflood.yaml");
}

// Vertical scaling (design decision 98): the same deck's cells with KRW by layer, KRO and PCW
// (12 psi, the table's 8: a factor 1.5 on every cell's Pc), each curve multiplied by its
// cell's factor on the device as on the CPU, to the bit.
TEST_F(SimulateOnGpu, KrwKroPcwOnTheDeviceGiveTheCpuBits) {
    expect_device_simulation_is_the_cpus(
        "vertical",
        {"rock.end_points.krw={kind: layered, values: [0.5, 0.6, 0.7]}", "rock.end_points.kro=0.7",
         "rock.end_points.pcw=12"},
        "tests/regression/simulation/end_points_waterflood.yaml");
}

// Reservoir volume rates (design decision 100): the injector on one and, from day 20, the
// producer too (more than the injector: it falls to its BHP limit): each step's factors from the
// device's mean hydrocarbon pressure (the canonical sums of the host's) weigh the rate equations as
// on the CPU, to the bit.
TEST_F(SimulateOnGpu, ReservoirRatesOnTheDeviceGiveTheCpuBits) {
    expect_device_simulation_is_the_cpus(
        "resv", {"wells[0].control={kind: reservoir_rate, value: 200}",
                 "schedule.events=[{time: 20, well: P1, control: {kind: reservoir_rate, value: "
                 "210}, min_bhp: 3000}]"});
}

// BHP reference depths (design decision 94): a rate injector's and a BHP producer's, each
// well's wellbore head from its own depth in the device's perforation flows and rates.
TEST_F(SimulateOnGpu, BhpReferenceDepthsOnTheDeviceGiveTheCpuBits) {
    expect_device_simulation_is_the_cpus("bhp_depth",
                                         {"wells[0].bhp_depth=11900", "wells[1].bhp_depth=12100"});
}

// History wells (design decision 90): WCONHIST and WCONINJH, with the 1 atm floor reached and a
// well shut for want of a rate, give the CPU's bits on the device, and the same history series.
TEST_F(SimulateOnGpu, HistoryWellsOnTheDeviceGiveTheCpuBits) {
    const std::vector<std::string> runs =
        expect_device_simulation_is_the_cpus("history", {}, "tests/app/decks/history_sim.yaml");
    ASSERT_EQ(runs.size(), 2u);
    const h5::File cpu = h5::File::open(runs[0]), gpu = h5::File::open(runs[1]);
    for (const char* d : {"/wells/P1/oil_rate_history", "/wells/P1/bhp_history",
                          "/wells/INJ/water_rate_history", "/wells/P1/control"}) {
        const std::vector<double> a = gpu.read(d).values, b = cpu.read(d).values;
        ASSERT_EQ(a.size(), b.size()) << d;
        for (std::size_t k = 0; k < a.size(); ++k) {
            EXPECT_TRUE(a[k] == b[k] || (std::isnan(a[k]) && std::isnan(b[k])))
                << d << "[" << k << "]";
        }
    }
}

TEST_F(SimulateOnGpu, MultiKernelRunAgreesWithTheCpuRun) {
    const std::string cpu = run("cpu_mk", {"--backend", "cpu"});
    const std::string gpu =
        run("gpu_mk", {"--backend", "gpu", "--set", "solver.gpu_kernel=multi_kernel"});
    // Pressures in psi, saturations, rates: 1e-4 relative + 1e-6 absolute, far inside what
    // the Newton tolerances (CNV 1e-2, MB 1e-7) leave open, far outside rounding.
    const test::CliResult cmp =
        test::run_heptane({"compare", gpu, cpu, "--rtol", "1e-4", "--atol", "1e-6"});
    EXPECT_EQ(cmp.code, kExitOk) << cmp.out;
}

}  // namespace
}  // namespace heptane::app
