"""Shared helpers of the hypothesis strategies.

Each strategy draws inside a result's hypotheses (the ranges below encode them) and the generated values
are re-validated against the result's own ``hypotheses`` function, so a strategy can never drift outside
what the theorem assumes without the test noticing. Needs the ``test`` extra (hypothesis).
"""

from __future__ import annotations


from ..core.registry import get, validate
from ..core.result import CORRECTED


def valid_for(result_id: str, form: str = CORRECTED):
    """A filter that raises if drawn parameters violate a hypothesis of ``result_id`` (a strategy bug)."""
    result = get(result_id)

    def check(params: dict) -> dict:
        _, violations = validate(result, params, form)
        if violations:
            raise AssertionError(f"strategy drew parameters outside the hypotheses of {result_id}: {violations}")
        return params

    return check
