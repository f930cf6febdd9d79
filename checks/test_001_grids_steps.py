"""nonlinear_cl.figure_4's training-length floor: a 5-minibatch run of the corrected form is outside the statement
(untrained networks), a 10-minibatch run is inside it and holds, so the floor sits where training starts to count."""
import pytest

from theorems.core import registry
from theorems.core.errors import HypothesisViolation


def test_figure_4_corrected_refuses_untrained_runs():
    with pytest.raises(HypothesisViolation, match="steps"):
        registry.check("nonlinear_cl.figure_4", form="corrected", steps=9)


def test_figure_4_corrected_holds_from_the_floor():
    ev = registry.check("nonlinear_cl.figure_4", form="corrected", steps=10)
    assert ev.holds and ev.converged
