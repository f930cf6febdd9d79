"""Small helpers shared by the result modules of paper 001."""

from __future__ import annotations


def declared_strategy(result_id: str, form: str | None = None, **fixed):
    """The worst-case search strategy drawn from the result's declarations (hypothesis is imported only when a
    search runs: it is a test extra)."""
    from ..strategies import declared_params

    return declared_params(result_id, form, **fixed)


def without_allow(spec: dict) -> dict:
    """A control's parameters without its ``allow_violation`` flag (for ``report_instances``)."""
    return {k: v for k, v in spec.items() if k != "allow_violation"}
