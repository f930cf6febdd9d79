"""Unit tests of the paper-002 machinery: SSL triplets, the trace form, Stiefel flows and the ODE helpers.

Every reference value is computed independently (direct loss vs trace form, Monte Carlo vs closed form,
finite differences vs analytic velocities).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from theorems.core.context import Context
from theorems.data.ssl_pairs import dataset, make_moons
from theorems.optim.ode import integrate, integrate_batched, rhs_theorem2, rhs_theorem3
from theorems.optim.stiefel import (euclid_grads, flow_rhs, haar_stiefel, orthonormality_error, polar, qf, realise_q,
                                    step, trace_loss)
from theorems.ssl_dynamics.trace_form import activation_violations, c_tilde, ssl_loss, sym, trace_matrix


@pytest.fixture
def ctx():
    return Context.make("cpu", seed=11)


@pytest.mark.parametrize("loss", ["contrastive", "noncontrastive"])
def test_trace_form_equals_the_loss(ctx, loss):
    t = dataset(ctx, "gaussian", 50, d=4)
    W1, W2 = ctx.randn(7, 4), ctx.randn(7, 3)
    direct = ssl_loss(lambda X: X @ W1.T @ W2, t, loss)
    assert float(trace_loss(W1, W2, trace_matrix(t, loss))) == pytest.approx(float(direct), rel=1e-12)


def test_printed_noncontrastive_sign_gives_the_negated_loss(ctx):
    t = dataset(ctx, "gaussian", 50, d=3)
    Theta = ctx.randn(2, 3)
    printed = sym(c_tilde(t, "noncontrastive", sign=+1.0))
    assert float((Theta @ printed * Theta).sum()) == pytest.approx(-float(ssl_loss(lambda X: X @ Theta.T, t,
                                                                                    "noncontrastive")), rel=1e-12)


def test_moons_population_mean(ctx):
    X = make_moons(ctx, 4000, 0.0)
    assert X.mean(0).tolist() == pytest.approx([0.5, 0.25], abs=1e-3)


def test_retractions_and_realisation(ctx):
    A = ctx.randn(5, 9, 3)
    assert float(orthonormality_error(qf(A)).max()) < 1e-14
    assert float(orthonormality_error(polar(A)).max()) < 1e-14
    # qf has a positive diagonal R, so it is continuous: qf(Q) = Q for Q already orthonormal.
    Q = qf(A)
    assert torch.allclose(qf(Q), Q, atol=1e-14)
    C = sym(ctx.randn(4, 4))
    V = torch.linalg.eigh(C)[1]
    q0 = ctx.randn(4, 2)
    q0 = 0.8 * q0 / torch.linalg.matrix_norm(q0, ord=2)
    W1, W2 = realise_q(ctx, q0, V, h=9)
    assert float(orthonormality_error(W1)) < 1e-13 and float(orthonormality_error(W2)) < 1e-13
    assert torch.allclose(((W2.T @ W1) @ V).T, q0, atol=1e-13)


def test_euclidean_gradients_match_autograd(ctx):
    C = sym(ctx.randn(4, 4))
    W1, W2 = ctx.randn(6, 4).requires_grad_(True), ctx.randn(6, 2).requires_grad_(True)
    g = torch.autograd.grad(trace_loss(W1, W2, C), (W1, W2))
    a = euclid_grads(W1.detach(), W2.detach(), C)
    assert all(torch.allclose(x, y, atol=1e-12) for x, y in zip(g, a, strict=True))


def test_grassmann_step_is_first_order_consistent_with_its_flow(ctx):
    # One discrete step (a) vs the integrated flow over the same time: error O(η²).
    C = sym(ctx.randn(3, 3)).numpy()
    W1, W2 = haar_stiefel(ctx, h=6, k=3), haar_stiefel(ctx, h=6, k=2)
    rhs = flow_rhs(C, 3)
    errs = []
    for eta in (1e-2, 5e-3):
        a1, a2 = step(W1, W2, torch.as_tensor(C), eta, "grassmann")
        sol = integrate_batched(rhs, torch.cat([W1, W2], 1).numpy()[None], eta)
        errs.append(np.abs(torch.cat([a1, a2], 1).numpy() - sol.y[-1, 0]).max())
    assert 3.0 < errs[0] / errs[1] < 5.0  # quadratic local error


def test_theorem3_rhs_is_theorem2_rhs_at_z1(ctx):
    lam = np.sort(ctx.randn(5).numpy())
    q = ctx.randn(5, 1).numpy() * 0.3
    assert np.allclose(rhs_theorem3(lam, q), rhs_theorem2(lam, q), atol=1e-14)


def test_integrate_reports_its_certificate():
    sol = integrate(lambda y: -2.0 * y, np.array([1.0, 2.0]), np.linspace(0, 1, 5))
    assert sol.success and sol.certificate()["ode_rtol"] == 1e-11
    assert np.allclose(sol.y[-1], np.exp(-2.0) * np.array([1.0, 2.0]), rtol=1e-10)


@pytest.mark.parametrize("name, bad", [("tanh", []), ("softplus2", []), ("relu", ["φ'(0) = 1"]),
                                       ("sigmoid", ["φ(0) = 0", "φ'(0) = 1"])])
def test_activation_hypotheses(name, bad):
    assert [v.hypothesis for v in activation_violations(name)] == bad


# -- the batched integrator ------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_batched_integrator_matches_scipy_member_by_member(ctx, backend):
    lam = np.sort(ctx.randn(6, 4).numpy(), axis=1)
    q0 = ctx.randn(6, 4, 2).numpy()
    q0 = 0.5 * q0 / np.linalg.norm(q0, ord=2, axis=(1, 2), keepdims=True)  # inside the unit ball, where (9) lives
    t = np.linspace(0, 2, 11)
    L, Q = (lam, q0) if backend == "numpy" else (torch.tensor(lam), torch.tensor(q0))
    sol = integrate_batched(lambda v: rhs_theorem2(L, v), Q, 2.0, t_eval=t, certify=True)
    y = np.asarray(sol.y)
    for b in range(6):
        ref = integrate(lambda v, lb=lam[b]: rhs_theorem2(lb, v), q0[b], t)
        assert np.abs(y[:, b] - ref.y).max() < 1e-8
    assert sol.success and y.shape == (11, 6, 4, 2) and float(sol.global_error.max()) < 1e-10


def test_batched_integrator_exact_linear_flow_and_bad_input():
    y0 = np.array([[1.0, 2.0], [-1.0, 0.5]])
    sol = integrate_batched(lambda y: -np.array([2.0, 0.5]) * y, y0, 3.0)  # every accepted step recorded
    exact = y0[None] * np.exp(-np.outer(sol.t, [2.0, 0.5]))[:, None, :]
    assert np.abs(sol.y - exact).max() < 1e-10 and sol.t[-1] == 3.0
    with pytest.raises(ValueError, match="T must be"):
        integrate_batched(lambda y: y, y0, -1.0)
    with pytest.raises(ValueError, match="t_eval"):
        integrate_batched(lambda y: y, y0, 1.0, t_eval=[0.0, 0.7, 0.5, 1.0])
    blown = integrate_batched(lambda y: y * y, np.array([[1.0]]), 2.0)  # ẏ = y² blows up at t = 1
    assert not blown.success


# -- small factorisations and reduced coordinates ------------------------------------------------------------------
def test_hand_factorisations_match_lapack(ctx):
    from theorems.optim.stiefel import _gram_schmidt, _polar_two_columns

    A = ctx.randn(20, 5, 2).numpy()
    Q, R = np.linalg.qr(A)
    Q = Q * np.sign(np.diagonal(R, axis1=-2, axis2=-1))[..., None, :]
    assert np.abs(_gram_schmidt(A) - Q).max() < 1e-13 and np.abs(qf(A) - Q).max() < 1e-13
    U, _, Vh = np.linalg.svd(A, full_matrices=False)
    assert np.abs(_polar_two_columns(A) - U @ Vh).max() < 1e-13
    a = ctx.randn(4, 7, 1)
    assert torch.allclose(qf(a), a / a.norm(dim=-2, keepdim=True)) and torch.allclose(polar(a), qf(a))


@pytest.mark.parametrize("scheme", ["grassmann", "stiefel", "euclid_qr"])
def test_every_scheme_stays_in_the_span_of_its_start(ctx, scheme):
    from theorems.optim.stiefel import reduce_to_span

    C = sym(ctx.randn(2, 2)).numpy()
    W1, W2 = haar_stiefel(ctx, 3, h=40, k=2).numpy(), haar_stiefel(ctx, 3, h=40, k=1).numpy()
    F, Y1, Y2 = reduce_to_span(W1, W2)
    for _ in range(30):
        W1, W2 = step(W1, W2, C, 0.05, scheme)
        Y1, Y2 = step(Y1, Y2, C, 0.05, scheme)
    assert np.abs(F @ Y1 - W1).max() < 1e-12 and np.abs(F @ Y2 - W2).max() < 1e-12


# -- the two-layer networks of Conjecture 1 / Figure 2 --------------------------------------------------------------
@pytest.mark.parametrize("act", ["tanh", "relu", "sigmoid", "softplus2", "identity"])
def test_network_gradients_match_autograd(ctx, act):
    from theorems.ssl_dynamics.networks import activation_and_slope, loss_and_grads, stacked_inputs

    t = dataset(ctx, "moons", 30)
    W1, W2 = haar_stiefel(ctx, 2, h=9, k=2), haar_stiefel(ctx, 2, h=9, k=2)
    L, g1, g2, _ = loss_and_grads(stacked_inputs(t), t.n, W1, W2, act)
    A, B = W1.clone().requires_grad_(True), W2.clone().requires_grad_(True)
    direct = ssl_loss(lambda X: activation_and_slope(act, X @ A.transpose(-1, -2))[0] @ B, t, "contrastive")
    r1, r2 = torch.autograd.grad(direct.sum(), (A, B))
    assert torch.allclose(L, direct.detach(), rtol=1e-12)
    assert torch.allclose(g1, r1, atol=1e-12) and torch.allclose(g2, r2, atol=1e-12)
    if act == "tanh":  # the sigmoid form used for speed is tanh to rounding
        z = torch.linspace(-3, 3, 101, dtype=torch.float64)
        assert torch.allclose(activation_and_slope("tanh", z)[0], torch.tanh(z), atol=1e-15)


def test_rhs_theorem3_with_one_eigenvalue_keeps_a_batch_of_starts_apart():
    # An (R, 1) batch with d = 1 is R one-dimensional starts, each moving by its own (10), not one R-vector.
    lam = np.array([0.7])
    q = np.array([[0.2], [1.5], [-0.4]])
    one_by_one = np.stack([rhs_theorem3(lam, row) for row in q])
    assert np.allclose(rhs_theorem3(lam, q), one_by_one, atol=1e-15)
