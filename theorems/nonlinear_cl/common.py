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


def registered_strategy(*specs: dict):
    """The 'search' of an empirical claim about one protocol: its registered instances (the claim quantifies over the
    paper's grid, not over a family of instances; each draw is a run the conformance checks have cached)."""
    from hypothesis import strategies as st

    return st.sampled_from([dict(s) for s in specs])
