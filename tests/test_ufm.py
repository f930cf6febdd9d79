"""The UFM of paper 004 (theorems.neural_collapse.ufm) against independent computations.

Closed forms are compared with scipy 1-D minimisations of functions written out here from the proof of
Lemma 4.2 (Appendix A of paper 004), with reference numbers computed independently with numpy/scipy, and with
explicit configurations built from scratch in numpy. The objective is compared with
torch.nn.functional's losses.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy.optimize import minimize_scalar

from theorems.core.context import Context
from theorems.data.frames import embed_in_ones_complement, simplex_etf
from theorems.metrics.neural_collapse import nc1, nc2a, nc2b, nc3
from theorems.neural_collapse.ufm import (
    GTOL,
    closed_form,
    collapsed_pair,
    collapsed_value,
    mse_signed_simplex_value,
    printed_mse_row_norm,
    random_rotation_of_ones_complement,
    solve_ufm,
    ufm_objective,
)
from theorems.optim.manifolds import feasibility_residual, ln, orthonormal_basis_of_ones_complement

DT = torch.float64
CPU = "cpu"  # unit tests of the machinery compare with CPU references, whatever --device says
VALUE_RTOL = 1e-12  # the same number computed two ways in float64
ARGMIN_RTOL = 1e-6  # argmin from scipy's bounded Brent search (value-flat near the minimum)
FEAS_TOL = 1e-12

MSE_CONFIGS = [(2, 3, 0.1), (3, 5, 1e-3), (4, 6, 0.05), (5, 8, 10.0), (10, 11, 5e-3)]  # (K, d, λ), d ≥ K+1
CE_CONFIGS = [(2, 2, 0.1), (3, 4, 1.0), (4, 4, 0.05), (4, 6, 0.05), (10, 10, 5e-3), (5, 6, 1e-4)]  # d ≥ K


def labels_of(K: int, n: int) -> torch.Tensor:
    return torch.arange(K).repeat_interleave(n)


def mse_1d(z: float, K: int, d: int, lam: float) -> float:
    """Per-class MSE objective of the orthogonal collapsed configuration (proof of Lemma 4.2), by hand."""
    return 0.5 * (1 - z * math.sqrt(d)) ** 2 + 0.5 * lam * K * z**2


def ce_g(rho: float, K: int, d: int, lam: float) -> float:
    """g(ρ) = log(1 + (K−1)e^{−aρ}) + (λK/2)ρ², a = √d K/(K−1) (the CE lower bound of lemma_4_2)."""
    a = math.sqrt(d) * K / (K - 1)
    return math.log1p((K - 1) * math.exp(-a * rho)) + 0.5 * lam * K * rho**2


def scalar_min(f, hi: float):
    res = minimize_scalar(f, bounds=(0.0, hi), method="bounded", options={"xatol": 1e-13, "maxiter": 1000})
    return res.x, res.fun


# ----------------------------------------------------------------------------------------------------
# Closed forms vs 1-D minimisation
# ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("K,d,lam", MSE_CONFIGS + [(4, 4, 0.05), (3, 1, 0.2)])
def test_mse_closed_form_vs_scalar_minimisation(K, d, lam):
    opt = closed_form("mse", K, d, lam)
    # collapsed_value is the function written above
    for z in (0.0, 0.1, opt.row_norm, 1.0):
        assert collapsed_value("mse", K, d, lam, z) == pytest.approx(mse_1d(z, K, d, lam), rel=VALUE_RTOL)
    z_ref, v_ref = scalar_min(lambda z: mse_1d(z, K, d, lam), 2 / math.sqrt(d))
    assert opt.value == pytest.approx(K * lam / (2 * (d + K * lam)), rel=VALUE_RTOL)
    assert opt.value == pytest.approx(v_ref, rel=1e-10)
    assert opt.value <= v_ref * (1 + 1e-14)  # the closed form is the exact minimum
    assert opt.row_norm == pytest.approx(z_ref, rel=ARGMIN_RTOL)
    assert opt.frame == "orthogonal"
    assert opt.attainable == (d >= K + 1)


@pytest.mark.parametrize("K,d,lam", CE_CONFIGS + [(4, 3, 0.05), (3, 7, 1e-3), (8, 8, 10.0)])
def test_ce_closed_form_vs_scalar_minimisation(K, d, lam):
    opt = closed_form("ce", K, d, lam)
    a = math.sqrt(d) * K / (K - 1)
    for rho in (0.0, 0.3, opt.row_norm, 5.0):
        assert collapsed_value("ce", K, d, lam, rho) == pytest.approx(ce_g(rho, K, d, lam), rel=VALUE_RTOL)
    rho_ref, v_ref = scalar_min(lambda r: ce_g(r, K, d, lam), a / (lam * K) + 1)
    assert opt.value == pytest.approx(v_ref, rel=1e-10)
    assert opt.value <= v_ref * (1 + 1e-14)
    assert opt.row_norm == pytest.approx(rho_ref, rel=ARGMIN_RTOL)
    # first-order condition written out independently: λKρ = a(K−1)e^{−aρ}/(1 + (K−1)e^{−aρ})
    r = opt.row_norm
    rhs = a * (K - 1) * math.exp(-a * r) / (1 + (K - 1) * math.exp(-a * r))
    assert lam * K * r == pytest.approx(rhs, rel=1e-12)
    assert opt.frame == "simplex"
    assert opt.attainable == (d >= K)


@pytest.mark.parametrize(
    "loss,K,d,lam,value,row_norm,half_ulp",
    [  # an independent numpy/scipy computation (float64, 20 inits per instance); half_ulp is half a unit
        # in the last printed digit, the accuracy these numbers carry
        ("mse", 4, 6, 0.05, 1 / 62, 0.395079, 1e-15),
        ("mse", 4, 5, 0.05, 0.0192307692, None, 5e-11),
        ("mse", 10, 11, 0.005, 2.262443e-3, None, 5e-10),
        ("ce", 4, 6, 0.05, 0.1998919210, 1.131689, 5e-11),
        ("ce", 4, 4, 0.05, 0.2578862501, None, 5e-11),
        ("ce", 10, 10, 0.005, 9.484572e-2, None, 5e-9),
        ("ce", 4, 16, 0.005, 0.019353, None, 5e-7),
        ("ce", 2, 2, 0.1, 0.1560479308, None, 5e-11),
    ],
)
def test_closed_form_reference_numbers(loss, K, d, lam, value, row_norm, half_ulp):
    opt = closed_form(loss, K, d, lam)
    assert opt.value == pytest.approx(value, rel=0, abs=half_ulp)
    if row_norm is not None:
        assert opt.row_norm == pytest.approx(row_norm, rel=0, abs=5e-7)


def test_closed_form_edge_cases():
    assert closed_form("mse", 3, 5, 0.0).value == 0.0
    ce0 = closed_form("ce", 3, 5, 0.0)
    assert ce0.value == 0.0 and math.isinf(ce0.row_norm)
    assert closed_form("ce", 3, 5, -1.0).value == -math.inf
    with pytest.raises(ValueError, match="unknown loss"):
        closed_form("hinge", 3, 5, 0.1)


# ----------------------------------------------------------------------------------------------------
# Erratum A2: the printed MSE row norm
# ----------------------------------------------------------------------------------------------------
def test_printed_mse_row_norm_erratum_a2():
    # K=4, d=6, λ=0.05: z* = 0.395079 (independent computation), the proof's printed formula 0.340207
    assert printed_mse_row_norm(4, 6, 0.05) == pytest.approx(0.340207, rel=2e-6)
    assert closed_form("mse", 4, 6, 0.05).row_norm == pytest.approx(0.395079, rel=2e-6)
    for K, d, lam in MSE_CONFIGS + [(3, 2, 0.5)]:
        printed = printed_mse_row_norm(K, d, lam)
        assert printed == pytest.approx(1 / (math.sqrt(d) * (1 + lam * K)), rel=VALUE_RTOL)
        z = closed_form("mse", K, d, lam).row_norm
        assert abs(printed - z) > 1e-3 * z, (K, d, lam)
        # and the printed norm is not optimal: its collapsed value is strictly above L*
        assert mse_1d(printed, K, d, lam) > closed_form("mse", K, d, lam).value * (1 + 1e-9)
    # they agree exactly when d = 1
    for K, lam in ((2, 0.1), (5, 3.0)):
        assert printed_mse_row_norm(K, 1, lam) == pytest.approx(closed_form("mse", K, 1, lam).row_norm, rel=1e-15)


# ----------------------------------------------------------------------------------------------------
# The objective
# ----------------------------------------------------------------------------------------------------
def test_ufm_objective_matches_torch_losses():
    g = torch.Generator().manual_seed(0)
    K, n, d, lam = 4, 3, 6, 0.07
    labels = labels_of(K, n)
    W = torch.randn(3, K, d, generator=g, dtype=DT) * 2
    X = ln(torch.randn(3, d, K * n, generator=g, dtype=DT))
    ce = ufm_objective(W, X, labels, "ce", lam)
    mse = ufm_objective(W, X, labels, "mse", lam)
    assert ce.shape == (3,) and mse.shape == (3,)
    for i in range(3):
        Z = W[i] @ X[i]
        reg = 0.5 * lam * W[i].pow(2).sum()
        ref_ce = torch.nn.functional.cross_entropy(Z.T, labels) + reg
        Y = torch.nn.functional.one_hot(labels, K).to(DT).T
        ref_mse = torch.nn.functional.mse_loss(Z, Y, reduction="sum") / (2 * K * n) + reg
        torch.testing.assert_close(ce[i], ref_ce, rtol=VALUE_RTOL, atol=0)
        torch.testing.assert_close(mse[i], ref_mse, rtol=VALUE_RTOL, atol=0)
    with pytest.raises(ValueError, match="unknown loss"):
        ufm_objective(W, X, labels, "hinge", lam)


def test_ufm_objective_with_shuffled_labels():
    """Labels need not be class-by-class; CE must still pick each sample's own class."""
    g = torch.Generator().manual_seed(1)
    K, d = 3, 5
    labels = torch.tensor([2, 0, 1, 1, 0, 2, 2])
    W = torch.randn(K, d, generator=g, dtype=DT)
    X = ln(torch.randn(d, 7, generator=g, dtype=DT))
    ref = torch.nn.functional.cross_entropy((W @ X).T, labels) + 0.5 * 0.1 * W.pow(2).sum()
    torch.testing.assert_close(ufm_objective(W, X, labels, "ce", 0.1), ref, rtol=VALUE_RTOL, atol=0)


# ----------------------------------------------------------------------------------------------------
# Collapsed configurations
# ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("loss,K,d,lam", [("mse", *c) for c in MSE_CONFIGS] + [("ce", *c) for c in CE_CONFIGS])
@pytest.mark.parametrize("n", [1, 3])
def test_collapsed_pair_is_feasible_and_attains_closed_form(loss, K, d, lam, n):
    opt = closed_form(loss, K, d, lam)
    labels = labels_of(K, n)
    W, X = collapsed_pair(loss, K, n, d, opt.row_norm)
    assert W.shape == (K, d) and X.shape == (d, K * n) and W.dtype == DT
    assert feasibility_residual(X).item() <= FEAS_TOL * d
    value = ufm_objective(W, X, labels, loss, lam).item()
    assert value == pytest.approx(collapsed_value(loss, K, d, lam, opt.row_norm), rel=VALUE_RTOL)
    assert value == pytest.approx(opt.value, rel=VALUE_RTOL)
    # any row norm: ufm_objective of the pair = collapsed_value
    W2, X2 = collapsed_pair(loss, K, n, d, 0.37)
    assert ufm_objective(W2, X2, labels, loss, lam).item() == pytest.approx(
        collapsed_value(loss, K, d, lam, 0.37), rel=VALUE_RTOL)
    # its structure, with hand-known Grams: MSE z²I, CE ρ²(K/(K−1))E_K
    z = opt.row_norm
    G = W @ W.T
    if loss == "mse":
        torch.testing.assert_close(G, z**2 * torch.eye(K, dtype=DT), rtol=0, atol=1e-13)
        assert nc2b(W).item() <= 1e-12
    else:
        E = torch.eye(K, dtype=DT) - 1.0 / K
        torch.testing.assert_close(G, z**2 * K / (K - 1) * E, rtol=0, atol=1e-13)
        assert nc2a(W).item() <= 1e-12
    assert nc3(W, X, labels).item() <= 1e-13
    if n > 1:
        assert nc1(X, labels, K).item() <= 1e-13


def test_collapsed_pair_needs_room_in_ones_complement():
    with pytest.raises(ValueError):
        collapsed_pair("mse", 4, 2, 4, 0.3)  # K orthonormal vectors need d − 1 ≥ K
    with pytest.raises(ValueError):
        collapsed_pair("ce", 4, 2, 3, 0.3)  # a simplex of K vectors needs d − 1 ≥ K − 1


# embed_in_ones_complement is what collapsed_pair builds its frames with: it must be an isometry into 1^⊥.
@pytest.mark.parametrize("name", ["identity", "simplex", "random_full_rank", "random_rank_deficient_tail"])
def test_embed_in_ones_complement_is_an_isometry(name):
    K, d = 4, 7
    g = torch.Generator().manual_seed(3)
    if name == "identity":
        U = torch.eye(K, dtype=DT)
    elif name == "simplex":
        U = simplex_etf(K)
    elif name == "random_full_rank":
        U = torch.randn(5, K, generator=g, dtype=DT)
    else:  # rank 2, and its first two columns already span that rank
        a, b = torch.randn(5, 1, generator=g, dtype=DT), torch.randn(5, 1, generator=g, dtype=DT)
        U = torch.cat([a, b, a + b, 2 * a - b], dim=1)
    R = random_rotation_of_ones_complement(Context.make(CPU, seed=1), d)
    for rotation in (None, R):
        E = embed_in_ones_complement(U, d, rotation)
        assert E.shape == (d, U.shape[1])
        torch.testing.assert_close(E.T @ E, U.T @ U, rtol=0, atol=1e-12)  # Gram preserved
        torch.testing.assert_close(E.sum(0), torch.zeros(U.shape[1], dtype=DT), rtol=0, atol=1e-12)  # ⊂ 1^⊥


def test_embed_in_ones_complement_isometry_with_dependent_leading_columns():
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(4, 1, generator=g, dtype=DT), torch.randn(4, 1, generator=g, dtype=DT)
    U = torch.cat([a, a, b], dim=1)  # rank 2, but columns 0 and 1 coincide
    E = embed_in_ones_complement(U, 6)
    torch.testing.assert_close(E.T @ E, U.T @ U, rtol=0, atol=1e-12)


def rotation_fixing_ones(R: torch.Tensor, d: int) -> torch.Tensor:
    """d×d orthogonal Q with Q1 = 1 acting as R on 1^⊥ (built from an explicit basis)."""
    B = orthonormal_basis_of_ones_complement(d)
    return B @ R @ B.T + torch.full((d, d), 1.0 / d, dtype=DT)


@pytest.mark.parametrize("loss,K,n,d,lam", [("mse", 3, 2, 6, 0.1), ("ce", 4, 3, 6, 0.05), ("ce", 3, 2, 3, 1.0)])
def test_objective_invariant_under_rotation_of_ones_complement(loss, K, n, d, lam):
    ctx = Context.make(CPU, seed=7)
    labels = labels_of(K, n)
    opt = closed_form(loss, K, d, lam)
    R = random_rotation_of_ones_complement(ctx, d)
    torch.testing.assert_close(R @ R.T, torch.eye(d - 1, dtype=DT), rtol=0, atol=1e-13)
    # (a) the library's rotated optimum
    W, X = collapsed_pair(loss, K, n, d, opt.row_norm, rotation=R)
    assert feasibility_residual(X).item() <= FEAS_TOL * d
    assert ufm_objective(W, X, labels, loss, lam).item() == pytest.approx(opt.value, rel=VALUE_RTOL)
    # (b) any feasible pair, rotated by an explicit Q fixing 1: X -> QX, W -> WQᵀ
    Q = rotation_fixing_ones(R, d)
    torch.testing.assert_close(Q @ torch.ones(d, dtype=DT), torch.ones(d, dtype=DT), rtol=0, atol=1e-13)
    W = ctx.randn(5, K, d)
    X = ln(ctx.randn(5, d, K * n))
    QX = Q @ X
    assert float(feasibility_residual(QX).max()) <= FEAS_TOL * d
    torch.testing.assert_close(ufm_objective(W @ Q.T, QX, labels, loss, lam), ufm_objective(W, X, labels, loss, lam),
                               rtol=VALUE_RTOL, atol=0)


@pytest.mark.parametrize("loss,K,d,lam", [("mse", 3, 5, 0.1), ("ce", 4, 6, 0.05), ("ce", 3, 3, 2.0)])
def test_converse_unique_rescaling(loss, K, d, lam):
    """Lemma 4.2's converse: a collapsed pair with row norm s becomes optimal after
    W -> cW with the unique c = row_norm*/s, found here by a 1-D search over c."""
    n, s = 2, 3.3
    labels = labels_of(K, n)
    opt = closed_form(loss, K, d, lam)
    W, X = collapsed_pair(loss, K, n, d, s)
    c_ref, v_ref = scalar_min(lambda c: ufm_objective(c * W, X, labels, loss, lam).item(), 10.0)
    assert c_ref == pytest.approx(opt.row_norm / s, rel=ARGMIN_RTOL)
    assert v_ref == pytest.approx(opt.value, rel=1e-10)


# ----------------------------------------------------------------------------------------------------
# No feasible point beats the closed form
# ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("loss,K,n,d,lam", [
    ("mse", 2, 3, 3, 0.1), ("mse", 4, 3, 6, 0.05), ("mse", 5, 2, 6, 1e-3), ("mse", 3, 1, 8, 2.0),
    ("ce", 2, 3, 2, 0.1), ("ce", 4, 3, 4, 0.05), ("ce", 4, 3, 6, 0.05), ("ce", 6, 2, 7, 1e-3), ("ce", 3, 2, 5, 3.0),
])
def test_random_feasible_points_never_beat_closed_form(loss, K, n, d, lam):
    """Thousands of random feasible (W, X): W Gaussian at a log-uniform scale, X = ln(Gaussian); plus
    small perturbations of the optimum (the hardest points for a lower bound)."""
    ctx = Context.make(CPU, seed=K * 1000 + d * 10 + n)
    labels = labels_of(K, n)
    opt = closed_form(loss, K, d, lam)
    floor = opt.value * (1 - 1e-12)
    draws = 3000
    scale = 10.0 ** (ctx.rand(draws, 1, 1) * 3 - 2)  # 1e-2 .. 1e1
    W = scale * ctx.randn(draws, K, d) / math.sqrt(d)
    X = ln(ctx.randn(draws, d, K * n))
    values = ufm_objective(W, X, labels, loss, lam)
    assert float(values.min()) >= floor, (float(values.min()), opt.value)
    # random row norms near the optimum with collapsed features: W = s·U with s ~ row_norm·U(0.5, 1.5)
    W0, X0 = collapsed_pair(loss, K, n, d, opt.row_norm, random_rotation_of_ones_complement(ctx, d))
    eps = 10.0 ** (ctx.rand(draws, 1, 1) * 4 - 5)  # perturbation sizes 1e-5 .. 1e-1
    Wp = W0 * (0.5 + ctx.rand(draws, 1, 1)) + eps * ctx.randn(draws, K, d)
    Xp = ln(X0 + eps * ctx.randn(draws, d, K * n))
    values = ufm_objective(Wp, Xp, labels, loss, lam)
    assert float(values.min()) >= floor, (float(values.min()), opt.value)
    assert float(values.min()) <= opt.value * 1.01  # the perturbations do come close to L*


# ----------------------------------------------------------------------------------------------------
# MSE at d = K: the signed simplex (where Lemma 4.2 breaks, erratum A3)
# ----------------------------------------------------------------------------------------------------
def mse_numpy(W: np.ndarray, X: np.ndarray, y: np.ndarray, lam: float) -> float:
    K, N = W.shape[0], X.shape[1]
    Y = np.zeros((K, N))
    Y[y, np.arange(N)] = 1.0
    return float(np.sum((W @ X - Y) ** 2) / (2 * N) + 0.5 * lam * np.sum(W**2))


@pytest.mark.parametrize("K,lam", [(3, 0.05), (4, 0.05), (5, 0.05), (6, 0.01), (4, 1.0), (3, 2.0)])
def test_mse_signed_simplex_value_at_d_equals_k(K, lam):
    d, n = K, 2
    y = np.repeat(np.arange(K), n)
    # simplex ETF columns √(K/(K−1))(e_k − 1/K): unit vectors with pairwise −1/(K−1), entries sum to 0,
    # i.e. K equiangular unit vectors inside 1^⊥ ⊂ R^K (which has exactly K − 1 dims)
    U = math.sqrt(K / (K - 1)) * (np.eye(K) - np.ones((K, K)) / K)
    assert np.allclose(U.sum(axis=0), 0) and np.allclose(np.linalg.norm(U, axis=0), 1)
    rng = np.random.default_rng(K)
    signs = rng.choice([-1.0, 1.0], size=K)
    signs[0] = -1.0  # at least one flip: a *signed* simplex
    c = d / (K - 1) + lam * K
    expected = 0.5 * c / (d + c)
    for S in (np.ones(K), signs):
        Us = U * S  # u_k -> ±u_k
        X = math.sqrt(d) * Us[:, y]
        z_ref, v_ref = scalar_min(lambda z: mse_numpy(z * Us.T, X, y, lam), 2.0)
        assert v_ref == pytest.approx(expected, rel=1e-10)
        assert z_ref == pytest.approx(math.sqrt(d) / (d + c), rel=ARGMIN_RTOL)  # t* = z√d = d/(d+c)
        assert mse_signed_simplex_value(K, d, lam) == pytest.approx(v_ref, rel=1e-10)
        # the library's objective and metrics on the same configuration
        W = torch.as_tensor(z_ref * Us.T, dtype=DT)
        Xt = torch.as_tensor(X, dtype=DT)
        assert feasibility_residual(Xt).item() <= FEAS_TOL * d
        assert ufm_objective(W, Xt, torch.as_tensor(y), "mse", lam).item() == pytest.approx(v_ref, rel=VALUE_RTOL)
        assert nc2b(W).item() == pytest.approx(1 / math.sqrt(K), rel=1e-10)  # never orthogonal
    # and it is strictly above what the lemma's closed form claims (ratio 5.82 at K = d = 4, λ = 0.05)
    assert mse_signed_simplex_value(K, d, lam) > 1.05 * closed_form("mse", K, d, lam).value
    if (K, lam) == (4, 0.05):
        assert mse_signed_simplex_value(K, d, lam) == pytest.approx(0.1385542169, rel=0, abs=5e-11)


# ----------------------------------------------------------------------------------------------------
# The batched solver
# ----------------------------------------------------------------------------------------------------
def test_solve_ufm_tiny_ce_reaches_closed_form():
    K, n, d, lam = 3, 2, 4, 0.1
    ctx = Context.make(CPU, seed=0)
    sol = solve_ufm("ce", K, n, d, lam, restarts=4, ctx=ctx)
    opt = closed_form("ce", K, d, lam)
    assert sol.status == [GTOL] * 4, sol.status
    assert bool(sol.converged.all())
    assert float(sol.grad_norm.max()) <= sol.gtol * 1.01
    assert float(feasibility_residual(sol.X).max()) <= FEAS_TOL * d
    # values reported are the objective at the reported (W, X)
    torch.testing.assert_close(sol.values, ufm_objective(sol.W, sol.X, sol.labels, "ce", lam), rtol=0, atol=0)
    assert float(sol.values.min()) >= opt.value * (1 - 1e-12)  # nobody beats the closed form
    assert float(sol.values.min()) / opt.value - 1 <= 1e-9
    best = int(sol.values.argmin())
    torch.testing.assert_close(sol.row_norms[best], torch.full((K,), opt.row_norm, dtype=DT), rtol=1e-4, atol=0)
    assert float(sol.metrics["nc1"][best]) <= 1e-6 and float(sol.metrics["nc3"][best]) <= 1e-6
    assert float(sol.metrics["nc2a"][best]) <= 1e-3


def test_solve_ufm_is_seeded():
    a = solve_ufm("ce", 3, 2, 4, 0.1, restarts=2, ctx=Context.make(CPU, seed=5), max_iter=20)
    b = solve_ufm("ce", 3, 2, 4, 0.1, restarts=2, ctx=Context.make(CPU, seed=5), max_iter=20)
    assert torch.equal(a.W, b.W) and torch.equal(a.X, b.X) and a.status == b.status


# ----------------------------------------------------------------------------------------------------
# The batched Riemannian Newton behind solve_ufm (default method)
# ----------------------------------------------------------------------------------------------------
REACH_RTOL = 1e-9  # best certified start vs L* (lemma_4_2 asks 1e-7; Newton lands at rounding level)


@pytest.mark.parametrize("loss,K,n,d,lam", [
    ("mse", 4, 3, 6, 0.05), ("ce", 4, 3, 6, 0.05), ("mse", 3, 2, 6, 1e-3), ("ce", 5, 2, 5, 1e-3),
    ("mse", 2, 4, 3, 2.0), ("ce", 3, 1, 3, 10.0),
])
def test_solve_ufm_newton_reaches_closed_form(loss, K, n, d, lam):
    restarts = 8
    sol = solve_ufm(loss, K, n, d, lam, restarts=restarts, ctx=Context.make(CPU, seed=3))
    opt = closed_form(loss, K, d, lam)
    assert sol.status == [GTOL] * restarts, sol.status
    assert bool(sol.converged.all()) and float(sol.grad_norm.max()) <= sol.gtol
    assert float(feasibility_residual(sol.X).max()) <= FEAS_TOL * d
    torch.testing.assert_close(sol.values, ufm_objective(sol.W, sol.X, sol.labels, loss, lam), rtol=0, atol=0)
    assert float(sol.values.min()) >= opt.value * (1 - 1e-12)  # nobody beats the closed form
    assert float(sol.values.min()) / opt.value - 1 <= REACH_RTOL
    assert (sol.iterations > 0).all() and int(sol.iterations.max()) < 200  # Newton: tens, not thousands
    assert sol.raw.status == sol.status


def test_solve_ufm_unconverged_run_is_reported_as_such():
    """Two Newton steps from random starts cannot certify the MSE optimum: 'max_iter', never 'gtol'."""
    sol = solve_ufm("mse", 4, 3, 6, 0.05, restarts=6, ctx=Context.make(CPU, seed=4), max_iter=2)
    assert sol.status == ["max_iter"] * 6, sol.status
    assert not bool(sol.converged.any())
    assert bool((sol.grad_norm > sol.gtol).all())
    assert sol.iterations.tolist() == [2] * 6
    assert float(feasibility_residual(sol.X).max()) <= FEAS_TOL * 6  # still feasible


def test_solve_ufm_full_run_is_deterministic():
    a = solve_ufm("ce", 4, 3, 6, 0.05, restarts=5, ctx=Context.make(CPU, seed=11))
    b = solve_ufm("ce", 4, 3, 6, 0.05, restarts=5, ctx=Context.make(CPU, seed=11))
    c = solve_ufm("ce", 4, 3, 6, 0.05, restarts=5, ctx=Context.make(CPU, seed=12))
    assert torch.equal(a.W, b.W) and torch.equal(a.X, b.X) and torch.equal(a.values, b.values)
    assert a.status == b.status and torch.equal(a.iterations, b.iterations)
    assert not torch.equal(a.W, c.W)


def test_solve_ufm_lbfgs_method_and_same_starts():
    """method='lbfgs' (the previous solver) is still there, starts from the same draws, and certifies."""
    K, n, d, lam = 3, 2, 4, 0.1
    newton = solve_ufm("ce", K, n, d, lam, restarts=3, ctx=Context.make(CPU, seed=0), max_iter=0)
    lbfgs = solve_ufm("ce", K, n, d, lam, restarts=3, ctx=Context.make(CPU, seed=0), max_iter=0, method="lbfgs")
    torch.testing.assert_close(newton.W - newton.W.mean(-1, keepdim=True), lbfgs.W - lbfgs.W.mean(-1, keepdim=True),
                               rtol=0, atol=1e-14)  # Newton drops W's decoupled 1-component up front
    torch.testing.assert_close(newton.X, lbfgs.X, rtol=0, atol=1e-14)
    sol = solve_ufm("ce", K, n, d, lam, restarts=3, ctx=Context.make(CPU, seed=0), method="lbfgs")
    assert sol.status == [GTOL] * 3 and bool(sol.converged.all())
    assert float(sol.values.min()) / closed_form("ce", K, d, lam).value - 1 <= REACH_RTOL
    with pytest.raises(ValueError, match="unknown method"):
        solve_ufm("ce", K, n, d, lam, restarts=1, ctx=Context.make(CPU, seed=0), method="adam")


def test_solve_ufm_runs_under_meta_default_device():
    """Every tensor is created on the context's device: a default device of 'meta' must not capture any."""
    with torch.device("meta"):
        sol = solve_ufm("mse", 3, 2, 5, 0.1, restarts=2, ctx=Context.make(CPU, seed=0))
    assert sol.W.device.type == "cpu" and sol.status == [GTOL] * 2
