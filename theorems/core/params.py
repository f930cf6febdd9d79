"""One declaration per parameter: its type, its structural domain, its resource ceiling and the range the
suite draws from.

A :class:`Param` is the single place where a parameter's valid values are written. Everything else derives
from it:

* validation (`Param.coerce`, called by `theorems.check` and the command line before anything is computed):
  a value of the wrong type, a NaN or infinity, an integer or real outside ``[low, high]``, a list out of
  order, an unknown choice: each raises :class:`ParameterError` naming the parameter and what it takes;
* the hypothesis strategies (`theorems.strategies.declared_params`) and the report's random instances
  (`sample_params`) draw from ``sample`` (and ``log``), then keep what the result's ``hypotheses`` accept;
* `python -m theorems show ID` and the manifest print `Param.describe()`.

The structural domain is what *any* instance needs (a size is a positive integer, a probability lies in
[0, 1], a seed is what the generators take) together with the resource ceiling: the largest size one
instance may have on a 2-core, 24 GiB machine. A theorem's own hypotheses (what a negative control may step
over on purpose) are not written here: they stay in the result's ``hypotheses`` function.

Sizes interact (an n × m × m tensor is fine when each of n and m is, but not always both at their ceiling),
so a result also declares :class:`Cost`: the peak number of tensor elements and the rough arithmetic of an
instance, from its parameters. `theorems.check` compares it with :func:`ceilings` before computing, and raises
:class:`ResourceLimit` naming the ceiling and the environment variable that raises it.

Nothing here imports torch or numpy (the command line validates without them).
"""

from __future__ import annotations

import math
import numbers
import os
import random
import re
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping, Sequence, get_args, get_origin

from .errors import ParameterError, ResourceLimit

# The element types a list parameter may have, and every kind a Param may have.
SCALAR_KINDS = (int, float, str, bool)
LIST_KINDS = (list[int], list[float], list[str])

# Seeds: what both torch.Generator.manual_seed and numpy.random.default_rng take.
SEED_HIGH = 2**63 - 1

# Resource ceilings for one instance, and the environment variables that raise (or lower) them. 1e8 float64
# elements is 0.8 GB per tensor of that size; the arithmetic ceiling is about ten minutes of one CPU core
# at the 1-2 Gflop/s the batched small-matrix code reaches.
ENV_MAX_ELEMENTS = "THEOREMS_MAX_ELEMENTS"
ENV_MAX_WORK = "THEOREMS_MAX_WORK"
DEFAULT_MAX_ELEMENTS = 1e8
DEFAULT_MAX_WORK = 1e12


def kind_name(kind: Any) -> str:
    """'int', 'float', 'str', 'bool', 'list[int]', ... (what the manifest and `show` print)."""
    if get_origin(kind) is list:
        return f"list[{get_args(kind)[0].__name__}]"
    return kind.__name__


def kind_from_name(name: str) -> Any:
    for kind in (*SCALAR_KINDS, *LIST_KINDS):
        if kind_name(kind) == name:
            return kind
    raise ValueError(f"unknown parameter kind {name!r}")


# What a parameter is for (Param.role): part of the theorem's instance, how hard the suite works on it, or a switch
# that deliberately breaks the statement for a negative control. `show`, the scaffold and the report tell them
# apart. A parameter that declares no role and no drawn range is an effort knob or a control switch when it
# carries one of these names (the built-in papers' conventions); every other one is the theorem's.
THEOREM, EFFORT, CONTROL = "theorem", "effort", "control"
ROLES = (THEOREM, EFFORT, CONTROL)
EFFORT_NAMES = frozenset({"restarts", "max_iter", "steps", "seeds", "starts", "inits", "replicates", "train_iter",
                          "pi_iters", "adversarial_steps", "max_steps", "max_deltas"})
CONTROL_NAMES = frozenset({"bound_scale", "rate_shift", "formula_scale", "closed_form_scale", "closed_form_factor",
                           "constant_scale", "const_scale", "exponent_shift", "thr_slack", "rho_mutation",
                           "step_shift", "split_shift", "psd_shift", "exact_scale", "allow_violation"})
# ... or whose doc says it is one ("≠ 1 is a deliberately wrong constant (negative control)").
_CONTROL_DOC = re.compile(r"negative control|deliberately wrong", re.IGNORECASE)


def _fmt(x: Any) -> str:
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x)) if abs(x) < 1e6 else f"{x:.0e}"
    return str(x)


# Longest repr of a refused value that an error message prints in full.
SHOWN_MAX = 80


@dataclass(frozen=True)
class Param:
    """One parameter of a result.

    ``kind``: ``int``, ``float``, ``str``, ``bool``, or a list ``list[int]`` / ``list[float]`` / ``list[str]``
    (given as a list or tuple, or on the command line as comma-separated text ``100,300,1000``; stored as a
    tuple). ``default``: its value when not given. ``doc``: what it means. ``valid``: the theorem's hypothesis
    on it in words (shown by ``show``; checked by the result's ``hypotheses``, not here). ``choices``: the only
    values it may take.

    The structural domain, checked here, before anything is computed:
    ``low``/``high``: inclusive bounds of a number, or of every element of a list; for a size, ``high`` is
    the resource ceiling of one instance. Reals must be finite unless ``finite=False``. Lists:
    ``length=(min, max)``, ``increasing`` (strictly), ``distinct``.

    What the suite draws (strategies, the report's random instances): ``sample``, a ``(lo, hi)`` range
    inside the domain (log-uniform with ``log=True``), or for a ``str``/``bool`` parameter a tuple of values.
    A parameter without ``sample`` is not drawn (it keeps its default): effort knobs, negative-control
    switches, deliberately wrong constants. ``role``: what the parameter is for, declared apart from the
    theorem's own parameters: ``"effort"`` (restarts, max_iter, steps, seeds), ``"control"`` (bound_scale,
    rate_shift: a negative control's switch) or ``"theorem"``; see `Param.purpose`.

    ``breaks``: for a negative control's switch, the hypothesis that any value other than the default breaks
    (e.g. ``"exact constants δ, Δ"``). `theorems.core.result.Result` then records that violation itself
    (`theorems.core.result.switch_violations`), with ``doc`` as its reason: a module does not write the
    ``if p["x_scale"] != 1.0: Violation(...)`` test by hand. Such a parameter is a CONTROL.
    """

    name: str
    kind: Any
    default: Any
    doc: str
    valid: str = ""
    choices: tuple[Any, ...] | None = None
    low: float | None = None
    high: float | None = None
    finite: bool = True
    length: tuple[int, int] = (1, 64)
    increasing: bool = False
    distinct: bool = False
    sample: tuple[Any, ...] | None = None
    log: bool = False
    # THEOREM, EFFORT or CONTROL (above); "" infers it from the name.
    role: str = ""
    # The hypothesis a non-default value breaks (a negative control's switch; above).
    breaks: str = ""

    def __post_init__(self) -> None:
        if self.role not in ("", *ROLES):
            raise ValueError(f"Param {self.name!r}: role {self.role!r} is not one of {', '.join(ROLES)}")
        if self.breaks and self.role not in ("", CONTROL):
            raise ValueError(f"Param {self.name!r}: a switch that breaks {self.breaks!r} is a control, "
                             f"not role {self.role!r}")
        if self.kind not in SCALAR_KINDS and self.kind not in LIST_KINDS:
            raise TypeError(f"Param {self.name!r}: kind {self.kind!r} is not one of "
                            f"{', '.join(kind_name(k) for k in (*SCALAR_KINDS, *LIST_KINDS))}")
        if self.is_list and isinstance(self.default, list):
            object.__setattr__(self, "default", tuple(self.default))
        # A declaration whose own default is outside its domain is a bug of the result, found at import.
        self.coerce(self.default, "(declaration)")
        if self.sample is not None and self.numeric and len(self.sample) == 2:
            for end in self.sample:
                self._check_range(end, "(declaration)", what="sample end")
            if self.log and min(self.sample) <= 0:
                raise ValueError(f"Param {self.name!r}: a log-uniform sample range must be positive")

    @property
    def purpose(self) -> str:
        """THEOREM (a value of the statement's instance), EFFORT (restarts, iterations, seeds: how hard the suite
        works) or CONTROL (a switch that breaks the statement on purpose, for a negative control)."""
        if self.role:
            return self.role
        if self.breaks:
            return CONTROL
        if self.sample is None and (self.name in CONTROL_NAMES or _CONTROL_DOC.search(self.doc)):
            return CONTROL
        if self.sample is None and self.name in EFFORT_NAMES:
            return EFFORT
        return THEOREM

    # -- what kind of value -----------------------------------------------------------------------------
    @property
    def is_list(self) -> bool:
        return get_origin(self.kind) is list

    @property
    def element(self) -> type:
        """The type of one value (the element type of a list)."""
        return get_args(self.kind)[0] if self.is_list else self.kind

    @property
    def numeric(self) -> bool:
        return self.element in (int, float)

    # -- validation ---------------------------------------------------------------------------------------
    def _error(self, result_id: str, value: Any, expected: str) -> ParameterError:
        shown = repr(value)
        if len(shown) > SHOWN_MAX:  # 10**400 would print 401 digits: the message names the value, not all of it
            shown = f"{shown[:SHOWN_MAX // 2]}…({len(shown)} characters)"
        return ParameterError(f"{result_id}: {self.name}={shown} is not valid: expected {expected}"
                              f" ({self.doc})", name=self.name, value=value)

    def _one(self, value: Any, result_id: str, whole: Any) -> Any:
        kind = self.element
        if kind is int:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise self._error(result_id, whole, "an integer" + (" list" if self.is_list else ""))
            value = int(value)
        elif kind is float:
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise self._error(result_id, whole, "a real number" + (" list" if self.is_list else ""))
            try:
                value = float(value)
            except OverflowError:  # an integer beyond the largest float (10**400): no real number to compute with
                raise self._error(result_id, whole, "a real number of float range (|x| < 1.8e308)") from None
            if self.finite and not math.isfinite(value):
                raise self._error(result_id, whole, "a finite real number")
        elif kind is bool:
            if not isinstance(value, bool):
                raise self._error(result_id, whole, "True or False")
        elif not isinstance(value, str):
            raise self._error(result_id, whole, "a string")
        if self.choices is not None and value not in self.choices:
            raise self._error(result_id, whole, f"one of {', '.join(map(repr, self.choices))}")
        if self.numeric:
            self._check_range(value, result_id, whole=whole)
        return value

    def _check_range(self, value: Any, result_id: str, whole: Any = None, what: str = "") -> None:
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise self._error(result_id, value if whole is None else whole,
                              f"{what + ' ' if what else ''}{self.domain_text()}")

    def coerce(self, value: Any, result_id: str = "") -> Any:
        """``value`` as this parameter's type, inside its domain; :class:`ParameterError` otherwise."""
        if not self.is_list:
            return self._one(value, result_id, value)
        items = value
        if isinstance(value, str):
            items = [v.strip() for v in value.split(",")] if value.strip() else []
            try:
                items = [self.element(v) if self.element is not str else v for v in items]
            except ValueError:
                raise self._error(result_id, value, f"a comma-separated list of {self.element.__name__}") from None
        if not isinstance(items, (list, tuple)):
            raise self._error(result_id, value, f"a list of {self.element.__name__}")
        lo, hi = self.length
        if not lo <= len(items) <= hi:
            raise self._error(result_id, value, f"a list of {lo} to {hi} values")
        out = tuple(self._one(v, result_id, value) for v in items)
        if self.increasing and any(b <= a for a, b in zip(out, out[1:], strict=False)):
            raise self._error(result_id, value, "strictly increasing values")
        if self.distinct and len(set(out)) != len(out):
            raise self._error(result_id, value, "distinct values")
        return out

    # -- words ----------------------------------------------------------------------------------------------
    def domain_text(self) -> str:
        """The structural domain in words, e.g. 'an integer in [2, 64]'."""
        noun = {int: "an integer", float: "a real number", str: "a string", bool: "True or False"}[self.element]
        if self.choices is not None:
            text = f"one of {', '.join(map(repr, self.choices))}"
        elif self.low is not None and self.high is not None:
            text = f"{noun} in [{_fmt(self.low)}, {_fmt(self.high)}]"
        elif self.low is not None:
            text = f"{noun} ≥ {_fmt(self.low)}"
        elif self.high is not None:
            text = f"{noun} ≤ {_fmt(self.high)}"
        else:
            text = noun
        if self.is_list:
            order = ", strictly increasing" if self.increasing else (", distinct" if self.distinct else "")
            text = f"a list of {self.length[0]}–{self.length[1]} values, each {text}{order}"
        return text

    def describe(self) -> str:
        """Domain, sample range and hypothesis, as `show` prints them."""
        parts = [self.domain_text()]
        if self.sample is not None:
            if self.numeric and len(self.sample) == 2:
                parts.append(f"drawn from [{_fmt(self.sample[0])}, {_fmt(self.sample[1])}]"
                             + (" log-uniformly" if self.log else ""))
            else:
                parts.append(f"drawn from {', '.join(map(repr, self.sample))}")
        if self.valid:
            parts.append(f"hypothesis: {self.valid}")
        if self.breaks:
            parts.append(f"any other value breaks: {self.breaks}")
        return "; ".join(parts)

    # -- drawing --------------------------------------------------------------------------------------------
    def draw(self, rng: random.Random) -> Any:
        """One value from ``sample`` (the default where there is none). ``rng``: a `random.Random`."""
        if self.sample is None:
            return self.default
        if not (self.numeric and len(self.sample) == 2) or self.is_list:
            return rng.choice(self.sample)
        lo, hi = self.sample
        if self.element is int:
            if self.log:
                return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))
            return rng.randint(int(lo), int(hi))
        if self.log:
            return math.exp(rng.uniform(math.log(lo), math.log(hi)))
        return rng.uniform(lo, hi)


def command_word(value: Any) -> str:
    """A parameter value as the command line reads it back (``k=<word>``): a list as comma-separated values."""
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    return str(value)


def seed_param(doc: str = "seed of every random draw of the instance", default: int = 0) -> Param:
    """The seed parameter, with the domain the generators take (one declaration for every result)."""
    return Param("seed", int, default, doc, low=0, high=SEED_HIGH, sample=(0, 10_000))


# -- resources -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Cost:
    """What one instance needs: ``elements``, the peak number of tensor elements held at once (roughly; the
    largest few tensors), and ``work``, the arithmetic (floating-point operations, roughly, optimiser
    iterations and restarts included)."""

    elements: float
    work: float = 0.0


def ceilings() -> tuple[float, float]:
    """(max elements, max work) for one instance: the defaults, or the environment's."""
    def read(name: str, default: float) -> float:
        text = os.environ.get(name)
        if not text:
            return default
        try:
            value = float(text)
        except ValueError:
            raise ParameterError(f"${name}={text!r}: expected a number") from None
        if not value > 0:
            raise ParameterError(f"${name}={text!r}: expected a positive number")
        return value

    return read(ENV_MAX_ELEMENTS, DEFAULT_MAX_ELEMENTS), read(ENV_MAX_WORK, DEFAULT_MAX_WORK)


def check_cost(result_id: str, cost: Cost, params: Mapping[str, Any]) -> None:
    """:class:`ResourceLimit` when ``cost`` exceeds a ceiling, saying which and how to raise it."""
    max_elements, max_work = ceilings()
    shown = ", ".join(f"{k}={v!r}" for k, v in params.items())
    for amount, ceiling, what, env in ((cost.elements, max_elements, "tensor elements", ENV_MAX_ELEMENTS),
                                       (cost.work, max_work, "floating-point operations", ENV_MAX_WORK)):
        if not (math.isfinite(amount) and amount <= ceiling):
            raise ResourceLimit(
                f"{result_id}: this instance needs about {amount:.3g} {what}, above the ceiling of {ceiling:.3g} "
                f"for one instance on this machine ({shown}); use smaller sizes, or raise the ceiling with "
                f"{env}=<number> if the machine has the memory and time", name=env, value=amount)


# -- drawing whole parameter sets -------------------------------------------------------------------------------
def sample_params(result: Any, form: str, rng: random.Random, tries: int = 200,
                  fixed: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """A random valid parameter set of ``result`` for ``form``: each declared ``sample`` drawn, the rest at
    their defaults (or ``fixed``), kept only when the result's hypotheses accept it and its cost is under
    the ceilings; None after ``tries`` rejections. What the report's random instances use."""
    fixed = dict(fixed or {})
    for _ in range(tries):
        params = {p.name: fixed[p.name] if p.name in fixed else p.draw(rng) for p in result.params}
        if acceptable(result, params, form):
            return params
    return None


def declared_instances(result: Any, suite: Any, *extra: Mapping[str, Any], form: str | None = None,
                       draws_seed: int = 1, fixed: Mapping[str, Any] | None = None
                       ) -> Iterator[tuple[str, dict[str, Any], bool]]:
    """The instances a result's report runs, from what it declares: the default instance, each binding
    instance, the ``extra`` parameter sets, ``suite.report_examples`` draws of :func:`sample_params` (a fixed
    ``draws_seed``, so that two reports draw the same; ``fixed`` holds some parameters), then each control and trend control as a negative
    control (its "form" and "allow_violation" keys read off). ``form`` defaults to the result's default form.
    A result that leaves ``report_instances`` out reports exactly these; a module with instances of its own
    writes ``yield from declared_instances(RESULT, suite, ...)`` and adds them."""
    form = form or result.default_form
    yield form, {}, False
    for binding in result.binding:
        yield binding.form or form, dict(binding.params), False
    for params in extra:
        yield form, dict(params), False
    rng = random.Random(draws_seed)
    for _ in range(suite.report_examples):
        drawn = sample_params(result, form, rng, fixed=fixed)
        if drawn is not None:  # every draw rejected: the declared ranges say nothing more here
            yield form, drawn, False
    for control in (*result.controls, *result.trend_controls):
        params = {k: v for k, v in control.items() if k not in ("form", "allow_violation")}
        yield control.get("form", form), params, True


def acceptable(result: Any, params: dict[str, Any], form: str) -> bool:
    """Whether ``params`` is inside the domain, the hypotheses of ``form`` and the resource ceilings."""
    try:
        full = {p.name: p.coerce(params.get(p.name, p.default), result.id) for p in result.params}
        if result.hypotheses(full, form):
            return False
        if getattr(result, "cost", None) is not None:
            check_cost(result.id, result.cost(full), full)
    except ParameterError:
        return False
    return True


def declared_ranges(params: Iterable[Param]) -> dict[str, tuple[Any, ...]]:
    """name -> sample, for the parameters that are drawn."""
    return {p.name: p.sample for p in params if p.sample is not None}


__all__: Sequence[str] = ("Param", "Cost", "seed_param", "ceilings", "check_cost", "sample_params",
                          "acceptable", "kind_name", "kind_from_name", "SEED_HIGH")
