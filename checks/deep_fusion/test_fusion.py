"""``theorems.deep_fusion.fusion``, shared by several results: its checks."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
import torch

from theorems.deep_fusion import fusion
from theorems.deep_fusion.fusion import log_gamma_B

# Hand-formula references are float64 expressions of a few terms: agreement to this is exact arithmetic.
REF_RTOL = 1e-9


# ------------------------------------------------------------------------------------------------------
# App. B's next-layer steps: log A′ computed independently (its sign decides −inf)
# ------------------------------------------------------------------------------------------------------
def _log_pos(x: np.ndarray) -> np.ndarray:
    out = np.full(x.shape, -np.inf)
    out[x > 0] = np.log(x[x > 0])
    return out


def _hand_instances():
    """Two 4-sample instances in R^3 (labels 0 0 1 1): W scaled by 0.5 puts every A′ entry in (0.41, 0.43) (the
    first), W scaled by 3 gives a same-cluster A′ of −4.25 (the second: sample 3 points along −sample 2)."""
    X = np.array([[[1.0, 0.0, 0.0], [0.9, 0.1, 0.0], [0.0, 1.0, 0.0], [0.1, 0.9, 0.2]],
                  [[1.0, 0.0, 0.0], [0.8, 0.2, 0.0], [0.0, 1.0, 0.1], [0.0, -1.0, 0.1]]])
    W = np.array([[0.3, 0.05], [0.02, 0.25], [0.0, 0.1]])[:, [0, 0, 1, 1]]  # one column per sample: its cluster's
    return X, np.stack([0.5 * W, 3.0 * W])


# ------------------------------------------------------------------------------------------------------
# The unsimplified γ_ν against Decimal (no overflow-avoiding rescaling)
# ------------------------------------------------------------------------------------------------------
def _log_gamma_nu_decimal(nu: int, n: int, d: float, D: float) -> float:
    with localcontext() as ctx:
        ctx.prec = 60
        d_, D_ = Decimal(d), Decimal(D)
        alpha = (nu * D_ * D_).exp()
        beta = (2 * nu * d_ + (n - 2 * nu) * d_ * d_).exp()
        dp = alpha * nu * d_ + beta * (n - nu)
        Dp = alpha * nu * D_ - beta * (n - nu)
        den = 2 * nu * dp + (n - 2 * nu) * dp * dp
        if Dp <= 0 or den <= 0:
            return math.nan
        return float((nu * Dp * Dp / den * beta / alpha).ln())


def test_theorem_2_block_log_ratio_matches_hand_sharpness():
    """exp-sharpness of one block: log 𝒮 = min_same A − max_diff A, computed here with numpy."""
    X = torch.tensor([[[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]], dtype=torch.float64)
    lab = torch.tensor([0, 0, 1])
    M = torch.tensor([[2.0, -0.5], [0.3, 1.0]], dtype=torch.float64)
    Xn_, Mn = X[0].numpy(), M.numpy()
    same = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]], dtype=bool)

    def gap(A):
        return A[same].min() - A[~same].max()

    A = Xn_ @ Mn @ Xn_.T
    P = np.exp(A) / np.exp(A).sum(1, keepdims=True)
    Y = P @ Xn_
    Y /= np.linalg.norm(Y, axis=1, keepdims=True)
    want = gap(Y @ Mn @ Y.T) - gap(A)
    got = float(fusion.block_log_ratio(X, M, lab, "exp"))
    assert got == pytest.approx(want, rel=REF_RTOL)


def test_theorem_2_log_gamma_B_matches_the_direct_formula():
    for n, d, D in [(2, 0.1, 0.5), (8, 0.141, 0.592), (5, 0.6, -0.33), (3, 0.3, 0.3)]:
        X = d * math.exp(n * D * D) + math.exp(n * (d + d * d))
        direct = ((D * math.exp(D * D) - n * math.exp(n * (d + d * d))) ** 2 * math.exp(d + n * d * d - n * D * D)
                  / (n * n * X + n**3 * X * X))
        assert math.exp(log_gamma_B(n, d, D)) == pytest.approx(direct, rel=1e-10)


def test_appendix_b_log_pieces_match_the_printed_formulas():
    """(B6)–(B9) in log space against the formulas written out in floating point at small n."""
    for n, d, D in [(3, 0.2, 0.5), (8, 0.141, 0.592), (5, 0.6, -0.33)]:
        X = d * math.exp(n * D * D) + math.exp(n * (d + d * d))
        base = D * math.exp(D * D) - n * math.exp(n * (d + d * d))
        assert math.exp(fusion.log_B6_same(n, d, D)) == pytest.approx(base**2, rel=1e-12)
        assert math.exp(fusion.log_B6_cross(n, d, D)) == pytest.approx(n * (n * X) + n * (n * X) ** 2, rel=1e-12)
        assert math.exp(fusion.log_B7(n, d, D)) == pytest.approx(math.exp(n * D * D - d - n * d * d), rel=1e-12)
        assert fusion.log_B8(n, d, D) - fusion.log_B7(n, d, D) == pytest.approx(log_gamma_B(n, d, D), rel=1e-12)


def test_fusion_log_formulas_at_their_edges():
    """App. B's factors in log space: log 0 is −inf (not an error), and γ_ν is undefined (NaN) where Δ′ ≤ 0, also
    for −1 < Δ′ < 0 (its square would pass for a valid bound): ν = 1, n = 2, δ = 0.1, Δ = 0.01 gives Δ′ = −0.992."""
    import math

    from theorems.deep_fusion import fusion

    assert fusion._log(0.0) == -math.inf and fusion._log(-1.0) == -math.inf and fusion._log(math.e) == 1.0
    assert math.isnan(fusion.log_gamma_nu(1, 2, 0.1, 0.01))
    assert math.isfinite(fusion.log_gamma_nu(2, 4, 0.01, 0.9))
    # and where its denominator 2νδ′ + (n−2ν)δ′² is ≤ 0 (only for n < 2ν, outside the balanced reading): −3.7e-4 here
    assert math.isnan(fusion.log_gamma_nu(3, 4, 0.01, 1.2))


def test_fusion_log_is_the_log_on_the_unit_interval():
    """App. B's factors take logs of numbers in (0, 1) (δ, Δ, products of them): only x ≤ 0 is −inf."""
    import math

    from theorems.deep_fusion import fusion

    for x in (1e-300, 0.01, 0.5, 1.0):
        assert fusion._log(x) == math.log(x)


# ------------------------------------------------------------------------------------------------------
# fusion.block_log_ratio: each sharpness kind on its own matrix (numpy, by hand)
# ------------------------------------------------------------------------------------------------------
def test_block_log_ratio_takes_the_sharpness_of_the_kind_asked():
    """log 𝒮(A′)/𝒮(A) of one block (normalised softmax aggregation) on two hand instances, in numpy: 'exp' reads
    min_same A − max_diff A, 'softmax' the same on A − logsumexp_row A (they differ here by more than 0.02, so a
    block that took one kind's path for the other would be caught)."""
    import numpy as np

    from theorems.deep_fusion.fusion import block_log_ratio

    X = np.array([[[1.0, 0.0, 0.0], [0.9, 0.3, 0.1], [0.0, 1.0, 0.2], [0.2, 0.8, -0.3]],
                  [[0.6, 0.8, 0.0], [0.7, 0.5, 0.5], [0.0, 0.1, 1.0], [-0.2, 0.3, 0.9]]])
    X = X / np.linalg.norm(X, axis=-1, keepdims=True)
    M = np.array([[2.0, 0.3, 0.0], [0.3, 1.5, -0.2], [0.0, -0.2, 1.0]])
    lab = np.array([0, 0, 1, 1])
    same = lab[:, None] == lab[None, :]

    def log_s(A, kind):
        L = A if kind == "exp" else A - np.log(np.exp(A).sum(-1, keepdims=True))
        return L[same].min() - L[~same].max()

    want = {}
    for kind in ("exp", "softmax"):
        rows = []
        for x in X:
            A = x @ M @ x.T
            P = np.exp(A) / np.exp(A).sum(-1, keepdims=True)
            xn = P @ x
            xn = xn / np.linalg.norm(xn, axis=-1, keepdims=True)
            rows.append(log_s(xn @ M @ xn.T, kind) - log_s(A, kind))
        want[kind] = np.array(rows)
        got = block_log_ratio(torch.tensor(X), torch.tensor(M), torch.tensor(lab), kind).numpy()
        assert np.allclose(got, want[kind], rtol=1e-12, atol=1e-12), (kind, got, want[kind])
    assert np.abs(want["exp"] - want["softmax"]).max() > 0.02, want


def test_appendix_b_log_A_prime_matches_numpy():
    """B6 (both cases) and B8 from A′ = X̃′WWᵀX̃′ᵀ, X̃′ = exp(A)X̃, computed directly in float64 here: log A′
    where A′ > 0 and −inf elsewhere. The first instance's A′ lies in (0, 1) (a threshold of 1 would drop it), the
    second has a same-cluster A′ < 0 (log of it must be −inf, not log of a clamped number)."""
    X, W = _hand_instances()
    lab = np.array([0, 0, 1, 1])
    same = lab[:, None] == lab[None, :]
    n, sizes = 4, (2, 2)
    d, D = np.array([0.3, 0.3]), np.array([0.5, 0.5])
    got = fusion.appendix_b_steps(torch.tensor(X), torch.tensor(W), torch.tensor(lab), torch.tensor(d),
                                  torch.tensor(D), sizes)
    signs = []
    for b in range(2):
        A = X[b] @ W[b] @ W[b].T @ X[b].T
        Xp = np.exp(A) @ X[b]
        Ap = Xp @ W[b] @ W[b].T @ Xp.T
        signs.append((Ap[same].min(), Ap.max()))
        logA = _log_pos(Ap)
        b6s = logA[same].min() - fusion.log_B6_same(n, d[b], D[b])
        b6c = fusion.log_B6_cross(n, d[b], D[b]) - logA[~same].max()
        assert float(got["B6_same_lower"][b]) == pytest.approx(b6s, rel=1e-10, abs=1e-10), b
        assert float(got["B6_cross_upper"][b]) == pytest.approx(b6c, rel=1e-10, abs=1e-10), b
        prev = A[same].min() - A[~same].max()
        nxt = logA[same].min() - logA[~same].max() if Ap[same].min() > 0 else math.nan
        want8 = nxt - fusion.log_B8(n, d[b], D[b])
        if math.isnan(want8):
            assert math.isnan(float(got["B8_next_sharpness_lower"][b])), b
        else:
            assert float(got["B8_next_sharpness_lower"][b]) == pytest.approx(want8, rel=1e-10), b
            gnu = fusion.log_gamma_nu(2, n, d[b], D[b])
            if not math.isnan(gnu):
                assert float(got["gamma_nu_ratio"][b]) == pytest.approx(nxt - prev - gnu, rel=1e-10), b
    (lo0, hi0), (lo1, _) = signs
    assert 0 < lo0 and hi0 < 1 and lo1 < 0, signs  # the hand instances are the edges they are meant to be
    assert float(got["B6_same_lower"][1]) == -math.inf


@pytest.mark.parametrize("nu, n, d, D", [(4, 8, 0.14, 0.59),  # the default regime
                                         (2, 4, 0.05, 0.8),  # Δ′e^{−m} = 0.92: a threshold of 1 would call it nan
                                         (4, 4, 0.0, 0.5),  # one cluster, δ = 0: no denominator (nan, not inf)
                                         (3, 5, 0.01, 1.2),  # n < 2ν: 2νδ′e^{−m} − δ′² > 0 (finite)
                                         (3, 4, 0.01, 1.2),  # n < 2ν: denominator −3.7e-4 ≤ 0 (nan)
                                         (300, 600, 0.01, 2.0),  # ν Δ² = 1200 nats: only e^{la − max} stays finite
                                         (4, 8, 0.6, 0.1)])  # Δ′ < 0: undefined (nan)
def test_log_gamma_nu_matches_decimal(nu, n, d, D):
    want = _log_gamma_nu_decimal(nu, n, d, D)
    got = fusion.log_gamma_nu(nu, n, d, D)
    if math.isnan(want):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
