"""How a claim's numbers are printed (theorems.core.evidence): six significant digits between 1e-3 and 1e5,
scientific notation outside, and just enough digits to tell two close numbers apart. The edges are literal."""

from __future__ import annotations

import pytest

from theorems.core.evidence import _fmt, fmt_pair


@pytest.mark.parametrize("x, shown", [
    (0.00099, "9.9000e-04"), (0.001, "0.001"), (0.016129032258, "0.016129"), (99999.0, "99999"),
    (100000.0, "1.0000e+05"), (-0.0005, "-5.0000e-04"), (0.0, "0.0"), (float("inf"), "inf"), (3, "3"),
])
def test_a_number_is_shown_in_fixed_or_scientific_notation_by_its_size(x, shown):
    assert _fmt(x) == shown


def test_a_pair_gets_just_the_digits_that_tell_it_apart():
    assert fmt_pair(0.5, 0.25) == ("0.5", "0.25")  # six digits suffice: the plain format
    assert fmt_pair(1e-5, 2e-5) == ("1.0000e-05", "2.0000e-05")  # six suffice outside [1e-3, 1e5): scientific
    assert fmt_pair(0.016129032, 0.016129033) == ("0.016129032", "0.016129033")  # nine digits needed
    assert fmt_pair(1.0, 1.0 + 2**-52) == ("1", "1.0000000000000002")  # 17 digits: every float apart
    assert fmt_pair(2.0, 2.0) == ("2", "2")
