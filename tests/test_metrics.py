"""Neural-collapse metrics (paper 004, Def. 3.4, and the field's family) on hand-computed cases.

Every reference value here is computed by hand (in the docstrings/comments) or by an independent
numpy/scipy computation written out in the test, never copied from a run of the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy.optimize import minimize_scalar

from theorems.metrics.neural_collapse import (_nc2, both_families, class_means, etf_matrix, nc1, nc2a, nc2b, nc3,
                                              nc_metrics, standard_nc_metrics)

DT = torch.float64
EXACT = 1e-13  # identities that hold up to a few ulps of O(1) numbers
CLOSE = 1e-10  # comparisons against an independent (iterative) computation


def t(a) -> torch.Tensor:
    return torch.as_tensor(np.asarray(a, dtype=np.float64), dtype=DT)


def simplex_rows(K: int, scale: float = 1.0) -> np.ndarray:
    """K×K matrix whose rows are a simplex ETF, built from scratch: √(K/(K−1))(e_k − 1/K)."""
    return scale * math.sqrt(K / (K - 1)) * (np.eye(K) - np.ones((K, K)) / K)


def random_orthonormal_rows(rng: np.random.Generator, K: int, d: int) -> np.ndarray:
    q, _ = np.linalg.qr(rng.standard_normal((d, K)))
    return q.T  # K×d with orthonormal rows


def labels_of(K: int, n: int) -> torch.Tensor:
    return torch.arange(K).repeat_interleave(n)


# ----------------------------------------------------------------------------------------------------
# E_K
# ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("K", [2, 3, 5])
def test_etf_matrix_corrected_and_literal(K):
    ones = np.ones((K, K))
    np.testing.assert_allclose(etf_matrix(K).numpy(), np.eye(K) - ones / K, rtol=0, atol=EXACT)
    np.testing.assert_allclose(etf_matrix(K, literal=True).numpy(), np.eye(K) - ones, rtol=0, atol=EXACT)
    # ‖E_K‖_F² = K − 1 (used by the closed-form c*)
    assert etf_matrix(K).pow(2).sum().item() == pytest.approx(K - 1, rel=EXACT)


# ----------------------------------------------------------------------------------------------------
# NC2A / NC2B on the two reference Grams
# ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("K,d,scale", [(2, 2, 1.0), (3, 5, 0.3), (4, 6, 2.5), (7, 9, 1.7)])
def test_simplex_etf_gram(K, d, scale):
    """G = WWᵀ ∝ E_K: NC2A = 0 and NC2B = 1/√K.

    By hand: for G = E_K, c* = tr(E)/K = (K−1)/K, E − c*I = (I − 11ᵀ)/K has ‖·‖² = (K−1)/K, and
    ‖E‖² = K − 1, so NC2B = √(1/K).
    """
    rng = np.random.default_rng(K * 100 + d)
    # rows of a simplex in K dims, mapped isometrically into R^d by a random orthonormal K×d matrix
    W = simplex_rows(K, scale) @ random_orthonormal_rows(rng, K, d)
    assert nc2a(t(W)).item() == pytest.approx(0.0, abs=1e-12)
    assert nc2b(t(W)).item() == pytest.approx(1 / math.sqrt(K), rel=1e-12)


@pytest.mark.parametrize("K,d,scale", [(2, 2, 1.0), (3, 5, 0.3), (4, 4, 2.5), (6, 10, 0.01)])
def test_orthogonal_gram(K, d, scale):
    """G = s²I: NC2B = 0 and NC2A = 1/√K (by hand: c* = ⟨I,E⟩/(K−1) = 1, I − E = 11ᵀ/K has norm 1)."""
    rng = np.random.default_rng(K * 7 + d)
    W = scale * random_orthonormal_rows(rng, K, d)
    assert nc2b(t(W)).item() == pytest.approx(0.0, abs=1e-12)
    assert nc2a(t(W)).item() == pytest.approx(1 / math.sqrt(K), rel=1e-12)


@pytest.mark.parametrize("K", [2, 3, 4, 10])
def test_literal_ek_is_not_zero_on_simplex_erratum_a1(K):
    """With the printed E = I − 11ᵀ a perfect simplex ETF is NOT collapsed (erratum A1).

    By hand with G = E_K (corrected) and L = I − 11ᵀ (zero diagonal, −1 off it): ⟨G,L⟩ = −Σ_{k≠j} G_kj
    = K(K−1)/K = K − 1 and ‖L‖² = K(K−1), so c* = 1/K and G − L/K = (1 − 1/K)I, whose norm over
    ‖G‖ = √(K−1) gives NC2A_literal = √((K−1)/K) > 0.
    """
    W = simplex_rows(K, 1.3)
    literal = nc2a(t(W), literal_ek=True).item()
    assert literal == pytest.approx(math.sqrt((K - 1) / K), rel=1e-12)
    assert literal > 0.5  # far from collapsed, although the corrected metric is 0
    assert nc2a(t(W)).item() == pytest.approx(0.0, abs=1e-12)


def test_nc2_is_scale_invariant():
    rng = np.random.default_rng(3)
    W = rng.standard_normal((5, 7))
    for s in (1e-3, 1.0, 1e3):
        assert nc2a(t(s * W)).item() == pytest.approx(nc2a(t(W)).item(), rel=1e-12)
        assert nc2b(t(s * W)).item() == pytest.approx(nc2b(t(W)).item(), rel=1e-12)


# ----------------------------------------------------------------------------------------------------
# Closed-form c* against brute force
# ----------------------------------------------------------------------------------------------------
def brute_force_nc2(G: np.ndarray, T: np.ndarray) -> float:
    """min_{c ≥ 0} ‖G − cT‖_F/‖G‖_F by bounded scalar minimisation (no closed form used)."""
    gn = np.linalg.norm(G)
    hi = 10.0 * gn / np.linalg.norm(T) + 1.0  # the minimiser is at most ‖G‖/‖T‖
    # minimise the squared ratio (smooth) on a bracket wide enough to include c = 0
    res = minimize_scalar(lambda c: np.linalg.norm(G - c * T) ** 2, bounds=(0.0, hi), method="bounded",
                          options={"xatol": 1e-12 * hi, "maxiter": 500})
    best = min(res.fun, np.linalg.norm(G) ** 2)  # c = 0 is a candidate the bounded search may not hit exactly
    return math.sqrt(best) / gn


@pytest.mark.parametrize("seed", range(6))
def test_closed_form_c_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    K = int(rng.integers(2, 8))
    d = int(rng.integers(1, 10))  # includes rank-deficient d < K
    W = rng.standard_normal((K, d)) * rng.uniform(0.1, 10)
    G = W @ W.T
    ones = np.ones((K, K))
    for T, got in (
        (np.eye(K) - ones / K, nc2a(t(W)).item()),
        (np.eye(K), nc2b(t(W)).item()),
        (np.eye(K) - ones, nc2a(t(W), literal_ek=True).item()),
        (np.eye(K) - ones / K, _nc2(t(W), t(np.eye(K) - ones / K)).item()),
    ):
        ref = brute_force_nc2(G, T)
        # the closed form is the exact minimiser: never worse than brute force, and equal to it
        assert got <= ref + 1e-12
        assert got == pytest.approx(ref, rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("K", [3, 4, 6])
def test_clamp_c_at_zero_literal_ek(K):
    """All rows equal: ⟨G, I − 11ᵀ⟩ = K − K² < 0 for K ≥ 3, so the constrained minimiser is c = 0 and
    the ratio is exactly 1 (the unconstrained c* < 0 would give a smaller, wrong value)."""
    W = np.tile([[0.5, -1.0, 2.0]], (K, 1))
    G = W @ W.T
    got = nc2a(t(W), literal_ek=True).item()
    assert got == pytest.approx(1.0, rel=1e-12)
    assert got == pytest.approx(brute_force_nc2(G, np.eye(K) - np.ones((K, K))), rel=1e-9)


# ----------------------------------------------------------------------------------------------------
# NC1
# ----------------------------------------------------------------------------------------------------
def test_nc1_hand_two_class():
    """Class 0: (1,0), (3,0); class 1: (0,1), (0,3).  μ0 = (2,0), μ1 = (0,2), μG = (1,1).
    tr Σ_W = (1/4)·(1+1+1+1) = 1;  tr Σ_B = (1/2)·(2 + 2) = 2;  NC1 = 1/2."""
    X = t([[1, 3, 0, 0], [0, 0, 1, 3]])
    labels = labels_of(2, 2)
    assert nc1(X, labels, 2).item() == pytest.approx(0.5, rel=1e-15)
    np.testing.assert_allclose(class_means(X, labels, 2).numpy(), [[2, 0], [0, 2]], atol=EXACT)


def _nc1_numpy(X: np.ndarray, y: np.ndarray, K: int) -> float:
    """Straight from the definition: Σ_W = (1/N)Σ (x−μ_k)(x−μ_k)ᵀ, Σ_B = (1/K)Σ (μ_k−μ_G)(μ_k−μ_G)ᵀ."""
    d, N = X.shape
    mu = np.stack([X[:, y == k].mean(axis=1) for k in range(K)], axis=1)
    muG = mu.mean(axis=1)
    SW = np.zeros((d, d))
    for i in range(N):
        v = X[:, i] - mu[:, y[i]]
        SW += np.outer(v, v)
    SW /= N
    SB = sum(np.outer(mu[:, k] - muG, mu[:, k] - muG) for k in range(K)) / K
    return float(np.trace(SW) / np.trace(SB))


@pytest.mark.parametrize("K,n,d", [(2, 3, 2), (3, 4, 5), (5, 2, 3)])
def test_nc1_matches_definition(K, n, d):
    rng = np.random.default_rng(K + n + d)
    X = rng.standard_normal((d, K * n))
    y = np.repeat(np.arange(K), n)
    # unordered labels too: the metric must not assume the class-by-class layout
    perm = rng.permutation(K * n)
    for Xp, yp in ((X, y), (X[:, perm], y[perm])):
        got = nc1(t(Xp), torch.as_tensor(yp), K).item()
        assert got == pytest.approx(_nc1_numpy(Xp, yp, K), rel=1e-12)


def test_nc1_zero_for_collapsed_features():
    rng = np.random.default_rng(0)
    K, n, d = 4, 3, 6
    means = rng.standard_normal((d, K))
    X = np.repeat(means, n, axis=1)
    assert nc1(t(X), labels_of(K, n), K).item() == pytest.approx(0.0, abs=1e-15)


def test_nc1_degenerate_means():
    """All class means equal: the ratio is +inf if samples vary, undefined (nan) if nothing varies."""
    X = t([[1.0, -1.0, 1.0, -1.0]])  # both classes have mean 0
    assert math.isinf(nc1(X, labels_of(2, 2), 2).item())
    assert math.isnan(nc1(t(np.ones((2, 4))), labels_of(2, 2), 2).item())


# ----------------------------------------------------------------------------------------------------
# NC3
# ----------------------------------------------------------------------------------------------------
def test_nc3_zero_when_features_parallel_to_rows():
    rng = np.random.default_rng(1)
    K, n, d = 3, 4, 5
    W = rng.standard_normal((K, d))
    scales = rng.uniform(0.1, 5.0, size=K * n)  # positive multiples, different per sample
    X = (W[np.repeat(np.arange(K), n)] * scales[:, None]).T
    assert nc3(t(W), t(X), labels_of(K, n)).item() == pytest.approx(0.0, abs=1e-14)


def test_nc3_hand_case():
    """w_0 = (1,0), w_1 = (0,1); x_0 = (1,1) (cos 1/√2), x_1 = (0,2) (cos 1) ⇒ NC3 = 1 − (1/√2 + 1)/2."""
    W = t([[1, 0], [0, 1]])
    X = t([[1, 0], [1, 2]])
    assert nc3(W, X, labels_of(2, 1)).item() == pytest.approx(1 - (1 / math.sqrt(2) + 1) / 2, rel=1e-14)


def test_nc3_antiparallel_is_two():
    """cos = −1 for every sample ⇒ NC3 = 2 (raw, uncentred features)."""
    W = t([[1, 2, 0], [0, -1, 3]])
    X = -2.0 * W.T
    assert nc3(W, X, labels_of(2, 1)).item() == pytest.approx(2.0, rel=1e-14)


# ----------------------------------------------------------------------------------------------------
# Batching
# ----------------------------------------------------------------------------------------------------
def test_batching_over_leading_dims_equals_loop():
    g = torch.Generator().manual_seed(0)
    K, n, d = 3, 2, 5
    W = torch.randn(2, 3, K, d, generator=g, dtype=DT)
    X = torch.randn(2, 3, d, K * n, generator=g, dtype=DT)
    labels = labels_of(K, n)
    batched = nc_metrics(W, X, labels)
    batched_literal = nc2a(W, literal_ek=True)
    for name, value in batched.items():
        assert value.shape == (2, 3), name
    for i in range(2):
        for j in range(3):
            single = nc_metrics(W[i, j], X[i, j], labels)
            for name in single:
                torch.testing.assert_close(batched[name][i, j], single[name], rtol=1e-13, atol=0)
            torch.testing.assert_close(batched_literal[i, j], nc2a(W[i, j], literal_ek=True), rtol=1e-13, atol=0)



# ----------------------------------------------------------------------------------------------------
# The field's family (standard_nc_metrics) beside Definition 3.4's
# ----------------------------------------------------------------------------------------------------
def _standard_numpy(W: np.ndarray, X: np.ndarray, y: np.ndarray, K: int) -> dict[str, float]:
    """The field's metrics written out from their definitions with numpy/scipy (loops, scipy's pinv)."""
    from scipy.linalg import pinv

    d, N = X.shape
    means = np.stack([X[:, y == k].mean(axis=1) for k in range(K)], axis=1)
    glob = means.mean(axis=1, keepdims=True)
    sw = sum(np.outer(X[:, i] - means[:, y[i]], X[:, i] - means[:, y[i]]) for i in range(N)) / N
    sb = sum(np.outer(means[:, k] - glob[:, 0], means[:, k] - glob[:, 0]) for k in range(K)) / K
    etf = (np.eye(K) - np.ones((K, K)) / K) / math.sqrt(K - 1)
    M = means - glob
    G_means, G_w = M.T @ M, W @ W.T
    return {
        "nc1_pinv": float(np.trace(sw @ pinv(sb)) / K),
        "nc2_means_etf": float(np.linalg.norm(G_means / np.linalg.norm(G_means) - etf)),
        "nc2_w_etf": float(np.linalg.norm(G_w / np.linalg.norm(G_w) - etf)),
        "nc3_centred": float(np.linalg.norm(W / np.linalg.norm(W) - M.T / np.linalg.norm(M))),
    }


@pytest.mark.parametrize("K,n,d", [(2, 3, 4), (3, 2, 5), (5, 4, 8)])
def test_standard_metrics_match_their_definitions(K, n, d):
    rng = np.random.default_rng(K * 100 + d)
    W = rng.standard_normal((K, d))
    X = rng.standard_normal((d, K * n)) + 2 * np.repeat(rng.standard_normal((d, K)), n, axis=1)
    got = standard_nc_metrics(t(W), t(X), labels_of(K, n))
    ref = _standard_numpy(W, X, np.repeat(np.arange(K), n), K)
    assert set(got) == set(ref)
    for name, value in ref.items():
        assert got[name].item() == pytest.approx(value, rel=CLOSE), name


def test_etf_plus_common_offset_the_families_disagree_on_nc3():
    """Features = simplex ETF + a common offset o (orthogonal to the ETF's span), W = the ETF, every sample at
    its class mean. Centring by the global mean removes o: every standard metric is 0. The paper's NC3 uses
    raw features: cos(e_k + o, e_k) = ‖e_k‖/√(‖e_k‖² + ‖o‖²) = 1/√2 with ‖o‖ = ‖e_k‖ = 1, so NC3 = 1 − 1/√2."""
    K, n = 4, 3
    E = simplex_rows(K)  # K×K, rows unit, centred, in 1^⊥ of R^K
    d = K + 1
    W = np.hstack([E, np.zeros((K, 1))])  # rows in the first K coordinates
    offset = np.zeros(d)
    offset[-1] = 1.0  # ⊥ every row, norm 1
    X = np.repeat(W, n, axis=0).T + offset[:, None]
    both = both_families(t(W), t(X), labels_of(K, n))
    assert both["nc1"].item() == pytest.approx(0.0, abs=EXACT) and both["nc2a"].item() == pytest.approx(0.0, abs=EXACT)
    assert both["nc3"].item() == pytest.approx(1 - 1 / math.sqrt(2), rel=EXACT)
    for name in ("nc1_pinv", "nc2_means_etf", "nc2_w_etf", "nc3_centred"):
        assert both[name].item() == pytest.approx(0.0, abs=1e-12), name


@pytest.mark.parametrize("K,d", [(3, 4), (4, 6)])
def test_mse_optimum_orthogonal_w_is_not_an_etf(K, d):
    """Lemma 4.2's MSE optimum (d ≥ K+1): W = zUᵀ, x_ki = √d u_k, U orthonormal in 1^⊥. Paper: NC1 = NC2B =
    NC3 = 0. Field: the centred means of an orthonormal frame have Gram d(I − 11ᵀ/K), an ETF, so
    nc2_means_etf = 0; but WWᵀ = z²I, and ‖I/√K − E/√(K−1)‖² = 2 − 2⟨I, E⟩/√(K(K−1)) = 2 − 2√((K−1)/K);
    nc3_centred compares Uᵀ/√K with E Uᵀ/√(K−1): the same inner product, the same value."""
    rng = np.random.default_rng(7)
    n = 2
    ones = np.ones(d) / math.sqrt(d)
    Q, _ = np.linalg.qr(np.column_stack([ones, rng.standard_normal((d, K))]))
    U = Q[:, 1:K + 1]  # orthonormal, ⊥ 1
    z = math.sqrt(d) / (d + K * 0.05)
    W, X = z * U.T, math.sqrt(d) * np.repeat(U, n, axis=1)
    both = both_families(t(W), t(X), labels_of(K, n))
    expected = math.sqrt(2 - 2 * math.sqrt((K - 1) / K))
    for name in ("nc1", "nc2b", "nc3", "nc1_pinv", "nc2_means_etf"):
        assert both[name].item() == pytest.approx(0.0, abs=1e-12), name
    assert both["nc2_w_etf"].item() == pytest.approx(expected, rel=1e-12)
    assert both["nc3_centred"].item() == pytest.approx(expected, rel=1e-12)
    assert both["nc2a"].item() == pytest.approx(1 / math.sqrt(K), rel=1e-12)


def test_mse_optimum_at_d_equal_K_is_collapsed_only_for_the_field():
    """At d = K the MSE optimum is a signed simplex (value ½c/(d+c), c = d/(K−1)+λK); take the one with every
    sign negative, a simplex ETF in 1^⊥: the paper's NC2B = 1/√K (W is not orthogonal: no K orthonormal rows
    fit in 1^⊥ of R^K), while every metric of the field is 0. Its value is checked against the closed form."""
    from theorems.neural_collapse.ufm import mse_signed_simplex_value, ufm_objective

    K = d = 4
    n, lam = 2, 0.05
    U = simplex_rows(K).T  # d×K, unit columns in 1^⊥ of R^K, pairwise −1/(K−1)
    c = d / (K - 1) + lam * K
    # W = zUᵀ, X = √d U per class: the objective is (1/2K)‖z√d G − I‖² + (λK/2)z², G = UᵀU, a quadratic in z
    # minimised at z = √d tr G/(d‖G‖² + λK²)
    G = U.T @ U
    z = math.sqrt(d) * np.trace(G) / (d * np.sum(G * G) + lam * K * K)
    X = math.sqrt(d) * np.repeat(U, n, axis=1)
    value = float(ufm_objective(t(z * U.T), t(X), labels_of(K, n), "mse", lam))
    assert value == pytest.approx(mse_signed_simplex_value(K, d, lam), rel=1e-12)
    assert mse_signed_simplex_value(K, d, lam) == pytest.approx(0.5 * c / (d + c), rel=EXACT)
    both = both_families(t(z * U.T), t(X), labels_of(K, n))
    assert both["nc2b"].item() == pytest.approx(1 / math.sqrt(K), rel=1e-12)
    for name in ("nc1", "nc3", "nc2a", "nc1_pinv", "nc2_means_etf", "nc2_w_etf", "nc3_centred"):
        assert both[name].item() == pytest.approx(0.0, abs=1e-12), name


def test_nc1_pinv_differs_from_the_trace_ratio():
    """Two classes in R², means (±1, 0), within-class spread only along e_2 (where Σ_B is 0): the trace
    ratio sees it (tr Σ_W / tr Σ_B = 0.25/1), tr(Σ_W Σ_B^†)/K does not (Σ_B^† kills e_2), so it is 0."""
    X = t([[1, 1, -1, -1], [0.5, -0.5, 0.5, -0.5]])
    labels = labels_of(2, 2)
    assert nc1(X, labels, 2).item() == pytest.approx(0.25, rel=EXACT)
    assert standard_nc_metrics(t(np.eye(2)), X, labels)["nc1_pinv"].item() == pytest.approx(0.0, abs=EXACT)


def test_standard_metrics_batch_like_nc_metrics():
    g = torch.Generator().manual_seed(3)
    K, n, d = 3, 2, 5
    W = torch.randn(2, 3, K, d, generator=g, dtype=DT)
    X = torch.randn(2, 3, d, K * n, generator=g, dtype=DT)
    labels = labels_of(K, n)
    batched = standard_nc_metrics(W, X, labels)
    for i in range(2):
        for j in range(3):
            single = standard_nc_metrics(W[i, j], X[i, j], labels)
            for name, value in single.items():
                assert batched[name].shape == (2, 3)
                torch.testing.assert_close(batched[name][i, j], value, rtol=1e-12, atol=1e-14)

# -- power-law fits (trend results) ---------------------------------------------------------------------
def test_power_law_fit_recovers_a_known_exponent_and_reports_noise():
    from theorems.metrics.scaling import fit_power_law

    x = np.array([2.0, 4, 8, 16, 32])
    exact = fit_power_law(x, 3.0 * x**-0.5)
    assert exact.exponent == pytest.approx(-0.5, rel=1e-12) and exact.prefactor == pytest.approx(3.0, rel=1e-12)
    assert exact.r2 == pytest.approx(1.0) and exact.stderr == pytest.approx(0.0, abs=1e-12)
    noisy = fit_power_law(x, 3.0 * x**-0.5 * np.array([1.2, 0.8, 1.1, 0.9, 1.0]))
    assert noisy.stderr > 0 and noisy.r2 < 1
    with pytest.raises(ValueError, match="at least two points"):
        fit_power_law([1.0, 2.0], [0.0, -1.0])


def test_scaling_series_checks_its_input_and_words_the_prediction():
    from theorems.metrics.scaling import fit_power_law, predicted_text, scaling_series

    fit = fit_power_law([1, 2, 4], [1, 0.5, 0.25])
    s = scaling_series("n", [1, 2, 4], "y", [1, 0.5, 0.25], fit=fit, predicted=(None, 0.0), predicted_note="falls")
    assert s["fit"]["exponent"] == pytest.approx(-1.0) and s["predicted"] == [None, 0.0]
    assert predicted_text(s) == "α ≤ 0 (falls)"
    assert predicted_text(scaling_series("n", [1, 2], "y", [1, 2], predicted=(-1.2, -0.8))) == "α ∈ [-1.2, -0.8]"
    assert predicted_text(scaling_series("n", [1, 2], "y", [1, 2], predicted=(0.0, None))) == "α ≥ 0"
    with pytest.raises(ValueError, match="differ in length"):
        scaling_series("n", [1, 2, 3], "y", [1, 2])
    with pytest.raises(ValueError, match="empty"):
        scaling_series("n", [1, 2], "y", [1, 2], predicted=(1.0, 0.0))
