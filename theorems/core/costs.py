"""What a report will cost before it runs, and how long the rest of a running one will take.

The model
---------
Each result's instance cost is predicted from the instance's declared arithmetic (``Result.cost(params).work``,
:class:`~theorems.core.params.Cost`), through two per-result coefficients fitted from measured CPU times
(`TIMINGS_FILE`: every ci report instance, written by ``python -m theorems.core.costs measure``, and the thorough-only
instances that fit predicted below 30 s, ``measure --suite thorough --new-only-below 30``)::

    seconds(instance) = c_r · work(instance)^p_r        (work up to the largest measured, w_max)
    seconds(instance) = c_r · w_max^p_r · work / w_max   (beyond it)

p_r is the least-squares slope of log seconds on log work over the result's measured instances, clamped to [0, 1]
(below 1: a per-instance overhead; 1 where the instances are all of about one size), and c_r makes the fitted total
the measured total. Beyond the measured sizes the cost grows in proportion to the declared work: the overhead is paid
already, and a run that must fit a budget errs on the pessimistic side. An instance that was itself timed is predicted
at its own time; one the check refuses before computing at 0 s (REFUSED, OVER_CEILING: then with the seconds it would
take were the ceiling raised); a result that declares no cost at its mean; a result never measured at the median
instance (`Prediction.basis` says which, and ``--plan`` prints it).

The growth in size is therefore the result's own declaration (its ``cost=``), and the calibration is measured: the
test of the model (tests/test_costs.py) predicts each measured instance from a fit without it and bounds the error
per result by stated factors.

The ETA
-------
`Eta` is what a report's progress line says is left: the predicted seconds of the instances not yet finished,
times the ratio measured/predicted over the instances that finished (this machine's speed and load against the
machine of the timings, learnt as the run goes), divided by the workers. Unlike the mean of the finished
instances it does not assume that what is left costs what was cheap.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from .runner import RATIO_PRIOR_S, Eta  # noqa: F401  (the progress line owns the ETA; re-exported for the plan's users)

# The measured CPU seconds of every ci report instance (one process, one torch thread), the model's calibration.
TIMINGS_FILE = Path(__file__).resolve().parents[1] / "ci-timings.json"
TIMINGS_VERSION = 1


# Below this a measured time is timer noise and per-call overhead, not the instance's cost: floored there in the fit.
MIN_SECONDS = 0.005
# What a result with no measured instance at all is predicted at: the median of the measured instances, stated as such.
UNMEASURED = "no ci timing: median instance"


@dataclass(frozen=True)
class Coefficients:
    """One result's fitted cost: ``seconds = c · work^p`` inside the range of work its measured instances span (up
    to ``w_max``), and in proportion to the work beyond it; ``mean`` (the mean measured time) for an instance whose
    work is unknown. ``n``: the measured instances."""

    c: float
    p: float
    w_max: float
    mean: float
    n: int

    def seconds(self, work: float | None) -> float:
        if work is None:
            return self.mean
        if work <= self.w_max:
            return self.c * work ** self.p
        # beyond what was measured: linear in the declared work from the largest measured size (the per-instance
        # overhead that makes p < 1 is already paid there; the pessimistic side for a run that must fit a budget)
        return self.c * self.w_max ** self.p * (work / self.w_max)


# The declared works must spread by at least this factor (as the standard deviation of log work) for an exponent to be
# fitted; below it the instances are one size and p = 1 (time in proportion to work).
MIN_LOG_SPREAD = math.log(2.0)


def fit_one(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """(c, p) of ``t = c · w^p`` from (work, seconds) points: p the least-squares slope of log t on log w, clamped to
    [0, 1] (more than linear in the declared work is a declaration to fix, not a cost to extrapolate), c such that
    the fitted points' total is their measured total."""
    xs = [math.log(w) for w, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx / len(xs) < MIN_LOG_SPREAD ** 2:
        p = 1.0
    else:
        p = min(1.0, max(0.0, sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx))
    c = sum(t for _, t in points) / sum(w ** p for w, _ in points)
    return c, p


def fit(rows: Iterable[Mapping[str, Any]]) -> dict[str, Coefficients]:
    """Per result, its :class:`Coefficients` from measured rows (``result``, ``cpu_s``, ``work``)."""
    by: dict[str, list[tuple[float | None, float]]] = {}
    for row in rows:
        if row.get("error"):  # refused before computing: predicted as refused, not part of the result's fit
            continue
        by.setdefault(row["result"], []).append((row.get("work"), max(float(row["cpu_s"]), MIN_SECONDS)))
    out = {}
    for rid, pts in by.items():
        mean = sum(t for _, t in pts) / len(pts)
        sized = [(float(w), t) for w, t in pts if w is not None and w > 0]
        if sized:
            c, p = fit_one(sized)
            out[rid] = Coefficients(c, p, max(w for w, _ in sized), mean, len(pts))
        else:
            out[rid] = Coefficients(0.0, 1.0, 0.0, mean, len(pts))
    return out


def load_timings(path: Path | None = None) -> dict:
    """The measured timings (`TIMINGS_FILE` by default); an empty calibration where there is none."""
    path = TIMINGS_FILE if path is None else Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return dict(version=TIMINGS_VERSION, instances=[], startup_s=0.0)
    if data.get("version") != TIMINGS_VERSION:
        raise ValueError(f"{path}: timings of version {data.get('version')!r}, expected {TIMINGS_VERSION}")
    return data


REFUSED = "refused"  # the check refuses the instance before computing (a hypothesis, a parameter)
OVER_CEILING = "over the resource ceiling"  # refused by ResourceLimit; ``beyond`` says what it would cost


@dataclass(frozen=True)
class Prediction:
    """The predicted CPU seconds of one instance and what they rest on: ``measured`` (this very instance was timed),
    ``model`` (the result's fitted cost at the instance's declared work), ``mean`` (the result's mean: no work
    declared), REFUSED or OVER_CEILING (0 s: the check refuses it; ``beyond``, the seconds the model gives it were
    the ceiling raised), or UNMEASURED."""

    seconds: float
    basis: str
    beyond: float = 0.0


class CostModel:
    """Predictions for planned instances from measured timings (see the module docstring). ``reuse_measured``: an
    instance timed in the calibration run is predicted at its own time (the plan); False predicts every instance
    from its result's fit (what the tests of the model use)."""

    def __init__(self, timings: Mapping[str, Any] | None = None, *, reuse_measured: bool = True) -> None:
        timings = load_timings() if timings is None else timings
        rows = list(timings.get("instances", []))
        self.coefficients = fit(rows)
        self.measured = {row["id"]: float(row["cpu_s"]) for row in rows} if reuse_measured else {}
        times = sorted(max(float(r["cpu_s"]), MIN_SECONDS) for r in rows if not r.get("error"))
        self.median = statistics.median(times) if times else 1.0
        self.startup_s = float(timings.get("startup_s", 0.0))

    def predict(self, instance: Any) -> Prediction:
        """``instance``: a runner.Instance (result_id, form, params, allow_violation)."""
        from . import registry

        result = registry.get(instance.result_id)
        key = instance_id(instance.result_id, instance.form, instance.params, instance.allow_violation)
        if key in self.measured:
            return Prediction(self.measured[key], "measured")
        refused = _refused(result, instance)
        coeffs = self.coefficients.get(instance.result_id)
        if refused == REFUSED:
            return Prediction(0.0, REFUSED)
        if coeffs is None:
            estimate = Prediction(self.median, UNMEASURED)
        else:
            work = declared_work(result, instance.form, instance.params)
            estimate = Prediction(coeffs.seconds(work), "mean" if work is None else "model")
        if refused == OVER_CEILING:
            return Prediction(0.0, OVER_CEILING, beyond=estimate.seconds)
        return estimate

    def predict_all(self, instances: Sequence[Any]) -> list[Prediction]:
        return [self.predict(inst) for inst in instances]


def _refused(result: Any, instance: Any) -> str | None:
    """Whether `theorems.check` refuses the instance before computing: OVER_CEILING (ResourceLimit), REFUSED (a
    parameter, or a hypothesis the instance may not step over), None (it runs)."""
    from . import registry
    from .errors import ParameterError, ResourceLimit

    try:
        _, violations = registry.validate(result, dict(instance.params), instance.form)
    except ResourceLimit:
        return OVER_CEILING
    except (ParameterError, ValueError):
        return REFUSED
    return REFUSED if any(not v.bypassable or not instance.allow_violation for v in violations) else None


# ---------------------------------------------------------------------------------------------------
# the plan
# ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PlanRow:
    result_id: str
    instances: int
    seconds: float
    largest: float
    bases: Mapping[str, int]
    beyond: float = 0.0  # predicted seconds of the instances refused by the resource ceiling, were it raised


def plan_rows(instances: Sequence[Any], predictions: Sequence[Prediction]) -> list[PlanRow]:
    """One row per result, in plan order: its instances, predicted CPU seconds, largest instance, and bases."""
    rows: dict[str, dict[str, Any]] = {}
    for inst, pred in zip(instances, predictions, strict=True):
        row = rows.setdefault(inst.result_id, dict(instances=0, seconds=0.0, largest=0.0, bases={}, beyond=0.0))
        row["instances"] += 1
        row["beyond"] += pred.beyond
        row["seconds"] += pred.seconds
        row["largest"] = max(row["largest"], pred.seconds)
        row["bases"][pred.basis] = row["bases"].get(pred.basis, 0) + 1
    return [PlanRow(rid, **row) for rid, row in rows.items()]


def wall_estimate(predictions: Sequence[Prediction], workers: int, startup_s: float = 0.0) -> float:
    """Wall seconds on ``workers`` processes: the larger of the work shared evenly and the longest instance, plus a
    worker's start-up (the lower bound a perfect schedule reaches, at the timings' machine speed)."""
    secs = [p.seconds for p in predictions]
    return startup_s + max(sum(secs) / max(1, workers), max(secs, default=0.0))


def format_plan(rows: Sequence[PlanRow], predictions: Sequence[Prediction], workers: int, startup_s: float,
                budget_s: float | None = None) -> str:
    """The ``report --plan`` table (markdown), its totals and, with ``budget_s``, what does not fit."""
    from .runner import duration

    total = sum(r.seconds for r in rows)
    lines = ["| result | instances | predicted CPU s | largest instance s | basis |", "|---|---:|---:|---:|---|"]
    for r in sorted(rows, key=lambda r: -r.seconds):
        bases = ", ".join(f"{n} {b}" for b, n in sorted(r.bases.items(), key=lambda kv: -kv[1]))
        lines.append(f"| {r.result_id} | {r.instances} | {r.seconds:.1f} | {r.largest:.1f} | {bases} |")
    wall = wall_estimate(predictions, workers, startup_s)
    lines.append(f"| **total** | {sum(r.instances for r in rows)} | {total:.1f} | "
                 f"{max((r.largest for r in rows), default=0.0):.1f} | |")
    lines.append("")
    lines.append(f"predicted: {duration(total)} of CPU, about {duration(wall)} of wall time on {workers} worker(s) "
                 f"(CPU seconds of the machine that measured the timings, one torch thread a worker; the running report's time "
                 f"left rescales them by this machine's measured/predicted ratio)")
    over = [(r.result_id, r.bases.get(OVER_CEILING, 0), r.beyond) for r in rows if r.bases.get(OVER_CEILING)]
    if over:
        lines.append("not run: over the resource ceiling for one instance (theorems.core.params: THEOREMS_MAX_WORK, "
                     "THEOREMS_MAX_ELEMENTS); the check refuses them in 0 s, and with the ceiling raised they would "
                     "cost about:")
        lines += [f"  {rid}: {n} instance(s), {secs:.0f} s of CPU" for rid, n, secs in over]
    if budget_s is not None and wall > budget_s:
        lines.append(f"does not fit in {duration(budget_s)} on {workers} worker(s): the largest results above would "
                     f"need {duration(total - budget_s * workers)} of CPU less, or more workers (a GPU machine or a "
                     f"cluster: --ray ADDRESS)")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------
# measuring
# ---------------------------------------------------------------------------------------------------
def instance_id(result_id: str, form: str, params: Mapping[str, Any], allow_violation: bool) -> str:
    """One string per planned instance (what a timing is matched by)."""
    shown = ",".join(f"{k}={params[k]!r}" for k in sorted(params))
    return f"{result_id}|{form}|{shown}|{int(bool(allow_violation))}"


def declared_work(result: Any, form: str, params: Mapping[str, Any]) -> float | None:
    """``result.cost(full params).work``, or None where the result declares none or it cannot be computed."""
    if getattr(result, "cost", None) is None:
        return None
    try:
        full = {p.name: p.coerce(params.get(p.name, p.default), result.id) for p in result.params}
        work = float(result.cost(full).work)
    except Exception:  # an instance the cost function cannot size (its check refuses it with a typed error)
        return None
    return work if math.isfinite(work) and work > 0 else None


def measure(suite_name: str = "ci", only: Sequence[str] | None = None, out: Path | None = None,
            log=sys.stderr, new_only_below: float | None = None) -> dict:
    """Run every report instance of ``suite_name`` in this process (one torch thread) and record each one's CPU
    and wall seconds and declared work (and the seconds the model predicted); written to ``out`` (atomically) when
    given. ``new_only_below``: only the instances the calibration has not timed whose prediction is below that many
    seconds (a check of the model's extrapolation on another suite's instances)."""
    import torch

    from . import registry
    from .runner import plan_instances, prepare_worker, registering_modules, run_payload
    from .suite import get_suite

    suite = get_suite(suite_name)
    c0 = time.process_time()
    instances, _ = plan_instances(suite, only)  # imports every paper package: what a worker pays once
    prepare_worker(registering_modules(instances))
    torch.set_num_threads(1)
    startup = time.process_time() - c0
    model = CostModel()
    predicted = model.predict_all(instances)
    if new_only_below is not None:
        keep = [i for i, p in enumerate(predicted) if p.basis == "model" and p.seconds < new_only_below]
        instances, predicted = [instances[i] for i in keep], [predicted[i] for i in keep]
    rows = []
    for i, inst in enumerate(instances):
        c0, w0 = time.process_time(), time.perf_counter()
        payload = run_payload(i, inst, None)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        result = registry.get(inst.result_id)
        rows.append(dict(id=instance_id(inst.result_id, inst.form, inst.params, inst.allow_violation),
                         result=inst.result_id, cpu_s=round(cpu, 4), wall_s=round(wall, 4),
                         work=declared_work(result, inst.form, inst.params), error="error" in payload,
                         predicted_s=round(predicted[i].seconds, 4)))
        print(f"[{i + 1}/{len(instances)}] {inst.result_id} cpu {cpu:.2f}s wall {wall:.2f}s", file=log, flush=True)
    data = dict(version=TIMINGS_VERSION, suite=suite_name, torch_threads=1, machine=_machine(),
                startup_s=round(startup, 3),
                measured=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                note="CPU seconds (time.process_time) of each report instance, run one after another in one "
                     "process; imports excluded", instances=rows)
    if out is not None:
        write_timings(data, Path(out))
    return data


def write_timings(data: Mapping[str, Any], out: Path) -> None:
    """The timings as JSON, one instance a line (diffable), written atomically."""
    head = {k: v for k, v in data.items() if k != "instances"}
    text = json.dumps(head, indent=1)[:-2] + ',\n "instances": [\n'
    text += ",\n".join("  " + json.dumps(row, ensure_ascii=False) for row in data["instances"]) + "\n ]\n}\n"
    tmp = Path(str(out) + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, out)


def _machine() -> str:
    import platform

    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    return f"{platform.machine()} {os.cpu_count()} cores, load average {load:.1f} when measured"


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(prog="python -m theorems.core.costs")
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure", help="time every report instance of a suite (the cost model's calibration)")
    m.add_argument("--suite", default="ci")
    m.add_argument("--only", nargs="+", default=None)
    m.add_argument("--out", default=str(TIMINGS_FILE))
    m.add_argument("--new-only-below", type=float, default=None, metavar="S",
                   help="only instances the calibration has not timed, predicted below S seconds")
    args = parser.parse_args()
    measure(args.suite, args.only, Path(args.out), new_only_below=args.new_only_below)
