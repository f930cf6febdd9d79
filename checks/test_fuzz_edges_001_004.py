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
    for alpha in (1e-6, 1.000001e-6):
        ev = theorems.check("neural_collapse.errata_a9", alpha=alpha)
        for name in ("lands_on_target", "weight_norm_is_alpha", "angle_lower_bound", "others_untouched",
                     "angle_formula_exact", "phase1_constant_step_reaches"):
            assert _claim(ev, name).passed, (alpha, name)
        assert _claim(ev, "weight_norm_is_alpha").observed < 1e-14
