"""What the checks of paper 004's depth figures (``neural_collapse.figure_1`` / ``figure_2``) share: the digits
stand-in they run on, and what they read off a sweep's rows, computed here independently of the modules (not a test
module: nothing here is collected)."""
from __future__ import annotations

import numpy as np

import theorems
from theorems.data import digits as DIGITS
from theorems.neural_collapse import figure_1 as F1

CERTIFIED = {"plateau", "gtol"}


def log_log_slope(rows, key):
    """The log–log slope of the seed-mean metric, computed here (numpy), not by the module's fit."""
    return float(np.polyfit(np.log([r["L"] for r in rows]), np.log([r[key] for r in rows]), 1)[0])


def certified(ev):
    """Every network of every depth of the sweep stopped certified (a plateau or a small gradient)."""
    return all(set(r["status"]) <= CERTIFIED for r in ev.details["sweep"])


def literal_sweep(exponents, objective=(1.5, 1.2)):
    """Seed-mean NC metrics c·L^a on depths 2, 4, 8 (a per metric) and the trained objectives, L*_GUFM = 1."""
    return [dict(L=L, gufm_value=1.0, objective=list(objective), **{k: 0.3 * L ** a for k, a in exponents.items()})
            for L in (2, 4, 8)]


def assert_on_the_digits_stand_in(ev, rid) -> None:
    """The run says it is on the digits stand-in for MNIST (not comparable to the paper's numbers), and the result's
    status is figure 1's trend or figure 2's open."""
    assert ev.details["dataset"] == "digits" == DIGITS.DATASET
    assert ev.details["stand_in"] == DIGITS.STAND_IN_NOTE
    assert "stand-in" in theorems.get(rid).title and "not comparable" in DIGITS.STAND_IN_NOTE
    assert str(theorems.get(rid).status) == ("trend" if rid == F1.ID else "open")
