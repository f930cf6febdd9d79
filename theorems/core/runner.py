"""Running many checks: in this process, across local processes, or on a Ray cluster.

`python -m theorems report` plans its instances (`plan_instances`) and runs them with `run_instances`,
which returns one `Done` per instance **in plan order**, whatever finished first, so the page lists them
in the same order on every backend. Every instance carries its own seed and runs with one torch thread
(intra-op threads change the order of floating-point reductions), so the numbers are the same whatever
the number of workers. Workers send Evidence back as JSON dicts (``Evidence.to_dict``), and the serial
path makes the same round trip, so the three backends hand the report identical objects.

Worker processes are forked from a ``forkserver`` (``spawn`` where the platform has none), never from the parent:
forking a parent that already runs torch's thread pools can deadlock. The server is a fresh interpreter that has
imported torch and the registry and run nothing (`POOL_PRELOAD`), so a worker starts without paying the ~2 s
import again; the server lives as long as the parent, so every pool of one process shares it.
"""

from __future__ import annotations

import collections
import importlib
import os
import signal
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

RAY_LOCAL = "local"
# What the pool's fork server imports once, before any worker is forked from it: what every worker imports first
# (prepare_worker). Imports only: the server runs no torch operation, so it has no thread pool to fork.
POOL_PRELOAD = ("torch", "theorems.core.registry")


class BackendUnavailable(RuntimeError):
    """A way of running that this machine cannot offer (Ray not installed, no GPU on the cluster ...)."""


@dataclass(frozen=True)
class Instance:
    """One check the report runs."""

    result_id: str
    form: str
    params: dict[str, Any]
    allow_violation: bool

    def describe(self, control: bool | None = None) -> str:
        """``control``: whether the run turned out to violate a hypothesis (default: whether it may)."""
        words = [self.result_id, self.form, *(f"{k}={v}" for k, v in self.params.items())]
        control = self.allow_violation if control is None else control
        return " ".join(words) + (" [negative control]" if control else "")


@dataclass
class Done:
    """How one instance ended: ``evidence`` (an Evidence) or ``error`` (a one-line description)."""

    index: int
    instance: Instance
    evidence: Any = None
    error: str | None = None
    took: float = 0.0

    def verdict(self) -> str:
        if self.error is not None:
            return f"ERROR {self.error}"
        ev = self.evidence
        return "holds" if ev.holds else ("fails (not converged)" if ev.converged is False else "fails")

    @property
    def notable(self) -> bool:
        return self.error is not None or not self.evidence.holds

    def line(self) -> str:
        control = None if self.evidence is None else bool(self.evidence.violations)
        return f"{self.instance.describe(control)} -> {self.verdict()}"


def describe_error(err: BaseException) -> str:
    return f"{type(err).__name__}: {' '.join(str(err).split())}"


def default_workers() -> int:
    """The cores this process may use (the affinity mask, where the platform has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


# ---------------------------------------------------------------------------------------------------
# planning
# ---------------------------------------------------------------------------------------------------
def plan_instances(suite, only: Sequence[str] | None = None) -> tuple[list[Instance], list[tuple[str, str]]]:
    """Every instance the report runs (of the results in ``only``, in registry order, if given), and
    (result id, message) for each result whose ``report_instances`` raised."""
    from . import registry
    from .result import AS_PRINTED, instance_key

    wanted = set(only) if only else None
    planned: list[Instance] = []
    errors: list[tuple[str, str]] = []
    # With ``only``, only the packages of those results load (a plugin's report does not import the five papers).
    rids = registry.ids() if wanted is None else [r.id for r in registry.in_order(map(registry.get, wanted))]
    for rid in rids:
        result = registry.get(rid)
        mine: list[Instance] = []
        # Left out, report_instances is what the result declares (theorems.core.result.DeclaredInstances);
        # None runs the default instance alone.
        if result.report_instances is None:
            mine.append(Instance(rid, result.default_form, {}, False))
        else:
            try:
                for form, params, *allow in result.report_instances(suite):
                    # A tolerance pin ends not converged by design: the conformance checks run it, the page does not.
                    if result.is_pin(form, params):
                        continue
                    # Result's docstring also allows (form, params) pairs: no third item means no violation.
                    mine.append(Instance(rid, form, dict(params), bool(allow and allow[0])))
            except Exception as err:  # a defect of that result, not a reason to lose the whole report
                errors.append((rid, f"report_instances failed: {describe_error(err)}"))
        # The page's errata and proof-errata lists show what each registered counterexample and proof
        # erratum does in this run, so each is run once, whatever report_instances yields.
        seen = {(*instance_key(i.form, i.params), i.allow_violation) for i in mine}
        for form, spec in [*((AS_PRINTED, cx) for cx in result.counterexamples),
                           *((e.form, e.params) for e in result.proof_errata)]:
            key = (*instance_key(form, spec), False)
            if key not in seen:
                seen.add(key)
                mine.append(Instance(rid, form, dict(spec), False))
        planned += mine
    return planned, errors


# ---------------------------------------------------------------------------------------------------
# progress
# ---------------------------------------------------------------------------------------------------
class Progress:
    """A progress bar with an estimate of the time left, on stderr.

    On a terminal the bar is redrawn in place and only instances that did not hold leave a line; in a
    log (CI, a pipe) every instance gets its own line, so that the log says where a run stopped.

    The estimate is per result: each instance still to run is expected to take as long as the finished
    instances *of its result* took on average (results differ by orders of magnitude, so a global mean is
    far off whenever cheap results come first); for a result with nothing finished yet, the mean over all
    finished instances stands in. The sum is divided by the number of workers. Without ``result_ids``
    (one per instance, in any order) it falls back to elapsed time per finished instance.

    With ``predicted`` (the cost model's seconds of each instance, in plan order: `theorems.core.costs`) the
    estimate is instead the predicted seconds of the instances not yet finished, corrected by the measured/predicted
    ratio of those finished (`Eta`): a mean of the finished instances is wrong by orders of magnitude when
    the cheap ones come first (issue 42). ``step`` then needs the instance's ``index``.
    """

    WIDTH = 28

    def __init__(self, total: int, stream=None, live: bool | None = None,
                 result_ids: Sequence[str] | None = None, workers: int = 1,
                 predicted: Sequence[float] | None = None) -> None:
        self.total, self.done = total, 0
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.started = time.perf_counter()
        self.workers = max(1, workers)
        self.left = collections.Counter(result_ids) if result_ids is not None else None
        self.spent: dict[str, list[float]] = {}  # result id -> [seconds, instances]
        self.model = None
        if predicted is not None:
            self.model = Eta(predicted, self.workers)

    def eta(self) -> float | None:
        if not self.done or self.done >= self.total:
            return None
        if self.model is not None:
            return self.model.seconds_left()
        if self.left is None or not self.spent:
            return (time.perf_counter() - self.started) / self.done * (self.total - self.done)
        overall = sum(s for s, _ in self.spent.values()) / sum(n for _, n in self.spent.values())
        work = 0.0
        for rid, count in self.left.items():
            seconds, n = self.spent.get(rid, (0.0, 0))
            work += count * (seconds / n if n else overall)
        return work / self.workers

    def bar(self) -> str:
        filled = self.WIDTH * self.done // max(self.total, 1)
        left = self.eta()
        eta = f"  ~{duration(left)} left" if left is not None else ""
        return f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {self.done}/{self.total}{eta}"

    def step(self, line: str, took: float, notable: bool, result_id: str | None = None,
             index: int | None = None) -> None:
        """One instance finished: ``line`` says which and how it fared, in ``took`` seconds; ``notable``
        if it did not hold; ``result_id`` feeds the per-result estimate, ``index`` (plan order) the predicted one."""
        self.done += 1
        if self.model is not None and index is not None:
            self.model.finish(index, took)
        if result_id is not None:
            spent = self.spent.setdefault(result_id, [0.0, 0])
            spent[0] += took
            spent[1] += 1
            if self.left is not None and self.left[result_id] > 0:
                self.left[result_id] -= 1
        if self.live:
            if notable:
                self._write(f"\r\033[K{line} ({duration(took)})\n")
            self._write("\r\033[K" + self.bar() + ("\n" if self.done >= self.total else ""))
        else:
            left = self.eta()
            eta = f"; ~{duration(left)} left" if left is not None else ""
            self._write(f"[{self.done}/{self.total}] {line} ({duration(took)}{eta})\n")

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


# ---------------------------------------------------------------------------------------------------
# the ETA
# ---------------------------------------------------------------------------------------------------
# Pseudo-seconds of prior evidence that the machine runs at the timings' speed: the ratio measured/predicted of the
# first few (cheap) instances is mostly overhead and noise, and must not multiply the whole remaining plan alone.
RATIO_PRIOR_S = 1.0


class Eta:
    """Time left in a run: the predicted seconds of the unfinished instances times the measured/predicted ratio of the
    finished ones, divided by the workers."""

    def __init__(self, predicted: Sequence[float], workers: int = 1) -> None:
        self.predicted = [max(float(p), 0.0) for p in predicted]
        self.workers = max(1, workers)
        self.remaining = sum(self.predicted)
        self.finished: set[int] = set()
        self.measured_done = 0.0
        self.predicted_done = 0.0

    def finish(self, index: int, took: float) -> None:
        if index in self.finished or not 0 <= index < len(self.predicted):
            return
        self.finished.add(index)
        self.remaining -= self.predicted[index]
        self.measured_done += took
        self.predicted_done += self.predicted[index]

    @property
    def ratio(self) -> float:
        """Measured over predicted seconds so far (1 before anything finished), shrunk towards 1 by RATIO_PRIOR_S."""
        return (self.measured_done + RATIO_PRIOR_S) / (self.predicted_done + RATIO_PRIOR_S)

    def seconds_left(self) -> float:
        return max(self.remaining, 0.0) * self.ratio / self.workers


def duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes}m{secs:02d}s" if minutes < 60 else f"{minutes // 60}h{minutes % 60:02d}m"


# ---------------------------------------------------------------------------------------------------
# one instance, wherever it runs
# ---------------------------------------------------------------------------------------------------
_prepared: set[str] = set()


def prepare_worker(modules: Sequence[str] = ()) -> None:
    """Set up a process that runs instances: one torch thread, the plugins and ``modules`` registered.

    ``modules``: modules that register results besides the paper packages (a user's own results, the
    tests' fakes); each registers its results when imported, like the paper modules do.
    """
    import torch

    from . import registry

    torch.set_num_threads(1)
    registry.load_plugins()  # the paper packages load on the first check of one of theirs (registry.get)
    for name in modules:
        if name not in _prepared:
            importlib.import_module(name)
            _prepared.add(name)


def _init_pool_worker(modules: Sequence[str], sys_path: Sequence[str]) -> None:
    # Ctrl-C reaches the whole process group; the parent alone decides what to keep and stops the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for entry in reversed(sys_path):  # e.g. the tests' folder, which pytest put on the parent's path
        if entry not in sys.path:
            sys.path.insert(0, entry)
    prepare_worker(modules)


def run_payload(index: int, instance: Instance, device: str | None, modules: Sequence[str] = ()) -> dict:
    """Run one instance; a JSON-able dict either way (what crosses a process or machine boundary)."""
    from . import registry

    prepare_worker(modules)
    t0 = time.perf_counter()
    try:
        ev = registry.check(instance.result_id, form=instance.form, allow_violation=instance.allow_violation,
                            device=device, **instance.params)
    except Exception as err:  # recorded as an error row; the other instances still run
        return {"index": index, "error": describe_error(err), "took": time.perf_counter() - t0}
    return {"index": index, "evidence": ev.to_dict(), "took": time.perf_counter() - t0}


def _done(payload: dict, instances: Sequence[Instance]) -> Done:
    from .evidence import Evidence

    i = payload["index"]
    evidence = Evidence.from_dict(payload["evidence"]) if "evidence" in payload else None
    return Done(i, instances[i], evidence, payload.get("error"), payload["took"])


# ---------------------------------------------------------------------------------------------------
# the backends
# ---------------------------------------------------------------------------------------------------
def registering_modules(instances: Iterable[Instance]) -> list[str]:
    """Modules a fresh process must import to know every result planned: the results' own modules where
    they are not inside a paper package (those load with the registry)."""
    from . import registry

    modules = {registry.get(inst.result_id).module for inst in instances}
    return sorted(m for m in modules if m and not m.startswith(registry.PAPER_PACKAGES))


def run_instances(
    instances: Sequence[Instance],
    device: str | None,
    *,
    workers: int = 1,
    ray_address: str | None = None,
    progress: Progress | None = None,
    on_interrupt: Callable[[int, int], None] | None = None,
) -> tuple[list[Done], bool]:
    """Run every instance; returns the finished ones in plan order and whether the run was interrupted.

    ``workers`` = 1 runs in this process; more uses a process pool of that size; ``ray_address`` (an
    address, or "local" to start Ray here) runs one Ray task per instance instead.
    """
    progress = progress or Progress(len(instances), result_ids=[i.result_id for i in instances], workers=workers)
    finished: dict[int, Done] = {}

    def collect(done: Done) -> None:
        finished[done.index] = done
        progress.step(done.line(), done.took, done.notable, done.instance.result_id, index=done.index)

    interrupted = False
    try:
        if ray_address is not None:
            _run_ray(instances, device, ray_address, workers, collect)
        elif workers > 1 and len(instances) > 1:
            _run_pool(instances, device, workers, collect)
        else:
            prepare_worker(registering_modules(instances))
            for i, inst in enumerate(instances):
                collect(_done(run_payload(i, inst, device), instances))
    except KeyboardInterrupt:
        interrupted = True
        if on_interrupt is not None:
            on_interrupt(len(finished), len(instances))
    return [finished[i] for i in sorted(finished)], interrupted


def _run_pool(instances: Sequence[Instance], device: str | None, workers: int, collect) -> None:
    import concurrent.futures as cf
    import multiprocessing

    modules = registering_modules(instances)
    context: multiprocessing.context.BaseContext
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        multiprocessing.set_forkserver_preload(list(POOL_PRELOAD))  # read when the server starts: the first pool only
    else:
        context = multiprocessing.get_context("spawn")
    pool = cf.ProcessPoolExecutor(
        max_workers=min(workers, len(instances)), mp_context=context,
        initializer=_init_pool_worker, initargs=(modules, list(sys.path)),
    )
    try:
        # One future per instance (no chunks): instance costs differ by orders of magnitude.
        futures = [pool.submit(run_payload, i, inst, device, modules) for i, inst in enumerate(instances)]
        for future in cf.as_completed(futures):
            collect(_done(future.result(), instances))
    except BaseException:
        # Interrupted (or a worker died): drop what has not started and stop the workers now, rather than
        # wait for instances that may run for minutes. _processes is the only handle the executor gives.
        pool.shutdown(wait=False, cancel_futures=True)
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.terminate()
        raise
    pool.shutdown(wait=True)


def require_ray():
    """The ray module, or BackendUnavailable saying how to install it."""
    try:
        import ray
    except ImportError:
        raise BackendUnavailable("--ray needs Ray, an optional extra: pip install 'theorems[ray]'") from None
    return ray


def _run_ray(instances: Sequence[Instance], device: str | None, address: str, workers: int, collect) -> None:
    ray = require_ray()
    modules = registering_modules(instances)
    local = address == RAY_LOCAL
    # Local workers import this checkout and whatever the parent put on sys.path (e.g. the tests' folder);
    # a cluster's nodes need the package installed (see README, 'Reports across processes and machines').
    runtime_env = {"env_vars": {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}} if local else None
    started_here = not ray.is_initialized()
    if started_here:
        options: dict[str, Any] = dict(include_dashboard=False, log_to_driver=False, logging_level="ERROR",
                                       runtime_env=runtime_env)
        if local:
            ray.init(num_cpus=workers, **options)
        else:
            try:
                ray.init(address=address, **options)
            except (ConnectionError, RuntimeError, ValueError) as err:
                raise BackendUnavailable(f"cannot connect to the Ray cluster at {address}: {describe_error(err)}") \
                    from None
    try:
        gpus = ray.cluster_resources().get("GPU", 0)
        if device is None:
            device = "cuda" if gpus else "cpu"  # a GPU per task where the cluster has them
        if device.startswith("cuda") and not gpus:
            raise BackendUnavailable(f"--device {device} was asked for, but the Ray cluster at {address} has no GPU")
        task = ray.remote(num_cpus=1, num_gpus=1 if device.startswith("cuda") else 0, max_retries=0)(run_payload)
        pending = {task.remote(i, inst, device, modules): i for i, inst in enumerate(instances)}
        try:
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    index = pending.pop(ref)
                    try:
                        payload = ray.get(ref)
                    except Exception as err:  # the task's process died (out of memory, node lost ...)
                        payload = {"index": index, "error": describe_error(err), "took": 0.0}
                    collect(_done(payload, instances))
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise
    finally:
        if started_here:
            ray.shutdown()
