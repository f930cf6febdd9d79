"""Strategies for paper 001 (Tian, nonlinearity in contrastive learning).

Most results draw from their own `Param` declarations (``declared_params``, called from the result modules through
``theorems.nonlinear_cl.common.declared_strategy``). The strategies here are the ones where a hypothesis ties
parameters together or an instance family is a fixed configuration with one parameter moved, so that no range is
written twice: the ranges still come from the declarations (``param``), narrowed where the hypothesis bites.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..core.registry import get
from ..core.result import AS_PRINTED
from ._common import declared_params, param, param_of, valid_for

__all__ = ["theorem_1_params", "theorem_4_params"]

T1 = "nonlinear_cl.theorem_1"
T4 = "nonlinear_cl.theorem_4"


def theorem_1_params():
    """Theorem 1 on two families: the simplex Gaussian mixture (ReLU, from the declarations, 16 starts), and the
    LeakyReLU pair where λ_gap/ρ runs from ≈ 13 (τ = 1) down to ≈ 1.1 (τ = 1.39): the pair is one configuration of
    the module (radius = σ = 1, neg_weight = 0.9, leak = 0.5) with tangent_sigma moved inside where λ_gap > ρ."""
    # The LeakyReLU family, read off the result's registered binding instance (its d and tangent_sigma are drawn
    # below): from the declarations, so that strategies never import a paper module (paper → strategies only).
    leaky_binding = get(T1).binding[0].params
    LEAKY = {k: v for k, v in leaky_binding.items() if k not in ("d", "tangent_sigma")}
    assert LEAKY.get("model") == "leaky_pair", f"{T1}: its first binding instance is no longer the LeakyReLU pair"

    mixture = declared_params(T1, AS_PRINTED, model="mixture", starts=16)
    leaky = st.fixed_dictionaries({
        **{k: st.just(v) for k, v in LEAKY.items()},
        "d": param(param_of(T1, "d"), 2, 3),
        "tangent_sigma": st.floats(1.0, 1.39),
        "seed": param(param_of(T1, "seed")),
    }).map(valid_for(T1, AS_PRINTED))
    return st.one_of(mixture, leaky)


def theorem_4_params():
    """Theorem 4 from its declarations, with |s_11| also drawn log-uniformly down to 1e-6 of the RMS entry (the
    hypothesis s_km ≠ 0 nearly binding), beside s_small = 0 (no override)."""
    small = st.one_of(st.just(0.0), st.floats(-6.0, -1.0).map(lambda e: float(f"{10 ** e:.3g}")))
    return declared_params(T4, AS_PRINTED, s_small=small)
