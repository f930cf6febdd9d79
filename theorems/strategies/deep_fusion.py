"""Strategies for paper 000 (Deep Fusion): unions of subspaces inside each result's hypotheses.

Ranges: m ∈ [2, 32], K ∈ [2, 5], r ≤ ⌊m/K⌋ (independent random subspaces), cluster
sizes ν ∈ [1, 8]; ε ∈ [0, 0.99], ρ ∈ [0.01, 1] for the noise lemma; separable noisy instances with
ε ∈ [1e-3, 0.1] for Theorem 2. Every draw is re-validated against the result's own hypotheses.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..core.result import AS_PRINTED, CORRECTED
from ._common import valid_for

__all__ = ["union_of_subspaces_params", "theorem_1_params", "definition_1_params", "noise_lemma_params",
           "theorem_2_params", "theorem_2_depth_params", "algorithm_1_params", "tables_params",
           "trained_attention_params", "fusion_trend_params"]


@st.composite
def union_of_subspaces_params(draw, K_max: int = 5, m_max: int = 32, nu_max: int = 8, n_out_max: int | None = None,
                              signs: str = "cone", arrangement: str | None = None) -> dict:
    """(m, K, r, ν, imbalance, arrangement, angle, signs, seed) with K·r ≤ m (independent subspaces).

    ``n_out_max`` caps the out-of-cluster sample count (exact Definition-1 ρ enumerates 2^(N−1) patterns).
    """
    K = draw(st.integers(2, K_max))
    arrangement = arrangement or draw(st.sampled_from(("random", "angle")))
    if arrangement == "angle":
        r = draw(st.integers(1, max(1, m_max // (2 if K == 2 else K + 1))))
        m_min = 2 * r if K == 2 else (K + 1) * r
    else:
        r = draw(st.integers(1, max(1, min(4, m_max // K))))
        m_min = max(K * r, r + 1)
    m = draw(st.integers(m_min, max(m_min, min(m_max, m_min + 8))))
    nu = draw(st.integers(1, nu_max))
    imbalance = draw(st.integers(0, 2))
    if n_out_max is not None:
        while nu > 1 and (K - 1) * nu + imbalance * (K * (K - 1) // 2) > n_out_max:
            nu -= 1
        if (K - 1) * nu + imbalance * (K * (K - 1) // 2) > n_out_max:
            imbalance = 0
    return dict(m=m, K=K, r=r, nu=nu, imbalance=imbalance, arrangement=arrangement,
                angle_deg=draw(st.floats(5.0, 90.0)), signs=signs, seed=draw(st.integers(0, 2**16)))


def _fits(p: dict, n_out_max: int) -> bool:
    K, nu, imb = p["K"], p["nu"], p["imbalance"]
    return sum(nu + c * imb for c in range(1, K)) <= n_out_max


@st.composite
def theorem_1_params(draw, form: str = CORRECTED) -> dict:
    """Theorem 1 inside its corrected hypotheses (cone data, independent subspaces, unit W, bilinear A)."""
    p = draw(union_of_subspaces_params(K_max=5, m_max=16, nu_max=6, n_out_max=10 if form == AS_PRINTED else None)
             .filter(lambda q: form == CORRECTED or _fits(q, 10)))
    if form == AS_PRINTED:
        p = {**p, "arrangement": "random", "m": max(p["m"], p["K"] * p["r"])}
    return valid_for("deep_fusion.theorem_1", form)(p)


@st.composite
def definition_1_params(draw) -> dict:
    """Definition 1 with ≤ 7 out-of-cluster samples (exact ρ checked against a scipy reference, one SLSQP per
    sign pattern: 2^6 patterns keep an example well under a second)."""
    p = draw(union_of_subspaces_params(K_max=4, m_max=12, nu_max=3, n_out_max=7,
                                       signs=draw(st.sampled_from(("cone", "arbitrary"))))
             .filter(lambda q: _fits(q, 7)))
    return valid_for("deep_fusion.definition_1", AS_PRINTED)({**p, "instances": 4})


@st.composite
def noise_lemma_params(draw, form: str = CORRECTED) -> dict:
    """ε ∈ [0, 0.99], ρ ∈ [0.01, 1], m ∈ [3, 24], random or extremal noise, either sign of x_iᵀu."""
    m = draw(st.integers(3, 24))
    p = dict(eps=draw(st.floats(0.0, 0.99)), rho=draw(st.floats(0.01, 1.0)), m=m, r=draw(st.integers(1, m - 1)),
             mode=draw(st.sampled_from(("random", "adversarial"))),
             margin_sign=draw(st.sampled_from(("positive", "negative"))), seed=draw(st.integers(0, 2**16)),
             instances=64)
    return valid_for("deep_fusion.noise_lemma", form)(p)


@st.composite
def theorem_2_params(draw, form: str = AS_PRINTED) -> dict:
    """Noisy cone data, separable or not: m ∈ [K·r+1, 40], K ∈ [2, 4], r ∈ [1, 3], ν ∈ [2, 12],
    ε ∈ [1e-3, 0.3] (no separability: the statement assumes none)."""
    K = draw(st.integers(2, 4))
    r = draw(st.integers(1, 3))
    p = dict(K=K, r=r, m=draw(st.integers(K * r + 1, 40)), nu=draw(st.integers(2, 12)),
             imbalance=draw(st.integers(0, 2)), eps=draw(st.floats(1e-3, 0.3)),
             noise=draw(st.sampled_from(("random", "exact", "toward"))),
             seed=draw(st.integers(0, 2**16)), instances=8, restarts=16)
    return valid_for("deep_fusion.theorem_2", form)(p)


@st.composite
def theorem_2_depth_params(draw) -> dict:
    """Stacked blocks on noisy cone data: K ∈ [2, 3], r ∈ [1, 2], ν ∈ [2, 6], ε ∈ [1e-3, 0.2], depth ∈ [2, 6]."""
    K = draw(st.integers(2, 3))
    r = draw(st.integers(1, 2))
    p = dict(K=K, r=r, m=draw(st.integers(K * r + 1, 16)), nu=draw(st.integers(2, 6)),
             eps=draw(st.floats(1e-3, 0.2)), noise=draw(st.sampled_from(("random", "exact"))),
             depth=draw(st.integers(2, 6)), residual=draw(st.booleans()), seed=draw(st.integers(0, 2**16)),
             instances=4, restarts=8)
    return valid_for("deep_fusion.theorem_2_depth", AS_PRINTED)(p)


@st.composite
def algorithm_1_params(draw, form: str = CORRECTED) -> dict:
    p = draw(union_of_subspaces_params(K_max=4, m_max=10, nu_max=4, n_out_max=8,
                                       signs=draw(st.sampled_from(("cone", "arbitrary"))))
             .filter(lambda q: _fits(q, 8)))
    p.update(alpha=draw(st.floats(0.01, 1.0)), instances=2, restarts=8)
    p["r"] = min(p["r"], p["nu"])  # the samples must span their subspace (ν ≥ r)
    return valid_for("deep_fusion.algorithm_1", form)(p)


@st.composite
def tables_params(draw) -> dict:
    """One sentence group of §Experiment, the tables as printed (the tables are finite: every row is checked)."""
    from ..deep_fusion.tables import CLAIM_GROUPS

    return valid_for("deep_fusion.tables", AS_PRINTED)(dict(claim=draw(st.sampled_from(CLAIM_GROUPS))))


@st.composite
def trained_attention_params(draw) -> dict:
    """Small trained heads: K ∈ [2, 4], ν ∈ [4, 8], depth ∈ [2, 4], ε ∈ [0.01, 0.1], 16 seeds, 200 steps."""
    K = draw(st.integers(2, 4))
    r = draw(st.integers(1, 2))
    heads = draw(st.sampled_from((1, 2)))
    m = draw(st.integers(K * r, 16).filter(lambda v: v % heads == 0))
    p = dict(K=K, r=r, m=m, heads=heads, nu=draw(st.integers(4, 8)), depth=draw(st.integers(2, 4)),
             eps=draw(st.floats(0.01, 0.1)), seed=draw(st.integers(0, 2**16)))
    return valid_for("deep_fusion.trained_attention", AS_PRINTED)(p)


@st.composite
def fusion_trend_params(draw) -> dict:
    """Base points of the three sweeps: r ∈ [1, 3], m ∈ [2r, 24], ν ∈ [2, 8], ε ∈ [0.001, 0.01], θ ∈ [45°, 90°]
    (separable at every swept point), 16 instances a point."""
    r = draw(st.integers(1, 3))
    p = dict(r=r, m=draw(st.integers(2 * r, 24)), nu=draw(st.integers(2, 8)), eps=draw(st.floats(1e-3, 1e-2)),
             angle_deg=draw(st.floats(45.0, 90.0)), instances=16, seed=draw(st.integers(0, 2**16)))
    return valid_for("deep_fusion.fusion_trend", AS_PRINTED)(p)
