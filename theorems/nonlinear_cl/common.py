"""Small helpers shared by the result modules of paper 001."""

from __future__ import annotations

from ..core.result import Violation
from .two_layer import HOMOGENEOUS

# Lemmas 3 and 4 check the gradient formulas (7) and (12) under the same premises, on parameters of the same names:
# a homogeneous activation (Assumption 1), α held fixed (the stop-gradient of eq. 2), and ReLU's h'(0) = 0 at
# kinks (App. B.1). Their binding instance and negative controls are those premises', so they are written once.
KINKS_BINDING = dict(kinks=True)  # data and weights on an integer lattice: many pre-activations exactly 0
GRADIENT_FORMULA_CONTROLS = (
    dict(activation="quadratic", allow_violation=True),  # h'(s)s = 2h: Assumption 1 fails, the formula is off by 2
    dict(activation="tanh", allow_violation=True),  # not homogeneous
    dict(alpha="infonce", stop_gradient=False, allow_violation=True),  # α differentiated through
    # relative error 5e-10 = 5 allowances of either lemma's RTOL = 1e-10 (a literal, not built from RTOL): RTOL ×10
    # lets it pass, RTOL ÷10 puts it 50 allowances out; both are caught by the pin test
    dict(formula_scale=1 + 5e-10, allow_violation=True),
)


def gradient_formula_hypotheses(p: dict) -> list[Violation]:
    """Lemma 3 (eq. 7) and Lemma 4 (eq. 12): Assumption 1 and α held fixed. The exact formula is declared with
    ``formula_scale`` (``Param(breaks=...)``), the negative control that pins the tolerance."""
    out = []
    if p["activation"] not in HOMOGENEOUS:
        out.append(Violation("homogeneous activation h(x) = h'(x)x (Assumption 1)", f"{p['activation']} is not "
                             "homogeneous (negative control)", ("activation",)))
    out += alpha_hypotheses(p)
    return out


def alpha_hypotheses(p: dict) -> list[Violation]:
    """α held fixed (Lemma 3: 'α is treated as an independent variable'; Lemma 4: the stop-gradient of eq. 2)."""
    if p["stop_gradient"]:
        return []
    out = [Violation("α held fixed (stop-gradient, eq. 2)", "stop_gradient=False differentiates through InfoNCE's "
                     "α (negative control)", ("stop_gradient",))]
    if p["alpha"] != "infonce":
        out.append(Violation("stop_gradient=False needs alpha='infonce'", "only InfoNCE's α depends on θ",
                             ("alpha", "stop_gradient"), bypassable=False))
    return out


def declared_strategy(result_id: str, form: str | None = None, **fixed):
    """The worst-case search strategy drawn from the result's declarations (hypothesis is imported only when a
    search runs: it is a test extra)."""
    from ..strategies import declared_params

    return declared_params(result_id, form, **fixed)


def without_allow(spec: dict) -> dict:
    """A control's parameters without its ``allow_violation`` flag (for ``report_instances``)."""
    return {k: v for k, v in spec.items() if k != "allow_violation"}


def registered_strategy(*specs: dict):
    """The 'search' of an empirical claim about one protocol: its registered instances (the claim quantifies over the
    paper's grid, not over a family of instances; each draw is a run the conformance checks have cached)."""
    from hypothesis import strategies as st

    return st.sampled_from([dict(s) for s in specs])
