"""Unit tests of paper 000's machinery on hand-computed cases: subspace generators, noise, min-norm points,
cluster integrity, the Theorem-1 construction, and sharpness."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from theorems.core.context import Context
from theorems.data.subspaces import (
    add_noise,
    cluster_sizes,
    effective_eps,
    labels_from_sizes,
    principal_angles,
    random_subspaces,
    sample_union,
    subspace_instances,
)
from theorems.metrics.cluster_integrity import (
    cluster_integrity,
    construct_w,
    margin_of_w,
    min_norm_point,
    perp_projector,
    project_simplex,
    sign_patterns,
)
from theorems.metrics.sharpness import chance_cross_mass, cross_cluster_mass, logit_ratio, sharpness


def T(x):
    return torch.as_tensor(x, dtype=torch.float64)


# -- data ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("K, r, m", [(2, 2, 5), (3, 1, 5), (4, 2, 12)])
def test_angle_arrangement_has_the_asked_principal_angles(K, r, m):
    ctx = Context.make(seed=1)
    theta = math.radians(37.0)
    U = random_subspaces(ctx, 3, m, K, r, "angle", theta)
    for a in range(K):
        for b in range(a + 1, K):
            np.testing.assert_allclose(principal_angles(U[:, a], U[:, b]).numpy(), theta, atol=1e-7)
    eye = torch.eye(r, dtype=torch.float64)
    assert torch.allclose(U.transpose(-1, -2) @ U, eye.expand_as(U.transpose(-1, -2) @ U), atol=1e-12)


def test_dependent_arrangement_lies_in_the_sum_of_two_others():
    ctx = Context.make(seed=2)
    U = random_subspaces(ctx, 2, 9, 3, 2, "dependent")
    P = perp_projector(torch.cat([U[:, 0], U[:, 1]], -1))
    assert float((P @ U[:, 2]).abs().max()) < 1e-12


def test_cone_samples_are_unit_and_sign_consistent():
    ctx = Context.make(seed=3)
    b = subspace_instances(ctx, 4, 7, 3, 2, (2, 3, 4), signs="cone")
    assert torch.allclose(b.X.norm(dim=-1), torch.ones(4, 9, dtype=torch.float64))
    v = b.bases.sum(-1)  # U_c 1
    assert bool(((b.X.unsqueeze(-2) @ v[:, b.labels].unsqueeze(-1)) > 0).all())
    assert b.nu.tolist() == [2, 2, 3, 3, 3, 4, 4, 4, 4]


def test_sizes_and_labels():
    assert cluster_sizes(3, 2, 1) == (2, 3, 4)
    assert labels_from_sizes((1, 2)).tolist() == [0, 1, 1]


@pytest.mark.parametrize("mode", ["random", "exact", "toward"])
def test_noise_respects_eq6_and_exact_mode_attains_it(mode):
    ctx = Context.make(seed=4)
    X = sample_union(ctx, random_subspaces(ctx, 3, 6, 2, 2), (3, 3))
    eps = 0.05
    Xt = add_noise(ctx, X, eps, mode, direction=ctx.randn(3, 1, 6) if mode == "toward" else None)
    cos = (X * Xt).sum(-1)
    assert torch.allclose(Xt.norm(dim=-1), torch.ones_like(cos))
    assert float(cos.min()) >= 1 - eps - 1e-12
    if mode != "random":
        assert torch.allclose(cos, torch.full_like(cos, 1 - eps), atol=1e-12)
        assert torch.allclose(effective_eps(X, Xt), torch.full((3,), eps, dtype=torch.float64), atol=1e-12)


def test_bad_generator_arguments_raise():
    ctx = Context.make(seed=0)
    with pytest.raises(ValueError, match="arrangement"):
        random_subspaces(ctx, 1, 4, 2, 1, "weird")
    with pytest.raises(ValueError, match="m ≥"):
        random_subspaces(ctx, 1, 3, 2, 2, "angle", 0.3)
    with pytest.raises(ValueError, match="noise mode"):
        add_noise(ctx, T([[1.0, 0.0]]), 0.1, "loud")


# -- min-norm points ----------------------------------------------------------------------------------------
def test_min_norm_point_hand_cases():
    A = T([[[1.0, 0.0], [0.0, 1.0]],  # segment: p* = (½, ½), distance 1/√2
           [[1.0, 0.0], [-1.0, 0.0]],  # holds the origin: distance 0
           [[2.0, 1.0], [3.0, 1.0]]])  # closest point is the vertex (2, 1)
    mnp = min_norm_point(A)
    assert bool(mnp.converged.all())
    np.testing.assert_allclose(mnp.value.numpy(), [1 / math.sqrt(2), 0.0, math.sqrt(5)], atol=1e-10)
    np.testing.assert_allclose(mnp.point[0].numpy(), [0.5, 0.5], atol=1e-10)
    assert bool((mnp.lower <= mnp.upper).all())


def test_project_simplex_and_sign_patterns():
    p = project_simplex(T([[0.2, 0.2, 0.2], [5.0, 0.0, 0.0], [0.5, 0.5, -3.0]]))
    np.testing.assert_allclose(p.numpy(), [[1 / 3] * 3, [1, 0, 0], [0.5, 0.5, 0]], atol=1e-15)
    S = sign_patterns(3)
    assert S.shape == (4, 3) and bool((S[:, 0] == 1).all())


def test_perp_projector_handles_dependent_columns():
    B = T([[1.0, 2.0], [0.0, 0.0], [0.0, 0.0]])  # rank 1
    P = perp_projector(B)
    np.testing.assert_allclose(P.numpy(), np.diag([0.0, 1.0, 1.0]), atol=1e-15)


# -- cluster integrity and the construction ------------------------------------------------------------------
def _lines(angle: float, copies=(2, 2)):
    u1, u2 = [1.0, 0.0, 0.0], [math.cos(angle), math.sin(angle), 0.0]
    X = T([u1] * copies[0] + [u2] * copies[1]).unsqueeze(0)
    labels = labels_from_sizes(copies)
    bases = T([[u1], [u2]]).transpose(-1, -2).unsqueeze(0)  # (1, K=2, m=3, r=1)
    return X, labels, bases


@pytest.mark.parametrize("angle", [math.pi / 2, math.pi / 3, 0.2])
def test_two_lines_have_rho_sin_angle(angle):
    X, labels, bases = _lines(angle)
    integ = cluster_integrity(X, labels, bases)
    np.testing.assert_allclose(integ.rho_k.numpy(), math.sin(angle), atol=1e-10)
    con = construct_w(X, labels, bases)
    np.testing.assert_allclose(con.rho_tilde_c.numpy(), math.sin(angle), atol=1e-10)
    assert float(margin_of_w(X, labels, con.W)) == pytest.approx(math.sin(angle), abs=1e-10)
    assert float(con.leak) < 1e-12


def test_definition_1_uses_absolute_values():
    """Flipping the sign of another cluster's sample leaves ρ_k unchanged (|x_iᵀu|)."""
    X, labels, bases = _lines(math.pi / 3, (2, 2))
    X2 = X.clone()
    X2[0, 3] = -X2[0, 3]
    a = cluster_integrity(X, labels, bases).rho_k
    b = cluster_integrity(X2, labels, bases).rho_k
    assert torch.allclose(a, b, atol=1e-12)


# -- sharpness ----------------------------------------------------------------------------------------------
def test_sharpness_hand_cases():
    labels = torch.tensor([0, 0, 1, 1])
    A = T([[3.0, 2.0, 0.5, 0.1], [2.0, 4.0, 0.2, 0.3], [0.5, 0.2, 5.0, 1.5], [0.1, 0.3, 1.5, 2.5]])
    s = sharpness(A, labels, "exp")
    assert float(s.log_value) == pytest.approx(1.5 - 0.5)  # min_same − max_diff
    s = sharpness(A, labels, "logit")
    assert bool(s.defined) and float(s.value) == pytest.approx(1.5 / 0.5)
    assert float(sharpness(A, labels, "logit", include_diagonal=False).value) == pytest.approx(1.5 / 0.5)
    L = A - torch.logsumexp(A, -1, keepdim=True)
    same = labels[:, None] == labels[None, :]
    want = float(L[same].min() - L[~same].max())
    assert float(sharpness(A, labels, "softmax").log_value) == pytest.approx(want)
    assert float(logit_ratio(A, labels)) == pytest.approx(3.0)


def test_logit_sharpness_undefined_and_infinite_cases():
    labels = torch.tensor([0, 0, 1])
    block = T([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    s = sharpness(block, labels, "logit")
    assert bool(s.defined) and math.isinf(float(s.log_value))  # block-diagonal: +∞, as the paper says
    negative = block - 2.0  # every cross entry −2 < 0: the ratio is no sharpness
    s = sharpness(negative, labels, "logit")
    assert not bool(s.defined) and math.isnan(float(s.log_value))
    assert bool(sharpness(negative, labels, "exp").defined)
    with pytest.raises(ValueError, match="cross-cluster"):
        sharpness(block, torch.tensor([0, 0, 0]), "exp")
    with pytest.raises(ValueError, match="kind"):
        sharpness(block, labels, "cosine")


# -- attention metrics of trained heads ----------------------------------------------------------------------
def test_cross_cluster_mass_hand_case():
    """Row 0 of softmax(logits) = (1/2, 1/4, 1/4) over labels (0, 0, 1): cross mass 1/4, of the others 1/2."""
    logits = torch.log(T([[0.5, 0.25, 0.25], [1 / 3, 1 / 3, 1 / 3], [0.1, 0.1, 0.8]]))
    labels = torch.tensor([0, 0, 1])
    mass = cross_cluster_mass(logits, labels, exclude_self=False)
    np.testing.assert_allclose(mass.numpy(), [0.25, 1 / 3, 0.2], atol=1e-15)
    other = cross_cluster_mass(logits, labels)
    np.testing.assert_allclose(other.numpy(), [0.5, 0.5, 1.0], atol=1e-15)
    np.testing.assert_allclose(chance_cross_mass(labels, torch.float64).numpy(), [0.5, 0.5, 1.0], atol=1e-15)


def test_sharpness_takes_one_labelling_per_matrix():
    """labels (B, n): each matrix is judged by its own labels, as two separate calls would."""
    A = T([[[3.0, 2.0, 0.5], [2.0, 4.0, 0.2], [0.5, 0.2, 5.0]]]).expand(2, -1, -1)
    labels = torch.tensor([[0, 0, 1], [0, 1, 1]])
    both = sharpness(A, labels, "exp").log_value
    one = [float(sharpness(A[b], labels[b], "exp").log_value) for b in range(2)]
    np.testing.assert_allclose(both.numpy(), one, atol=1e-15)


def test_softmax_sharpness_normalises_rows_not_columns():
    """A non-symmetric A: the row-softmax's log-sharpness by hand (a column normalisation gives another number)."""
    A = T([[0.0, 3.0, 1.0], [0.5, 0.0, 2.0], [1.0, 0.2, 0.0]])
    labels = torch.tensor([0, 0, 1])
    L = A - torch.logsumexp(A, -1, keepdim=True)
    same = labels[:, None] == labels[None, :]
    want = float(L[same].min() - L[~same].max())
    assert float(sharpness(A, labels, "softmax").log_value) == pytest.approx(want, abs=1e-14)
    wrong = A - torch.logsumexp(A, 0, keepdim=True)
    assert abs(float(wrong[same].min() - wrong[~same].max()) - want) > 0.1


def test_sharpness_diagonal_switch():
    """The smallest same-cluster entry sits on the diagonal: including it changes the value."""
    A = T([[0.1, 2.0, 0.5], [2.0, 3.0, 0.2], [0.5, 0.2, 5.0]])
    labels = torch.tensor([0, 0, 1])
    assert float(sharpness(A, labels, "exp").log_value) == pytest.approx(0.1 - 0.5)
    assert float(sharpness(A, labels, "exp", include_diagonal=False).log_value) == pytest.approx(2.0 - 0.5)
    assert float(logit_ratio(A, labels)) == pytest.approx(0.1 / 0.5)
