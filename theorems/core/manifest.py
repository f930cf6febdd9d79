"""The registry's metadata as a file, so that the command line answers without importing torch.

``python -m theorems list``, ``show ID`` and every mistake on the command line need only what a result
*says* (id, paper, title, status, statement, correction, forms, parameters), not what it computes.
Importing the paper packages to learn that costs seconds (torch, scipy, every paper module), so the
metadata is kept in ``theorems/manifest.json``, written from the live registry by

    python -m theorems manifest --write

and read by the CLI. ``tests/test_manifest.py`` fails, naming that command, whenever the file and the live
registry disagree, so a status change cannot leave the CLI showing an old one unnoticed. Where the file is
missing or unreadable, the live registry is used (slow, never wrong).

Nothing here imports torch or numpy.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from .params import Param, kind_from_name, kind_name
from .result import AS_PRINTED, CORRECTED, Status

MANIFEST_FILE = Path(__file__).resolve().parents[1] / "manifest.json"
REGENERATE = "python -m theorems manifest --write"
FORMAT_VERSION = 2


@dataclass(frozen=True)
class ResultInfo:
    """What a registered result says about itself: everything but its code (see `Result`)."""

    id: str
    paper: str
    paper_title: str
    title: str
    statement: str
    status: Status
    params: tuple[Param, ...]
    forms: tuple[str, ...]
    correction: str | None = None
    correction_reason: str | None = None
    module: str = ""
    # What the verdict rests on, as the CLI's `show` prints it (see Result for their meaning).
    for_all: str = ""
    exists: str = ""
    open_reason: str = ""
    vacuity: str = ""
    counterexamples: tuple[dict, ...] = ()
    proof_errata: tuple[dict, ...] = ()
    # Where in the paper, and the paper's reference (Paper.cite()).
    section: str = ""
    paper_cite: str = ""

    @property
    def default_form(self) -> str:
        # The same rule as Result.default_form: the corrected form where one exists.
        return CORRECTED if CORRECTED in self.forms else AS_PRINTED

    @property
    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}


def info_of(result: Any) -> ResultInfo:
    """The metadata of a live `Result` (or of anything with the same attributes)."""
    return ResultInfo(
        id=result.id, paper=result.paper, paper_title=result.paper_title, title=result.title,
        statement=result.statement, status=Status(str(result.status)), params=tuple(result.params),
        forms=tuple(result.forms), correction=result.correction, correction_reason=result.correction_reason,
        module=result.module,
        for_all=result.logic.for_all if getattr(result, "logic", None) else "",
        exists=result.logic.exists if getattr(result, "logic", None) else "",
        open_reason=getattr(result, "open_reason", ""), vacuity=getattr(result, "vacuity", ""),
        counterexamples=tuple({k: _plain(v) for k, v in cx.items()} for cx in getattr(result, "counterexamples", ())),
        proof_errata=tuple({"step": e.step, "printed": e.printed, "why": e.why,
                            "params": {k: _plain(v) for k, v in e.params.items()},
                            "claim": e.claim, "form": e.form} for e in getattr(result, "proof_errata", ())),
        section=getattr(result, "section", ""),
        paper_cite=result.source.cite() if getattr(result, "source", None) is not None else "",
    )


# The Param fields the manifest keeps besides name, kind, default, doc (their defaults are left out).
_PARAM_FIELDS = ("valid", "choices", "low", "high", "finite", "length", "increasing", "distinct", "sample", "log",
                 "role", "breaks")
_PARAM_DEFAULTS = {f: Param.__dataclass_fields__[f].default for f in _PARAM_FIELDS}


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _param_to_json(p: Param) -> dict[str, Any]:
    out = {"name": p.name, "kind": kind_name(p.kind), "default": _plain(p.default), "doc": p.doc}
    for f in _PARAM_FIELDS:
        value = getattr(p, f)
        if value != _PARAM_DEFAULTS[f]:
            out[f] = _plain(value)
    return out


def _tupled(value: Any) -> Any:
    return tuple(_tupled(v) for v in value) if isinstance(value, list) else value


def _param_from_json(d: Mapping[str, Any]) -> Param:
    kind = kind_from_name(d["kind"])
    default = _tupled(d["default"])
    if kind is float and isinstance(default, int) and not isinstance(default, bool):
        default = float(default)  # JSON writes 1.0 as 1.0, but a hand edit may not
    extra = {f: _tupled(d[f]) for f in _PARAM_FIELDS if f in d}
    return Param(d["name"], kind, default, d["doc"], **extra)


def to_json(infos: Iterable[ResultInfo]) -> dict[str, Any]:
    return {
        "format": FORMAT_VERSION,
        "regenerate": REGENERATE,
        "results": [
            {"id": r.id, "paper": r.paper, "paper_title": r.paper_title, "title": r.title,
             "status": str(r.status), "statement": r.statement, "correction": r.correction,
             "correction_reason": r.correction_reason, "forms": list(r.forms), "module": r.module,
             "params": [_param_to_json(p) for p in r.params],
             "for_all": r.for_all, "exists": r.exists, "open_reason": r.open_reason, "vacuity": r.vacuity,
             "counterexamples": list(r.counterexamples), "proof_errata": list(r.proof_errata),
             "section": r.section, "paper_cite": r.paper_cite}
            for r in infos
        ],
    }


def from_json(data: Mapping[str, Any]) -> list[ResultInfo]:
    if data.get("format") != FORMAT_VERSION:
        raise ValueError(f"manifest format {data.get('format')!r}, expected {FORMAT_VERSION}")
    return [
        ResultInfo(id=r["id"], paper=r["paper"], paper_title=r["paper_title"], title=r["title"],
                   statement=r["statement"], status=Status(r["status"]),
                   params=tuple(_param_from_json(p) for p in r["params"]), forms=tuple(r["forms"]),
                   correction=r.get("correction"), correction_reason=r.get("correction_reason"),
                   module=r.get("module", ""), for_all=r.get("for_all", ""), exists=r.get("exists", ""),
                   open_reason=r.get("open_reason", ""), vacuity=r.get("vacuity", ""),
                   counterexamples=tuple(r.get("counterexamples", ())),
                   proof_errata=tuple(r.get("proof_errata", ())),
                   section=r.get("section", ""), paper_cite=r.get("paper_cite", ""))
        for r in data["results"]
    ]


def render(infos: Iterable[ResultInfo]) -> str:
    """The file's text: stable (sorted by registry order, fixed indentation) so that diffs stay small."""
    return json.dumps(to_json(infos), indent=1, ensure_ascii=False) + "\n"


def read(path: str | Path = MANIFEST_FILE) -> list[ResultInfo] | None:
    """The metadata in ``path``; None where it is missing or unreadable (the caller then loads the registry)."""
    try:
        return from_json(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def differences(recorded: list[ResultInfo], live: list[ResultInfo]) -> list[str]:
    """What differs between the manifest and the live registry, one line per difference."""
    lines: list[str] = []
    old, new = {r.id: r for r in recorded}, {r.id: r for r in live}
    lines += [f"{rid}: registered, missing from the manifest" for rid in new if rid not in old]
    lines += [f"{rid}: in the manifest, no longer registered" for rid in old if rid not in new]
    old_json = {r["id"]: r for r in to_json(recorded)["results"]}
    new_json = {r["id"]: r for r in to_json(live)["results"]}
    for rid in new_json.keys() & old_json.keys():
        for key in new_json[rid]:
            before, after = old_json[rid].get(key), new_json[rid][key]
            if before == after:
                continue
            if key == "status":
                lines.append(f"{rid}: status {before!r} -> {after!r}")
            elif key == "params":
                old_p, new_p = {p["name"]: p for p in before or []}, {p["name"]: p for p in after}
                changed = sorted(n for n in old_p.keys() | new_p.keys() if old_p.get(n) != new_p.get(n))
                lines.append(f"{rid}: parameters {', '.join(changed) or '(order)'} differ")
            else:
                lines.append(f"{rid}: {key} differs")
    if not lines and [r.id for r in recorded] != [r.id for r in live]:
        lines.append("the order of the results differs")
    return sorted(lines)
