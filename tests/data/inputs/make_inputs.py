#!/usr/bin/env python3
"""Write the input files of the inputs tests (tests/io/test_inputs.c) into a folder.

Usage: python3 make_inputs.py OUTDIR      (needs numpy and h5py)

The files are committed beside this script, so the tests run without h5py; the test
h5_inputs_regenerated runs this script again where h5py is found and checks its output too.

  matlab.mat   a MATLAB v7.3 file as MATLAB writes it: a 512-byte user block with MATLAB's
               header, variable A (36 x 36 sparse: group /A with datasets data, ir, jc and
               attributes MATLAB_class = "double", MATLAB_sparse = 36), b (36 x 1 double:
               dataset /b of 1 x 36, MATLAB stores arrays transposed), x0 (36 x 1) and B
               (36 x 3 double: dataset /B of 3 x 36), and a "#refs#" group of MATLAB's own
  two.mat      the same with a second sparse variable K: the matrix must be chosen
  nested.h5    the scipy CSR layout in group /sys/A (no problem.group: found), B (36 x 3,
               h5py/NumPy order: a 36 x 3 dataset) at /sys/B
  b.npy        b as a 1-D float64 array;  b_col.npy the same as 36 x 1
  B_c.npy      B as 36 x 3, C order;  B_f.npy the same in Fortran order;  B_t.npy as 3 x 36
  f32.npy      b as float32;  i64.npy b as int64 (both read as doubles)

A is the 2-D 5-point Laplacian of a 6 x 6 grid; b[i] = i + 1; x0[i] = 0.5; B[i, j] = 100 j + i.
"""
import sys

import h5py
import numpy as np

out = sys.argv[1]
n = 6
T = np.diag(2.0 * np.ones(n)) - np.diag(np.ones(n - 1), 1) - np.diag(np.ones(n - 1), -1)
A = np.kron(np.eye(n), T) + np.kron(T, np.eye(n))  # 36 x 36, dense here
N = A.shape[0]
b = np.arange(1.0, N + 1.0)
x0 = 0.5 * np.ones(N)
B = np.array([[100.0 * j + i for j in range(3)] for i in range(N)])  # 36 x 3


def csc(M):
    """MATLAB's sparse storage: column pointers jc, row indices ir, values data."""
    ir, data, jc = [], [], [0]
    for j in range(M.shape[1]):
        for i in range(M.shape[0]):
            if M[i, j] != 0:
                ir.append(i)
                data.append(M[i, j])
        jc.append(len(ir))
    return np.array(data), np.array(ir, dtype=np.uint64), np.array(jc, dtype=np.uint64)


def matlab_file(path, sparse, dense):
    with h5py.File(path, "w", userblock_size=512) as f:
        for name, M in sparse.items():
            data, ir, jc = csc(M)
            g = f.create_group(name)
            g.attrs.create("MATLAB_class", np.bytes_("double"))
            g.attrs.create("MATLAB_sparse", np.uint64(M.shape[0]))
            g.create_dataset("data", data=data)
            g.create_dataset("ir", data=ir)
            g.create_dataset("jc", data=jc)
        for name, M in dense.items():
            M2 = M.reshape(-1, 1) if M.ndim == 1 else M
            d = f.create_dataset(name, data=np.ascontiguousarray(M2.T))  # column-major
            d.attrs.create("MATLAB_class", np.bytes_("double"))
        refs = f.create_group("#refs#")
        refs.create_dataset("a", data=np.zeros(2, dtype=np.uint64))
    text = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Wed Nov 25 10:00:00 2026 " \
           b"HDF5 schema 1.00 ."
    header = text.ljust(116, b" ") + b"\x00" * 8 + b"\x00\x02" + b"IM"
    with open(path, "r+b") as f:
        f.write(header)


matlab_file(f"{out}/matlab.mat", {"A": A}, {"b": b, "x0": x0, "B": B})
matlab_file(f"{out}/two.mat", {"A": A, "K": 2.0 * A}, {"b": b})

with h5py.File(f"{out}/nested.h5", "w") as f:
    g = f.create_group("sys/A")
    rows, cols = np.nonzero(A)
    indptr = np.searchsorted(rows, np.arange(N + 1))
    g.create_dataset("data", data=A[rows, cols])
    g.create_dataset("indices", data=cols.astype(np.int32))
    g.create_dataset("indptr", data=indptr.astype(np.int32))
    g.attrs["shape"] = np.array([N, N])
    f["sys"].create_dataset("B", data=B)

np.save(f"{out}/b.npy", b)
np.save(f"{out}/b_col.npy", b.reshape(N, 1))
np.save(f"{out}/B_c.npy", np.ascontiguousarray(B))
np.save(f"{out}/B_f.npy", np.asfortranarray(B))
np.save(f"{out}/B_t.npy", np.ascontiguousarray(B.T))
np.save(f"{out}/f32.npy", b.astype(np.float32))
np.save(f"{out}/i64.npy", b.astype(np.int64))
