"""Strategies for the BatchNorm and training results of paper 001 (``nonlinear_cl.batchnorm``,
``nonlinear_cl.figure_4``, ``nonlinear_cl.table_1``, ``nonlinear_cl.specialisation``).

Ranges encode the hypotheses of each result; every draw is re-validated with :func:`valid_for`. Where a hypothesis
can be made to nearly bind (BatchNorm's σ → 0, the secular equation of Corollary 3 near degeneracy), the ranges reach
towards it, and the conformance worst-case search steers there with ``hypothesis.target`` on the slack.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..core.result import AS_PRINTED
from ._common import valid_for

__all__ = ["batchnorm_params"]


@st.composite
def batchnorm_params(draw) -> dict:
    """Lemma 6 / Corollary 3: K ∈ [2, 4], M ∈ [1, 3], d ∈ [2, 5], N ∈ [4, 64], homogeneous activations, α random or
    uniform; the population's z-signal of RFs 2..K down to 1e-3 (δ^bn_1 → 0) and RF scales up to 5×; optionally one
    RF nearly constant over the batch (σ → 0)."""
    params = dict(
        K=draw(st.integers(2, 4)), M=draw(st.integers(1, 3)), d=draw(st.integers(2, 5)), N=draw(st.integers(4, 64)),
        d_out=draw(st.integers(1, 4)), activation=draw(st.sampled_from(("relu", "leaky", "linear"))),
        alpha=draw(st.sampled_from(("random", "uniform"))), aug=round(draw(st.floats(0.0, 2.0)), 3),
        tau=round(draw(st.floats(0.05, 2.0)), 3), eps_nce=draw(st.sampled_from((0.0, 1.0))),
        n_small=draw(st.booleans()), atoms=draw(st.integers(2, 3)), p1=round(draw(st.floats(0.05, 0.95)), 3),
        weak_rf=float(f"{10 ** draw(st.floats(-3.0, 0.0)):.3g}"), rf_scale=round(draw(st.floats(0.2, 5.0)), 3),
        seed=draw(st.integers(0, 2**16)),
    )
    return valid_for("nonlinear_cl.batchnorm", AS_PRINTED)(params)
