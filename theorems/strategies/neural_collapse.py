"""Strategies for paper 004 (neural collapse)."""

from __future__ import annotations

from hypothesis import strategies as st

from ..core.result import CORRECTED
from ._common import valid_for

__all__ = ["ufm_params", "deep_net_params", "near_optimal_params"]


@st.composite
def ufm_params(draw, loss: str | None = None, form: str = CORRECTED) -> dict:
    """(K, n, d, λ, loss, seed) for Lemma 4.2 inside its hypotheses (corrected form).

    MSE: K ∈ [2, 8], d ∈ [max(3, K+1), K+6] (K+1 only for the corrected form), λ = 10^u, u ∈ [−3, 1].
    CE:  K ∈ [2, 10], d ∈ [max(3, K), K+6], λ = 10^u, u ∈ [−4, 1]. n ∈ [1, 5].
    d = 2 is excluded: the LN sphere is then two points and random starts cannot reach the optimum.
    """
    loss = loss or draw(st.sampled_from(("mse", "ce")))
    K = draw(st.integers(2, 8 if loss == "mse" else 10))
    d_min = max(3, K + 1 if (loss == "mse" and form == CORRECTED) else K)
    d = draw(st.integers(d_min, K + 6))
    u = draw(st.floats(-3.0 if loss == "mse" else -4.0, 1.0, allow_nan=False))
    params = dict(K=K, n=draw(st.integers(1, 5)), d=d, lam=float(f"{10.0 ** u:.4g}"), loss=loss,
                  seed=draw(st.integers(0, 2**16)))
    return valid_for("neural_collapse.lemma_4_2", form)(params)


@st.composite
def deep_net_params(draw, loss: str | None = None) -> dict:
    """Parameters of ``neural_collapse.theorem_4_3`` inside its hypotheses: any architecture, depth 1–6,
    K ∈ [2, 4], d ≥ 4 (ResNets) or d ≥ 2V+2 (transformer), λ = 10^u, u ∈ [−3, 0]. The bound is exact for
    every θ, so ``train_iter`` is kept small (0–20): the property is about arbitrary networks."""
    loss = loss or draw(st.sampled_from(("mse", "ce")))
    arch = draw(st.sampled_from(("rn1", "rn2", "pre_rn1", "pre_rn2", "tx1")))
    K = draw(st.integers(2, 4))
    n = draw(st.integers(1, 3))
    params = dict(arch=arch, K=K, n=n, L=draw(st.integers(1, 6)), loss=loss,
                  lam=float(f"{10.0 ** draw(st.floats(-3.0, 0.0, allow_nan=False)):.4g}"),
                  seed=draw(st.integers(0, 2**16)), train_iter=draw(st.integers(0, 20)))
    if arch == "tx1":
        V = draw(st.integers(2, 3))
        params.update(V=V, C=draw(st.integers(5, 6) if V == 2 else st.integers(3, 4)),
                      d=draw(st.integers(2 * V + 2, 2 * V + 4)))
    else:
        params.update(d0=draw(st.integers(1, 6)), d=draw(st.integers(4, 8)))
    return valid_for("neural_collapse.theorem_4_3", "as_printed")(params)


@st.composite
def near_optimal_params(draw) -> dict:
    """Parameters of ``neural_collapse.lemma_4_1``: K ∈ [2, 5], n ∈ [1, 3], d ∈ [max(3, K(+1)), K+4],
    λ = 10^u, u ∈ [−2.5, 0]; fewer draws than the default to keep an example cheap."""
    loss = draw(st.sampled_from(("mse", "ce")))
    K = draw(st.integers(2, 5))
    d = draw(st.integers(max(3, K + 1 if loss == "mse" else K), K + 4))
    params = dict(K=K, n=draw(st.integers(1, 3)), d=d, loss=loss,
                  lam=float(f"{10.0 ** draw(st.floats(-2.5, 0.0, allow_nan=False)):.4g}"),
                  seed=draw(st.integers(0, 2**16)), draws=8, seeds=3, train_iter=20)
    return valid_for("neural_collapse.lemma_4_1", "as_printed")(params)
