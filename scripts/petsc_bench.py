"""PETSc AIJ and BAIJ BiCGStab / MatMult timings on a system heptane exports (issue 24).

The comparison of heptane's CPU backend (`heptane bench solve ... --cpu`, `bench spmv`) with
PETSc on the same matrix: PETSc's BiCGStab (KSPBCGS), no preconditioner, a fixed number of
iterations, on MATMPIAIJ and on MATMPIBAIJ with block size K, and MatMult alone.

    # 1. the deck of the system `heptane bench solve --grids G --K K` builds (bench_system in
    #    app/bench.cpp: seed 2024, diagonal dominance 1.5, 16 full-height wells), and export it
    /usr/bin/python3 scripts/petsc_bench.py deck --grid 64 --K 2 > syn64k2.yaml
    build-nocuda/app/heptane export syn64k2.yaml --matrix syn64k2.mtx --rhs syn64k2_b.mtx
    # 2. (optional, serial) parse the MatrixMarket file once into syn64k2.mtx.npz
    /usr/bin/python3 scripts/petsc_bench.py convert syn64k2.mtx
    # 3. time it on 2 ranks, one thread each
    OMP_NUM_THREADS=1 mpirun -np 2 /usr/bin/python3 scripts/petsc_bench.py run \
        syn64k2.mtx syn64k2_b.mtx --block-size 2 --iterations 200 --matmults 100

scripts/petsc_bench.sh does all of it for the two systems of issue 24 and runs heptane's
benches between the PETSc runs.

What is timed (PETSc.Log.getTime(): PetscTime, wall clock; between barriers; rank 0 prints):
  MatMult   --matmults products y = A x after 5 warm-up products; time per call.
  BiCGStab  KSPSolve with KSPBCGS, PCNONE, x0 = 0, b from the file, the residual norm
            computed every iteration (as heptane's BiCGStab) but a convergence test that never
            stops, so exactly --iterations iterations run (checked); one untimed warm-up
            solve (KSPSetUp, first touch of the work vectors), then --repeat timed solves;
            time per iteration = solve time / iterations. Each iteration does 2 MatMults
            (as heptane's), checked with PETSc's event log after the timed solves.
The matrix is checked: AIJ and BAIJ products agree with the CSR product computed by numpy /
scipy on each rank's rows, and rows / nonzeros are printed (compare with `heptane info`).

Rows are split between ranks at block boundaries (the same split for AIJ and BAIJ). A matrix
whose size is not a multiple of K (heptane's well rows: cells x K + wells) is padded with
identity rows to the next multiple (printed; none for the systems of issue 24, 16 wells).

Threads: OMP_NUM_THREADS and OPENBLAS_NUM_THREADS are set to 1 before PETSc loads unless
--threads N is given (Debian's PETSc links libgomp through hypre; with 2 ranks on 2 cores any
extra thread oversubscribes them). Each rank prints its CPU affinity and the load average so
an oversubscribed run shows itself.

Needs numpy (comes with petsc4py); scipy when present makes the reading and the BSR
conversion faster (without it BAIJ is made by MatConvert from AIJ).
"""
import argparse
import math
import os
import sys
import time

from mtx_io import read_mtx


def deck_text(g, K, wells=16):
    """The deck of bench_system(g, K, wells) in app/bench.cpp (the same wells, seed and
    dominance; cell sizes, rock and well targets do not enter a synthetic system)."""
    side = max(1, math.ceil(math.sqrt(wells)))
    out = [f"# heptane bench solve/spmv system: {g}^3 cells, K = {K}, {wells} wells "
           "(app/bench.cpp bench_system)",
           f"title: bench synthetic {g}^3 K = {K}",
           "units: metric",
           f"grid: {{dims: [{g}, {g}, {g}], cell_size: [1, 1, 1]}}",
           f"fluid: {{model: synthetic, components: {K}, diagonal_dominance: 1.5, seed: 2024}}",
           "rock: {permeability: [100, 100, 10], porosity: 0.2}",
           "wells:"]
    for w in range(wells):
        i = min(g - 1, (w % side) * g // side + g // (2 * side))
        j = min(g - 1, (w // side) * g // side + g // (2 * side))
        kind = "rate" if w % 2 else "bhp"
        out.append(f"  - {{name: W{w}, type: producer, column: [{i}, {j}], "
                   f"control: {{kind: {kind}, value: 1}}}}")
    return "\n".join(out) + "\n"


def to_csr(n, rows, cols, vals):
    """Sorted CSR (duplicates summed) of COO triplets, numpy only."""
    import numpy as np
    key = rows * n + cols
    order = np.argsort(key, kind="stable")
    key, vals = key[order], vals[order]
    uniq, start = np.unique(key, return_index=True)
    vals = np.add.reduceat(vals, start) if len(start) else vals
    r, c = uniq // n, uniq % n
    indptr = np.concatenate(([0], np.cumsum(np.bincount(r, minlength=n))))
    return indptr.astype(np.int64), c.astype(np.int32), vals


def cache_path(matrix):
    return matrix + ".npz"


def convert(matrix):
    """Parse the MatrixMarket file once; CSR arrays into MATRIX.npz."""
    import numpy as np
    t = time.perf_counter()
    n, m, rows, cols, vals = read_mtx(matrix)
    if n != m:
        sys.exit(f"{matrix}: {n} x {m} is not square")
    indptr, indices, data = to_csr(n, rows, cols, vals)
    tmp = cache_path(matrix) + ".tmp.npz"
    np.savez(tmp, n=np.int64(n), indptr=indptr, indices=indices, data=data)
    os.replace(tmp, cache_path(matrix))
    print(f"{matrix}: {n:,} rows, {len(data):,} nonzeros -> {cache_path(matrix)} "
          f"({time.perf_counter() - t:.1f} s)", flush=True)


def load_csr(matrix):
    import numpy as np
    z = np.load(cache_path(matrix))
    return int(z["n"]), z["indptr"], z["indices"], z["data"]


def cmd_run(a):
    threads = str(a.threads) if a.threads else "1"
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = threads
    import numpy as np
    import petsc4py
    petsc4py.init(sys.argv[:1] + a.petsc_options)
    from petsc4py import PETSc
    try:
        import scipy.sparse as sp
    except ImportError:
        sp = None

    comm = PETSc.COMM_WORLD
    rank, size = comm.getRank(), comm.getSize()

    def say(*args):
        if rank == 0:
            print(*args, flush=True)

    # Each rank's affinity and the machine's load: an oversubscribed run shows itself here.
    aff = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    for r in range(size):  # no mpi4py: print in rank order
        comm.barrier()
        if r == rank:
            print(f"rank {rank}/{size}: pid {os.getpid()}, cpus {aff}, "
                  f"load {os.getloadavg()[0]:.2f}, OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}",
                  flush=True)
    comm.barrier()

    t0 = time.perf_counter()
    if not os.path.exists(cache_path(a.matrix)):
        if rank == 0:
            convert(a.matrix)
        comm.barrier()
    n0, indptr, indices, data = load_csr(a.matrix)
    b_full = read_mtx(a.rhs) if a.rhs else np.ones(n0)
    if len(b_full) != n0:
        sys.exit(f"{a.rhs}: {len(b_full)} entries, the matrix has {n0} rows")
    bs = a.block_size
    n = -(-n0 // bs) * bs
    if n != n0:  # pad with identity rows to a multiple of the block size
        pad = n - n0
        indptr = np.concatenate((indptr, indptr[-1] + np.arange(1, pad + 1)))
        indices = np.concatenate((indices, np.arange(n0, n, dtype=indices.dtype)))
        data = np.concatenate((data, np.ones(pad)))
        b_full = np.concatenate((b_full, np.zeros(pad)))
    nb = n // bs
    r0, r1 = (rank * nb // size) * bs, ((rank + 1) * nb // size) * bs
    nloc = r1 - r0
    lp = (indptr[r0:r1 + 1] - indptr[r0]).astype(PETSc.IntType)
    lj = indices[indptr[r0]:indptr[r1]].astype(PETSc.IntType)
    lv = np.ascontiguousarray(data[indptr[r0]:indptr[r1]])
    hv = PETSc.Sys.getVersion()
    say(f"{a.matrix}: {n0:,} rows, {int(indptr[n0]):,} nonzeros"
        + (f", padded with {n - n0} identity rows to {n:,}" if n != n0 else "")
        + f"; block size {bs}; read in {time.perf_counter() - t0:.1f} s")
    say(f"PETSc {hv[0]}.{hv[1]}.{hv[2]} (petsc4py {petsc4py.__version__}), {size} MPI ranks, "
        f"rows per rank {nloc:,} (rank {rank})")

    x_np = np.random.default_rng(1).uniform(-1.0, 1.0, n)
    y_ref = None
    if sp is not None:
        local = sp.csr_matrix((lv, lj, lp), shape=(nloc, n))
        y_ref = local @ x_np
    else:
        y_ref = np.add.reduceat(lv * x_np[lj], lp[:-1]) if len(lv) else np.zeros(nloc)
        y_ref[np.diff(lp) == 0] = 0.0

    def make(fmt):
        t = time.perf_counter()
        sizes = ((nloc, n), (nloc, n))
        if fmt in ("aij", "aij-noinode"):
            opts = PETSc.Options()
            if fmt == "aij-noinode":  # plain CSR kernel instead of the I-node one
                opts["mat_no_inode"] = True
            A = PETSc.Mat().createAIJ(sizes, bsize=bs, csr=(lp, lj, lv), comm=comm)
            if fmt == "aij-noinode":
                opts.delValue("mat_no_inode")
        elif sp is not None:
            B = sp.csr_matrix((lv, lj, lp), shape=(nloc, n)).tobsr(blocksize=(bs, bs))
            A = PETSc.Mat().createBAIJ(
                sizes, bs, csr=(B.indptr.astype(PETSc.IntType), B.indices.astype(PETSc.IntType),
                                np.ascontiguousarray(B.data).reshape(-1)), comm=comm)
        else:
            A = PETSc.Mat().createAIJ(sizes, bsize=bs, csr=(lp, lj, lv), comm=comm)
            A = A.convert("baij")
        A.assemble()
        return A, time.perf_counter() - t

    results = {}
    for fmt in a.formats.split(","):
        A, t_make = make(fmt)
        info = A.getInfo(PETSc.Mat.InfoType.GLOBAL_SUM)
        x, y = A.createVecs()
        x.setArray(x_np[r0:r1])
        A.mult(x, y)
        err = np.abs(y.getArray() - y_ref).max() / max(1e-300, np.abs(y_ref).max())
        say(f"\n[{fmt}] {A.getType()}, block size {A.getBlockSize()}, built in {t_make:.2f} s, "
            f"nonzeros stored {info['nz_used']:.0f} (allocated {info['nz_allocated']:.0f}), "
            f"memory {info['memory'] / 1e6:.1f} MB; max |A x - CSR x| / max |CSR x| on rank 0 "
            f"= {err:.1e}")
        if err > 1e-12:
            print(f"rank {rank}: [{fmt}] product differs from the CSR product ({err:.1e})",
                  flush=True)
            sys.exit(3)

        # MatMult alone.
        for _ in range(5):
            A.mult(x, y)
        comm.barrier()
        t = PETSc.Log.getTime()
        for _ in range(a.matmults):
            A.mult(x, y)
        comm.barrier()
        t_mult = (PETSc.Log.getTime() - t) / a.matmults
        say(f"[{fmt}] MatMult: {a.matmults} calls, {t_mult * 1e6:.1f} us / call")

        # BiCGStab, fixed iterations.
        ksp = PETSc.KSP().create(comm=comm)
        ksp.setOperators(A)
        ksp.setType("bcgs")
        ksp.getPC().setType(a.pc)
        ksp.setTolerances(rtol=1e-30, atol=0.0, divtol=1e300, max_it=a.iterations)
        ksp.setInitialGuessNonzero(False)
        if not a.default_convergence:
            ksp.setConvergenceTest(lambda ksp, its, rnorm: False)  # never stop: max_it runs
        ksp.setFromOptions()
        b = A.createVecLeft()
        b.setArray(b_full[r0:r1])
        xs = A.createVecRight()
        ksp.setUp()
        ksp.solve(b, xs)  # warm-up
        times = []
        for _ in range(a.repeat):
            comm.barrier()
            t = PETSc.Log.getTime()
            ksp.solve(b, xs)
            comm.barrier()
            times.append(PETSc.Log.getTime() - t)
        its = ksp.getIterationNumber()
        reason = ksp.getConvergedReason()
        r = b.duplicate()
        A.mult(xs, r)
        r.aypx(-1.0, b)
        rel = r.norm() / b.norm()
        per_it = [t / max(its, 1) * 1e3 for t in times]
        norm = {v: k for k, v in vars(PETSc.KSP.NormType).items() if isinstance(v, int)}
        say(f"[{fmt}] BiCGStab (bcgs, pc {ksp.getPC().getType()}, norm "
            f"{norm.get(ksp.getNormType(), ksp.getNormType())}): {its} iterations (reason {reason}), true residual "
            f"{rel:.2e}; ms / iteration per run: " + ", ".join(f"{p:.3f}" for p in per_it)
            + f"; median {sorted(per_it)[len(per_it) // 2]:.3f}, min {min(per_it):.3f}")
        if its != a.iterations and not a.default_convergence:
            say(f"[{fmt}] WARNING: {its} iterations, not {a.iterations}")
        results[fmt] = (t_mult, sorted(per_it)[len(per_it) // 2], min(per_it))

        # Operations per iteration, from PETSc's event log, on one more solve.
        if a.count_ops:
            PETSc.Log.begin()
            names = ["MatMult", "PCApply", "VecDot", "VecDotNorm2", "VecNorm", "VecAXPBYCZ",
                     "VecWAXPY", "VecCopy", "VecSet"]
            before = {e: PETSc.Log.Event(e).getPerfInfo()["count"] for e in names}
            ksp.solve(b, xs)
            its = ksp.getIterationNumber()
            counts = {e: PETSc.Log.Event(e).getPerfInfo()["count"] - before[e] for e in names}
            say(f"[{fmt}] per solve of {its} iterations (event log): "
                + ", ".join(f"{e} {c}" for e, c in counts.items() if c))
            mm = counts["MatMult"]
            say(f"[{fmt}] MatMults per iteration: {mm / max(its, 1):.3f}")
        ksp.destroy()
        A.destroy()

    say("\nsummary (rank 0): format | MatMult us/call | BiCGStab ms/it median | min")
    for fmt, (tm, med, mn) in results.items():
        say(f"  {fmt:5s} | {tm * 1e6:10.1f} | {med:8.3f} | {mn:8.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[1:]))
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("deck", help="print the deck of bench solve's synthetic system")
    d.add_argument("--grid", type=int, required=True)
    d.add_argument("--K", type=int, required=True)
    d.add_argument("--wells", type=int, default=16)
    c = sub.add_parser("convert", help="parse MATRIX.mtx once into MATRIX.mtx.npz (serial)")
    c.add_argument("matrix")
    r = sub.add_parser("run", help="time AIJ / BAIJ MatMult and BiCGStab (under mpirun)")
    r.add_argument("matrix")
    r.add_argument("rhs", nargs="?", help="b (MatrixMarket array); ones when absent")
    r.add_argument("--block-size", type=int, required=True, help="K")
    r.add_argument("--iterations", type=int, default=200)
    r.add_argument("--repeat", type=int, default=3, help="timed solves (after one warm-up)")
    r.add_argument("--matmults", type=int, default=100)
    r.add_argument("--formats", default="aij,baij",
                   help="any of aij, baij, aij-noinode (AIJ with -mat_no_inode)")
    r.add_argument("--pc", default="none", help="PC type (none; 'bjacobi' is PETSc's default)")
    r.add_argument("--default-convergence", action="store_true",
                   help="PETSc's own convergence test (rtol 1e-30) instead of 'never stop'")
    r.add_argument("--count-ops", action="store_true", default=True)
    r.add_argument("--no-count-ops", dest="count_ops", action="store_false")
    r.add_argument("--threads", type=int, default=0,
                   help="OMP/OpenBLAS threads per rank (default 1)")
    r.add_argument("--petsc-options", nargs=argparse.REMAINDER, default=[],
                   help="the rest goes to PETSc (e.g. -log_view)")
    a = ap.parse_args()
    if a.cmd == "deck":
        sys.stdout.write(deck_text(a.grid, a.K, a.wells))
    elif a.cmd == "convert":
        convert(a.matrix)
    else:
        cmd_run(a)


if __name__ == "__main__":
    main()
