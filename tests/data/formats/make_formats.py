#!/usr/bin/env python3
"""Write the input files of the formats tests (tests/io/test_formats.c, tests/cli/test_formats.sh).

Usage: python3 make_formats.py OUTDIR      (needs numpy and scipy)

The files are committed beside this script, so the tests run without scipy.

  A_csr.npz      A (below) by scipy.sparse.save_npz as CSR, deflate-compressed
  A_csc.npz      A as CSC, stored (save_npz(..., compressed=False)), int64 indices
  A_coo.npz      A as COO (row, col), deflate-compressed, float32 values (A is exact in float32)
  A_bsr.npz      A as BSR (2 x 2 blocks): refused, with the way to convert it
  Ab_i4.npy      b = A @ x_ref as int32, little-endian
  Ab_f8_be.npy   b as big-endian float64;  Ab_i8_be.npy as big-endian int64
  B_f4_f.npy     B (36 x 3, B[i, j] = 100 j + i) as float32 in Fortran order
  c16.npy        b as complex128: refused
  x_ref.npy      x_ref[i] = (i % 7) - 3, the exact solution of A x = b
  near_sym.mtx   a 3 x 3 matrix whose a_12 and a_21 differ by 3 units in the last place
  b_array.mtx    b as a Matrix Market array (a vector for --inspect)

A is the 2-D 5-point Laplacian of a 6 x 6 grid (36 x 36, 156 nonzeros), as in ../inputs.
"""
import sys

import numpy as np
import scipy.sparse as sp

out = sys.argv[1]
n = 6
T = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])
A = (sp.kron(sp.eye(n), T) + sp.kron(T, sp.eye(n))).tocsr()
A.eliminate_zeros()
N = A.shape[0]
x_ref = np.array([(i % 7) - 3.0 for i in range(N)])
b = A @ x_ref
B = np.array([[100.0 * j + i for j in range(3)] for i in range(N)])

sp.save_npz(f"{out}/A_csr.npz", A.tocsr(), compressed=True)
csc = A.tocsc()
csc.indices = csc.indices.astype(np.int64)
csc.indptr = csc.indptr.astype(np.int64)
sp.save_npz(f"{out}/A_csc.npz", csc, compressed=False)
sp.save_npz(f"{out}/A_coo.npz", A.tocoo().astype(np.float32), compressed=True)
sp.save_npz(f"{out}/A_bsr.npz", A.tobsr(blocksize=(2, 2)), compressed=True)
np.save(f"{out}/Ab_i4.npy", b.astype("<i4"))
np.save(f"{out}/Ab_f8_be.npy", b.astype(">f8"))
np.save(f"{out}/Ab_i8_be.npy", b.astype(">i8"))
np.save(f"{out}/B_f4_f.npy", np.asfortranarray(B.astype(np.float32)))
np.save(f"{out}/c16.npy", b.astype(np.complex128))
np.save(f"{out}/x_ref.npy", x_ref)

one = np.nextafter(np.nextafter(np.nextafter(1.0, 2), 2), 2)  # 1 + 3 ulp
with open(f"{out}/near_sym.mtx", "w") as f:
    f.write("%%MatrixMarket matrix coordinate real general\n3 3 7\n")
    f.write(f"1 1 4\n1 2 1\n2 1 {one:.17g}\n2 2 4\n2 3 -1\n3 2 -1\n3 3 4\n")
with open(f"{out}/b_array.mtx", "w") as f:
    f.write(f"%%MatrixMarket matrix array real general\n{N} 1\n")
    f.writelines(f"{v:.17g}\n" for v in b)
