"""Inputs at the edges of declared domains that a fuzz sweep (tools/fuzz.py --sweep, issue 26 item 8) found
returning a silent failing verdict on a statement the suite calls true. Each must now hold (a numerical defect
fixed), be declared outside the hypotheses (a typed error / Violation), or be reported as not converged.
"""


from __future__ import annotations


import theorems


def _claim(ev, name):
    return next(c for c in ev.claims if c.name == name)


def test_errata_a9_smallest_alpha_keeps_weight_norm_exact():
    # α at the low end of its domain: the chord direction was computed as (x̃ − x)/‖x̃ − x‖, losing ~ε/θ of
    # relative accuracy (‖W‖_F − α)/α ≈ 6.6e-11 > EXACT_RTOL); the closed-form chord keeps it at rounding.
    for alpha in (1e-6, 1.000001e-6, 0.2):  # both ends of the domain
        ev = theorems.check("neural_collapse.errata_a9", alpha=alpha)
        for name in ("lands_on_target", "weight_norm_is_alpha", "angle_lower_bound", "others_untouched",
                     "angle_formula_exact", "phase1_constant_step_reaches"):
            assert _claim(ev, name).passed, (alpha, name)
        assert _claim(ev, "weight_norm_is_alpha").observed < 1e-14 and _claim(ev, "lands_on_target").observed < 1e-14


def test_lemma_4_1_smallest_lambda_judges_rounding_at_the_rounding_level():
    # λ at the low end of its domain: L* = 2.3e-5 but the logits are ~9, so f − L* of points within rounding of
    # the optimum comes out ±3e-16, far above the old floor 1e-13·L* = 2.3e-18: such points were judged at an ε
    # below their own rounding and failed NC1 ≤ C₁ε by 5×. The statement holds for every λ > 0.
    from theorems.neural_collapse.lemma_4_1 import eps_floor

    assert eps_floor("ce", 3, 6, 1e-6) > 1e-15  # above the observed rounding of f − L* (±7e-16 at λ = 1e-6)
    # ... and not so high that genuine points are judged at the floor: at the default λ the perturbations of scale
    # ≥ 4.5e-7 have ε ≥ 1.7e-13 (measured) and must be judged at their own ε (the old floor was 1.2e-14)
    assert eps_floor("ce", 3, 6, 0.05) < 1e-13
    ev = theorems.check("neural_collapse.lemma_4_1", lam=1e-6)
    for k in ("nc1", "nc2", "nc3"):
        assert _claim(ev, f"{k}_bound_on_perturbations").passed, k
    assert ev.details["perturbations_checked"] > 300  # the floor does not empty the check
