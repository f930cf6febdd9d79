"""Strategies for paper 003 (Huang et al., generalisation of contrastive SSL).

Every range comes from the results' `Param` declarations (``theorems.cl_generalization.instances`` declares the
shared instance parameters once); a strategy only fixes what ties parameters together (the identity encoder
goes with the sphere harness, a random map with the style–content one) and re-validates what it drew. Modes:

* ``random``: sphere-harness populations from the random modes (clustered, bad_aligned, hub), or style–content
  populations with a random feature map, every number from its declared ``sample`` range;
* ``adversarial``: the edge-of-hypothesis construction ``antipodal_bad``: one bad point in class 0 whose
  identity and m−2 views sit at −u and whose last view is a hub at u. It sits on the edge of the corrected
  ρ_max, attains Lemma 1 with equality, and for m ≥ 3 breaks the printed coefficient of Theorem 2's proof.
  Random instances never catch the wrong constant; these do;
* ``binding`` (Theorem 2): the same construction with the first two class centres at a cosine c just below
  c*(n, m), where the printed divergence condition stops holding: the condition nearly binds and
  Err = (1−σ)+R_ε = 1/(Kn) > 0, so the conclusion is tested where it is informative.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..core.result import AS_PRINTED
from ._common import param, param_of, valid_for

__all__ = ["cl_population_params", "cl_lemma_1_params", "cl_theorem_1_params", "cl_theorem_2_params",
           "cl_infonce_params", "cl_theorem_3_params", "cl_barlow_twins_params", "CL_MODES"]

CL_MODES = ("random", "adversarial", "binding")
# The declarations of the shared instance parameters (identical in every paper-003 result that takes them).
_DECLARED = "cl_generalization.lemma_1"


def _p(name: str, result_id: str = _DECLARED):
    return param(param_of(result_id, name))


@st.composite
def cl_population_params(draw, mode: str = "random", min_m: int = 1, result_id: str = _DECLARED) -> dict:
    """Instance parameters shared by the paper-003 results (see ``theorems.cl_generalization.instances``)."""
    seed = draw(_p("seed"))
    m_decl = param_of(result_id, "m")
    if mode in ("adversarial", "binding"):
        n = draw(st.integers(5 if mode == "binding" else 3, 12))
        K = 2 if mode == "binding" else draw(st.integers(2, 3))  # binding: μ_0ᵀμ_1 is the only product
        m = draw(param(m_decl, lo=3, hi=10))
        return dict(harness="sphere", encoder="identity", mode="antipodal_bad", sizes=(n,) * K, m=m,
                    d=draw(param(param_of(result_id, "d"), lo=K, hi=K + 2)), bad_frac=1.0 / n, seed=seed)
    harness = draw(_p("harness"))
    params = dict(harness=harness, sizes=draw(_p("sizes")), m=draw(param(m_decl, lo=max(min_m, 2))), seed=seed,
                  weights=draw(_p("weights")), noise=draw(_p("noise")))
    if harness == "sphere":
        params.update(encoder="identity", mode=draw(_p("mode")), d=draw(param(param_of(result_id, "d"), hi=4)),
                      view_noise=draw(_p("view_noise")), bad_frac=draw(_p("bad_frac")))
    else:
        params.update(encoder="random", d=draw(_p("d")), strength=draw(_p("strength")))
    return params


@st.composite
def cl_lemma_1_params(draw, mode: str = "random") -> dict:
    params = draw(cl_population_params(mode))
    params["classifier"] = draw(_p("classifier", "cl_generalization.lemma_1"))
    return valid_for("cl_generalization.lemma_1", AS_PRINTED)(params)


@st.composite
def cl_theorem_1_params(draw, mode: str = "random") -> dict:
    rid = "cl_generalization.theorem_1"
    params = draw(cl_population_params(mode, min_m=2, result_id=rid))
    params["eps"] = draw(_p("eps", rid))
    if draw(st.booleans()):
        params["far_view_weight"] = draw(_p("far_view_weight", rid))
    return valid_for(rid, AS_PRINTED)(params)


@st.composite
def cl_theorem_2_params(draw, mode: str = "random") -> dict:
    rid = "cl_generalization.theorem_2"
    params = draw(cl_population_params(mode, result_id=rid))
    if mode == "binding":
        from ..data.finite_population import binding_cosine

        n, m = params["sizes"][0], params["m"]
        c_star = binding_cosine(n, m)
        # a fraction of c* (from the side where the condition holds), the condition within 10 % of binding
        params["centre_cos"] = max(-1.0, c_star - draw(st.floats(0.001, 0.1)) * abs(c_star))
    elif params["harness"] == "sphere" and mode == "random":
        # small noise keeps the divergence condition alive on some (δ, ε), so the theorem is exercised
        params["noise"] = min(params["noise"], 0.1)
        params["view_noise"] = min(params["view_noise"], 0.05)
    return valid_for(rid, AS_PRINTED)(params)


@st.composite
def cl_infonce_params(draw) -> dict:
    rid = "cl_generalization.infonce_decomposition"
    return valid_for(rid, AS_PRINTED)(draw(cl_population_params("random", result_id=rid)))


@st.composite
def cl_theorem_3_params(draw) -> dict:
    rid = "cl_generalization.theorem_3"
    params = draw(cl_population_params("random", result_id=rid))
    params["eps"] = draw(_p("eps", rid))
    return valid_for(rid, AS_PRINTED)(params)


@st.composite
def cl_barlow_twins_params(draw, result_id: str = "cl_generalization.lemma_2") -> dict:
    params = draw(cl_population_params("random", result_id=result_id))
    params["lam"] = draw(_p("lam", result_id))
    return valid_for(result_id, AS_PRINTED)(params)
