"""The suite's pytest plugin (entry point ``pytest11``): its options, hooks and fixtures, for this repository and
for anyone's package of theorems.

* ``--theorems-conformance TARGET`` (repeatable; an id ``PKG.RESULT``, a plugin's prefix ``PKG``, or ``all``): run
  the checks every registered result must pass (`theorems.conformance`: every bound claim has a control that
  fails it, the status derives from the evidence, bad input is a typed error, counterexamples and proof errata
  replay, the worst case is searched, a seed fixes the numbers) on those results. Without test paths on the
  command line it runs only these checks; with paths, these checks as well.
* ``--device cpu|cuda`` (default ``$THEOREMS_DEVICE`` or cpu): exported as ``$THEOREMS_DEVICE`` so that every
  ``theorems.check`` in the run computes there.
* ``--suite quick|ci|thorough`` (default ``$THEOREMS_SUITE`` or ci): how many hypothesis examples and
  optimiser restarts run; each suite is also a hypothesis profile. Under ``CI=true`` hypothesis is always
  derandomised, so the gate draws the same examples on every run.
* Every Evidence produced during the run is recorded and written to ``.theorems/last-run.json``, from which
  ``python -m theorems report --from-run`` builds the report. Under pytest-xdist each worker sends its evidence
  to the controller at the end of its session (``workeroutput``), and the controller writes one file for the
  whole run: the same instances as a serial run, each once, ordered by result id, form and parameters
  (``theorems.core.recording.merge``). The file says whether the run ``finished`` (an interrupted run is
  recorded as such, and ``report --from-run`` refuses it), and what each test ``expected`` of an instance
  (``recording.expect``).
* Fixtures: ``run`` (a cached `theorems.check`), ``evaluated``, ``suite``, ``device``.

The plugin is installed with the package, so it loads in every pytest run of an environment that has
``theorems``; it changes nothing there (no hypothesis profile, no recording, no torch import) unless the run
asks for it: ``--theorems-conformance``, ``--suite``, ``--device``, ``$THEOREMS_SUITE``, or the ini option
``theorems = true`` (this repository's pyproject.toml). The repository's ``conftest.py`` loads it by module name
where the entry point is not installed; the entry point carries the same name, so pytest never loads it twice.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from theorems.core.errors import DeviceUnavailable, PluginError, UnknownResult
from theorems.core.suite import ENV_SUITE, SUITES, get_suite

# $THEOREMS_DEVICE (theorems.core.context.ENV_DEVICE, which imports torch: the plugin imports it only when active).
ENV_DEVICE = "THEOREMS_DEVICE"
# Where the checks every result must pass live (collected as a test module when --theorems-conformance is given).
CONFORMANCE_MODULE = "theorems.conformance"
EVERY_RESULT = "all"


def _register_profiles() -> None:
    """One hypothesis profile per suite (loaded by an active run only)."""
    try:
        from hypothesis import HealthCheck, Phase, settings
    except ImportError:  # hypothesis is a test extra; the library itself does not need it
        return
    for suite in SUITES.values():
        # The CI gate does not shrink: each shrink step re-runs an optimiser, and a failing optimiser-backed
        # property once spent six minutes there. The failing example is printed as found (print_blob), and
        # `pytest --suite quick|thorough` locally shrinks as usual.
        phases = [p for p in Phase if p is not Phase.shrink] if suite.name == "ci" else list(Phase)
        settings.register_profile(
            suite.name,
            phases=phases,
            max_examples=suite.max_examples,
            derandomize=suite.derandomize or os.environ.get("CI", "").lower() in ("1", "true", "yes"),
            deadline=None,  # optimiser runtimes vary; speed is measured by benchmarks/, not deadlines
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
            print_blob=True,
        )


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("theorems")
    group.addoption("--device", default=None, help="cpu (default) or cuda: where every check computes")
    group.addoption("--suite", default=None, choices=sorted(SUITES),
                    help="quick | ci (default) | thorough: hypothesis examples and optimiser restarts")
    group.addoption("--theorems-conformance", action="append", default=[], metavar="TARGET",
                    dest="theorems_conformance",
                    help="run the conformance checks on TARGET: a result id (PKG.RESULT), a plugin's prefix (PKG), "
                         f"or '{EVERY_RESULT}'; repeatable")
    parser.addini("theorems", type="bool", default=False,
                  help="record the run and load the suite's hypothesis profiles (this repository sets it)")


def active(config: pytest.Config) -> bool:
    """Whether this run is about theorems (module docstring); otherwise the plugin stays out of the way."""
    return bool(config.getoption("theorems_conformance") or config.getoption("--suite")
                or config.getoption("--device") or os.environ.get(ENV_SUITE) or config.getini("theorems"))


@pytest.hookimpl(tryfirst=True)  # before xdist turns -n auto (pyproject.toml) into workers
def pytest_cmdline_main(config: pytest.Config) -> None:
    # pytest-benchmark refuses --benchmark-only under xdist, and timings want one quiet process anyway.
    if getattr(config.option, "benchmark_only", False) and getattr(config.option, "numprocesses", None):
        config.option.numprocesses = 0


def pytest_configure(config: pytest.Config) -> None:
    # The conformance checks mark their optimiser-heavy checks; another project's --strict-markers must accept it.
    config.addinivalue_line("markers", "slow: optimiser-heavy checks (deselect with -m 'not slow')")
    config.addinivalue_line("markers", "xdist_group(name): tests that share a worker under --dist loadgroup")
    if not active(config):
        return
    if config.getoption("theorems_conformance"):
        # First: an unknown target is a usage error before torch and hypothesis are imported (2.3 s -> 0.35 s of CPU).
        _collect_conformance(config)
    from theorems.core.context import ENV_DEVICE as CONTEXT_ENV_DEVICE, resolve_device

    assert CONTEXT_ENV_DEVICE == ENV_DEVICE
    device = config.getoption("--device")
    if device:
        try:
            resolve_device(device)  # fail at start-up, with the reason, if e.g. CUDA is missing
        except DeviceUnavailable as err:
            raise pytest.UsageError(str(err)) from None
        os.environ[ENV_DEVICE] = device
    suite = get_suite(config.getoption("--suite") or os.environ.get(ENV_SUITE)).name
    os.environ[ENV_SUITE] = suite
    _register_profiles()
    try:
        from hypothesis import settings

        settings.load_profile(suite)
    except ImportError:
        pass
    _one_thread_per_process()
    from theorems.core.recording import recording

    config._theorems_recording = recording()
    config._theorems_evidence = config._theorems_recording.__enter__()
    config._theorems_from_workers = []  # what xdist workers sent (controller only)
    config._theorems_start = time.perf_counter()


def _collect_conformance(config: pytest.Config) -> None:
    """Check the targets now (a usage error naming an unknown id or plugin, before anything runs), and add the
    conformance module to what pytest collects: alone when no test path was given, else beside them."""
    try:
        conformance_targets(config)
    except (UnknownResult, PluginError) as err:
        raise pytest.UsageError(f"--theorems-conformance: {err}") from None
    import importlib.util

    spec = importlib.util.find_spec(CONFORMANCE_MODULE)
    assert spec is not None and spec.origin is not None
    path = str(Path(spec.origin))
    if config.args_source is pytest.Config.ArgsSource.ARGS:  # the same on xdist workers (they parse the same argv)
        if path not in config.args:
            config.args.append(path)
    else:
        config.args[:] = [path]


def conformance_targets(config: pytest.Config | None) -> list[str]:
    """The ids the conformance checks run on: those ``--theorems-conformance`` names (an id, a plugin's prefix,
    or 'all'), else every registered result."""
    from theorems.core import registry

    wanted = [t.strip() for word in (config.getoption("theorems_conformance") if config is not None else None)
              or [EVERY_RESULT] for t in word.split(",")]
    if all(t.split(".")[0] not in registry.BUILTIN_PREFIXES and t != EVERY_RESULT for t in wanted):
        registry.load_plugins()  # plugins only: the built-in papers are not imported
        every = [r.id for r in registry.in_order(registry.get(i) for i in registry.registered())]
    else:
        every = registry.ids()
    chosen: list[str] = []
    for target in wanted:
        if target == EVERY_RESULT:
            chosen += every
            continue
        found = [i for i in every if i == target or i.startswith(target + ".")]
        if not found:
            prefixes = sorted({i.split(".")[0] for i in every})
            raise UnknownResult(target, every + prefixes)
        chosen += found
    return list(dict.fromkeys(chosen))


def _one_thread_per_process() -> None:
    """Every test process (each xdist worker, or the one process of ``-n 0``) runs torch with one intra-op
    thread. The suite's tensors are small: more threads do not split their work, but the MKL/OpenMP pool
    spin-waits on every BLAS call, against the other worker and against anything else on the machine; that
    cost paper 002's dynamics about 7x their CPU time, and Lemma 4.2's worst-case search 40x under load. One
    thread also fixes the order of reductions, as in the report's workers."""
    import torch

    torch.set_num_threads(1)


def _registered(evidence: list) -> list:
    """Evidence of registered results only: tests register throw-away results; the report is about real ones."""
    if not evidence:
        return []
    from theorems.core import registry

    known = registry.registered()  # an Evidence exists only for a result registered in this process
    return [e for e in evidence if e.result_id in known]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    from theorems.core.recording import finished, worker_payload

    config = session.config
    # Whether the run ran to its end (not Ctrl-C, -x or an internal error): the run file says so.
    config._theorems_finished = (int(exitstatus), finished(int(exitstatus), bool(session.shouldstop or
                                                                                 session.shouldfail)))
    if hasattr(config, "workerinput") and hasattr(config, "_theorems_evidence"):
        # An xdist worker: xdist sends workeroutput to the controller after this hook (its hookwrapper
        # around pytest_sessionfinish). JSON, because execnet carries only plain types.
        config.workeroutput["theorems_evidence"] = worker_payload(_registered(config._theorems_evidence))


@pytest.hookimpl(optionalhook=True)  # an xdist hook: unknown (and never called) under -p no:xdist
def pytest_testnodedown(node, error) -> None:
    payload = getattr(node, "workeroutput", {}).get("theorems_evidence")
    if payload and hasattr(node.config, "_theorems_from_workers"):
        from theorems.core.recording import from_worker_payload

        node.config._theorems_from_workers.extend(from_worker_payload(payload))


def pytest_unconfigure(config: pytest.Config) -> None:
    rec = getattr(config, "_theorems_recording", None)
    if rec is None:
        return
    rec.__exit__(None, None, None)
    if hasattr(config, "workerinput"):
        return  # the controller writes the file
    from theorems.core.recording import DEFAULT_RUN_FILE, merge, provenance, write_run

    evidence = merge(_registered(config._theorems_evidence) + config._theorems_from_workers)
    # A session that started but did not run to its end (Ctrl-C, -x) replaces the last run, saying so: the
    # previous run's file must not stand for this one. (No session at all, as for --help, writes nothing.)
    exitstatus, done = getattr(config, "_theorems_finished", (None, None))
    if evidence or done is False:
        meta = provenance(suite=os.environ[ENV_SUITE], device=os.environ.get(ENV_DEVICE, "cpu"),
                          wall_time_s=round(time.perf_counter() - config._theorems_start, 2), source="pytest",
                          workers=getattr(config.option, "numprocesses", None) or 1)
        write_run(DEFAULT_RUN_FILE, evidence, meta, finished=bool(done), exitstatus=exitstatus)


def pytest_report_header(config: pytest.Config) -> str | None:
    if not active(config):
        return None
    return f"theorems: suite={os.environ.get(ENV_SUITE)} device={os.environ.get(ENV_DEVICE, 'cpu')}"


@pytest.fixture(scope="session")
def suite():
    """The active suite profile (restarts, examples)."""
    return get_suite()


@pytest.fixture(scope="session")
def run(pytestconfig):
    """`theorems.check`, each instance (id, form, allow_violation, every parameter filled) evaluated once per
    test process; the conformance checks and the per-paper checks share it, so a shared instance costs one
    evaluation. Under pytest-xdist a costly instance is also evaluated once per run (`SharedRunner`)."""
    return _runner(pytestconfig)


_RUNNER = None


def _runner(config: pytest.Config):
    global _RUNNER
    if _RUNNER is None:
        _RUNNER = _make_runner(_shared_folder(config))
    return _RUNNER


def _shared_folder(config) -> Path | None:
    """Where this run's xdist workers share their costly instances: an xdist worker's temporary folder is
    <the controller's>/popen-gwN (xdist reads the same attribute), so its parent is this run's own. None outside
    xdist (one process) or without pytest's tmpdir plugin."""
    factory = getattr(config, "_tmp_path_factory", None)
    if factory is None or not hasattr(config, "workerinput"):
        return None
    return factory.getbasetemp().parent / SHARED_FOLDER


@pytest.fixture(scope="session")
def evaluated(pytestconfig):
    """``evaluated(id, form=None, allow_violation=False, **params)``: whether the `run` fixture has already
    computed that instance in this process, or read it from another worker (then ``run`` returns it without
    computing)."""
    return _runner(pytestconfig).has


# -- one evaluation of a costly instance per run, across xdist workers ----------------------------------------
SHARED_FOLDER = "theorems-evidence"
# An instance that took less than this is computed again by a worker that asks for it (its file is not worth
# writing); one that took longer is written for the others (a counterexample's replay takes up to a minute).
SHARE_AFTER_S = 1.0


def _make_runner(shared: Path | None):
    """A `theorems.core.verdict.CachedRunner` (the per-process cache), shared through files in ``shared`` when
    given and the platform can lock a file (`SharedRunner`)."""
    from theorems.core.verdict import CachedRunner

    try:
        import fcntl  # noqa: F401  (POSIX: the lock that makes a second worker wait instead of computing)
    except ImportError:
        shared = None
    if shared is None:
        return CachedRunner()

    class SharedRunner(CachedRunner):
        """The `run` cache shared by the workers of one test run: the tests of one result share a worker (their
        xdist group), but an instance is also asked for elsewhere (the browser tests' page replays every
        registered counterexample, each also replayed by its result's conformance check). An instance of a
        built-in result that took `SHARE_AFTER_S` or more is pickled (exactly the object a test of the computing
        worker gets) into ``shared``, written atomically; a worker that asks for it while another computes it
        waits for that (a lock per instance) and reads it. The key is the per-process cache's plus the device,
        torch's default device (tests/test_devices.py audits under ``meta``) and the suite. ``fresh=True`` (the
        determinism check) always computes. The folder belongs to this run only: nothing outlives it."""

        def _file(self, result_id: str, form, allow_violation: bool, params: dict) -> Path | None:
            import hashlib

            from theorems.core import registry

            try:
                if not registry.is_builtin(registry.get(result_id)):
                    return None  # a test's throw-away result may differ between processes under one id
            except Exception:  # noqa: BLE001 - an unknown id: the call itself says what is wrong
                return None
            key = (self.key(result_id, form, allow_violation, **params), os.environ.get(ENV_DEVICE, "cpu"),
                   os.environ.get(ENV_SUITE, ""))
            return shared / (hashlib.sha256(repr(key).encode()).hexdigest()[:40] + ".pickle")

        def _read(self, path: Path):
            """The Evidence in ``path``; None where it is not there, or under torch's ``meta`` default device: the
            device audit (tests/test_devices.py) must compute there, never read a file (torch's default device is
            not in the key, so the other callers read what the audit computed)."""
            import pickle

            import torch

            if torch.get_default_device().type == "meta":
                return None
            if path.is_file():
                return pickle.loads(path.read_bytes())
            return None

        def _twin(self, result_id: str, form, allow_violation: bool, params: dict):
            """The Evidence of the same instance under the other ``allow_violation``, where that is the same
            evaluation (`CachedRunner._cached`), else None."""
            twin = self._file(result_id, form, not allow_violation, params)
            evidence = None if twin is None else self._read(twin)
            return evidence if self.serves(evidence, allow_violation) else None

        def has(self, result_id: str, **kwargs) -> bool:
            if super().has(result_id, **kwargs):
                return True
            kwargs.setdefault("form", None)
            kwargs.setdefault("allow_violation", False)
            form, allow_violation = kwargs.pop("form"), kwargs.pop("allow_violation")
            path = self._file(result_id, form, allow_violation, kwargs)
            return path is not None and (path.is_file() or self._twin(result_id, form, allow_violation, kwargs)
                                         is not None)

        def __call__(self, result_id: str, *, form=None, allow_violation: bool = False, fresh: bool = False,
                     **params):
            path = None if fresh or super().has(result_id, form=form, allow_violation=allow_violation, **params) \
                else self._file(result_id, form, allow_violation, params)
            if path is None:
                return super().__call__(result_id, form=form, allow_violation=allow_violation, fresh=fresh, **params)
            import fcntl
            import pickle

            from theorems.core import recording

            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path.with_suffix(".lock"), "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or when its process dies
                evidence = self._read(path) or self._twin(result_id, form, allow_violation, params)
                if evidence is not None:
                    recording.record(evidence)  # this worker's tests may expect an outcome of it (recording.expect)
                    self._cache[self.key(result_id, form, allow_violation, **params)] = evidence
                    return evidence
                t0 = time.perf_counter()
                evidence = super().__call__(result_id, form=form, allow_violation=allow_violation, **params)
                if time.perf_counter() - t0 >= SHARE_AFTER_S:
                    try:
                        data = pickle.dumps(evidence)
                    except Exception:  # noqa: BLE001 - an Evidence that does not pickle is simply not shared
                        return evidence
                    tmp = path.with_suffix(f".{os.getpid()}.tmp")
                    tmp.write_bytes(data)
                    os.replace(tmp, path)  # complete or absent for a reader
                return evidence

    return SharedRunner()


@pytest.fixture(scope="session")
def device() -> str:
    return os.environ.get(ENV_DEVICE, "cpu")


# -- keeping a result's cached instances in one xdist worker ------------------------------------------------
# A result's default instance, controls and counterexamples are asked for by the conformance checks, the
# per-paper checks and the device audit (tests/test_devices.py); the `run` cache is per process. Under
# `--dist loadgroup` (pyproject.toml) the tests parametrised by a result id carry that id's xdist_group and
# each paper's checks file its paper's, so one worker computes each shared instance once; unit tests stay
# ungrouped and fill the gaps. The device audit is moved to the front, so that it computes the default
# instances (under the meta default device) and the conformance checks reuse them instead of computing them a
# second time.
_DEVICE_AUDIT = "test_devices.py"


def _paper_packages() -> tuple[dict[str, str], set[str]]:
    """Paper number ("000") -> paper package ("deep_fusion"), and the built-in ids, from the built-in results'
    metadata (no torch)."""
    from theorems.core import registry

    builtin = [info for info in registry.catalog() if registry.is_builtin(info)]
    return {info.paper: info.id.split(".")[0] for info in builtin}, {info.id for info in builtin}


def _paper_of(item: pytest.Item, known: tuple[dict[str, str], set[str]]) -> str | None:
    packages, ids = known
    params = getattr(getattr(item, "callspec", None), "params", {})
    result_id = params.get("result_id")
    if not (isinstance(result_id, str) and "." in result_id):
        # A paper's checks parametrised by a registered id under another name (``rid``) ask for its instances
        # too (``run(rid)``, the default instance): the same group, so that they reuse the result's evaluation.
        named = {v for v in params.values() if isinstance(v, str) and v in ids}
        result_id = named.pop() if len(named) == 1 else None
    if result_id is not None:
        # One group per result, not per paper: the cached instances are per result, and a paper group put
        # all of paper 002's heavy dynamics on one worker (the long pole of the run).
        return result_id
    name, folder = item.path.name, item.path.parent.name
    if folder in packages.values() and item.path.parent.parent.name == "checks":
        # checks/<paper package>/test_<result>.py: the result's group (its instances), else its paper's
        own = f"{folder}.{item.path.stem[len('test_'):]}"
        return own if own in ids else folder
    if folder == "checks" and name[5:8].isdigit():  # checks/test_NNN_<paper>.py
        return packages.get(name[5:8])
    return None


# A hook wrapper: the markers are set before every plugin's collection hook (xdist's loadgroup reads them in its own),
# whichever of the two plugins was registered first (an entry point or the repository's conftest shim); after them
# all, the group is written into the node id where the scheduler reads it (`_group_in_node_id`).
@pytest.hookimpl(hookwrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]):
    if active(config):
        packages = _paper_packages()
        for item in items:
            paper = _paper_of(item, packages)
            if paper is not None:
                item.add_marker(pytest.mark.xdist_group(paper))
        items.sort(key=lambda item: item.path.name != _DEVICE_AUDIT)  # stable: otherwise collection order
    yield
    # In any run that asks for loadgroup (active or not): it only makes xdist do what that run asked of it.
    if hasattr(config, "workerinput") and getattr(config.option, "loadgroup", False):
        for item in items:
            _group_in_node_id(item)


def _group_in_node_id(item: pytest.Item) -> None:
    """xdist's controller knows a test's group only from the node id a worker sends it (``path::test[p]@group``):
    each worker appends the group in its collection hook, by assigning ``item._nodeid``. pytest 9 keeps the id in
    ``Node._id`` (a structured NodeId) instead, so that assignment is lost, every test is its own group, and a
    result's tests spread over both workers, each computing the shared instances again (nonlinear_cl.figure_4's
    counterexample replay, about 40 s, ran twice). Here the same suffix, named as xdist names it (the sorted group
    names joined by "_"), is written where this pytest reads the id, unless xdist's own write took effect
    (pytest < 9)."""
    names = sorted({str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                    for mark in item.iter_markers("xdist_group")})
    if not names:
        return
    suffix = "@" + "_".join(names)
    if item.nodeid.endswith(suffix):
        return
    ident = getattr(item, "_id", None)
    parse = getattr(type(ident), "parse", None)
    if ident is None or parse is None:  # a pytest that reads some other attribute: leave xdist's grouping to xdist
        return
    item._id = parse(item.nodeid + suffix)
