"""The registry of results and the one entry point that checks them, `check(id, **params)`.

Importing this module imports neither torch nor numpy: the paper packages (which register the results
and import torch) load on the first `ids()` / `get()` / `check()`, and `catalog()` / `info()` answer from
the manifest (`theorems.core.manifest`) without loading them, for the command line.

Plugins: results of other packages
----------------------------------
A theorem that is not one of the built-in papers' registers the same way, from its own package (``python -m
theorems new PKG.RESULT --out DIR`` writes one). The registry finds it through

* the entry-point group ``theorems.results`` of an installed package: ``[project.entry-points."theorems.results"]
  PKG = "PKG"`` (the value is the module whose import registers the results, or ``"module:function"``, called
  once after the import);
* ``$THEOREMS_PLUGINS=mod1,mod2``: importable modules (on ``sys.path``, e.g. through ``$PYTHONPATH``), for code
  that is not installed.

A plugin's results are treated like the built-in ones by `ids`, `get`, `check`, the command line and the report.
When a plugin loads, each of its results is checked (`PluginError`, naming the plugin, the result and the fix):
its id carries the plugin's own prefix (``PKG.RESULT``: the entry point's name, or the top-level package of a
``$THEOREMS_PLUGINS`` module) and never shadows a built-in or another plugin's id, it declares its quantifiers
and at least one negative control, its parameters are `Param` declarations, and its controls, counterexamples
and binding instances name declared parameters and forms. A claim that is not a `Claim`
with a kind is refused when the result is checked (`check`), the first time its evaluation returns it.
"""

from __future__ import annotations

import importlib
import math
import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import (HypothesisViolation, IdentityFailure, ParameterError, PluginError, ResourceLimit, SuiteError,
                     UnknownResult)
from .params import Param, check_cost
from .result import Result, Status, Violation

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

# The prefixes of the built-in ids ("neural_collapse" of "neural_collapse.lemma_4_2"): no plugin may use them.
BUILTIN_PREFIXES = frozenset(pkg.rsplit(".", 1)[1] for pkg in PAPER_PACKAGES)

# Where plugins are found (module docstring).
PLUGIN_GROUP = "theorems.results"
ENV_PLUGINS = "THEOREMS_PLUGINS"

# Options every check takes besides the result's own parameters.
COMMON_OPTIONS = ("form", "allow_violation", "device")

_REGISTRY: dict[str, Result] = {}
_loaded = False


@dataclass(frozen=True)
class Plugin:
    """One plugin: its ``prefix`` (every id it registers is ``prefix.NAME``), the module that registers its
    results, its optional registering function (``module:function``) and where it was found."""

    prefix: str
    module: str
    function: str = ""
    source: str = ""

    @property
    def package(self) -> str:
        return self.module.split(".")[0]

    def owns(self, result: Result) -> bool:
        return result.module == self.package or result.module.startswith(self.package + ".")


_PLUGINS: dict[str, Plugin] = {}  # prefix -> the plugin, once loaded
_plugins_loaded = False


def register(result: Result) -> Result:
    """Add ``result`` to the registry (its module calls this at import). PluginError for an id that shadows a
    built-in's or one registered by another module."""
    if not isinstance(result, Result):
        raise PluginError(f"register() takes a theorems.core.result.Result, not {type(result).__name__}")
    if not isinstance(result.id, str) or result.id.count(".") < 1 or not all(result.id.split(".")):
        raise PluginError(f"result id {result.id!r} (module {result.module or '?'}): an id is 'PREFIX.NAME', e.g. "
                          "'mypackage.theorem_1'", result_id=str(result.id))
    prefix = result.id.split(".")[0]
    if prefix in BUILTIN_PREFIXES and not result.module.startswith(f"theorems.{prefix}"):
        raise PluginError(f"{result.module or 'a module'} registers {result.id!r}, under the prefix of the built-in "
                          f"paper package theorems.{prefix}: a plugin's ids carry its own prefix and can never "
                          f"shadow a built-in id (rename it, e.g. 'mypackage.{result.id.split('.', 1)[1]}')",
                          result_id=result.id)
    if result.id in _REGISTRY and _REGISTRY[result.id].module != result.module:
        raise PluginError(f"result id {result.id!r} registered twice: by {_REGISTRY[result.id].module} and by "
                          f"{result.module}", result_id=result.id)
    _REGISTRY[result.id] = result
    return result


def _load() -> None:
    global _loaded
    if not _loaded:
        for pkg in PAPER_PACKAGES:
            importlib.import_module(pkg)
        _loaded = True
    load_plugins()


# -- plugins ---------------------------------------------------------------------------------------------------
def discover_plugins() -> list[Plugin]:
    """The plugins this environment declares, without importing them: the entry points of the group
    ``theorems.results``, then the modules of ``$THEOREMS_PLUGINS`` (comma-separated)."""
    from importlib.metadata import entry_points

    found = [Plugin(prefix=ep.name, module=ep.module, function=ep.attr or "", source=f"entry point {ep.value!r} "
                    f"of group {PLUGIN_GROUP!r}") for ep in entry_points(group=PLUGIN_GROUP)]
    for module in (m.strip() for m in os.environ.get(ENV_PLUGINS, "").split(",")):
        if module:
            found.append(Plugin(prefix=module.split(".")[0], module=module, source=f"${ENV_PLUGINS}"))
    return found


def plugins() -> dict[str, Plugin]:
    """prefix -> Plugin, for every plugin loaded (loading them if not yet)."""
    load_plugins()
    return dict(_PLUGINS)


def load_plugins() -> None:
    """Import every plugin (once) and check each result it registers; PluginError naming the plugin when it
    cannot be imported or when a result breaks a rule (module docstring). Built-in papers are not loaded."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    for plugin in discover_plugins():
        if plugin.prefix in _PLUGINS and _PLUGINS[plugin.prefix].package != plugin.package:
            raise PluginError(f"two plugins use the prefix {plugin.prefix!r}: {_PLUGINS[plugin.prefix].module} "
                              f"({_PLUGINS[plugin.prefix].source}) and {plugin.module} ({plugin.source})",
                              plugin=plugin.prefix)
        _load_plugin(plugin)  # a second module of a package already loaded (or the same one twice): imported too
    _plugins_loaded = True


def _load_plugin(plugin: Plugin) -> None:
    if plugin.prefix in BUILTIN_PREFIXES:
        raise PluginError(f"plugin {plugin.module} ({plugin.source}) is named {plugin.prefix!r}, the prefix of a "
                          "built-in paper package: a plugin's ids carry its own prefix and can never shadow a "
                          "built-in id", plugin=plugin.prefix)
    before = dict(_REGISTRY)
    try:
        module = importlib.import_module(plugin.module)
        if plugin.function:
            getattr(module, plugin.function)()
    except PluginError as err:
        _forget(before)
        raise PluginError(f"plugin {plugin.prefix!r} ({plugin.source}): {err}", plugin=plugin.prefix,
                          result_id=err.result_id) from None
    except Exception as err:
        _forget(before)
        raise PluginError(f"plugin {plugin.prefix!r} ({plugin.source}) cannot be loaded: importing "
                          f"{plugin.module}{':' + plugin.function if plugin.function else ''} raised "
                          f"{type(err).__name__}: {err}", plugin=plugin.prefix) from err
    mine = [r for r in _REGISTRY.values() if plugin.owns(r) or (r.id not in before and r.module == "")]
    try:
        if not mine:
            raise PluginError(f"plugin {plugin.prefix!r} ({plugin.source}): importing {plugin.module} registered "
                              "no result (each result module calls theorems.core.registry.register(Result(...)))",
                              plugin=plugin.prefix)
        for result in mine:
            check_plugin_result(result, plugin.prefix)
    except PluginError:
        _forget(before)
        raise
    _PLUGINS[plugin.prefix] = plugin


def _forget(before: dict[str, Result]) -> None:
    """Undo a failed plugin's registrations, so that the next call raises the same error again."""
    _REGISTRY.clear()
    _REGISTRY.update(before)


def check_plugin_result(result: Result, prefix: str) -> None:
    """PluginError unless ``result`` follows the rules every result follows (module docstring)."""
    def refuse(what: str) -> PluginError:
        return PluginError(f"plugin {prefix!r}: result {result.id!r} ({result.module or '?'}) {what}",
                           plugin=prefix, result_id=result.id)

    if not result.id.startswith(prefix + "."):
        raise refuse(f"does not carry the plugin's prefix: its id must be '{prefix}.{result.id.split('.')[-1]}' "
                     "(a plugin's ids carry its own prefix, so that they can never shadow another's)")
    if not result.module:
        raise refuse("declares no module= (write module=__name__)")
    if result.logic is None or not result.logic.for_all:
        raise refuse("declares no quantifiers (logic=Logic(for_all=..., exists=...))")
    if not isinstance(result.status, Status):
        raise refuse(f"has status {result.status!r}, not a theorems.core.result.Status")
    if result.status is Status.OPEN and not result.open_reason:
        raise refuse("is open without saying why (open_reason=...)")
    if not (result.controls or result.trend_controls or result.counterexamples):
        raise refuse("declares no negative control (controls=...: a parameter set, usually with "
                     "allow_violation=True, on which its bound claims fail): a check that cannot fail is a defect")
    bad = [p for p in result.params if not isinstance(p, Param)]
    if bad:
        raise refuse(f"declares parameters that are not Param declarations: {bad!r}")
    # Every registered instance names declared parameters and forms (a misspelt control would never run).
    names = {p.name for p in result.params}
    instances = [("control", c) for c in (*result.controls, *result.trend_controls)]
    instances += [("counterexample", c) for c in result.counterexamples]
    instances += [("searched instance", c) for c in result.searched]
    instances += [("binding instance", {**b.params, **({"form": b.form} if b.form else {})}) for b in result.binding]
    for what, spec in instances:
        unknown = sorted(set(spec) - names - {"form", "allow_violation"})
        if unknown:
            raise refuse(f"registers a {what} {dict(spec)} with undeclared parameters {unknown} "
                         f"(its parameters are {', '.join(sorted(names))})")
        if "form" in spec and spec["form"] not in result.forms:
            raise refuse(f"registers a {what} {dict(spec)} of form {spec['form']!r}, not one of its forms "
                         f"{', '.join(result.forms)}")


def is_builtin(result: "Result | ResultInfo") -> bool:
    """Whether a result belongs to one of the built-in paper packages (not to a plugin, nor to a test's fake)."""
    return result.module.startswith(PAPER_PACKAGES)


def _order(result: Result) -> tuple:
    return (not is_builtin(result), result.paper, result.id)


def in_order(results) -> list[Result]:
    """``results`` in `ids` order."""
    return sorted(results, key=_order)


def ids() -> list[str]:
    """Ids of every registered result: the built-in papers' first, then the plugins', each by paper then name."""
    _load()
    return sorted(_REGISTRY, key=lambda i: _order(_REGISTRY[i]))


def _check_id(result_id: Any) -> None:
    if not isinstance(result_id, str):
        raise ParameterError(f"result id {result_id!r} is not valid: expected a string such as "
                             "'neural_collapse.lemma_4_2' (`python -m theorems list` shows them all)",
                             name="id", value=result_id)


def get(result_id: str) -> Result:
    """The registered result ``result_id``. Only its paper's package is imported when the id names one
    (`check` of one result does not pay for importing the other four papers), and only the plugins when it
    names none; an id not found there loads every package before it is declared unknown."""
    _check_id(result_id)
    if result_id not in _REGISTRY and not _loaded:
        prefix = result_id.split(".")[0]
        if f"theorems.{prefix}" in PAPER_PACKAGES:
            importlib.import_module(f"theorems.{prefix}")
        else:
            load_plugins()
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
            load_plugins()  # the plugins' metadata is not in the manifest: import them (not the papers)
            extra = sorted((r for r in _REGISTRY.values() if any(p.owns(r) for p in _PLUGINS.values())), key=_order)
            return recorded + [manifest.info_of(r) for r in extra]
    return [manifest.info_of(get(rid)) for rid in ids()]


def info(result_id: str) -> "ResultInfo":
    """The metadata of one result (as `catalog`); UnknownResult, with close matches, for an unknown id."""
    _check_id(result_id)
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


def _check_claims(result: Result, claims: list) -> None:
    """PluginError for an evaluation that returns something other than Claims (each has a kind: the verdict
    rules read nothing else), before any of it is believed."""
    from .evidence import CLAIM_KINDS, Claim

    for claim in claims:
        if not isinstance(claim, Claim) or claim.kind not in CLAIM_KINDS:
            raise PluginError(
                f"{result.id} ({result.module or '?'}): its evaluation returned the claim {claim!r}, which is not a "
                f"theorems.core.evidence.Claim with a kind ({', '.join(CLAIM_KINDS)}): write Claim.at_most(name, "
                "observed, bound, ..., kind=...), Claim.close(...) or Claim.measurement(...)",
                plugin=result.id.split(".")[0], result_id=result.id)


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
    from .grade import attach_enclosures
    from .recording import record

    result = get(result_id)
    form = result.default_form if form is None else form
    check_form(result, form)
    check_options(result.id, allow_violation, device)
    full, violations = validate(result, params, form)
    _raise_unless_allowed(result, full, violations, allow_violation)
    ctx = Context.make(device, seed=full.get("seed", 0))
    start = time.perf_counter()
    assert result.evaluate is not None  # Result.__post_init__ refuses a result without one
    outcome = result.evaluate(full, form, ctx)
    elapsed = time.perf_counter() - start
    # A hypothesis the parameters already broke (a negative control) is listed once, however often it
    # is found broken again.
    listed = {v.hypothesis for v in violations}
    found = [v for v in outcome.violations if v.hypothesis not in listed]
    _raise_unless_allowed(result, full, found, allow_violation, note=" (decided by the evaluation)")
    violations = violations + found
    claims = list(outcome.claims)
    _check_claims(result, claims)
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
    # The rigorous re-evaluations registered for its claims (theorems.core.grade.REPLAYS), from the recorded point.
    evidence = attach_enclosures(evidence)
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
