#!/usr/bin/env python3
"""Write a sparse system for gsolve with h5py: the scipy CSR layout, plus a right-hand side.

Usage: python3 h5py_write_example.py OUT.h5
Then:  gsolve OUT.h5   (the matrix is read from group "/", b beside it)
"""
import sys

import h5py
import numpy as np
import scipy.sparse as sp

# A: 2-D 5-point Laplacian on a 30 x 30 grid (900 x 900, 4380 nonzeros); b: all ones.
n = 30
T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
A = (sp.kron(sp.identity(n), T) + sp.kron(T, sp.identity(n))).tocsr()
b = np.ones(A.shape[0])

with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("data", data=A.data)
    f.create_dataset("indices", data=A.indices)
    f.create_dataset("indptr", data=A.indptr)
    f.attrs["shape"] = A.shape
    f.create_dataset("b", data=b)
