"""MatrixMarket reading shared by the PETSc comparison scripts (petsc_bench.py, petsc_cpr.py)."""
import sys


def read_mtx(path):
    """MatrixMarket coordinate -> (n_rows, n_cols, rows0, cols0, vals) with 0-based indices;
    array -> the vector. Only 'general' coordinate matrices; the entry count is checked."""
    import numpy as np
    with open(path) as f:
        header = f.readline().split()
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        size = [int(s) for s in line.split()]
        if header[2] == "array":
            return np.loadtxt(f, ndmin=1).ravel()
        data = np.loadtxt(f, ndmin=2)
    if header[4] != "general":
        sys.exit(f"{path}: only 'general' MatrixMarket matrices are read (got {header[4]})")
    if data.shape[0] != size[2]:
        sys.exit(f"{path}: {data.shape[0]} entries, header says {size[2]}")
    return size[0], size[1], data[:, 0].astype(np.int64) - 1, \
        data[:, 1].astype(np.int64) - 1, data[:, 2]
