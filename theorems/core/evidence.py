"""Evidence: what one check of one result on one instance found.

An Evidence is a list of named *claims* (each an asserted inequality with its two numbers and its
tolerance), one headline pair ``observed``/``bound`` with its ``tightness``, the optimiser's convergence
certificate where one was used, and a dict of intermediate numbers. ``holds`` is true only when every
claim passed *and* no optimiser that the evidence rests on failed to converge.
"""

from __future__ import annotations

import json
import math
import shlex
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np


# What a claim is to the verdict (see DESIGN.md, 'Verdicts'):
#   bound        asserted by the printed (or corrected) statement and able to fail: decides ``holds``;
#   identity     holds by algebra or by construction: a test of the implementation, never evidence; one
#                that fails outside a negative control is a bug, and `check` raises IdentityFailure;
#   proof_step   a step of the paper's proof: its failure is a proof erratum, not a verdict on the statement;
#   measurement  a number recorded beside the verdict, not asserted (``passed`` is always True).
CLAIM_KINDS = ("bound", "identity", "proof_step", "measurement")


@dataclass(frozen=True)
class Claim:
    """One relation ``observed <relation> bound`` (relation '<=' or '>='; '=' for a measurement), and its kind."""

    name: str
    passed: bool
    observed: float
    bound: float
    relation: str
    message: str = ""
    kind: str = "bound"

    def __post_init__(self) -> None:
        if self.kind not in CLAIM_KINDS:
            raise ValueError(f"claim {self.name!r}: kind {self.kind!r} is not one of {', '.join(CLAIM_KINDS)}")

    @classmethod
    def at_most(cls, name: str, observed: float, bound: float, message: str = "", kind: str = "bound") -> "Claim":
        return cls(name, bool(observed <= bound), float(observed), float(bound), "<=", message, kind)

    @classmethod
    def at_least(cls, name: str, observed: float, bound: float, message: str = "", kind: str = "bound") -> "Claim":
        return cls(name, bool(observed >= bound), float(observed), float(bound), ">=", message, kind)

    @classmethod
    def measurement(cls, name: str, value: float, reference: float = math.nan, message: str = "") -> "Claim":
        """A number recorded, not asserted (``reference``: what the paper or a closed form predicts, if any)."""
        return cls(name, True, float(value), float(reference), "=", message, "measurement")

    @property
    def slack(self) -> float:
        """Normalised slack: > 0 with room to spare, 0 when attained, < 0 when the relation fails.

        (bound − observed) for '<=' and (observed − bound) for '>=', divided by max(|observed|, |bound|)
        (1 where both are 0), clipped to [−1, 1] so that an infinite bound reads as 'far away'; NaN for a
        measurement and for a NaN side (a NaN never counts as room to spare)."""
        if self.relation not in ("<=", ">="):
            return math.nan
        a, b = self.observed, self.bound
        if math.isnan(a) or math.isnan(b):
            return math.nan
        if a == b:
            return 0.0
        diff = (b - a) if self.relation == "<=" else (a - b)
        scale = max(abs(a), abs(b))
        if math.isinf(scale):
            return math.copysign(1.0, diff)
        return max(-1.0, min(1.0, diff / scale))

    def __str__(self) -> str:
        if self.kind == "measurement":
            ref = "" if math.isnan(self.bound) else f" (reference {_fmt(self.bound)})"
            text = f"     {self.name}: {_fmt(self.observed)}{ref} [measurement]"
        else:
            mark = "ok  " if self.passed else "FAIL"
            tag = "" if self.kind == "bound" else f" [{self.kind}]"
            text = f"{mark} {self.name}: {_fmt(self.observed)} {self.relation} {_fmt(self.bound)}{tag}"
        return text + (f"  ({self.message})" if self.message else "")


def bound_claims(claims: Sequence[Claim]) -> list[Claim]:
    return [c for c in claims if c.kind == "bound"]


def decides_holds(claims: Sequence[Claim], converged: bool | None) -> bool:
    """The verdict of one instance: every ``bound`` claim passed (and there is one), no NaN among them, and
    no optimiser the evidence rests on failed to converge. Identities, proof steps and measurements do
    not enter it."""
    bounds = bound_claims(claims)
    return (bool(bounds) and all(c.passed and not math.isnan(c.observed) and not math.isnan(c.bound)
                                 for c in bounds) and converged is not False)


def to_jsonable(value: Any) -> Any:
    """Plain JSON types for tensors, arrays, numpy scalars, enums and dataclasses; inf/nan as strings."""
    try:
        import torch

        if isinstance(value, torch.Tensor):
            value = value.detach().cpu().numpy()
    except ImportError:  # pragma: no cover - torch is a hard dependency
        pass
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()] if value.ndim else to_jsonable(value.item())
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return value if math.isfinite(value) else repr(value)  # 'inf', '-inf', 'nan'
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "__dataclass_fields__"):
        return to_jsonable(asdict(value))
    if hasattr(value, "value") and isinstance(getattr(value, "value"), str):  # enums
        return value.value
    return value


def _from_json_float(value: Any) -> Any:
    if isinstance(value, str) and value in ("inf", "-inf", "nan"):
        return float(value)
    return value


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        if x == 0 or not math.isfinite(x):
            return str(x)
        return f"{x:.6g}" if 1e-3 <= abs(x) < 1e5 else f"{x:.4e}"
    return str(x)


def reproduce_command(result_id: str, params: Mapping[str, Any], form: str | None = None,
                      allow_violation: bool = False, device: str = "cpu") -> str:
    """``python -m theorems check ...`` for one instance, quoted for a POSIX shell."""
    cmd = ["python", "-m", "theorems", "check", result_id, *(f"{k}={v}" for k, v in params.items())]
    if form:
        cmd.append(f"form={form}")
    if allow_violation:
        cmd.append("allow_violation=true")
    if device != "cpu":
        cmd += ["--device", device]
    return shlex.join(cmd)


@dataclass
class Evidence:
    result_id: str
    form: str
    params: dict[str, Any]
    holds: bool
    observed: float
    bound: float
    tightness: float | None
    converged: bool | None
    claims: list[Claim] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    status: str = ""
    device: str = "cpu"
    elapsed_s: float = 0.0

    # -- queries -----------------------------------------------------------------------------------
    def claim(self, name: str) -> Claim:
        for c in self.claims:
            if c.name == name:
                return c
        raise KeyError(f"{self.result_id} has no claim {name!r}; it has {[c.name for c in self.claims]}")

    @property
    def failed_claims(self) -> list[Claim]:
        """Every claim that did not pass, whatever its kind."""
        return [c for c in self.claims if not c.passed]

    @property
    def failed_bounds(self) -> list[Claim]:
        """The failed ``bound`` claims: what makes this instance a counterexample to the statement."""
        return [c for c in bound_claims(self.claims) if not c.passed]

    @property
    def failed_proof_steps(self) -> list[Claim]:
        return [c for c in self.claims if c.kind == "proof_step" and not c.passed]

    @property
    def slack(self) -> float:
        """The smallest normalised slack over the ``bound`` claims (< 0: a bound failed; NaN: none)."""
        values = [c.slack for c in bound_claims(self.claims)]
        if not values:
            return math.nan
        return math.nan if any(math.isnan(v) for v in values) else min(values)

    def explain(self) -> str:
        """Every claim with its numbers; the message pytest shows when an assertion on ``holds`` fails."""
        lines = [f"{self.result_id} [{self.form}] {self.reproduce()}"]
        if self.converged is False:
            lines.append("NOT CONVERGED: the optimiser's certificate failed, so the evidence cannot hold")
        lines += [f"  {c}" for c in self.claims]
        if self.violations:
            lines.append("  hypotheses deliberately violated: " + "; ".join(self.violations))
        return "\n".join(lines)

    def reproduce(self) -> str:
        """The command line that reruns exactly this instance."""
        return reproduce_command(self.result_id, self.params, self.form, bool(self.violations), self.device)

    # -- pictures (matplotlib and jinja2 are imported only when a picture is asked for) -------------
    def plot(self):
        """A matplotlib Figure: the sweep with its fitted and predicted exponents for a trend result,
        otherwise each claim's observed value against its bound."""
        from reports.plots import evidence_figure

        return evidence_figure(self)

    def _repr_html_(self) -> str:
        """A small table and picture for notebooks (Jupyter calls this)."""
        from reports import evidence_html

        return evidence_html(self)

    # -- serialisation ---------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(
            {
                "result_id": self.result_id,
                "form": self.form,
                "status": self.status,
                "params": self.params,
                "holds": self.holds,
                "converged": self.converged,
                "observed": self.observed,
                "bound": self.bound,
                "tightness": self.tightness,
                "claims": [asdict(c) for c in self.claims],
                "details": self.details,
                "violations": self.violations,
                "device": self.device,
                "elapsed_s": self.elapsed_s,
                "reproduce": self.reproduce(),
            }
        )

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.to_dict(), **kw)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Evidence":
        claims = [
            Claim(**{**c, "observed": _from_json_float(c["observed"]), "bound": _from_json_float(c["bound"]),
                     "kind": c.get("kind", "bound")})
            for c in data.get("claims", [])
        ]
        tight = data.get("tightness")
        return cls(
            result_id=data["result_id"],
            form=data["form"],
            params=dict(data["params"]),
            holds=bool(data["holds"]),
            observed=_from_json_float(data["observed"]),
            bound=_from_json_float(data["bound"]),
            tightness=None if tight is None else _from_json_float(tight),
            converged=data.get("converged"),
            claims=claims,
            details=dict(data.get("details", {})),
            violations=list(data.get("violations", [])),
            status=data.get("status", ""),
            device=data.get("device", "cpu"),
            elapsed_s=float(data.get("elapsed_s", 0.0)),
        )

    def __repr__(self) -> str:
        verdict = "HOLDS" if self.holds else "DOES NOT HOLD"
        conv = {None: "n/a (no optimiser)", True: "yes", False: "NO"}[self.converged]
        tight = "n/a" if self.tightness is None else _fmt(self.tightness)
        head = [
            f"Evidence {self.result_id} [{self.form}] -> {verdict}",
            f"  params    : {', '.join(f'{k}={v}' for k, v in self.params.items())}",
            f"  observed  : {_fmt(self.observed)}   bound: {_fmt(self.bound)}   tightness: {tight}",
            f"  converged : {conv}   device: {self.device}   time: {self.elapsed_s:.2f}s",
            "  claims    :",
        ]
        head += [f"    {c}" for c in self.claims]
        if self.violations:
            head.append("  violates  : " + "; ".join(self.violations))
        scalars = {k: v for k, v in self.details.items() if isinstance(v, (int, float, str, bool)) or v is None}
        shown = list(scalars.items())[:12]
        if shown:
            head.append("  details   : " + ", ".join(f"{k}={_fmt(v)}" for k, v in shown))
            if len(self.details) > len(shown):
                head.append(f"              (+{len(self.details) - len(shown)} more in .details)")
        head.append(f"  reproduce : {self.reproduce()}")
        return "\n".join(head)


def summarize(evidences: Sequence[Evidence]) -> dict[str, Any]:
    """Counts used by the CLI and the report: instances, holds, failures, non-converged."""
    return {
        "instances": len(evidences),
        "holds": sum(e.holds for e in evidences),
        "fails": sum(not e.holds for e in evidences),
        "not_converged": sum(e.converged is False for e in evidences),
    }
