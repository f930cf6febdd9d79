"""Strategies for paper 000 (Deep Fusion): every range comes from the results' `Param` declarations.

:func:`union_params` draws the union-of-subspaces parameters of a result from its declared ``sample`` ranges,
narrowing only where a hypothesis ties two of them together (m ≥ K·r for independent random subspaces, m ≥ 2r or
(K+1)r for the equal-angle arrangement, a cap on the out-of-cluster samples where ρ is enumerated exactly); the
result-specific parameters come from their declarations too (:func:`theorems.strategies.param`). Effort knobs
(``instances``, ``restarts``) are fixed per strategy to keep one example of the CI search cheap; they carry no
``sample`` range. Every draw is re-validated against the result's own hypotheses (:func:`valid_for`).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ..core.registry import get
from ..core.result import AS_PRINTED, CORRECTED
from ..data.subspaces import angle_arrangement_dim
from ._common import declared_params, param, valid_for

__all__ = ["union_params", "theorem_1_params", "definition_1_params", "noise_lemma_params", "theorem_2_params",
           "theorem_2_depth_params", "algorithm_1_params", "tables_params", "trained_attention_params",
           "fusion_trend_params"]

UNION = ("m", "K", "r", "nu", "imbalance", "arrangement", "angle_deg", "signs")


@st.composite
def union_params(draw, result_id: str, form: str, n_out_max: int | None = None, independent: bool = True,
                 **fixed: Any) -> dict:
    """Every declared parameter of ``result_id`` (``fixed`` overrides, values or strategies), with m drawn at
    least as large as the arrangement needs and ν, imbalance capped so that at most ``n_out_max`` samples lie
    outside cluster 0."""
    P = {p.name: p for p in get(result_id).params}

    def pick(name, lo=None, hi=None):
        if name in fixed:
            v = fixed[name]
            return draw(v) if isinstance(v, st.SearchStrategy) else v
        return draw(param(P[name], lo, hi))

    out = {name: pick(name) for name in P if name not in UNION}
    K = pick("K")
    arrangement = pick("arrangement") if "arrangement" in P else "random"
    m_hi = P["m"].sample[1]
    per = (K if K == 2 else K + 1) if arrangement == "angle" else (K if independent else 1)
    r = pick("r", hi=max(P["r"].sample[0], m_hi // per))
    need = angle_arrangement_dim(K, r) if arrangement == "angle" else max(K * r if independent else 1, r + 1)
    m = pick("m", lo=min(need, m_hi)) if need <= m_hi else need
    nu, imbalance = pick("nu"), pick("imbalance")
    if n_out_max is not None:  # keep the exact enumeration of ρ small: shrink ν, then drop the imbalance
        while nu > P["nu"].low and (K - 1) * nu + imbalance * (K * (K - 1) // 2) > n_out_max:
            nu -= 1
        if (K - 1) * nu + imbalance * (K * (K - 1) // 2) > n_out_max:
            imbalance = 0
    out.update(m=m, K=K, r=r, nu=nu, imbalance=imbalance, arrangement=arrangement, angle_deg=pick("angle_deg"))
    if "signs" in P:
        out["signs"] = pick("signs")
    return valid_for(result_id, form)(out)


def theorem_1_params(form: str = CORRECTED) -> st.SearchStrategy:
    """Theorem 1 inside its hypotheses; the printed form on random subspaces with ≤ 10 samples outside a
    cluster (Definition 1's ρ is enumerated exactly there)."""
    if form == AS_PRINTED:
        return union_params("deep_fusion.theorem_1", form, n_out_max=10, arrangement="random")
    return union_params("deep_fusion.theorem_1", form, signs="cone")


def definition_1_params() -> st.SearchStrategy:
    """≤ 7 out-of-cluster samples: the scipy reference solves one SLSQP per sign pattern (2^6 keep an example
    well under a second); 4 instances an example."""
    return union_params("deep_fusion.definition_1", AS_PRINTED, n_out_max=7, instances=4, independent=False)


def noise_lemma_params(form: str = CORRECTED) -> st.SearchStrategy:
    """ε, ρ, m, r, mode and the sign of x_iᵀu from the declarations; 64 instances an example."""
    return declared_params("deep_fusion.noise_lemma", form, instances=64)


def theorem_2_params(form: str = AS_PRINTED) -> st.SearchStrategy:
    """Noisy cone data, separable or not (the statement assumes no separability); 8 instances and 16 witnesses
    of each kind an example."""
    return union_params("deep_fusion.theorem_2", form, instances=8, restarts=16)


def theorem_2_depth_params() -> st.SearchStrategy:
    """Stacked blocks on noisy cone data; 4 instances and 8 witnesses of each kind an example."""
    return union_params("deep_fusion.theorem_2_depth", AS_PRINTED, instances=4, restarts=8)


def algorithm_1_params(form: str = CORRECTED) -> st.SearchStrategy:
    """≤ 8 out-of-cluster samples (exact ρ), each class spanning its subspace (ν ≥ r); 2 instances, 8 restarts."""
    return union_params("deep_fusion.algorithm_1", form, n_out_max=8, instances=2, restarts=8,
                        independent=False).filter(lambda p: p["nu"] >= p["r"])


def tables_params() -> st.SearchStrategy:
    """One sentence group of §Experiment against the tables as printed (finite: every row is checked)."""
    return declared_params("deep_fusion.tables", AS_PRINTED)


def trained_attention_params() -> st.SearchStrategy:
    """Small trained heads from the declared ranges (K·r ≤ m, heads dividing m)."""
    return declared_params("deep_fusion.trained_attention", AS_PRINTED)


def fusion_trend_params() -> st.SearchStrategy:
    """Base points of the three sweeps from the declared ranges (ε ≤ 0.01, θ ≥ 45°: separable at every swept
    point), 16 instances a point."""
    return declared_params("deep_fusion.fusion_trend", AS_PRINTED, instances=16)
