"""Every Evidence that `theorems.check` produces is offered to the active recorders.

pytest's conftest opens one recorder for the session and writes it to ``.theorems/last-run.json`` so
that ``python -m theorems report --from-run`` can build the report from what the CI gate checked.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:  # not at run time: the command line imports this module and must stay free of numpy
    from .evidence import Evidence

_recorders: list[list["Evidence"]] = []
DEFAULT_RUN_FILE = Path(".theorems") / "last-run.json"


@contextlib.contextmanager
def recording() -> Iterator[list[Evidence]]:
    """Collect every Evidence produced inside the block."""
    sink: list[Evidence] = []
    _recorders.append(sink)
    try:
        yield sink
    finally:
        _recorders.remove(sink)


def record(evidence: "Evidence") -> None:
    for sink in _recorders:
        sink.append(evidence)


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


def write_run(path: str | os.PathLike, evidences: list["Evidence"], meta: dict[str, Any]) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"meta": meta, "evidence": [e.to_dict() for e in evidences]}
    path.write_text(json.dumps(payload, indent=1))
    return path


def instance_key(evidence: "Evidence") -> tuple[str, str, str, str]:
    """What identifies an instance: result, form, parameters (the seed among them) and device. Two
    Evidence with the same key carry the same numbers (everything is seeded)."""
    params = json.dumps(evidence.to_dict()["params"], sort_keys=True)
    return evidence.result_id, evidence.form, params, evidence.device


def merge(evidences: list["Evidence"]) -> list["Evidence"]:
    """Each instance once (the first Evidence of it), ordered by result id, form and parameters: the same
    list whichever process computed what, so a serial run and a run across pytest-xdist workers (where a
    per-process cache can compute one instance in two workers) record the same file."""
    first: dict[tuple[str, str, str, str], "Evidence"] = {}
    for ev in evidences:
        first.setdefault(instance_key(ev), ev)
    return [first[k] for k in sorted(first)]


def read_run(path: str | os.PathLike) -> tuple[dict[str, Any], list["Evidence"]]:
    from .evidence import Evidence

    payload = json.loads(Path(path).read_text())
    return payload.get("meta", {}), [Evidence.from_dict(d) for d in payload["evidence"]]
