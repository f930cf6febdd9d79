"""Fuzz-campaign edges of paper 002 (issue 26, item 8): each valid input the sweep (tools/fuzz.py --sweep) found
returning a silent "fails" must now end in a held verdict, "not converged", a declared hypothesis (Violation) or a
typed error. Each test replays the sweep's input and fails on the code before its fix."""

from __future__ import annotations

import math

import pytest

import theorems
from theorems.core.errors import ResourceLimit


def _claims(ev):
    return {c.name: c for c in ev.claims}


# 1. proposition_2 c2 = 1e-6: PGD step and certificate were scaled by max(c₁, c₂)²‖C‖, so every start was
# "certified" at a first-order point far from the minimum and the rank/alignment claims judged those points.
def test_proposition_2_tiny_radius_reaches_the_minimum_and_holds():
    ev = theorems.check("ssl_dynamics.proposition_2", c2=1e-6, allow_violation=True)
    assert ev.converged and ev.holds, ev.explain()
    assert ev.details["starts_reaching"] == ev.details["starts_converged"] > 0


def test_proposition_2_without_a_start_at_the_minimum_is_not_converged_and_judges_no_rank():
    # 1 iteration from random starts: no start reaches c₁²c₂²λ_min(C), so nothing may be said about minimisers.
    ev = theorems.check("ssl_dynamics.proposition_2", max_iter=1, allow_violation=True)
    assert ev.converged is False and not ev.holds
    assert "minimiser_rank_one" not in _claims(ev) and ev.details["starts_reaching"] == 0
