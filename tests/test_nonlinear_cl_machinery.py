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


@pytest.mark.parametrize("a", [0.0, 0.2, 1.0])
def test_mixture_closed_form_matches_monte_carlo(ctx, a):
    gm = simplex_mixture(ctx, 3, 3.0, 0.5)
    W = random_unit(ctx, 4, 3)
    X = gm.sample(ctx, 400_000)
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
