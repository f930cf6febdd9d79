"""A fuzz campaign of `theorems.check`: many random bad calls over every registered result, each in a worker
process with a memory limit and a time limit, and the count of how each ended.

    python tools/fuzz.py --calls 1000 --workers 2 --seed 0 [--memory-gib 6] [--timeout 60] [--json out.json]
    python tools/fuzz.py --sweep [--only cl_generalization.] --calls 0 --workers 1 --timeout 60 [--sweep-share 1]

Three kinds of call, drawn from the `Param` declarations (`theorems.strategies.fuzz` and :func:`domain_edges`):

* bad calls (``--bad-share``, default 0.8): a value of the wrong type, NaN/±inf, outside its declared domain, a
  huge size, an unknown name, choice or form, a non-boolean ``allow_violation``, a non-string device, a seed
  the generators do not take. Each must end in a typed error (ParameterError, ResourceLimit,
  HypothesisViolation);
* edge runs: values inside the declared domains at their edges, run with ``allow_violation=True``. Each must
  end in an Evidence or a typed error.
* the sweep (``--sweep``, issue 26 item 8): every declared domain edge of every parameter of every result, one
  parameter at a time: both ends of every numeric domain (so budgets at both ends), lists of length 1 (at both
  ends of their element domain), every choice and switch; ints too large for a float (``10**400``) for every
  numeric parameter; non-string and unknown result ids. Each result's default is timed first, and each sweep
  call's time is compared with the default's time scaled by the cost model (``Result.cost``'s work): a call
  the cost model accepts that runs more than ``UNDERESTIMATE`` × longer than predicted (or hangs) is a cost-model
  underestimate. A call whose predicted time exceeds a third of ``--timeout`` is not run (counted as ``skipped
  (cost)``); a timeout of a call predicted above ``--timeout``/UNDERESTIMATE stays a ``timeout``.

Every edge or sweep call that ends in an Evidence is classified: inside the declared hypotheses (no violation
recorded), converged (``ev.converged`` not False), on the default form of a statement the suite calls true
(verified / verified-corrected), and failing a bound claim, it is a ``silent fails`` defect: a finding to
register, a hypothesis to declare, or a run to report as not converged — never a silent "fails". Evidence that
is not converged is counted apart (``not converged``).

Outcomes: ``typed error``, ``evidence``, ``not converged`` (fine); ``raw exception``, ``suite error``
(SuiteError, IdentityFailure), ``non-finite holds``, ``silent fails``, ``cost underestimate``, ``out of memory``,
``timeout``, ``worker died`` (defects). A typed error for an edge run is fine; an Evidence for a bad call is a
defect (``bad call ran``). Exit status 1 when any defect occurred.

Dev tool: not part of the library or of the CI gate (its pytest counterpart is the self-fuzz of
``checks/test_conformance.py``).
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import multiprocessing as mp
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFECTS = ("raw exception", "suite error", "non-finite holds", "silent fails", "cost underestimate",
           "out of memory", "timeout", "worker died", "bad call ran")
# A sweep call that takes more than this many times the cost model's prediction (the default's time scaled by the
# work ratio) is a cost-model underestimate. Timings are wall-clock on a shared machine, so the factor is generous;
# below MIN_SECONDS nothing is judged (start-up noise dominates).
UNDERESTIMATE = 30.0
MIN_SECONDS = 5.0
# Ids that are not result ids: each must end in a typed error (ParameterError or UnknownResult).
BAD_IDS = [3, None, 2.5, b"cl_generalization.theorem_2", ["cl_generalization.theorem_2"], "", "no_such.result",
           "CL_GENERALIZATION.THEOREM_2 "]
HUGE = 10**400  # beyond float range: float() raises OverflowError


def _worker(conn, memory_gib: float) -> None:
    """Run calls sent over ``conn`` until it closes; answer (outcome, detail) for each."""
    import resource

    limit = int(memory_gib * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.path.insert(0, str(ROOT))
    import torch

    torch.set_num_threads(1)
    import theorems
    from theorems.core.errors import (DeviceUnavailable, HypothesisViolation, IdentityFailure, ParameterError,
                                      SuiteError, UnknownResult)

    theorems.ids()
    conn.send(("ready", ""))
    while True:
        try:
            rid, kwargs = conn.recv()
        except EOFError:
            return
        try:
            ev = theorems.check(rid, **kwargs)
            finite = all(math.isfinite(x) for x in (ev.observed, ev.bound)) and (
                ev.tightness is None or math.isfinite(ev.tightness))
            outcome = ("non-finite holds", repr(ev)) if ev.holds and not finite else ("evidence", "")
            if outcome[0] == "evidence":
                outcome = classify(ev, theorems.get(rid))
        except (ParameterError, HypothesisViolation, DeviceUnavailable, UnknownResult) as err:
            outcome = ("typed error", f"{type(err).__name__}: {err}"[:300])
        except (SuiteError, IdentityFailure) as err:
            outcome = ("suite error", f"{type(err).__name__}: {err}"[:500])
        except MemoryError as err:
            outcome = ("out of memory", f"MemoryError: {err}"[:300])
        except Exception as err:  # noqa: BLE001 - what the campaign is looking for
            text = f"{type(err).__name__}: {err}"
            outcome = ("out of memory" if "memory" in text.lower() and "alloc" in text.lower()
                       else "raw exception", text[:500])
        conn.send(outcome)


def classify(ev, result) -> tuple[str, str]:
    """(outcome, detail) of a finite Evidence: ``not converged`` (reported, never a verdict), ``silent fails`` (a
    defect: inside the declared hypotheses, converged, on the default form of a statement the suite calls true,
    and a bound claim fails), else ``evidence``."""
    from theorems.core.result import Status

    if ev.converged is False:
        return "not converged", ""
    if (not ev.violations and ev.failed_bounds and ev.form == result.default_form
            and result.status in (Status.VERIFIED, Status.VERIFIED_CORRECTED)):
        return "silent fails", ("failed inside the hypotheses, converged, on a verified statement: "
                                + ", ".join(c.name for c in ev.failed_bounds))
    return "evidence", ""


class Worker:
    def __init__(self, ctx, memory_gib: float) -> None:
        self.memory_gib, self.ctx = memory_gib, ctx
        self.start()

    def start(self) -> None:
        self.conn, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_worker, args=(child, self.memory_gib), daemon=True)
        self.proc.start()
        if not self.conn.poll(300):
            raise RuntimeError("a fuzz worker did not start within 300 s")
        self.conn.recv()

    def call(self, rid: str, kwargs: dict, timeout: float) -> tuple[str, str]:
        self.conn.send((rid, kwargs))
        if self.conn.poll(timeout):
            try:
                return self.conn.recv()
            except EOFError:
                pass
        dead = not self.proc.is_alive()
        self.proc.kill()
        self.proc.join()
        self.start()
        if dead:
            return ("worker died", f"exit code {self.proc.exitcode}")
        return ("timeout", f"no answer within {timeout:.0f} s")


def plan(calls: int, seed: int, bad_share: float) -> list[tuple[str, str, dict]]:
    """(kind, result id, keyword arguments) for each call; edge runs stay within 20× the default's cost."""
    sys.path.insert(0, str(ROOT))
    import theorems
    from theorems.strategies.fuzz import bad_call_choices, edge_values

    rng = random.Random(seed)
    ids = theorems.ids()
    out = []
    while len(out) < calls:
        rid = rng.choice(ids)
        result = theorems.get(rid)
        if rng.random() < bad_share:
            kwargs, _ = rng.choice(bad_call_choices(result))
            out.append(("bad", rid, kwargs))
            continue
        movable = [p for p in result.params if len(edge_values(p)) > 1]
        if not movable:
            continue
        params = {p.name: rng.choice(edge_values(p)) for p in rng.sample(movable, min(len(movable), rng.randint(1, 2)))}
        if result.cost is not None:
            try:
                full = {p.name: p.coerce(params.get(p.name, p.default), rid) for p in result.params}
                cost, base = result.cost(full), result.cost(result.defaults)
            except Exception:  # noqa: BLE001 - the run itself will say what is wrong
                cost = base = None
            if cost is not None and (cost.work > 20 * max(base.work, 1.0) or cost.elements > 20 * max(base.elements, 1.0)):
                continue
        out.append(("edge", rid, {**params, "allow_violation": True}))
    return out


def domain_edges(p) -> list:
    """Every declared edge of ``p``'s domain, inside it and different from the default: both ends of a numeric
    domain (a budget at both ends), a float just above its lower end, lists of length 1 (the default's first
    value and both ends of the element domain) and of the default's length with one value at each end, every
    choice, both switches."""
    if p.choices is not None:
        values = list(p.choices) if not p.is_list else [[c] for c in p.choices]
    elif p.element is bool:
        values = [False, True]
    elif p.is_list:
        values = []
        ends = [p.element(v) for v in (p.low, p.high) if v is not None] if p.numeric else []
        if p.length[0] <= 1:
            values.append(list(p.default)[:1])
            values += [[v] for v in ends]
        for v in ends:  # the default's length with one value at an end of the element domain (where still valid)
            for i in range(len(p.default)):
                trial = list(p.default)
                trial[i] = v
                try:
                    p.coerce(trial)
                except Exception:  # noqa: BLE001 - an order or distinctness the edge would break
                    continue
                values.append(trial)
                break
    elif p.numeric:
        values = [p.element(v) for v in (p.low, p.high) if v is not None]
        if p.element is float and p.low is not None:
            above = p.low + 1e-12 * max(1.0, abs(p.low))
            if p.high is None or above <= p.high:
                values.append(above)
    else:
        values = []
    out = []
    for v in values:
        same = list(v) == list(p.default) if p.is_list and isinstance(p.default, (list, tuple)) else v == p.default
        if not same and v not in out:
            out.append(v)
    return out


def sweep_plan(only: str = "", share: float = 1.0, seed: int = 0) -> list[tuple[str, object, dict]]:
    """("default" | "sweep" | "bad", id, kwargs): each result's default (timed, the reference of the cost check),
    then every domain edge of every parameter (a ``share`` of them, drawn with ``seed``), ``10**400`` for every
    numeric parameter, and the bad ids."""
    sys.path.insert(0, str(ROOT))
    import theorems

    rng = random.Random(seed)
    out: list[tuple[str, object, dict]] = [("bad", rid, {}) for rid in BAD_IDS]
    for rid in theorems.ids():
        if not rid.startswith(only):
            continue
        result = theorems.get(rid)
        out.append(("default", rid, {}))
        for p in result.params:
            if p.numeric:
                out.append(("bad", rid, {p.name: [HUGE] if p.is_list else HUGE}))
            if p.name == "seed":
                continue
            for v in domain_edges(p):
                if rng.random() <= share:
                    out.append(("sweep", rid, {p.name: v, "allow_violation": True}))
    return out


def predicted_seconds(rid: str, kwargs: dict, base_seconds: float) -> tuple[float | None, float | None]:
    """(predicted seconds, work) of a call: the default's time scaled by the cost model's work ratio; (None, None)
    when the result declares no cost or the parameters do not coerce (the call itself says why)."""
    import theorems

    result = theorems.get(rid)
    if result.cost is None:
        return None, None
    try:
        full = {p.name: p.coerce(kwargs.get(p.name, p.default), rid) for p in result.params}
        work, base = result.cost(full).work, result.cost(result.defaults).work
    except Exception:  # noqa: BLE001 - the run itself will say what is wrong
        return None, None
    return base_seconds * max(work, 1.0) / max(base, 1.0), work


def run_sweep(calls, workers: list, timeout: float, log: Path | None = None, budget: float = math.inf) -> list[dict]:
    """Run the sweep: defaults first (their times are the reference), then the rest, on ``workers`` in parallel.
    Each outcome is appended to ``log`` (JSON lines) as it comes; calls not started within ``budget`` seconds are
    counted ``not run (budget)``."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    results: list[dict] = []
    base: dict[str, float] = {}
    lock = threading.Lock()
    began = time.perf_counter()

    class _Results(list):
        def append(self, row):  # every outcome is written as soon as it is known
            super().append(row)
            if log is not None:
                with lock, log.open("a") as fh:
                    fh.write(json.dumps(row, ensure_ascii=False, default=repr) + "\n")

    results = _Results()

    def one(w, kind, rid, kwargs):
        pred = work = None
        if time.perf_counter() - began > budget:
            results.append({"kind": kind, "id": repr(rid), "kwargs": repr(kwargs), "outcome": "not run (budget)",
                            "detail": "", "seconds": 0.0})
            return
        if kind == "sweep" and rid in base:
            pred, work = predicted_seconds(rid, kwargs, base[rid])
            if pred is not None and pred > timeout / 3:  # the call could time out on time it was promised
                results.append({"kind": kind, "id": repr(rid), "kwargs": repr(kwargs), "outcome": "skipped (cost)",
                                "detail": f"predicted {pred:.0f} s", "seconds": 0.0, "predicted": pred})
                return
        t0 = time.perf_counter()
        outcome, detail = w.call(rid, kwargs, timeout)
        took = time.perf_counter() - t0
        if kind == "default":
            base[rid] = took
        if kind == "bad" and outcome in ("evidence", "not converged", "silent fails"):
            outcome = "bad call ran"
        if pred is not None and outcome == "timeout" and UNDERESTIMATE * pred <= timeout:
            outcome, detail = "cost underestimate", f"hung past {timeout:.0f} s; cost model predicted {pred:.1f} s"
        elif pred is not None and took > MIN_SECONDS and took > UNDERESTIMATE * pred:
            outcome, detail = "cost underestimate", f"{took:.0f} s against a predicted {pred:.2f} s ({detail})"
        results.append({"kind": kind, "id": repr(rid), "kwargs": repr(kwargs), "outcome": outcome, "detail": detail,
                        "seconds": round(took, 3), "predicted": pred, "work": work})

    def run_on(w, chunk):
        for kind, rid, kwargs in chunk:
            one(w, kind, rid, kwargs)

    for group in (("default", "bad"), ("sweep",)):
        todo = [c for c in calls if c[0] in group]
        chunks = [todo[i::len(workers)] for i in range(len(workers))]
        with ThreadPoolExecutor(len(workers)) as pool:
            list(pool.map(run_on, workers, chunks))
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bad-share", type=float, default=0.8)
    ap.add_argument("--memory-gib", type=float, default=6.0)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per call before it counts as a hang")
    ap.add_argument("--json", type=Path, help="write every call and its outcome here")
    ap.add_argument("--sweep", action="store_true", help="also sweep every declared domain edge (see above)")
    ap.add_argument("--only", default="", help="sweep only the ids starting with this")
    ap.add_argument("--sweep-share", type=float, default=1.0, help="share of the edge calls the sweep runs")
    ap.add_argument("--log", type=Path, help="append each sweep outcome here as it comes (JSON lines)")
    ap.add_argument("--budget", type=float, default=math.inf, help="seconds after which no new sweep call starts")
    args = ap.parse_args(argv)

    calls = plan(args.calls, args.seed, args.bad_share) if args.calls > 0 else []
    ctx = mp.get_context("spawn")
    workers = [Worker(ctx, args.memory_gib) for _ in range(args.workers)]
    start = time.perf_counter()
    results: list[dict] = (run_sweep(sweep_plan(args.only, args.sweep_share, args.seed), workers, args.timeout,
                                     args.log, args.budget) if args.sweep else [])
    from concurrent.futures import ThreadPoolExecutor

    def run_on(w: Worker, chunk):
        for kind, rid, kwargs in chunk:
            t0 = time.perf_counter()
            outcome, detail = w.call(rid, kwargs, args.timeout)
            if kind == "bad" and outcome in ("evidence", "not converged", "silent fails"):
                outcome = "bad call ran"
            results.append({"kind": kind, "id": rid, "kwargs": repr(kwargs), "outcome": outcome,
                            "detail": detail, "seconds": round(time.perf_counter() - t0, 3)})

    chunks = [calls[i::len(workers)] for i in range(len(workers))]
    with ThreadPoolExecutor(len(workers)) as pool:
        list(pool.map(run_on, workers, chunks))
    for w in workers:
        w.conn.close()
        w.proc.join(5)
    table = collections.Counter((r["kind"], r["outcome"]) for r in results)
    ran = [r for r in results if r["outcome"] not in ("skipped (cost)", "not run (budget)")]
    typed = sum(r["outcome"] == "typed error" for r in ran)
    print(f"typed errors: {typed} of {len(ran)} calls run ({100 * typed / max(len(ran), 1):.1f} %); bad calls "
          f"refused: {sum(r['kind'] == 'bad' and r['outcome'] == 'typed error' for r in ran)} of "
          f"{sum(r['kind'] == 'bad' for r in ran)}")
    print(f"{len(results)} calls in {time.perf_counter() - start:.0f} s (seed {args.seed}, {args.workers} workers, "
          f"{args.memory_gib} GiB, {args.timeout:.0f} s per call)")
    for (kind, outcome), n in sorted(table.items()):
        print(f"  {kind:7s} {outcome:18s} {n:5d}{'   DEFECT' if outcome in DEFECTS else ''}")
    defects = [r for r in results if r["outcome"] in DEFECTS]
    for r in defects[:40]:
        print(f"DEFECT {r['outcome']}: {r['id']} {r['kwargs']}\n    {r['detail'][:300]}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False))
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
