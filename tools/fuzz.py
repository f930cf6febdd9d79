"""A fuzz campaign of `theorems.check`: many random bad calls over every registered result, each in a worker
process with a memory limit and a time limit, and the count of how each ended.

    python tools/fuzz.py --calls 1000 --workers 2 --seed 0 [--memory-gib 6] [--timeout 60] [--json out.json]

Two kinds of call, drawn from the `Param` declarations (`theorems.strategies.fuzz`):

* bad calls (``--bad-share``, default 0.8): a value of the wrong type, NaN/±inf, outside its declared domain, a
  huge size, an unknown name, choice or form, a non-boolean ``allow_violation``, a non-string device, a seed
  the generators do not take. Each must end in a typed error (ParameterError, ResourceLimit,
  HypothesisViolation);
* edge runs: values inside the declared domains at their edges, run with ``allow_violation=True``. Each must
  end in an Evidence or a typed error.

Outcomes: ``typed error``, ``evidence`` (fine); ``raw exception``, ``suite error`` (SuiteError, IdentityFailure),
``non-finite holds``, ``out of memory``, ``timeout``, ``worker died`` (defects). A typed error for an edge run
is fine; an Evidence for a bad call is a defect (``bad call ran``). Exit status 1 when any defect occurred.

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
DEFECTS = ("raw exception", "suite error", "non-finite holds", "out of memory", "timeout", "worker died",
           "bad call ran")


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
                                      SuiteError)

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
        except (ParameterError, HypothesisViolation, DeviceUnavailable) as err:
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bad-share", type=float, default=0.8)
    ap.add_argument("--memory-gib", type=float, default=6.0)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per call before it counts as a hang")
    ap.add_argument("--json", type=Path, help="write every call and its outcome here")
    args = ap.parse_args(argv)

    calls = plan(args.calls, args.seed, args.bad_share)
    ctx = mp.get_context("spawn")
    workers = [Worker(ctx, args.memory_gib) for _ in range(args.workers)]
    results: list[dict] = []
    start = time.perf_counter()
    from concurrent.futures import ThreadPoolExecutor

    def run_on(w: Worker, chunk):
        for kind, rid, kwargs in chunk:
            t0 = time.perf_counter()
            outcome, detail = w.call(rid, kwargs, args.timeout)
            if kind == "bad" and outcome == "evidence":
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
    print(f"{len(results)} calls in {time.perf_counter() - start:.0f} s (seed {args.seed}, {args.workers} workers, "
          f"{args.memory_gib} GiB, {args.timeout:.0f} s per call)")
    for (kind, outcome), n in sorted(table.items()):
        print(f"  {kind:5s} {outcome:18s} {n:5d}{'   DEFECT' if outcome in DEFECTS else ''}")
    defects = [r for r in results if r["outcome"] in DEFECTS]
    for r in defects[:40]:
        print(f"DEFECT {r['outcome']}: {r['id']} {r['kwargs']}\n    {r['detail'][:300]}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False))
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
