"""Monomial activations in paper 001 (Tian, §3, after Assumption 1): h(x) = x^p satisfies Assumption 1 "with an
additional global constant", and eq. (6), the energy identity and Lemma 3 hold with that constant.

Statement as printed (§3, Assumption 1 and the sentence after it)
-----------------------------------------------------------------
"Many activations satisfy this assumption [h(x) = h'(x)x], including linear, ReLU, LeakyReLU and monomial activations
like h(x) = x^p (with an additional global constant). In this case we have: h(wᵀx) = wᵀh'(wᵀx)x = wᵀx̃ʷ (6) [...] One
property is C_α[h(wᵀx)] = wᵀC_α[x̃ʷ]w", and then Lemma 3 (ẇ = P⊥A(w)w).

Reading: for h = s^p, h'(s)s = p·h(s), so the constant is c = 1/p: h(wᵀx) = c·wᵀx̃ (eq. 6), C_α[h] = c²·wᵀA(w)w,
and the Riemannian gradient of ½C_α[h] is c·P⊥A(w)w (Lemma 3 up to a time rescaling by c). The quadratic activation
(p = 2) is the negative control of Lemmas 3 and 4 *without* the constant; here every p ≥ 2 is checked *with* it.

Quantifiers: ∀ integer p ≥ 2, ∀ batches with two views, ∀ fixed α ≥ 0, ∀ unit w. Nothing existential.

Claims (machinery of ``nonlinear_cl.lemma_3``: autograd of eq. (3) on a batch, α fixed):
* ``eq_6_with_constant`` (bound): max |h(wᵀx) − c·wᵀx̃| / max |h| ≤ RTOL;
* ``energy_identity`` (bound): max_k |C_α[h] − c²·wᵀAw| / C_α[h] ≤ RTOL;
* ``riemannian_gradient`` (bound): max_k ‖P⊥∂ℰ/∂w − c·P⊥A(w)w‖/‖∂ℰ/∂w‖ ≤ RTOL.
Negative controls: ``constant='one'`` (the homogeneous formulas without the constant: off by p, p², p), ``power``
with ``shift`` = 1 (h = s^p + s, not a monomial: no global constant works), ``formula_scale`` = 1 + 3e-10 (3× RTOL: pins it).
Binding: p = 8 with data of scale 3 (the largest dynamic range of s^p the domain allows: rounding is largest there).

Status: new result, verified.
"""

from __future__ import annotations

from dataclasses import replace

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import (Pin, 
    AS_PRINTED,
    Binding,
    Logic,
    Outcome,
    Param,
    Result,
    Status,
    Violation,
)
from .common import declared_strategy
from .lemma_3 import alpha_hypotheses, cost, gradient_check
from .lemma_3 import params as one_layer_params
from .paper import PAPER

ID = "nonlinear_cl.monomial_activation"
# autograd and the formula sum the same N² products of s^p in different orders; s^p for p ≤ 8 and |s| ≲ 10 spans
# many binades, but each sum is over same-signed-scale terms: ≲ 1e-12 relative observed; 1e-10 leaves room.
RTOL = 1e-10
CONSTANTS = ("one_over_p", "one")


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = alpha_hypotheses(p)
    if p["constant"] != "one_over_p":
        out.append(Violation("the global constant 1/p of h'(s)s = p·h(s)", "constant='one' drops it (negative "
                             "control)", ("constant",)))
    return out


def evaluate(p: dict, form: str, ctx) -> Outcome:
    P, b = p["power"], p["shift"]

    def h(s):
        return s**P + b * s

    def h_prime(s):
        return P * s ** (P - 1) + b

    c = 1.0 / P if p["constant"] == "one_over_p" else 1.0
    q = dict(p, activation="monomial")
    err, details, (x1, _, W) = gradient_check(q, ctx, h, h_prime, c)  # eq. (6) below on the first view
    s = x1 @ W.T
    lhs, rhs = h(s), p["formula_scale"] * c * s * h_prime(s)  # wᵀx̃ = s·h'(s)
    eq6 = float((lhs - rhs).abs().max() / lhs.abs().max().clamp_min(1e-300))
    claims = [
        Claim.at_most("eq_6_with_constant", eq6, 0.0, "max |h(wᵀx) − c·wᵀx̃ʷ| / max |h| (eq. 6, c = 1/p)", atol=RTOL),
        Claim.at_most("energy_identity", err["energy"], 0.0, "max_k |C_α[h] − c²·wᵀA(w)w|/C_α[h]", atol=RTOL),
        Claim.at_most("riemannian_gradient", err["riemannian"], 0.0, "max_k ‖P⊥∂ℰ/∂w − c·P⊥A(w)w‖/‖∂ℰ/∂w‖ (Lemma 3 "
                      "with the constant)", atol=RTOL),
        Claim.measurement("euclidean_gradient", err["euclidean"], message="the same before P⊥"),
    ]
    return Outcome(claims=claims, details=dict(details, constant=c), headline="riemannian_gradient")


def _params() -> tuple[Param, ...]:
    shared = [replace(q, doc="multiplies the formulas (negative control)", breaks="exact formulas")
              if q.name == "formula_scale" else q
              for q in one_layer_params() if q.name not in ("activation", "leak", "aug")]
    return tuple(shared) + (
        Param("power", int, 3, "the exponent p of h(s) = s^p", low=2, high=8, sample=(2, 8)),
        Param("aug", float, 0.5, "standard deviation of the second view's augmentation", low=0.0, high=3.0,
              sample=(0.0, 1.5)),
        Param("scale", float, 1.0, "scale of the data", low=0.1, high=3.0, sample=(0.3, 3.0)),
        Param("shift", float, 0.0, "adds shift·s to h (≠ 0: a linear term, not a monomial; negative control)", "0",
              low=-10.0, high=10.0, breaks="a monomial h = s^p"),
        Param("constant", str, "one_over_p", "the global constant of eq. (6): 1/p, or 1 (negative control)",
              "one_over_p", choices=CONSTANTS),
    )


BINDING = dict(power=8, scale=3.0)
CONTROLS = (dict(constant="one", allow_violation=True), dict(shift=1.0, allow_violation=True),
            dict(formula_scale=1 + 3e-10, allow_violation=True))


# tolerance pins, both sides declared (theorems.core.result.Pin; run by checks/test_conformance.py)
PINS = (
    Pin(('eq_6_with_constant', 'energy_identity', 'riemannian_gradient'), 'formula_scale', fails=1.0000000003,
        within=10, params=dict(allow_violation=True), reported=True),
)


RESULT = register(Result(
    pins=PINS, id=ID,
    paper=PAPER,
    section="Section 3, Assumption 1 and eq. (6) (monomial activations), with Lemma 3",
    title="Monomial activations h = s^p: eq. (6), C_α[h] = wᵀA(w)w and Lemma 3 hold with the global constant 1/p",
    statement="Monomial activations h(x) = x^p satisfy Assumption 1 with an additional global constant: h(wᵀx) = "
              "c·wᵀx̃ʷ, C_α[h(wᵀx)] = c²·wᵀC_α[x̃ʷ]w and ẇ = c·P⊥_wA(w)w with c = 1/p (§3, Assumption 1, eq. 6, "
              "Lemma 3).",
    status=Status.VERIFIED,
    params=_params(),
    evaluate=evaluate,
    hypotheses=hypotheses,
    cost=cost,
    forms=(AS_PRINTED,),
    module=__name__,
    logic=Logic(for_all="every integer p ≥ 2, every batch with two views, every fixed α ≥ 0 and every unit w"),
    binding=(Binding("rounding of s^p (largest p and data scale of the domain)", BINDING, "p = 8, data scale 3"),),
    controls=CONTROLS,
    strategy=lambda: declared_strategy(ID),
))
