"""Every Evidence that `theorems.check` produces is offered to the active recorders.

pytest's conftest opens one recorder for the session and writes it to ``.theorems/last-run.json`` so
that ``python -m theorems report --from-run`` can build the report from what the CI gate checked.

The run file (and the report's ``evidence.json``) is one JSON object, described by the JSON Schema
``theorems/evidence.schema.json``: ``schema_version``, ``meta`` (provenance), ``evidence`` (each
``Evidence.to_dict``, with the outcomes the tests ``expected`` of it), and for a recorded run whether it
``finished`` and pytest's ``exitstatus``. It is written atomically (a temporary file renamed into place):
complete or absent. Reading it (:func:`load_run`) checks its shape, and re-derives every claim's ``passed``
and every instance's ``holds`` from the recorded numbers: a stored verdict is never trusted.

A test that starves an instance on purpose (``max_iter=10``) says what it expects, so that the report does
not count the outcome as a surprise::

    ev = recording.expect(theorems.check(ID, max_iter=10), NOT_CONVERGED)
    with recording.expecting(FAILS): ...            # every Evidence produced in the block

A *patched probe* (a test that changes a module constant or formula, e.g. with pytest's ``monkeypatch``, and then
evaluates) computes numbers that are not the instance's, under the instance's own key (same result, form, params,
seed). Such an Evidence is marked (`patched_what`) and is no instance of the run: `merge` and `worker_payload`
leave it out and `expect` records nothing for it, so the page's row of a real instance never depends on which
test a pytest-xdist worker ran last. The repository's conftest.py says what the running test has patched
(`patched`); a test that patches by other means wraps its evaluation in ``with recording.patched("what"):``.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, NamedTuple

if TYPE_CHECKING:  # not at run time: the command line imports this module and must stay free of numpy
    from .evidence import Evidence

_recorders: list[list["Evidence"]] = []
DEFAULT_RUN_FILE = Path(".theorems") / "last-run.json"
# The version of the file format (evidence.schema.json): bump it when a key changes meaning or goes away.
SCHEMA_VERSION = 2  # 2: claims carry their grade and what it rests on (enclosure, certificate, draws)
SCHEMA_FILE = Path(__file__).resolve().parents[1] / "evidence.schema.json"
# An instance's outcome, as the report names it (reports.model.outcome_of): what a test may expect.
HOLDS, FAILS, NOT_CONVERGED, MEASURED = "holds", "fails", "not converged", "measured"
OUTCOMES = (HOLDS, FAILS, NOT_CONVERGED, MEASURED)
# pytest's exit statuses of a session that ran to its end (0 green, 1 some test failed, 5 nothing collected).
_FINISHED_EXIT_STATUSES = (0, 1, 5)
# instance key -> the outcomes some test said it expects of that instance (see `expect`).
_EXPECTED: dict[tuple[str, str, str, str], set[str]] = {}
_expecting: list[str] = []
# What the running code has patched: each callable names it ("" for nothing), asked when an Evidence is recorded.
_patches: list[Callable[[], str]] = []
_PATCHED = "_theorems_patched"  # the attribute of a marked Evidence (not a field: to_dict and == never see it)


class RunFileError(ValueError):
    """A recorded run (or evidence.json) that is not of the documented shape, named with what is wrong."""


@contextlib.contextmanager
def recording() -> Iterator[list[Evidence]]:
    """Collect every Evidence produced inside the block."""
    sink: list[Evidence] = []
    _recorders.append(sink)
    try:
        yield sink
    finally:
        _remove(_recorders, sink)


def _remove(stack: list, item: Any) -> None:
    """Remove ``item`` from ``stack`` by identity: list.remove compares by ==, and an outer sink (the session's)
    can hold the same Evidence as an inner one."""
    del stack[next(i for i, x in enumerate(stack) if x is item)]


def record(evidence: "Evidence") -> None:
    what = "; ".join(w for w in (describe() for describe in _patches) if w)
    if what:
        setattr(evidence, _PATCHED, what)
    for sink in _recorders:
        sink.append(evidence)
    if not what:
        for outcome in _expecting:
            _EXPECTED.setdefault(instance_key(evidence), set()).add(outcome)


@contextlib.contextmanager
def patched(what: "str | Callable[[], str]") -> Iterator[None]:
    """Every Evidence recorded inside the block is a patched probe, marked with ``what`` (a text, or a callable
    asked at each record that names what is patched then, "" for nothing): see the module docstring."""
    describe = what if callable(what) else (lambda: what)
    _patches.append(describe)
    try:
        yield
    finally:
        _remove(_patches, describe)


def patched_what(evidence: "Evidence") -> str | None:
    """What was patched when ``evidence`` was computed (a patched probe: not an instance of the run), else None."""
    return getattr(evidence, _PATCHED, None)


def expect(evidence: "Evidence", *outcomes: str) -> "Evidence":
    """Say that ``evidence``'s instance is meant to come out as one of ``outcomes`` ('holds', 'fails',
    'not converged', 'measured'), e.g. a test that starves an optimiser on purpose; the run file records it
    with the instance and the report does not count that outcome as needing a look. Returns ``evidence``."""
    if not outcomes:
        raise ValueError("expect(evidence, *outcomes): name at least one outcome")
    for outcome in outcomes:
        _check_outcome(outcome)
    if patched_what(evidence) is None:  # a patched probe is no instance of the run: nothing to expect of it
        _EXPECTED.setdefault(instance_key(evidence), set()).update(outcomes)
    return evidence


@contextlib.contextmanager
def expecting(*outcomes: str) -> Iterator[None]:
    """`expect` ``outcomes`` of every Evidence produced inside the block."""
    for outcome in outcomes:
        _check_outcome(outcome)
    _expecting.extend(outcomes)
    try:
        yield
    finally:
        for outcome in outcomes:
            _expecting.remove(outcome)


def expected_of(evidence: "Evidence") -> list[str]:
    """The outcomes some test of this process expected of ``evidence``'s instance (sorted)."""
    return sorted(_EXPECTED.get(instance_key(evidence), ()))


def _check_outcome(outcome: str) -> None:
    if outcome not in OUTCOMES:
        raise ValueError(f"expected outcome {outcome!r} is not one of {', '.join(map(repr, OUTCOMES))}")


def worker_payload(evidences: list["Evidence"]) -> str:
    """What a pytest-xdist worker sends its controller (plain JSON: execnet carries only plain types); patched
    probes left out (they are no instance of the run)."""
    return json.dumps([_entry(e) for e in evidences if patched_what(e) is None])


def from_worker_payload(payload: str) -> list["Evidence"]:
    """A worker's evidence, its expectations added to this process's (so the controller records them)."""
    from .evidence import Evidence

    out = []
    for d in json.loads(payload):
        ev = Evidence.from_dict(d)
        for outcome in d.get("expected", ()):
            expect(ev, outcome)
        out.append(ev)
    return out


def _entry(evidence: "Evidence", given: dict | None = None) -> dict[str, Any]:
    entry = evidence.to_dict()
    expected = sorted(set(expected_of(evidence)) | set((given or {}).get(instance_key(evidence), ())))
    if expected:
        entry["expected"] = expected
    return entry


def finished(exitstatus: int | None, session_stopped: bool = False) -> bool:
    """Whether a pytest session with this exit status ran to its end (not interrupted, not stopped by -x or
    --maxfail, no internal error): only such a run's file may stand for the suite."""
    return exitstatus in _FINISHED_EXIT_STATUSES and not session_stopped


def provenance(**extra: Any) -> dict[str, Any]:
    """Git commit, package versions, platform and date: enough to say where numbers came from."""
    # Imported here: the command line reads DEFAULT_RUN_FILE from this module and must start fast.
    import platform
    import subprocess

    import numpy
    import scipy
    import torch

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=5,
            cwd=Path(__file__).resolve().parent,
        ).stdout.strip() or "unknown"
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], capture_output=True, text=True, timeout=5,
            cwd=Path(__file__).resolve().parent,
        ).stdout.strip()
        if dirty and commit != "unknown":
            commit += "+dirty"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    return {
        "commit": commit,
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "theorems": _version("theorems"),
        "platform": platform.platform(),
        **extra,
    }


def _version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "not installed"


def payload(evidences: list["Evidence"], meta: dict[str, Any], expected: dict | None = None,
            **top: Any) -> dict[str, Any]:
    """The file's JSON object (evidence.schema.json): schema_version, ``top`` (finished, exitstatus), meta,
    evidence, each with what the tests expected of it (this process's `expect` calls and ``expected``, as
    `load_run` returns it)."""
    return {"schema_version": SCHEMA_VERSION, **top, "meta": meta,
            "evidence": [_entry(e, expected) for e in evidences]}


def write_run(path: str | os.PathLike, evidences: list["Evidence"], meta: dict[str, Any], *,
              finished: bool = True, exitstatus: int | None = None) -> Path:
    """Write the run file atomically; ``finished``: whether the run ran to its end (see `finished`)."""
    top: dict[str, Any] = {"finished": bool(finished)}
    if exitstatus is not None:
        top["exitstatus"] = int(exitstatus)
    return write_atomically(path, json.dumps(payload(evidences, meta, **top), indent=1, default=str))


def write_atomically(path: str | os.PathLike, text: str) -> Path:
    """``text`` into ``path`` by a temporary file in the same folder renamed over it: a reader sees the old
    file or the new one, never a truncated one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def instance_key(evidence: "Evidence") -> tuple[str, str, str, str]:
    """What identifies an instance: result, form, parameters (the seed among them) and device. Two
    Evidence with the same key carry the same numbers (everything is seeded)."""
    params = json.dumps(evidence.to_dict()["params"], sort_keys=True)
    return evidence.result_id, evidence.form, params, evidence.device


def merge(evidences: list["Evidence"]) -> list["Evidence"]:
    """Each instance once (the first Evidence of it), ordered by result id, form and parameters: the same
    list whichever process computed what, so a serial run and a run across pytest-xdist workers (where a
    per-process cache can compute one instance in two workers) record the same file. Patched probes
    (`patched_what`) are left out: their numbers are not the instance's."""
    first: dict[tuple[str, str, str, str], "Evidence"] = {}
    for ev in evidences:
        if patched_what(ev) is None:
            first.setdefault(instance_key(ev), ev)
    return [first[k] for k in sorted(first)]


class RecordedRun(NamedTuple):
    meta: dict[str, Any]
    evidences: list["Evidence"]
    finished: bool | None  # None: written before runs said whether they finished
    exitstatus: int | None
    expected: dict[tuple[str, str, str, str], set[str]]  # instance key -> outcomes a test expected
    rederived: int  # how many instances' recorded holds differed from the one their claims give


def read_run(path: str | os.PathLike) -> tuple[dict[str, Any], list["Evidence"]]:
    run = load_run(path)
    return run.meta, run.evidences


def load_run(path: str | os.PathLike) -> RecordedRun:
    """Read a run file (or a report's evidence.json). Raises RunFileError, naming what is wrong, for a file
    of the wrong shape; OSError where it cannot be read; ValueError (JSONDecodeError) for broken JSON."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return parse_run(data)


def parse_run(data: Any) -> RecordedRun:
    from .errors import SuiteError
    from .evidence import Evidence

    if not isinstance(data, dict):
        raise RunFileError(f"expected a JSON object with 'meta' and 'evidence', found {_json_type(data)}")
    version = data.get("schema_version", SCHEMA_VERSION)  # files before schema_version are version 1
    if not isinstance(version, int) or isinstance(version, bool) or version > SCHEMA_VERSION:
        raise RunFileError(f"schema_version {version!r} is not one this version of theorems reads "
                           f"(≤ {SCHEMA_VERSION})")
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise RunFileError(f"'meta' must be an object, found {_json_type(meta)}")
    entries = data.get("evidence")
    if not isinstance(entries, list):
        raise RunFileError(f"'evidence' must be a list, found {_json_type(entries)}")
    done = data.get("finished")
    if done is not None and not isinstance(done, bool):
        raise RunFileError(f"'finished' must be true or false, found {done!r}")
    exitstatus = data.get("exitstatus")
    evidences: list[Evidence] = []
    expected: dict[Any, set[str]] = {}
    rederived = 0
    for i, d in enumerate(entries):
        _check_entry(i, d)
        try:  # what a grade rests on (an enclosure, a certificate, draws) is checked as the claim is rebuilt
            ev = rederive(Evidence.from_dict(d))
        except (KeyError, TypeError, ValueError, SuiteError) as err:
            raise RunFileError(f"evidence[{i}] ({d.get('result_id')}): {type(err).__name__}: {err}") from None
        rederived += ev.holds != d["holds"]
        outcomes = d.get("expected", [])
        if not (isinstance(outcomes, list) and all(o in OUTCOMES for o in outcomes)):
            raise RunFileError(f"evidence[{i}].expected: {outcomes!r} is not a list of {', '.join(OUTCOMES)}")
        if outcomes:
            expected.setdefault(instance_key(ev), set()).update(outcomes)
        evidences.append(ev)
    return RecordedRun(meta, evidences, done, exitstatus, expected, rederived)


_NUMBER_STRINGS = ("inf", "-inf", "nan")


def _is_number(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) or v in _NUMBER_STRINGS


def _check_entry(i: int, d: Any) -> None:
    where = f"evidence[{i}]"
    if not isinstance(d, dict):
        raise RunFileError(f"{where} must be an object, found {_json_type(d)}")
    for key, ok, what in (("result_id", lambda v: isinstance(v, str), "a string"),
                          ("form", lambda v: isinstance(v, str), "a string"),
                          ("params", lambda v: isinstance(v, dict), "an object"),
                          ("holds", lambda v: isinstance(v, bool), "true or false"),
                          ("converged", lambda v: v is None or isinstance(v, bool), "true, false or null"),
                          ("observed", _is_number, "a number"), ("bound", _is_number, "a number"),
                          ("claims", lambda v: isinstance(v, list), "a list")):
        if key not in d:
            raise RunFileError(f"{where} has no {key!r}")
        if not ok(d[key]):
            raise RunFileError(f"{where}.{key} must be {what}, found {d[key]!r}")
    for j, c in enumerate(d["claims"]):
        at = f"{where}.claims[{j}]"
        if not isinstance(c, dict):
            raise RunFileError(f"{at} must be an object, found {_json_type(c)}")
        for key in ("name", "passed", "observed", "bound", "relation"):
            if key not in c:
                raise RunFileError(f"{at} has no {key!r}")
        if not (_is_number(c["observed"]) and _is_number(c["bound"])):
            raise RunFileError(f"{at}: observed and bound must be numbers, found {c['observed']!r}, {c['bound']!r}")
        if not isinstance(c["passed"], bool):
            raise RunFileError(f"{at}.passed must be true or false, found {c['passed']!r}")
        for key in ("rtol", "atol"):
            if key in c and not _is_number(c[key]):
                raise RunFileError(f"{at}.{key} must be a number, found {c[key]!r}")


def rederive(evidence: "Evidence") -> "Evidence":
    """``evidence`` with each asserted claim's ``passed`` recomputed from its numbers (relation, bound,
    tolerance) and ``holds`` from the claims, as `theorems.check` decides them: a file's stored verdict
    (flipped, or a NaN that was said to hold) is never what the report shows."""
    import dataclasses

    from .errors import SuiteError
    from .evidence import GRADE_FIELDS, Claim, decides_holds, non_finite_bounds

    make = {"<=": Claim.at_most, ">=": Claim.at_least, "==": Claim.close}
    claims = []
    for c in evidence.claims:
        if c.relation in make:
            try:  # what the grade rests on is kept, and an enclosure must agree with the re-derived verdict
                c = make[c.relation](c.name, c.observed, c.bound, c.message, c.kind, rtol=c.rtol, atol=c.atol,
                                     **{f: getattr(c, f) for f in GRADE_FIELDS})
            except (TypeError, ValueError, SuiteError) as err:
                raise RunFileError(f"{evidence.result_id}: claim {c.name!r}: {err}") from None
        claims.append(c)
    holds = decides_holds(claims, evidence.converged) and not non_finite_bounds(claims)
    return dataclasses.replace(evidence, claims=claims, holds=holds)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)


def checked_for_report(run: RecordedRun, path: Any, only: list[str] | None = None, allow_unfinished: bool = False
                       ) -> tuple[dict[str, Any], list["Evidence"], dict, list[str]]:
    """What ``report --from-run`` may build from ``run``: (meta, evidences, expected, notes to print).

    Raises ValueError, saying why and what to do, for a run that did not finish (unless
    ``allow_unfinished``: the meta then says so, and the page shows it), a run with no evidence, or an
    ``only`` id the run has no evidence of."""
    meta, notes = dict(run.meta), []
    if run.finished is False:
        status = f" (pytest exit status {run.exitstatus})" if run.exitstatus is not None else ""
        if not allow_unfinished:
            raise ValueError(f"the run recorded in {path} did not finish{status}: it was interrupted or stopped "
                             "early, so its evidence is partial. Run pytest to its end, or pass "
                             "--allow-unfinished to build a report that says so")
        meta["unfinished"] = f"the recorded run did not finish{status}: its evidence is partial"
        notes.append(meta["unfinished"])
    elif run.finished is None:
        notes.append(f"{path} was written before runs recorded whether they finished: it may be partial")
    if run.exitstatus == 1:
        meta["tests"] = "some tests of the recorded run failed"
    if not run.evidences:
        raise ValueError(f"the run recorded in {path} holds no evidence of a registered result: nothing to report")
    evidences = run.evidences
    if only:
        present = {e.result_id for e in evidences}
        absent = [rid for rid in only if rid not in present]
        if absent:
            raise ValueError(f"the run recorded in {path} has no evidence of {', '.join(absent)}: run their "
                             "checks first, or leave them out of --only")
        evidences = [e for e in evidences if e.result_id in only]
    if run.rederived:
        meta["rederived"] = (f"{run.rederived} recorded verdict(s) disagreed with their own claims; the report "
                             "shows the verdicts the claims give")
        notes.append(meta["rederived"])
    return meta, evidences, dict(run.expected), notes
