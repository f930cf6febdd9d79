"""pytest configuration shared by checks/, tests/ and benchmarks/.

* ``--device cpu|cuda`` (default ``$THEOREMS_DEVICE`` or cpu): exported as ``$THEOREMS_DEVICE`` so that every
  ``theorems.check`` in the run computes there.
* ``--suite quick|ci|thorough`` (default ``$THEOREMS_SUITE`` or ci): how many hypothesis examples and
  optimiser restarts run; each suite is also a hypothesis profile. Under ``CI=true`` hypothesis is always
  derandomised, so the gate draws the same examples on every run.
* Every Evidence produced during the run is recorded and written to ``.theorems/last-run.json``, from which
  ``python -m theorems report --from-run`` builds the report.
"""

from __future__ import annotations

import os
import time

import pytest

from theorems.core.context import ENV_DEVICE, resolve_device
from theorems.core.errors import DeviceUnavailable
from theorems.core.recording import DEFAULT_RUN_FILE, provenance, recording, write_run
from theorems.core.suite import ENV_SUITE, SUITES, get_suite

try:
    from hypothesis import HealthCheck, settings

    for _suite in SUITES.values():
        settings.register_profile(
            _suite.name,
            max_examples=_suite.max_examples,
            derandomize=_suite.derandomize or os.environ.get("CI", "").lower() in ("1", "true", "yes"),
            deadline=None,  # optimiser runtimes vary; speed is measured by benchmarks/, not deadlines
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
            print_blob=True,
        )
except ImportError:  # hypothesis is a test extra; the library itself does not need it
    settings = None


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("theorems")
    group.addoption("--device", default=None, help="cpu (default) or cuda: where every check computes")
    group.addoption("--suite", default=None, choices=sorted(SUITES),
                    help="quick | ci (default) | thorough: hypothesis examples and optimiser restarts")


def pytest_configure(config: pytest.Config) -> None:
    device = config.getoption("--device")
    if device:
        try:
            resolve_device(device)  # fail at start-up, with the reason, if e.g. CUDA is missing
        except DeviceUnavailable as err:
            raise pytest.UsageError(str(err)) from None
        os.environ[ENV_DEVICE] = device
    suite = config.getoption("--suite") or os.environ.get(ENV_SUITE)
    suite = get_suite(suite).name
    os.environ[ENV_SUITE] = suite
    if settings is not None:
        settings.load_profile(suite)
    config._theorems_recording = recording()
    config._theorems_evidence = config._theorems_recording.__enter__()
    config._theorems_start = time.perf_counter()


def pytest_unconfigure(config: pytest.Config) -> None:
    rec = getattr(config, "_theorems_recording", None)
    if rec is None:
        return
    rec.__exit__(None, None, None)
    import theorems

    known = set(theorems.ids())  # tests register throw-away results; the report is about real ones
    evidence = [e for e in config._theorems_evidence if e.result_id in known]
    if evidence and not hasattr(config, "workerinput"):
        meta = provenance(suite=os.environ[ENV_SUITE], device=os.environ.get(ENV_DEVICE, "cpu"),
                          wall_time_s=round(time.perf_counter() - config._theorems_start, 2), source="pytest")
        write_run(DEFAULT_RUN_FILE, evidence, meta)


def pytest_report_header(config: pytest.Config) -> str:
    return f"theorems: suite={os.environ.get(ENV_SUITE)} device={os.environ.get(ENV_DEVICE, 'cpu')}"


@pytest.fixture(scope="session")
def suite():
    """The active suite profile (restarts, examples)."""
    return get_suite()


@pytest.fixture(scope="session")
def device() -> str:
    return os.environ.get(ENV_DEVICE, "cpu")
