#!/usr/bin/env python3
"""make_problems.py: test and benchmark instances of the problem classes gsolve's defaults were
not shaped on, assembled with scikit-fem, numpy and scipy, written as files gsolve reads.

  python3 bench/problems/make_problems.py --class NAME [--size small|medium|full|N]
          [--refine L] [--out DIR] [--seed S] [--format auto|mtx|mtx.gz|npz]

Classes (--class all: every one; --list: the list with sizes):
  supg         -eps lap u + w.grad u = f, P1 + SUPG (standard tau) on unstructured tets of
               [-1,1]^3, the double-glazing (recirculating) wind, Peclet 1e3; nonsymmetric
  sky          -div(eps D grad u) + w.grad u, first-order upwind finite differences on the unit
               cube, D = 1e3 in "skyscrapers" (columns of random height) and 1 elsewhere, the
               same recirculating wind; nonsymmetric (AGMG's "sky" type of test)
  spe10        -div(K grad p) = f, P1 on tets of an SPE10-shaped box (60 x 220 x 85 cells at
               scale 1, cells 20 x 10 x 2), K log-normal, correlated along layers, contrast 1e6
  channel      as spe10, K channelized: sinuous high-permeability channels in each layer
  elast45      linear elasticity, P1 vector on unstructured tets of a 4 x 1 x 1 beam clamped at
  elast49      x = 0, nu = 0.45 / 0.49; writes the six rigid-body modes as NAME_nullspace.npy
  circuit      circuit-like nonsymmetric: a conductance graph with power-law degrees, a few
               supply rails coupled to a large part of the nodes (very long rows), grounds,
               and transconductance (VCCS) stamps; the symmetric part is positive definite
  circuit_spd  the same graph without the VCCS stamps: SPD
  poisson_p1   -lap u = f, P1 / P2 on an unstructured tet mesh of the unit cube with four
  poisson_p2   spherical holes (Neumann on the holes), refined --refine times

Sizes: --size small (test fixtures, < 300 KB gzipped), medium (18k-220k rows, the host table),
full (the target sizes: supg ~1.5M, sky 27k, spe10 ~1.5M, circuits 150k, elasticity ~1.5M, poisson
P1 at refine 3 ~1.6M), or an integer (cells a side; rows for the circuits; the scale factor x 100
for spe10/channel). Dirichlet rows are eliminated, so every matrix is nonsingular. b = ones
(gsolve's problem.rhs = "ones"). Each instance prints: rows, nnz, symmetry, a description.
Needs: pip install scikit-fem pyamg (pyamg only for --check). Full sizes take GBs of memory.
"""
import argparse
import gzip
import os
import sys

import numpy as np
import scipy.io
import scipy.ndimage
import scipy.sparse as sp
import scipy.spatial

# per class: the resolution each named size stands for (see --help)
SIZES = {
    "supg": {"small": 10, "medium": 40, "full": 116},
    "sky": {"small": 12, "medium": 30, "full": 30},
    "spe10": {"small": 10, "medium": 35, "full": 110},
    "channel": {"small": 10, "medium": 35, "full": 110},
    "elast45": {"small": 3, "medium": 18, "full": 50},
    "elast49": {"small": 3, "medium": 18, "full": 50},
    "circuit": {"small": 1200, "medium": 18000, "full": 150000},
    "circuit_spd": {"small": 1200, "medium": 18000, "full": 150000},
    "poisson_p1": {"small": 10, "medium": 15, "full": 15},
    "poisson_p2": {"small": 5, "medium": 15, "full": 15},
}
REFINE = {"poisson_p1": {"small": 0, "medium": 2, "full": 3},
          "poisson_p2": {"small": 0, "medium": 1, "full": 2}}


# ---------------------------------------------------------------- meshes
def delaunay_box(ncell, lengths, rng, holes=()):
    """Unstructured tets of a box: Delaunay of a jittered lattice (ncell cells a side on the
    shortest edge). Boundary points move only within their face, so the hull stays the box;
    tets with a centroid inside a hole (center, radius) are dropped."""
    from skfem import MeshTet
    lengths = np.asarray(lengths, float)
    n = np.maximum(1, np.round(ncell * lengths / lengths.min())).astype(int)
    axes = [np.linspace(0.0, L, k + 1) for L, k in zip(lengths, n)]
    P = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3)
    h = lengths / n
    jitter = rng.uniform(-0.3, 0.3, P.shape) * h
    on_face = (np.isclose(P, 0.0) | np.isclose(P, lengths))
    P = P + np.where(on_face, 0.0, jitter)
    T = scipy.spatial.Delaunay(P).simplices
    # drop the flat tets the coplanar hull points can make, then the holes
    e1, e2, e3 = (P[T[:, k]] - P[T[:, 0]] for k in (1, 2, 3))
    vol = np.einsum("ij,ij->i", np.cross(e1, e2), e3) / 6.0
    keep = np.abs(vol) > 1e-3 * h.prod()
    c = P[T].mean(axis=1)
    for center, r in holes:
        keep &= np.linalg.norm(c - center, axis=1) > r
    T = T[keep]
    used = np.unique(T)
    renum = np.full(len(P), -1)
    renum[used] = np.arange(len(used))
    return MeshTet(np.ascontiguousarray(P[used].T), np.ascontiguousarray(renum[T].T))


def free_dofs(basis, on_dirichlet):
    """Indices of the dofs not on the boundary facets whose midpoints satisfy on_dirichlet."""
    facets = basis.mesh.facets_satisfying(on_dirichlet, boundaries_only=True)
    fixed = basis.get_dofs(facets).all()
    return np.setdiff1d(np.arange(basis.N), fixed)


def condense(A, I):
    A = A.tocsr()
    return A[I][:, I].tocsr()


# ---------------------------------------------------------------- fields
def wind(x, y):
    """Double-glazing wind (Elman, Silvester, Wathen) on [-1,1]^2: one recirculating cell."""
    return 2.0 * y * (1.0 - x * x), -2.0 * x * (1.0 - y * y)


def gaussian_field(shape, corr, rng):
    """Correlated standard Gaussian field on a cell grid: white noise through a Gaussian filter
    of corr cells (per axis), renormalised to mean 0, deviation 1."""
    g = scipy.ndimage.gaussian_filter(rng.standard_normal(shape), corr, mode="wrap")
    return (g - g.mean()) / g.std()


def contrast(logk, c):
    """K = exp(s logk) with s chosen so that max K / min K = c exactly (a log-normal K)."""
    s = np.log(c) / (logk.max() - logk.min())
    k = np.exp(s * (logk - logk.min()))
    return k / np.sqrt(k.max() * k.min())  # geometric centre at 1


def layered_lognormal(shape, rng):
    """SPE10-like (Tarbert): thin layers, each its own mean, correlated along the layer."""
    nx, ny, nz = shape
    g = gaussian_field(shape, (0.15 * nx, 0.15 * ny, 0.7), rng)
    g += 0.8 * rng.standard_normal(nz)[None, None, :]  # layer-to-layer jumps
    return contrast(g, 1e6)


def channelized(shape, rng):
    """SPE10-like (Upper Ness): in each layer a few sinuous channels along y of high K in a
    low-K background, both log-normal with a small deviation; contrast 1e6 overall."""
    nx, ny, nz = shape
    x = (np.arange(nx) + 0.5) / nx
    y = (np.arange(ny) + 0.5) / ny
    X, Y = np.meshgrid(x, y, indexing="ij")
    inside = np.zeros(shape, bool)
    for k in range(nz):
        for _ in range(rng.integers(2, 5)):
            x0, amp = rng.uniform(0.1, 0.9), rng.uniform(0.05, 0.2)
            lam, phi = rng.uniform(0.3, 0.8), rng.uniform(0, 2 * np.pi)
            width = rng.uniform(0.03, 0.08)
            inside[:, :, k] |= np.abs(X - x0 - amp * np.sin(2 * np.pi * Y / lam + phi)) < width
    g = 0.3 * gaussian_field(shape, (2.0, 4.0, 0.5), rng) + np.where(inside, 4.0, -4.0)
    return contrast(g, 1e6)


# ---------------------------------------------------------------- classes
def make_supg(n, rng, peclet=1e3, **_):
    from skfem import Basis, BilinearForm, ElementTetP1, asm
    from skfem.helpers import dot, grad
    m = delaunay_box(n, (2.0, 2.0, 2.0), rng)
    m = m.translated((-1.0, -1.0, -1.0))
    eps = 1.0 / peclet
    basis = Basis(m, ElementTetP1())

    @BilinearForm
    def supg(u, v, w):
        wx, wy = wind(w.x[0], w.x[1])
        bgu = wx * grad(u)[0] + wy * grad(u)[1]
        bgv = wx * grad(v)[0] + wy * grad(v)[1]
        # tau = h / (2|w|) (coth Pe_h - 1/Pe_h), Pe_h = |w| h / (2 eps); the P1 residual's
        # diffusion term vanishes, so only the convective part is stabilised
        nw = np.maximum(np.sqrt(wx * wx + wy * wy), 1e-12)
        pe = nw * w.h / (2.0 * eps)
        xi = np.where(pe > 1e-3, 1.0 / np.tanh(np.maximum(pe, 1e-3)) - 1.0 / np.maximum(pe, 1e-3),
                      pe / 3.0)
        tau = w.h / (2.0 * nw) * xi
        return eps * dot(grad(u), grad(v)) + bgu * v + tau * bgu * bgv

    A = asm(supg, basis)
    I = free_dofs(basis, lambda x: np.ones(x.shape[1], bool))
    return condense(A, I), None, (
        f"P1+SUPG conv-diff on {m.t.shape[1]} unstructured tets of [-1,1]^3, double-glazing "
        f"wind, Pe {peclet:g}, Dirichlet all round")


def make_sky(n, rng, peclet=1e3, **_):
    h = 1.0 / (n + 1)
    x = (np.arange(n) + 1) * h
    X, Y, Z = np.meshgrid(x, x, x, indexing="ij")
    # skyscrapers: on a 10 x 10 plan, every other block is a column of random height, D = 1e3
    heights = rng.uniform(0.2, 1.0, (10, 10))

    def D(px, py, pz):
        i = np.minimum((px * 10).astype(int), 9)
        j = np.minimum((py * 10).astype(int), 9)
        tall = (i % 2 == 0) & (j % 2 == 0) & (pz < heights[i, j])
        return np.where(tall, 1e3, 1.0)

    eps = 1.0 / peclet
    wx, wy = wind(2 * X - 1, 2 * Y - 1)
    vel = (wx, wy, np.zeros_like(X))
    idx = np.arange(n ** 3).reshape(n, n, n)
    rows, cols, vals = [], [], []
    diag = np.zeros((n, n, n))
    P = (X, Y, Z)
    for ax in range(3):
        for sgn in (-1, 1):
            # diffusion on the face towards the neighbour: harmonic mean of D (cell-centred jumps)
            Q = [p.copy() for p in P]
            Q[ax] = Q[ax] + sgn * h
            dface = 2.0 / (1.0 / D(*P) + 1.0 / D(*Q))
            # first-order upwind: the inflow neighbour gets -|w_ax|/h
            up = np.maximum(-sgn * vel[ax], 0.0) / h
            c = eps * dface / (h * h) + up
            diag += c
            nb = np.roll(idx, -sgn, axis=ax)
            inside = (np.arange(n) + sgn >= 0) & (np.arange(n) + sgn < n)
            mask = np.broadcast_to(inside.reshape([-1 if a == ax else 1 for a in range(3)]),
                                   idx.shape)
            rows.append(idx[mask]), cols.append(nb[mask]), vals.append(-c[mask])
    rows.append(idx.ravel()), cols.append(idx.ravel()), vals.append(diag.ravel())
    A = sp.csr_matrix((np.concatenate(vals) * h * h,
                       (np.concatenate(rows), np.concatenate(cols))), shape=(n ** 3, n ** 3))
    return A, None, (
        f"upwind FD conv-diff on a {n}^3 grid, D = 1e3 in skyscrapers / 1 elsewhere, "
        f"double-glazing wind, Pe {peclet:g}")


def make_darcy(scale, rng, field, **_):
    from skfem import Basis, BilinearForm, ElementTetP1, MeshTet, asm
    from skfem.helpers import dot, grad
    f = scale / 100.0
    shape = tuple(max(2, int(round(c * f))) for c in (60, 220, 85))
    L = np.array([1200.0, 2200.0, 170.0]) / 2200.0  # SPE10's box, cells 20 x 10 x 2 ft at f=1
    m = MeshTet.init_tensor(*(np.linspace(0, Lk, k + 1) for Lk, k in zip(L, shape)))
    K = (layered_lognormal if field == "layered" else channelized)(shape, rng)
    # cell of each tet from its centroid
    c = m.p[:, m.t].mean(axis=1)
    ijk = [np.minimum((c[a] / (L[a] / shape[a])).astype(int), shape[a] - 1) for a in range(3)]
    kt = K[ijk[0], ijk[1], ijk[2]]
    basis = Basis(m, ElementTetP1(), intorder=1)

    @BilinearForm
    def darcy(u, v, w):
        return w.k * dot(grad(u), grad(v))

    A = asm(darcy, basis, k=np.repeat(kt[:, None], basis.X.shape[1], axis=1))
    # pressure given on the two ends of the long axis (y), no flow elsewhere
    I = free_dofs(basis, lambda x: np.isclose(x[1], 0.0) | np.isclose(x[1], L[1]))
    what = ("layered log-normal" if field == "layered" else "channelized") + " K, contrast 1e6"
    return condense(A, I), None, (
        f"P1 Darcy on {m.t.shape[1]} tets of an SPE10 box {shape[0]}x{shape[1]}x{shape[2]} "
        f"cells, {what}, p fixed at y = 0 and y = L")


def make_elasticity(n, rng, nu, **_):
    from skfem import Basis, ElementTetP1, ElementVector, asm
    from skfem.models.elasticity import lame_parameters, linear_elasticity
    m = delaunay_box(n, (4.0, 1.0, 1.0), rng)
    basis = Basis(m, ElementVector(ElementTetP1()))
    A = asm(linear_elasticity(*lame_parameters(1.0, nu)), basis)
    I = free_dofs(basis, lambda x: np.isclose(x[0], 0.0))
    # rigid-body modes at the free dofs (interleaved x,y,z a node): 3 translations, 3 rotations
    xyz = m.p - m.p.mean(axis=1, keepdims=True)
    N = m.p.shape[1]
    B = np.zeros((3 * N, 6))
    for c in range(3):
        B[c::3, c] = 1.0
    x, y, z = xyz
    B[0::3, 3], B[1::3, 3] = -y, x
    B[1::3, 4], B[2::3, 4] = -z, y
    B[0::3, 5], B[2::3, 5] = z, -x
    return condense(A, I), B[I], (
        f"P1 elasticity on {m.t.shape[1]} unstructured tets of a 4x1x1 beam, E 1, nu {nu}, "
        f"clamped at x = 0, rigid-body modes as near-nullspace")


def make_circuit(n, rng, vccs, **_):
    """Nodal analysis of a random netlist: G v = i. Degrees follow a power law (Chung-Lu,
    exponent 2.3), a tree keeps the graph connected, four supply rails touch 5-30% of the nodes
    each, conductances are log-uniform over 1e-3..1e3 and 1% of the nodes are grounded."""
    gamma, mean_deg = 2.3, 4.0
    wgt = (np.arange(n) + 10.0) ** (-1.0 / (gamma - 1.0))
    p = wgt / wgt.sum()
    m = int(mean_deg * n / 2)
    src, dst = rng.choice(n, m, p=p), rng.choice(n, m, p=p)
    tree_a = np.arange(1, n)
    tree_b = (rng.random(n - 1) * tree_a).astype(int)
    rails, rail_nodes = rng.choice(n, 4, replace=False), []
    for r in rails:
        k = int(rng.uniform(0.05, 0.3) * n)
        rail_nodes.append((np.full(k, r), rng.choice(n, k, replace=False)))
    a = np.concatenate([src, tree_a] + [x for x, _ in rail_nodes])
    b = np.concatenate([dst, tree_b] + [y for _, y in rail_nodes])
    keep = a != b
    a, b = a[keep], b[keep]
    g = 10.0 ** rng.uniform(-3, 3, len(a))
    W = sp.coo_matrix((g, (a, b)), shape=(n, n)).tocsr()
    W = W + W.T  # duplicate edges add up: parallel resistors
    ground = np.zeros(n)
    ground[rng.choice(n, max(1, n // 100), replace=False)] = 10.0 ** rng.uniform(-3, 0, max(1, n // 100))
    ground[rails] = 1e3  # rails are held by their sources
    A = sp.diags(np.asarray(W.sum(axis=1)).ravel() + ground) - W
    what = "SPD"
    if vccs:
        # a transistor as a VCCS: current gm (v_g - v_s) from drain d to source s; the diagonal
        # bumps at d and g keep the symmetric part diagonally dominant, so A stays nonsingular
        k = n // 10
        d, gt, s = (rng.integers(0, n, k) for _ in range(3))
        ok = (d != gt) & (d != s) & (gt != s)
        d, gt, s = d[ok], gt[ok], s[ok]
        gm = 10.0 ** rng.uniform(-2, 2, len(d))
        r = np.concatenate([d, d, s, s, d, gt])
        c = np.concatenate([gt, s, gt, s, d, gt])
        v = np.concatenate([gm, -gm, -gm, gm, gm, gm])
        A = A + sp.coo_matrix((v, (r, c)), shape=(n, n))
        what = f"nonsymmetric, {len(d)} VCCS stamps"
    perm = rng.permutation(n)  # netlist order, not degree order
    A = sp.csr_matrix(A)[perm][:, perm].tocsr()
    lens = np.diff(A.indptr)
    return A, None, (
        f"circuit-like {what}: power-law degrees, 4 rails, row length mean {lens.mean():.1f} "
        f"max {lens.max()}")


def make_poisson(m_base, rng, order, refine, **_):
    from skfem import Basis, ElementTetP1, ElementTetP2, asm
    from skfem.models.poisson import laplace
    holes = [((0.3, 0.3, 0.3), 0.15), ((0.7, 0.3, 0.6), 0.12),
             ((0.35, 0.7, 0.7), 0.13), ((0.7, 0.72, 0.28), 0.14)]
    holes = [(np.array(c), r) for c, r in holes]
    m = delaunay_box(m_base, (1.0, 1.0, 1.0), rng, holes)
    if refine:
        m = m.refined(refine)
    basis = Basis(m, ElementTetP1() if order == 1 else ElementTetP2())
    A = asm(laplace, basis)
    box = lambda x: np.any(np.isclose(x, 0.0) | np.isclose(x, 1.0), axis=0)
    I = free_dofs(basis, box)
    return condense(A, I), None, (
        f"P{order} Poisson on {m.t.shape[1]} unstructured tets of the unit cube with 4 "
        f"spherical holes, {m_base} cells a side, refined {refine}x, Dirichlet on the box")


CLASSES = {
    "supg": (make_supg, {}),
    "sky": (make_sky, {}),
    "spe10": (make_darcy, {"field": "layered"}),
    "channel": (make_darcy, {"field": "channel"}),
    "elast45": (make_elasticity, {"nu": 0.45}),
    "elast49": (make_elasticity, {"nu": 0.49}),
    "circuit": (make_circuit, {"vccs": True}),
    "circuit_spd": (make_circuit, {"vccs": False}),
    "poisson_p1": (make_poisson, {"order": 1}),
    "poisson_p2": (make_poisson, {"order": 2}),
}
SYMMETRIC = {"spe10", "channel", "elast45", "elast49", "circuit_spd", "poisson_p1", "poisson_p2"}


# ---------------------------------------------------------------- output
def write(A, path_base, fmt, comment):
    """Matrix Market (symmetric ones as their lower triangle; 17 digits round-trip) or npz."""
    if fmt == "auto":
        fmt = "mtx.gz" if A.nnz < 2_000_000 else "npz"
    if fmt == "npz":
        path = path_base + ".npz"
        sp.save_npz(path, A.tocsr())
        return path
    path = path_base + "." + fmt
    sym = "symmetric" if (A - A.T).count_nonzero() == 0 else "general"
    opener = gzip.open if fmt.endswith(".gz") else open
    with opener(path, "wb") as f:
        scipy.io.mmwrite(f, A.tocoo(), comment=comment, symmetry=sym, precision=17)
    return path


def build(name, size, refine, out, seed, fmt, check):
    fn, extra = CLASSES[name]
    res = SIZES[name][size] if size in SIZES[name] else int(size)
    kw = dict(extra)
    tag = size if size in SIZES[name] else f"n{res}"
    if name in REFINE:
        kw["refine"] = REFINE[name].get(size, 0) if refine is None else refine
        tag += f"_r{kw['refine']}"
    rng = np.random.default_rng(seed)
    A, B, desc = fn(res, rng, **kw)
    A = A.tocsr()
    A.sum_duplicates()
    A.eliminate_zeros()
    if name in SYMMETRIC:
        A = ((A + A.T) * 0.5).tocsr()  # exact symmetry: assembly rounding can differ by 1 ulp
    asym = sp.linalg.norm(A - A.T) / sp.linalg.norm(A)
    base = os.path.join(out, f"{name}_{tag}")
    cmd = f"make_problems.py --class {name} --size {size} --seed {seed}" + (
        f" --refine {kw['refine']}" if name in REFINE else "")
    path = write(A, base, fmt, f" {desc}\n {cmd}")
    if B is not None:
        np.save(base + "_nullspace.npy", B)
    sym = "symmetric" if asym == 0 else f"nonsymmetric (||A-A^T||_F/||A||_F {asym:.2g})"
    print(f"{os.path.basename(path)}: rows {A.shape[0]}, nnz {A.nnz}, {sym}; {desc}"
          + (f"; near-nullspace {os.path.basename(base)}_nullspace.npy" if B is not None else ""))
    if check:
        sanity(A, B, name in SYMMETRIC)
    sys.stdout.flush()


def sanity(A, B, symmetric):
    """PyAMG smoothed aggregation as a reference solve (b = ones, rtol 1e-8)."""
    import pyamg
    b = np.ones(A.shape[0])
    ml = pyamg.smoothed_aggregation_solver(A, B=B, symmetry="symmetric" if symmetric else "nonsymmetric")
    res = []
    x = ml.solve(b, tol=1e-8, accel="cg" if symmetric else "gmres", maxiter=500, residuals=res)
    r = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
    print(f"  pyamg SA + {'cg' if symmetric else 'gmres'}: {len(res) - 1} iterations, "
          f"operator complexity {ml.operator_complexity():.2f}, true residual {r:.1e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--class", dest="cls", default="all", help="a class name or all")
    ap.add_argument("--size", default="small", help="small | medium | full | an integer (see above)")
    ap.add_argument("--refine", type=int, default=None, help="refinements (poisson_p1/p2)")
    ap.add_argument("--out", default="/tmp/gsolve_problems", help="output folder (made if missing; default /tmp/gsolve_problems)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (meshes, fields, netlists)")
    ap.add_argument("--format", default="auto", choices=["auto", "mtx", "mtx.gz", "npz"],
                    help="auto: .mtx.gz below 2M nonzeros, else .npz")
    ap.add_argument("--check", action="store_true", help="also solve with PyAMG and print it")
    ap.add_argument("--list", action="store_true", help="list the classes and their sizes")
    a = ap.parse_args()
    if a.list:
        for k, v in SIZES.items():
            print(f"{k:12s} {v}" + (f" refine {REFINE[k]}" if k in REFINE else ""))
        return
    names = list(CLASSES) if a.cls == "all" else [a.cls]
    for k in names:
        if k not in CLASSES:
            sys.exit(f"make_problems.py: unknown class '{k}' (one of: {', '.join(CLASSES)}, all)")
    os.makedirs(a.out, exist_ok=True)
    for k in names:
        build(k, a.size, a.refine, a.out, a.seed, a.format, a.check)


if __name__ == "__main__":
    main()
