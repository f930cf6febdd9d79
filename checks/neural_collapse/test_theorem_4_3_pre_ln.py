"""``neural_collapse.theorem_4_3_pre_ln`` (open): the page's "what depth would decide it" is a measurement of the
evidence, recomputed here from the sweep's rows by numpy (the fitted rate and the depth at which the construction's
width would reach CLOSE_TARGET·L*_GUFM), and it lies beyond every depth the check can build."""

from __future__ import annotations

import math

import numpy as np
import pytest

import theorems
from theorems.neural_collapse import theorem_4_3_pre_ln as P

pytestmark = pytest.mark.xdist_group(P.ID)


def test_the_depth_that_would_close_the_construction_is_recomputed_from_the_rows(run):
    ev = run(P.ID)
    rows, optimum = ev.details["sweep"], ev.details["gufm_optimum"]
    L = np.array([r["L"] for r in rows], float)
    width = np.array([r["excess_pre"] for r in rows])
    slope = float(np.polyfit(np.log(L), np.log(width), 1)[0])
    assert ev.claim("excess_exponent").observed == pytest.approx(slope, rel=1e-9)
    closing = L[-1] * (width[-1] / (P.CLOSE_TARGET * optimum)) ** (-1 / slope)
    observed = ev.claim("depth_to_close_at_fitted_rate").observed
    assert observed == pytest.approx(closing, rel=1e-9)
    depth_param = next(p for p in theorems.get(P.ID).params if p.name == "depths")
    assert observed > 100 * depth_param.high  # no depth this check builds decides it (measured ≈ 2·10⁷)
    # the page quotes the measurement (one significant digit): the text follows the evidence
    assert f"{round(observed / 10 ** math.floor(math.log10(observed)))}·10⁷" in theorems.get(P.ID).open_reason


def test_depth_to_close_on_hand_cases():
    # width 2·L* at depth 10 falling as 1/L reaches 1 % of L* at depth 10·200 = 2000; a flat width never does
    assert P.depth_to_close(10, 2.0, 1.0, -1.0, target=0.01) == pytest.approx(2000.0)
    assert P.depth_to_close(10, 2.0, 1.0, -0.5, target=0.01) == pytest.approx(10 * 200 ** 2)
    assert P.depth_to_close(10, 2.0, 1.0, 0.0) == math.inf and P.depth_to_close(10, 2.0, 1.0, 0.1) == math.inf
    assert P.depth_to_close(10, 0.001, 1.0, -1.0, target=0.01) == 10  # already closed
