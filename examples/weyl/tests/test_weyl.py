"""weyl.eigenvalue_inequality's own tests, beside the checks every result passes
(``pytest --theorems-conformance weyl``)."""

import pytest

import theorems
from theorems import HypothesisViolation
from weyl.eigenvalue_inequality import COUNTEREXAMPLE, RESULT_ID, SCALE_TOL, search_counterexample


def test_the_search_finds_the_registered_counterexample():
    assert search_counterexample() == COUNTEREXAMPLE
    assert theorems.get(RESULT_ID).counterexamples == (COUNTEREXAMPLE,)


def test_the_counterexample_breaks_the_printed_form_and_not_the_corrected_one():
    printed = theorems.check(RESULT_ID, form="as_printed", **COUNTEREXAMPLE)
    corrected = theorems.check(RESULT_ID, **COUNTEREXAMPLE)
    assert not printed.holds and printed.failed_bounds and not printed.violations, printed.explain()
    assert corrected.holds, corrected.explain()


def test_the_inequality_is_attained_where_it_binds():
    ev = theorems.check(RESULT_ID, coupling=1.0)
    assert ev.holds and ev.tightness == pytest.approx(1.0, abs=1e-9), ev.explain()
    assert ev.details["tightest_pair"] == [1, 1]


@pytest.mark.parametrize("shift", [1e-9, 1e-10])  # literal numbers, outside SCALE_TOL = 1e-12 (not built from it)
def test_a_shift_just_outside_the_tolerance_fails(shift):
    assert shift > 10 * SCALE_TOL
    ev = theorems.check(RESULT_ID, coupling=1.0, bound_shift=shift, allow_violation=True)
    assert not ev.holds, ev.explain()


def test_the_bound_as_stated_cannot_be_shifted_without_allow_violation():
    with pytest.raises(HypothesisViolation, match="bound_shift"):
        theorems.check(RESULT_ID, bound_shift=0.1)
