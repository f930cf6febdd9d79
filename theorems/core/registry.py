"""The registry of results and the one entry point that checks them, `check(id, **params)`.

Importing this module imports neither torch nor numpy: the paper packages (which register the results
and import torch) load on the first `ids()` / `get()` / `check()`, and `catalog()` / `info()` answer from
the manifest (`theorems.core.manifest`) without loading them, for the command line.
"""

from __future__ import annotations

import importlib
import math
import time
from typing import TYPE_CHECKING, Any

from .errors import HypothesisViolation, IdentityFailure, ParameterError, ResourceLimit, SuiteError, UnknownResult
from .params import check_cost
from .result import Result, Violation

if TYPE_CHECKING:
    from .evidence import Evidence
    from .manifest import ResultInfo

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
    """The registered result ``result_id``. Only its paper's package is imported when the id names one
    (`check` of one result does not pay for importing the other four papers); an id not found there loads
    every package before it is declared unknown."""
    if result_id not in _REGISTRY and not _loaded and isinstance(result_id, str):
        package = f"theorems.{result_id.split('.')[0]}"
        if package in PAPER_PACKAGES:
            importlib.import_module(package)
    if result_id not in _REGISTRY:
        _load()
    try:
        return _REGISTRY[result_id]
    except KeyError:
        raise UnknownResult(result_id, sorted(_REGISTRY)) from None


def registered() -> set[str]:
    """The ids registered in this process now, without importing anything more."""
    return set(_REGISTRY)


def loaded() -> bool:
    """Whether the paper packages are imported (then the live registry is the truth, fakes included)."""
    return _loaded


def catalog() -> list["ResultInfo"]:
    """The metadata of every registered result, in `ids()` order, without importing torch where possible:
    from the live registry once it is loaded in this process, else from the manifest file, else (no
    readable manifest) by loading the registry."""
    from . import manifest

    if not _loaded:
        recorded = manifest.read()
        if recorded is not None:
            return recorded
    return [manifest.info_of(get(rid)) for rid in ids()]


def info(result_id: str) -> "ResultInfo":
    """The metadata of one result (as `catalog`); UnknownResult, with close matches, for an unknown id."""
    infos = {r.id: r for r in catalog()}
    try:
        return infos[result_id]
    except KeyError:
        raise UnknownResult(result_id, sorted(infos)) from None


def validate_structure(result: "Result | ResultInfo", params: dict[str, Any], form: str) -> dict[str, Any]:
    """Every parameter filled with its default and type-checked, or ParameterError / HypothesisViolation
    (not bypassable) for a name, form, type or choice that cannot make an instance. Needs only metadata,
    so the command line runs it before anything imports torch."""
    known = {p.name for p in result.params}
    unknown = sorted(set(params) - known)
    if unknown:
        raise ParameterError(
            f"{result.id} takes no parameter {', '.join(map(repr, unknown))}; "
            f"its parameters are {', '.join(sorted(known))} (and {', '.join(COMMON_OPTIONS)})",
            name=unknown[0],
        )
    check_form(result, form)
    return {p.name: p.coerce(params.get(p.name, p.default), result.id) for p in result.params}


def check_form(result: "Result | ResultInfo", form: Any) -> None:
    if not isinstance(form, str) or form not in result.forms:
        raise ParameterError(f"{result.id} has no form {form!r}; its forms are {', '.join(result.forms)}",
                             name="form", value=form)


def check_options(result_id: str, allow_violation: Any, device: Any) -> None:
    """The options every check takes: typed errors for a non-boolean switch or a non-string device."""
    if not isinstance(allow_violation, bool):
        raise ParameterError(f"{result_id}: allow_violation={allow_violation!r} is not valid: expected True or "
                             "False (any other value would silently switch the negative-control mode on or off)",
                             name="allow_violation", value=allow_violation)
    if device is not None and not isinstance(device, str) and type(device).__name__ != "device":
        raise ParameterError(f"{result_id}: device={device!r} is not valid: expected 'cpu' or 'cuda'",
                             name="device", value=device)


def validate(result: Result, params: dict[str, Any], form: str) -> tuple[dict[str, Any], list[Violation]]:
    """Fill defaults, type-check every value, check the resources, and list the hypotheses violated."""
    full = validate_structure(result, params, form)
    if result.cost is not None:
        try:
            cost = result.cost(full)
        except (OverflowError, ZeroDivisionError) as err:  # sizes so large that the estimate itself overflows
            raise ResourceLimit(f"{result.id}: the size of this instance cannot even be estimated ({err}); use "
                                f"smaller sizes", name="cost") from None
        check_cost(result.id, cost, full)
    return full, list(result.hypotheses(full, form))


def _headline(outcome, claims: list) -> dict[str, Any]:
    """The Evidence's headline numbers: those of the headline claim (see `theorems.core.evidence`), or,
    for a result that still sets them by hand, the Outcome's."""
    from .evidence import headline_claim

    if outcome.observed is not None and outcome.headline is None:
        return dict(observed=float(outcome.observed), bound=float(outcome.bound),
                    tightness=None if outcome.tightness is None else float(outcome.tightness))
    claim = headline_claim(claims, outcome.headline)
    if claim is None:
        return dict(observed=math.nan, bound=math.nan, tightness=None)
    asserted = claim.relation != "="
    return dict(observed=claim.observed, bound=claim.bound,
                tightness=claim.tightness if asserted and not math.isnan(claim.slack) else None,
                headline=claim.name, relation=claim.relation, rtol=claim.rtol, atol=claim.atol)


def _raise_unless_allowed(result: Result, full: dict[str, Any], violations: list[Violation],
                          allow_violation: bool, note: str = "") -> None:
    """HypothesisViolation for the first violation that ``allow_violation`` does not cover."""
    for v in violations:
        if not v.bypassable or not allow_violation:
            raise HypothesisViolation(
                v.hypothesis, v.message + note, result_id=result.id,
                values={n: full[n] for n in v.names if n in full}, bypassable=v.bypassable,  # d may be derived
            )


def check(
    result_id: str,
    *,
    form: str | None = None,
    allow_violation: bool = False,
    device: Any = None,
    **params: Any,
) -> Evidence:
    """Check one result on one instance and return its Evidence (README, 'From the REPL').

    Parameters outside a hypothesis raise `HypothesisViolation`, unless ``allow_violation=True``: then
    the instance is run anyway (a negative control) and the violated hypotheses are listed in
    ``Evidence.violations``. Structural problems (wrong types, unknown choices) always raise.
    """
    # Imported here, not at the top: they import torch and numpy, which `list` and `show` never need.
    from .context import Context
    from .evidence import Evidence, decides_holds, non_finite_bounds
    from .recording import record

    result = get(result_id)
    form = result.default_form if form is None else form
    check_form(result, form)
    check_options(result.id, allow_violation, device)
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
    holds = decides_holds(claims, outcome.converged)
    evidence = Evidence(
        result_id=result.id,
        form=form,
        params=full,
        holds=holds,
        **_headline(outcome, claims),
        converged=outcome.converged,
        claims=claims,
        details=dict(outcome.details),
        violations=[f"{v.hypothesis}: {v.message}" for v in violations],
        status=str(result.status),
        device=str(ctx.device),
        elapsed_s=elapsed,
    )
    if holds and (non_finite_bounds(claims) or not all(math.isfinite(x) for x in (
            evidence.observed, evidence.bound, evidence.tightness if evidence.tightness is not None else 0.0))):
        raise SuiteError(f"{result.id}: the instance would hold on a non-finite number (a bug of the suite, not a "
                         f"verdict on the paper: a bound that is infinite says nothing and belongs in a measurement)"
                         f"\n{evidence.explain()}")
    broken = [c for c in claims if c.kind == "identity" and not c.passed]
    if broken and not violations and outcome.converged is not False:
        raise IdentityFailure(result.id, broken, evidence.explain())
    record(evidence)
    return evidence
