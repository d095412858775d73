"""gsolve's Python interface: solutions checked against scipy, every input type on the host,
the preconditioner inside scipy's cg, updates, many right-hand sides, errors. On a machine
with a GPU the same runs on it; CuPy and PyTorch paths run where those are installed."""

import gc

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import gsolve

def poisson2d(n):
    """5-point Laplacian on an n x n grid, as PyAMG's gallery.poisson((n, n))"""
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    A = (sp.kron(sp.eye(n), T) + sp.kron(T, sp.eye(n))).tocsr()
    A.sort_indices()
    return A


def rel_res(A, x, b):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


def has_gpu():
    A = poisson2d(8)
    try:
        with gsolve.Solver(A, {"run.backend": "cuda"}):
            return True
    except gsolve.Error:
        return False


BACKENDS = ["host"] + (["cuda"] if has_gpu() else [])


@pytest.mark.parametrize("backend", BACKENDS)
def test_poisson_against_scipy(backend):
    A = poisson2d(120)
    b = np.random.default_rng(1).standard_normal(A.shape[0])
    with gsolve.Solver(A, {"run.backend": backend, "solver.rtol": 1e-10}) as s:
        x = s.solve(b)
        info = s.info
    xs = sla.spsolve(A.tocsc(), b)
    assert np.linalg.norm(x - xs) / np.linalg.norm(xs) < 1e-8
    assert rel_res(A, x, b) < 1e-10
    assert info["converged"] and info["reason"] == "rtol"
    assert 1 < info["iterations"] < 30
    assert info["levels"] >= 2 and 1.0 < info["operator_complexity"] < 2.0
    assert info["level_table"][0]["rows"] == A.shape[0]
    assert info["level_table"][0]["nnz"] == A.nnz
    assert info["backend"] == backend
    assert abs(info["residual"] - rel_res(A, x, b)) < 1e-12
    assert info["setup_s"] > 0 and info["solve_s"] > 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_elasticity_with_rigid_body_modes(backend):
    pyamg = pytest.importorskip("pyamg")
    A, B = pyamg.gallery.linear_elasticity((60, 60), format="bsr")
    b = np.ones(A.shape[0])
    with gsolve.Solver(A, {"run.backend": backend}, near_nullspace=B) as s:
        x = s.solve(b)
        its = s.info["iterations"]
        assert s.info["amg_method"] == "sa"
    assert rel_res(A.tocsr(), x, b) < 1e-8
    with gsolve.Solver(A, {"run.backend": backend}) as s:  # BSR: its 2 x 2 blocks are the nodes
        assert s.get("amg.block_size") == "2"
    with gsolve.Solver(A, {"run.backend": backend, "amg.block_size": 1}) as s:  # params win
        assert s.get("amg.block_size") == "1"
    with gsolve.Solver(A.tocsr(), {"run.backend": backend}) as s:
        assert s.get("amg.block_size") == "0"  # CSR: none given
    with gsolve.Solver(A.tocsr(), {"run.backend": backend, "amg.method": "sa"}) as s:
        s.solve(b)
        its_scalar = s.info["iterations"]
    assert its <= its_scalar  # the rigid-body modes help


@pytest.mark.parametrize("backend", BACKENDS)
def test_nonsymmetric_gmres(backend):
    n = 80
    A = poisson2d(n).tolil()
    for i in range(n * n):  # upwind convection in x
        if i % n:
            A[i, i - 1] -= 4.0
        A[i, i] += 4.0
    A = A.tocsr()
    b = np.ones(A.shape[0])
    x = gsolve.solve(A, b, {"solver.type": "gmres", "run.backend": backend})
    assert rel_res(A, x, b) < 1e-8


@pytest.mark.parametrize("backend", BACKENDS)
def test_many_right_hand_sides(backend):
    A = poisson2d(70)
    rng = np.random.default_rng(2)
    B = rng.standard_normal((A.shape[0], 5))
    with gsolve.Solver(A, {"run.backend": backend}) as s:
        X = s.solve(B)
        cols = s.info["columns"]
        assert X.shape == B.shape and len(cols) == 5
        for j in range(5):
            xj = s.solve(B[:, j])
            assert np.allclose(X[:, j], xj, rtol=0, atol=1e-12 * np.abs(xj).max())
            assert cols[j]["iterations"] == s.info["iterations"]
            assert rel_res(A, X[:, j], B[:, j]) < 1e-8
        keep = X.copy()
        X0 = s.solve(B, x0=X)  # the solution as initial guess: nothing left to do
        assert s.info["iterations"] <= 1
        assert np.array_equal(X, keep)  # x0 is not written
        keep_b = B.copy()
        s.solve(B)
        assert np.array_equal(B, keep_b)  # nor is b
        assert rel_res(A, X0[:, 0], B[:, 0]) < 1e-8


@pytest.mark.parametrize("backend", BACKENDS)
def test_preconditioner_inside_scipy_cg(backend):
    A = poisson2d(100)
    b = np.ones(A.shape[0])
    with gsolve.Solver(A, {"run.backend": backend}) as s:
        M = s.aspreconditioner()
        counter = []
        x, info = sla.cg(A, b, M=M, rtol=1e-10, callback=lambda xk: counter.append(1))
        assert info == 0 and rel_res(A, x, b) < 1e-9
        assert len(counter) < 40  # unpreconditioned CG needs hundreds here
        z = M @ b
        assert z.shape == b.shape and np.all(np.isfinite(z))


def test_jacobi_preconditioner_is_exact():
    A = poisson2d(30) * 3.0
    r = np.random.default_rng(3).standard_normal(A.shape[0])
    with gsolve.Solver(A, {"solver.preconditioner": "jacobi"}) as s:
        z = s.aspreconditioner().matvec(r)
    assert np.allclose(z, r / A.diagonal(), rtol=1e-15, atol=0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_update_values(backend):
    A = poisson2d(60)
    b = np.ones(A.shape[0])
    with gsolve.Solver(A, {"run.backend": backend}) as s:
        s.solve(b)
        A2 = A.copy()
        A2.data *= 1.0 + np.linspace(0, 1, A2.nnz)  # new values, same pattern
        A2 = (A2 + A2.T) / 2
        A2 = A2.tocsr()
        A2.sort_indices()
        assert s.info["setup"] == "full"
        s.update(A2)
        assert s.info["setup"] == "prolongator"  # amg.reuse = auto keeps the prolongators
        assert "numeric Galerkin" in s.info["reused"]
        x = s.solve(b)
        assert rel_res(A2, x, b) < 1e-8
        ref = sla.spsolve(A2.tocsc(), b)
        assert np.linalg.norm(x - ref) / np.linalg.norm(ref) < 1e-6
    with gsolve.Solver(A, {"run.backend": backend, "amg.reuse": "none"}) as s:
        s.update(A2)
        assert s.info["setup"] == "full"
        x = s.solve(b)
        assert rel_res(A2, x, b) < 1e-8
        with pytest.raises(gsolve.InputError):
            s.update(poisson2d(61))


def test_every_host_input_type():
    A = poisson2d(40)
    b = np.arange(A.shape[0], dtype=np.float64) % 7 + 1
    ref = sla.spsolve(A.tocsc(), b)
    kinds = [A, A.tocsc(), A.tocoo(), A.tobsr(blocksize=(2, 2)), sp.csr_array(A),
             sp.coo_array(A), A.toarray(), A.astype(np.float32), A.tolil()]
    for M in kinds:
        x = gsolve.solve(M, b, {"solver.rtol": 1e-11})
        assert np.linalg.norm(x - ref) / np.linalg.norm(ref) < 1e-6 if M.dtype == np.float32 \
            else np.linalg.norm(x - ref) / np.linalg.norm(ref) < 1e-9, type(M)
    x = gsolve.solve(A, list(b))  # a list is an array too
    assert rel_res(A, x, b) < 1e-8
    # duplicates in COO are summed, rows in any order
    C = A.tocoo()
    D = sp.coo_matrix((np.concatenate([C.data / 2, C.data / 2]),
                       (np.concatenate([C.row, C.row]), np.concatenate([C.col, C.col]))),
                      shape=A.shape)
    x = gsolve.solve(D, b)
    assert rel_res(A, x, b) < 1e-8


def test_torch_cpu_input():
    torch = pytest.importorskip("torch")
    A = poisson2d(30)
    T = torch.sparse_csr_tensor(torch.from_numpy(A.indptr.astype(np.int64)),
                                torch.from_numpy(A.indices.astype(np.int64)),
                                torch.from_numpy(A.data), size=A.shape)
    b = np.ones(A.shape[0])
    x = gsolve.solve(T, torch.from_numpy(b))
    assert rel_res(A, np.asarray(x), b) < 1e-8


def test_device_arrays_cupy():
    cupy = pytest.importorskip("cupy")
    import cupyx.scipy.sparse as csp
    if "cuda" not in BACKENDS:
        pytest.skip("no GPU")
    A = poisson2d(100)
    dA = csp.csr_matrix(A)
    db = cupy.ones(A.shape[0])
    probe = gsolve.Solver(A, {"run.backend": "cuda"})
    before = probe._num("device_to_host_bytes")
    probe.close()
    with gsolve.Solver(dA) as s:
        dx = s.solve(db)
        assert s._num("device_to_host_bytes") - before < 8 * A.shape[0]  # A, b stayed
        assert isinstance(dx, cupy.ndarray)
        assert s.info["backend"] == "cuda"
    assert rel_res(A, dx.get(), np.ones(A.shape[0])) < 1e-8


def test_device_arrays_torch():
    torch = pytest.importorskip("torch")
    if "cuda" not in BACKENDS or not torch.cuda.is_available():
        pytest.skip("no GPU for PyTorch")
    A = poisson2d(100)
    T = torch.sparse_csr_tensor(torch.from_numpy(A.indptr.astype(np.int64)),
                                torch.from_numpy(A.indices.astype(np.int64)),
                                torch.from_numpy(A.data), size=A.shape).cuda()
    b = torch.ones(A.shape[0], dtype=torch.float64, device="cuda")
    probe = gsolve.Solver(A, {"run.backend": "cuda"})
    before = probe._num("device_to_host_bytes")
    with gsolve.Solver(T) as s:
        x = s.solve(b)
        after = s._num("device_to_host_bytes")
    probe.close()
    assert x.is_cuda
    assert after - before < 8 * A.shape[0]  # neither A nor b came to the host
    assert rel_res(A, x.cpu().numpy(), np.ones(A.shape[0])) < 1e-8


def test_errors():
    A = poisson2d(20)
    b = np.ones(A.shape[0])
    with pytest.raises(ValueError, match="did you mean 'amg.theta'"):
        gsolve.Solver(A, {"amg.thetta": 0.2})
    with pytest.raises(gsolve.InputError, match="out of range"):
        gsolve.Solver(A, {"amg.theta": 2})
    with pytest.raises(gsolve.Error, match="is not one of"):
        gsolve.Solver(A, {"solver.type": "cgs"})
    with pytest.raises(ValueError, match="square"):
        gsolve.Solver(sp.random(10, 12, density=0.3, format="csr"))
    with pytest.raises(ValueError, match="real systems"):
        gsolve.Solver(A.astype(np.complex128))
    bad = A.copy()
    bad.data[3] = np.nan
    with pytest.raises(ValueError, match="nan"):
        gsolve.Solver(bad)
    with pytest.raises(ValueError, match="configuration files"):
        gsolve.Solver(A, {"problem.matrix": "a.mtx"})
    s = gsolve.Solver(A)
    with pytest.raises(ValueError, match="shape"):
        s.solve(np.ones(A.shape[0] + 1))
    with pytest.raises(ValueError, match="shape"):
        s.solve(np.ones((A.shape[0], 2, 2)))
    with pytest.raises(ValueError, match="x0 has shape"):
        s.solve(np.ones((A.shape[0], 2)), x0=np.zeros((A.shape[0], 3)))
    s.close()
    s.close()  # twice is fine
    with pytest.raises(gsolve.Error, match="closed"):
        s.solve(b)
    with pytest.raises(ValueError):
        gsolve.set_diagnostic("GSOLVE_NO_SUCH", 1)


def test_not_converged():
    A = poisson2d(60)
    b = np.ones(A.shape[0])
    with gsolve.Solver(A, {"solver.max_iters": 2, "solver.preconditioner": "none"}) as s:
        x = s.solve(b)  # not an exception
        assert not s.info["converged"] and s.info["reason"] == "max_iters"
        assert x.shape == b.shape
    with gsolve.Solver(A, {"solver.max_iters": 2, "raise_not_converged": True}) as s:
        with pytest.raises(gsolve.NotConvergedError) as e:
            s.solve(b)
        assert e.value.info["iterations"] == 2


def test_settings_and_report():
    A = poisson2d(50)
    with gsolve.Solver(A, {"amg.theta": 0.25, "solver.type": "cg"}) as s:
        assert float(s.get("amg.theta")) == 0.25
        assert s.get("solver.preconditioner") == "amg"
        messages = []
        s.set_log(lambda level, msg: messages.append(msg))
        s.set("output.verbosity", 3)  # the AMG setup's trace comes to the log
        s.solve(np.ones(A.shape[0]))
        assert any("amg setup" in m for m in messages)
        assert "residual  true" in s.report()
    assert gsolve.version().startswith("0.1.0")


def test_solver_is_collected():
    A = poisson2d(40)
    for _ in range(20):  # contexts freed as they go out of scope
        s = gsolve.Solver(A)
        s.solve(np.ones(A.shape[0]))
        del s
        gc.collect()
