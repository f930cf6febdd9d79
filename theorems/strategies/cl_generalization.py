"""Strategies for paper 003 (Huang et al., generalisation of contrastive SSL).

Two generator modes (digest 003 §6.3, §6.5):

* ``random``: sphere-harness populations drawn from the random modes (clustered, bad_aligned, hub) with random
  class sizes, dimensions, view counts, noise levels and view weights; or style–content populations with a
  random feature map;
* ``adversarial``: the edge-of-hypothesis construction of digest §7.3 (``antipodal_bad``): exactly one bad point
  in class 0 whose identity and m−2 views sit at −u and whose last view is a hub at u. It sits on the edge of the
  corrected ρ_max (margin 2/(mn) in step 3), attains Lemma 1 with equality, and for m ≥ 3 breaks the printed
  coefficient. Random instances never catch the wrong constant; these do.

Every strategy re-validates what it drew against the result's hypotheses (``valid_for``).
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..core.result import AS_PRINTED, CORRECTED
from ._common import valid_for

__all__ = ["cl_population_params", "cl_lemma_1_params", "cl_theorem_1_params", "cl_theorem_2_params",
           "cl_infonce_params", "cl_theorem_3_params", "cl_barlow_twins_params", "CL_MODES"]

CL_MODES = ("random", "adversarial")
_RANDOM_SPHERE = ("clustered", "bad_aligned", "hub")


@st.composite
def cl_population_params(draw, mode: str = "random", harnesses=("sphere", "style_content"),
                         min_m: int = 1) -> dict:
    """Instance parameters shared by the paper-003 results (see ``theorems.cl_generalization.instances``)."""
    seed = draw(st.integers(0, 2**16))
    if mode == "adversarial":
        n = draw(st.integers(3, 12))
        m = draw(st.integers(max(3, min_m), 10))
        K = draw(st.integers(2, 3))
        return dict(harness="sphere", encoder="identity", mode="antipodal_bad", sizes=",".join([str(n)] * K),
                    m=m, d=draw(st.integers(K, K + 2)), bad_frac=1.0 / n, seed=seed)
    harness = draw(st.sampled_from(harnesses))
    K = draw(st.integers(2, 3))
    sizes = ",".join(str(draw(st.integers(2, 9))) for _ in range(K))
    params = dict(harness=harness, sizes=sizes, m=draw(st.integers(max(2, min_m), 5)), seed=seed,
                  weights=draw(st.sampled_from(("uniform", "dirichlet"))),
                  noise=round(draw(st.floats(0.0, 0.3)), 4))
    if harness == "sphere":
        params.update(encoder="identity", mode=draw(st.sampled_from(_RANDOM_SPHERE)), d=draw(st.integers(2, 4)),
                      view_noise=round(draw(st.floats(0.0, 0.1)), 4), bad_frac=round(draw(st.floats(0.0, 0.4)), 4))
    else:
        params.update(encoder="random", d=draw(st.integers(2, 8)), strength=round(draw(st.floats(0.0, 1.0)), 4))
    return params


@st.composite
def cl_lemma_1_params(draw, mode: str = "random") -> dict:
    params = draw(cl_population_params(mode))
    params["classifier"] = draw(st.sampled_from(("worst", "random", "nearest_centre")))
    return valid_for("cl_generalization.lemma_1", AS_PRINTED)(params)


@st.composite
def cl_theorem_1_params(draw, mode: str = "random", form: str = CORRECTED) -> dict:
    params = draw(cl_population_params(mode, min_m=2))
    params["eps"] = round(draw(st.floats(0.01, 0.5)), 4)
    if draw(st.booleans()):
        params["far_view_weight"] = float(f"{10 ** draw(st.floats(-6, -1)):.3g}")
    return valid_for("cl_generalization.theorem_1", form)(params)


@st.composite
def cl_theorem_2_params(draw, mode: str = "random", form: str = CORRECTED) -> dict:
    params = draw(cl_population_params(mode))
    if params["harness"] == "sphere" and mode == "random":
        # small noise keeps the divergence condition alive on some (δ, ε), so the theorem is exercised
        params["noise"] = round(min(params["noise"], 0.1), 4)
        params["view_noise"] = round(min(params["view_noise"], 0.05), 4)
    return valid_for("cl_generalization.theorem_2", form)(params)


@st.composite
def cl_infonce_params(draw) -> dict:
    return valid_for("cl_generalization.infonce_decomposition", AS_PRINTED)(draw(cl_population_params("random")))


@st.composite
def cl_theorem_3_params(draw) -> dict:
    params = draw(cl_population_params("random"))
    params["eps"] = round(draw(st.floats(0.001, 3.0)), 4)
    return valid_for("cl_generalization.theorem_3", AS_PRINTED)(params)


@st.composite
def cl_barlow_twins_params(draw, result_id: str = "cl_generalization.lemma_2") -> dict:
    params = draw(cl_population_params("random"))
    params["lam"] = float(f"{10 ** draw(st.floats(-3, 0)):.3g}")
    return valid_for(result_id, AS_PRINTED)(params)
