"""Unit tests of the paper-001 machinery: A(w) closed forms vs Monte Carlo and the eq. (3) estimator, the
roughness derivative, the sphere flows and the LME finder (kinks reported as kinks)."""

from __future__ import annotations

import math

import pytest
import torch

from theorems.core.context import Context
from theorems.data.latents import (categorical_model, dirichlet, random_orthonormal, random_signed_permutation,
                                   simplex_mixture, summation_model)
from theorems.nonlinear_cl.covariance import (A_batch, A_discrete, A_mixture, contrastive_covariance, kink_margin,
                                              mixture_moments, roughness_D_mixture, roughness_fd, tangent_basis)
from theorems.nonlinear_cl.lme import classify, find_lmes
from theorems.optim.sphere_flow import power_iteration, projected_flow, random_unit

# Monte Carlo with N = 4e5 draws: standard error ≈ scale/√N ≈ 2e-3 of the O(1) entries; 5 standard errors.
MC_ATOL = 1e-2


@pytest.fixture
def ctx():
    return Context.make(seed=0)


@pytest.fixture(scope="module")
def mixture_sample():
    """One mixture, four filters and 4e5 draws, shared by the three activations."""
    ctx = Context.make(seed=0)
    gm = simplex_mixture(ctx, 3, 3.0, 0.5)
    return gm, random_unit(ctx, 4, 3), gm.sample(ctx, 400_000)


@pytest.mark.parametrize("a", [0.0, 0.2, 1.0])
def test_mixture_closed_form_matches_monte_carlo(mixture_sample, a):
    gm, W, X = mixture_sample
    closed = A_mixture(gm, W, a)
    mc = A_batch(X, X, W, a)  # eq. (3) with identical views and α ≡ 1 is the sample covariance
    assert float((closed - mc).abs().max()) <= MC_ATOL * float(closed.abs().max())


def test_contrastive_covariance_matches_the_double_sum(ctx):
    N, p = 7, 3
    a1, a2, b1, b2 = ctx.randn(N, p), ctx.randn(N, p), ctx.randn(N, 2), ctx.randn(N, 2)
    alpha = ctx.rand(N, N)
    ref = torch.zeros(p, 2, dtype=ctx.dtype)
    for i in range(N):
        for j in range(N):
            ref += alpha[i, j] * (torch.outer(a1[i] - a1[j], b1[i] - b1[j]) - torch.outer(a1[i] - a2[i], b1[i] - b2[i]))
    ref /= 2 * N**2
    torch.testing.assert_close(contrastive_covariance(a1, b1, a2, b2, alpha), ref, rtol=1e-12, atol=1e-14)
    ones = torch.ones(N, N, dtype=ctx.dtype)
    torch.testing.assert_close(contrastive_covariance(a1, b1, a2, b2), contrastive_covariance(a1, b1, a2, b2, ones),
                               rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("a", [0.0, 0.1, 0.4])
def test_roughness_formula_matches_finite_differences(ctx, a):
    # D = −(1 − a)𝔼[h]M against central differences, for ReLU (a = 0) and LeakyReLU.
    gm = simplex_mixture(ctx, 3, 2.0, 0.8)
    W = random_unit(ctx, 5, 3)
    fd = roughness_fd(lambda V: A_mixture(gm, V, a), W)
    cf = roughness_D_mixture(gm, W, a) @ tangent_basis(W)
    assert float((fd - cf).abs().max()) <= 1e-7 * float(cf.abs().max())


def test_gradient_identity_of_lemma_3(ctx):
    # ∂ℰ/∂w = A(w)w for ℰ = ½ wᵀA(w)w (homogeneity): finite differences of ℰ against A(w)w.
    gm = simplex_mixture(ctx, 3, 2.0, 0.7)
    w = random_unit(ctx, 1, 3)
    # A(w) depends only on the direction of w (homogeneous gate), so off the sphere A(v) = A(v/‖v‖)
    energy = lambda V: 0.5 * torch.einsum("bi,bij,bj->b", V, A_mixture(gm, V / V.norm(dim=1, keepdim=True)), V)  # noqa: E731
    eps = 1e-6
    eye = torch.eye(3, dtype=ctx.dtype)
    fd = torch.stack([(energy(w + eps * e) - energy(w - eps * e)) / (2 * eps) for e in eye], dim=1)
    torch.testing.assert_close(fd, (A_mixture(gm, w) @ w[0])[:, :], rtol=1e-7, atol=1e-9)


def test_summation_model_is_standardised(ctx):
    U = random_orthonormal(ctx, 4, 4)
    data = summation_model(U, torch.tensor([0.1, 0.3, 0.5, 0.8], dtype=ctx.dtype))
    assert float(data.probs.sum()) == pytest.approx(1.0, abs=1e-14)
    mean = data.probs @ data.atoms
    cov = (data.atoms * data.probs[:, None]).T @ data.atoms
    torch.testing.assert_close(mean, torch.zeros(4, dtype=ctx.dtype), atol=1e-14, rtol=0)
    torch.testing.assert_close(cov, torch.eye(4, dtype=ctx.dtype), atol=1e-13, rtol=0)


def test_power_iteration_and_flow_reach_the_top_eigenvector_for_constant_A(ctx):
    C = torch.diag(torch.tensor([3.0, 1.0, 0.5], dtype=ctx.dtype))
    A_fn = lambda V: C.expand(V.shape[0], 3, 3)  # noqa: E731
    W0 = random_unit(ctx, 16, 3)
    pi = power_iteration(A_fn, W0)
    assert bool(pi.converged.all()) and float(pi.W[:, 0].abs().min()) > 1 - 1e-12
    fl = projected_flow(A_fn, W0, dt=0.05, steps=2000, tol=1e-9, stop_early=True)
    assert bool(fl.converged.all()) and float(fl.W[:, 0].abs().min()) > 1 - 1e-9


def test_flow_contracts_at_the_euler_rate(ctx):
    # Mode j of a constant A contracts by 1 − dt(λ₁ − λ_j) per Euler step.
    C = torch.diag(torch.tensor([2.0, 1.5], dtype=ctx.dtype))
    A_fn = lambda V: C.expand(V.shape[0], 2, 2)  # noqa: E731
    th = 1e-4
    W0 = torch.tensor([[math.cos(th), math.sin(th)]], dtype=ctx.dtype)
    run = projected_flow(A_fn, W0, dt=0.01, steps=100)
    ratio = float(run.W[0, 1] / W0[0, 1])
    assert ratio == pytest.approx((1 - 0.01 * 0.5) ** 100, rel=1e-6)


def test_lme_finder_reports_kinks_not_lmes(ctx):
    U = random_signed_permutation(ctx, 4)
    data = categorical_model(U, dirichlet(ctx, 4, 0.2))
    A_fn = lambda V: A_discrete(data, V)  # noqa: E731
    cl = classify(A_fn, U.T.contiguous(), lambda V: kink_margin(data, V))
    assert bool(cl.is_kink.all()) and not bool(cl.is_lme.any())
    assert float(cl.top_residual.max()) < 1e-12  # ... although u_m is a self-consistent top eigenvector


def test_lme_finder_on_a_mixture_finds_one_lme_per_cluster(ctx):
    gm = simplex_mixture(ctx, 3, 3.0, 0.3)
    search = find_lmes(lambda V: A_mixture(gm, V), random_unit(ctx, 64, 3))
    assert search.lmes.shape[0] == 4 and search.n_unconverged == 0
    cos = (search.lmes @ (gm.means / gm.means.norm(dim=1, keepdim=True)).T).max(dim=1).values
    assert float(cos.min()) > 0.99  # each LME points at a cluster


def test_mixture_moments(ctx):
    gm = simplex_mixture(ctx, 2, 1.0, 0.5)
    X = gm.sample(ctx, 200_000)
    Ex, Exx = mixture_moments(gm)
    assert float((X.mean(0) - Ex).abs().max()) < MC_ATOL
    assert float(((X.T @ X) / len(X) - Exx).abs().max()) < MC_ATOL


# -- bad input to the machinery names the hypothesis --------------------------------------------------------------
def test_non_unit_and_mismatched_filters_are_refused(ctx):
    from theorems import HypothesisViolation

    gm = simplex_mixture(ctx, 3, 2.0, 0.5)
    with pytest.raises(HypothesisViolation, match="‖w‖₂ = 1"):
        A_mixture(gm, 2 * random_unit(ctx, 2, 3))
    with pytest.raises(HypothesisViolation, match="data dimension"):
        A_mixture(gm, random_unit(ctx, 2, 4))
    data = summation_model(random_orthonormal(ctx, 3, 3), torch.full((3,), 0.2, dtype=ctx.dtype))
    with pytest.raises(HypothesisViolation, match="‖w‖₂ = 1"):
        A_discrete(data, torch.zeros(1, 3, dtype=ctx.dtype))


def test_probabilities_outside_the_simplex_and_q_outside_the_interval_are_refused(ctx):
    from theorems import HypothesisViolation

    U = random_orthonormal(ctx, 3, 3)
    with pytest.raises(HypothesisViolation, match="simplex"):
        categorical_model(U, torch.tensor([0.5, 0.6, -0.1], dtype=ctx.dtype))
    with pytest.raises(HypothesisViolation, match="simplex"):
        categorical_model(U, torch.tensor([0.5, 0.6, 0.1], dtype=ctx.dtype))
    for bad in (0.0, 1.0, 1.5, -0.2):
        with pytest.raises(HypothesisViolation, match=r"q_m ∈ \(0, 1\)"):
            summation_model(U, torch.full((3,), bad, dtype=ctx.dtype))


def test_alpha_must_be_nonnegative_and_views_must_match(ctx):
    from theorems import HypothesisViolation

    a = ctx.randn(5, 2)
    with pytest.raises(HypothesisViolation, match="α ≥ 0"):
        contrastive_covariance(a, a, a, a, -ctx.rand(5, 5))
    with pytest.raises(HypothesisViolation, match="two views"):
        contrastive_covariance(a, a, ctx.randn(4, 2), a)


# -- kernels (Lemma 1), InfoNCE's α, the 2-layer formulas, the s-quadrature, PI per-step quantities -----------------
def test_monomial_features_reproduce_the_gaussian_kernel_degree_by_degree(ctx):
    from theorems.nonlinear_cl.kernels import gaussian_features, monomial_exponents, n_features

    Y = ctx.rand(5, 3) * 2
    tau, L = 0.7, 25
    assert monomial_exponents(3, L).shape == (n_features(3, L), 3)
    Phi = gaussian_features(Y, tau, L)
    s = Y @ Y.T / tau
    direct = torch.exp(-(Y * Y).sum(1)[:, None] / (2 * tau) - (Y * Y).sum(1)[None] / (2 * tau)) * sum(
        s**k / float(math.factorial(k)) for k in range(L + 1))
    torch.testing.assert_close(Phi @ Phi.T, direct, rtol=1e-12, atol=1e-15)


def test_truncation_kept_matches_the_partial_exponential_sum(ctx):
    from theorems.nonlinear_cl.kernels import truncation_kept

    S = torch.tensor([0.0, 0.5, 7.0, 61.7], dtype=ctx.dtype)
    ref = torch.tensor([sum(math.exp(-s + k * math.log(s) - math.lgamma(k + 1)) if s > 0 else float(k == 0)
                            for k in range(61)) for s in S.tolist()], dtype=ctx.dtype)
    torch.testing.assert_close(truncation_kept(S, 60), ref, rtol=1e-13, atol=0)


def test_infonce_alpha_and_loss_against_a_loop(ctx):
    from theorems.nonlinear_cl.kernels import infonce_alpha, infonce_loss

    N, tau, eps = 5, 0.4, 0.3
    F1, F2 = ctx.randn(N, 3), ctx.randn(N, 3)
    d2 = lambda a, b: float((a - b).pow(2).sum()) / 2  # noqa: E731
    loss, alpha = 0.0, torch.zeros(N, N, dtype=ctx.dtype)
    for i in range(N):
        pos = math.exp(-d2(F1[i], F2[i]) / tau)
        neg = [math.exp(-d2(F1[i], F1[j]) / tau) if j != i else 0.0 for j in range(N)]
        loss += -tau * math.log(pos / (eps * pos + sum(neg)))
        alpha[i] = torch.tensor(neg, dtype=ctx.dtype) / (eps * pos + sum(neg))
    assert float(infonce_loss(F1, F2, tau, eps)) == pytest.approx(loss, rel=1e-12)
    torch.testing.assert_close(infonce_alpha(F1, F2, tau, eps), alpha, rtol=1e-12, atol=1e-15)
    a0 = infonce_alpha(F1, F2, tau)
    torch.testing.assert_close(a0.sum(1), torch.ones(N, dtype=ctx.dtype), rtol=1e-14, atol=0)
    assert float(a0.diagonal().abs().max()) == 0.0


def test_batched_alpha_equals_one_batch_at_a_time(ctx):
    R, N = 3, 6
    a1, a2 = ctx.randn(R, N, 2), ctx.randn(R, N, 2)
    alpha = ctx.rand(R, N, N)
    batched = contrastive_covariance(a1, a1, a2, a2, alpha)
    for r in range(R):
        torch.testing.assert_close(batched[r], contrastive_covariance(a1[r], a1[r], a2[r], a2[r], alpha[r]),
                                   rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", ["relu", "leaky", "linear", "quadratic", "tanh"])
def test_activation_derivatives_match_autograd_away_from_zero(ctx, name):
    from theorems.nonlinear_cl.two_layer import act, act_prime

    s = ctx.randn(50)
    s = s[s.abs() > 1e-3].clone().requires_grad_(True)
    (g,) = torch.autograd.grad(act(name, s, 0.2).sum(), s)
    torch.testing.assert_close(g, act_prime(name, s.detach(), 0.2), rtol=1e-14, atol=1e-15)


def test_lemma_4_sees_the_kink_convention(ctx):
    # On the integer lattice some pre-activations are exactly 0: with h'(0) = 1 in the formula (autograd keeps 0)
    # the W gradient changes, so the binding instance really exercises the convention of App. B.1.
    from theorems.nonlinear_cl import two_layer
    from theorems.nonlinear_cl.lemma_4 import instance

    p = dict(K=3, M=2, d=4, N=24, d_out=3, kinks=True, aug=0.5)
    x1, x2, W, V = instance(p, ctx)
    alpha = ctx.rand(24, 24)
    assert int((two_layer.preact(W, x1) == 0).sum()) > 0
    Wg = W.clone().requires_grad_(True)
    (gW,) = torch.autograd.grad(two_layer.energy(Wg, V, x1, x2, alpha, "relu"), Wg)
    _, fW = two_layer.lemma_4_gradients(W, V, x1, x2, alpha, "relu")
    torch.testing.assert_close(gW, fW, rtol=1e-10, atol=1e-12)
    original = two_layer.act_prime
    try:
        two_layer.act_prime = lambda name, s, leak=0.1: (s >= 0).to(s.dtype)  # h'(0) = 1
        _, fW1 = two_layer.lemma_4_gradients(W, V, x1, x2, alpha, "relu")
    finally:
        two_layer.act_prime = original
    assert float((fW1 - gW).norm() / gW.norm()) > 1e-3


def test_s_quadrature_matches_the_polar_feature_quadrature_and_the_closed_form(ctx):
    # Two algorithms for the population A(v) under a frozen 1-D Gaussian α: along s = uᵀx with the gating in closed
    # form (what Corollary 2 uses), and polar 2-D Gauss–Legendre of Lemma 2's feature expansion.
    from theorems.data.latents import random_gaussian_mixture
    from theorems.nonlinear_cl.quadrature import (A_fixed_alpha, A_kernel_alpha, order_for, z_coefficients,
                                                  z_coefficients_1d)

    gm = random_gaussian_mixture(ctx, 2, 3, 2.5, 0.6)
    u = random_unit(ctx, 1, 2)[0]
    V = torch.cat([u[None], random_unit(ctx, 3, 2)])
    torch.testing.assert_close(A_kernel_alpha(gm, V, u, None), A_mixture(gm, V), rtol=1e-12, atol=1e-13)
    tau = 1.0
    order = order_for(gm, tau)
    z = z_coefficients(gm, u, tau, order)
    torch.testing.assert_close(z_coefficients_1d(gm, u, tau, order), z, rtol=1e-12, atol=1e-15)
    torch.testing.assert_close(A_kernel_alpha(gm, V, u, tau), A_fixed_alpha(gm, V, u, tau, z, order),
                               rtol=1e-11, atol=1e-13)


def test_s_quadrature_matches_a_large_sample(ctx):
    # N → ∞ limit against eq. (3) on a sample with α = 𝒦 on the samples and no augmentation (two equal views):
    # C_α = ½Σ𝒦(x̃ − ỹ)(x̃ − ỹ)ᵀ/N², the population value up to O(N^{−1/2}).
    from theorems.data.latents import random_gaussian_mixture
    from theorems.nonlinear_cl.covariance import gate
    from theorems.nonlinear_cl.quadrature import A_kernel_alpha

    gm = random_gaussian_mixture(ctx, 2, 2, 2.0, 0.7)
    u = random_unit(ctx, 1, 2)[0]
    v = random_unit(ctx, 1, 2)
    X = gm.sample(ctx, 1500)
    hs = torch.relu(X @ u)
    K = torch.exp(-(hs[:, None] - hs[None, :]) ** 2 / 2)
    Xt = gate(X @ v[0], 0.0)[:, None] * X
    mc = contrastive_covariance(Xt, Xt, Xt, Xt, K)
    exact = A_kernel_alpha(gm, v, u, 1.0)[0]
    # sampling error of a U-statistic of 1500 points ≈ 1/√1500 ≈ 2.6 % of the scale; 8 % is 3 standard errors
    assert float((mc - exact).abs().max()) <= 0.08 * float(exact.abs().max())


def test_rk4_solves_a_linear_ode(ctx):
    from theorems.optim.sphere_flow import rk4

    # 200 steps of h·λ ≤ 0.02: local error (hλ)⁵/120 ≈ 3e-11, global ≈ 5e-9 relative at T = 2
    y = rk4(lambda y: -2.0 * y, torch.ones(3, dtype=ctx.dtype), torch.tensor([0.5, 1.0, 2.0], dtype=ctx.dtype), 200)
    torch.testing.assert_close(y, torch.exp(-2 * torch.tensor([0.5, 1.0, 2.0], dtype=ctx.dtype)), rtol=1e-8, atol=0)
    y = rk4(lambda y: -2.0 * y, torch.ones(1, dtype=ctx.dtype), 2.0, 20)  # 10× the step: 1e4× the error
    assert abs(float(y[0]) - math.exp(-4)) / math.exp(-4) > 1e-6


def test_power_iteration_step_quantities_agree_with_direct_formulas(ctx):
    # The cancellation-free 1 − c_t, 1 − d_t of pi_steps against the direct ones on early (large) steps.
    from theorems.nonlinear_cl.pi_steps import run

    p = dict(model="mixture", d=3, clusters=3, radius=2.0, sigma=0.7, starts=4, pi_iters=3, N=64, aug=4.0, shift=0.1)
    st = run(p, ctx)
    assert st.one_minus_c.numel() == st.iterations * 4
    big = st.one_minus_c > 1e-4
    assert bool(big.any())
    # 1 − c from c itself, and ‖δw‖² = 2(1 − w(t+1)ᵀw(t)) ≥ 0 consistency
    torch.testing.assert_close(st.one_minus_c[big], (1 - st.c)[big], rtol=1e-8, atol=1e-14)
    assert bool((st.one_minus_d >= 0).all()) and bool((st.dw >= 0).all())
