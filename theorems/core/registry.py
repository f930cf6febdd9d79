"""The registry of results and the one entry point that checks them, `check(id, **params)`."""

from __future__ import annotations

import importlib
import time
from typing import Any

from .context import Context
from .errors import HypothesisViolation, ParameterError, UnknownResult
from .evidence import Evidence
from .recording import record
from .result import AS_PRINTED, CORRECTED, Result, Violation

# One package per paper; importing a package registers its results. A new paper adds its package here.
PAPER_PACKAGES = (
    "theorems.deep_fusion",
    "theorems.nonlinear_cl",
    "theorems.ssl_dynamics",
    "theorems.cl_generalization",
    "theorems.neural_collapse",
)

# Options every check takes besides the result's own parameters.
COMMON_OPTIONS = ("form", "allow_violation", "device")

_REGISTRY: dict[str, Result] = {}
_loaded = False


def register(result: Result) -> Result:
    if result.id in _REGISTRY and _REGISTRY[result.id].module != result.module:
        raise ValueError(f"result id {result.id!r} registered twice")
    _REGISTRY[result.id] = result
    return result


def _load() -> None:
    global _loaded
    if not _loaded:
        for pkg in PAPER_PACKAGES:
            importlib.import_module(pkg)
        _loaded = True


def ids() -> list[str]:
    """Ids of every registered result, ordered by paper then name."""
    _load()
    return sorted(_REGISTRY, key=lambda i: (_REGISTRY[i].paper, i))


def get(result_id: str) -> Result:
    _load()
    try:
        return _REGISTRY[result_id]
    except KeyError:
        raise UnknownResult(result_id, sorted(_REGISTRY)) from None


def validate(result: Result, params: dict[str, Any], form: str) -> tuple[dict[str, Any], list[Violation]]:
    """Fill defaults, type-check every value, and list the hypotheses the parameters violate."""
    known = {p.name for p in result.params}
    unknown = sorted(set(params) - known)
    if unknown:
        raise ParameterError(
            f"{result.id} takes no parameter {', '.join(map(repr, unknown))}; "
            f"its parameters are {', '.join(sorted(known))} (and {', '.join(COMMON_OPTIONS)})"
        )
    if form not in result.forms:
        raise ParameterError(f"{result.id} has no form {form!r}; its forms are {', '.join(result.forms)}")
    full = {p.name: p.coerce(params.get(p.name, p.default), result.id) for p in result.params}
    return full, list(result.hypotheses(full, form))


def _raise_unless_allowed(result: Result, full: dict[str, Any], violations: list[Violation],
                          allow_violation: bool, note: str = "") -> None:
    """HypothesisViolation for the first violation that ``allow_violation`` does not cover."""
    for v in violations:
        if not v.bypassable or not allow_violation:
            raise HypothesisViolation(
                v.hypothesis, v.message + note, result_id=result.id,
                values={n: full[n] for n in v.names}, bypassable=v.bypassable,
            )


def check(
    result_id: str,
    *,
    form: str | None = None,
    allow_violation: bool = False,
    device: Any = None,
    **params: Any,
) -> Evidence:
    """Check one result on one instance and return its Evidence (see DESIGN.md, 'The contract').

    Parameters outside a hypothesis raise `HypothesisViolation`, unless ``allow_violation=True``: then
    the instance is run anyway (a negative control) and the violated hypotheses are listed in
    ``Evidence.violations``. Structural problems (wrong types, unknown choices) always raise.
    """
    result = get(result_id)
    form = form or result.default_form
    if form not in (AS_PRINTED, CORRECTED) or form not in result.forms:
        raise ParameterError(f"{result.id} has no form {form!r}; its forms are {', '.join(result.forms)}")
    full, violations = validate(result, params, form)
    _raise_unless_allowed(result, full, violations, allow_violation)
    ctx = Context.make(device, seed=full.get("seed", 0))
    start = time.perf_counter()
    outcome = result.evaluate(full, form, ctx)
    elapsed = time.perf_counter() - start
    # A hypothesis the parameters already broke (a negative control) is listed once, however often it
    # is found broken again.
    listed = {v.hypothesis for v in violations}
    found = [v for v in outcome.violations if v.hypothesis not in listed]
    _raise_unless_allowed(result, full, found, allow_violation, note=" (decided by the evaluation)")
    violations = violations + found
    claims = list(outcome.claims)
    holds = bool(claims) and all(c.passed for c in claims) and outcome.converged is not False
    evidence = Evidence(
        result_id=result.id,
        form=form,
        params=full,
        holds=holds,
        observed=float(outcome.observed),
        bound=float(outcome.bound),
        tightness=None if outcome.tightness is None else float(outcome.tightness),
        converged=outcome.converged,
        claims=claims,
        details=dict(outcome.details),
        violations=[f"{v.hypothesis}: {v.message}" for v in violations],
        status=str(result.status),
        device=str(ctx.device),
        elapsed_s=elapsed,
    )
    record(evidence)
    return evidence
