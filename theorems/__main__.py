"""Command line: ``python -m theorems list | show ID | check ID k=v ... | report --out DIR | diff OLD NEW |
manifest``.

Exit status: 0 when a check holds (or a report was written), 1 when a check does not hold, 2 for a
mistake on the command line (unknown id or parameter, malformed value, violated hypothesis, missing
device, unwritable folder), which is reported as one ``error: ...`` line on stderr, never a traceback; 3 for
an internal error of the suite (a bug: the traceback, then one ``error:`` line), never 1.

``list``, ``show``, ``--help`` and the mistakes that need only a result's metadata (unknown id, parameter
or form, malformed value) answer from ``theorems/manifest.json`` without importing torch or any paper
module; torch loads only when something is computed (``check``, ``report``). Keep it that way: import
heavy modules inside the command that needs them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import theorems
from theorems.core import registry
from theorems.core.errors import DeviceUnavailable, HypothesisViolation, ParameterError, PluginError, UnknownResult
from theorems.core.params import command_word
from theorems.core.recording import DEFAULT_RUN_FILE
from theorems.core.runner import RAY_LOCAL, BackendUnavailable, Instance, Progress, default_workers, describe_error
from theorems.core.suite import SUITES, get_suite

if TYPE_CHECKING:
    from theorems.core.manifest import ResultInfo

__all__ = ["Instance", "Progress", "build_parser", "main", "parse_assignments", "parse_value"]

EXIT_HOLDS, EXIT_FAILS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_INTERRUPTED = 130  # the shell's convention for SIGINT

_TRUE = frozenset({"true", "1", "yes", "y", "on"})
_FALSE = frozenset({"false", "0", "no", "n", "off"})


class CommandLineError(Exception):
    """A mistake on the command line that the library's own errors do not cover (files, folders)."""


# Everything a user can get wrong; each becomes one 'error:' line and exit status 2.
USER_ERRORS = (CommandLineError, UnknownResult, ParameterError, HypothesisViolation, DeviceUnavailable,
               BackendUnavailable, PluginError)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one 'error:' line like every other mistake, not a usage dump."""

    def error(self, message: str):  # type: ignore[override]
        _print_error(f"{message} (see `{self.prog} --help`)")
        raise SystemExit(EXIT_USAGE)


def _print_error(message: Any) -> None:
    # One line, whatever the message: a multi-line message would read as several errors.
    print("error: " + " ".join(str(message).split()), file=sys.stderr)


# ---------------------------------------------------------------------------------------------------
# k=v parsing
# ---------------------------------------------------------------------------------------------------
def parse_value(name: str, text: str, kind: type) -> Any:
    """``text`` as a value of ``kind`` (int, float, bool or str); ParameterError naming ``name`` if not. A
    list kind keeps the comma-separated text: its Param parses and checks it."""
    if kind is bool:
        lowered = text.strip().lower()
        if lowered in _TRUE | _FALSE:
            return lowered in _TRUE
        expected = "a boolean (true/false, 1/0, yes/no)"
    elif kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            expected = "an integer" if kind is int else "a real number"
    else:
        return text
    raise ParameterError(f"{name}={text!r}: expected {expected}", name=name, value=text)


def parse_assignments(result: "ResultInfo", assignments: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split ``k=v`` words into the check's options (form, allow_violation, device) and its parameters.

    A name the result does not take is passed through as a string, so that `theorems.check` rejects it
    with the list of names it does take.
    """
    kinds = {p.name: p.kind for p in result.params}
    option_kinds = {"form": str, "allow_violation": bool, "device": str}
    options: dict[str, Any] = {}
    params: dict[str, Any] = {}
    for word in assignments:
        name, sep, text = word.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ParameterError(f"malformed argument {word!r}: expected name=value, e.g. {_example(result)}")
        target, kind = (options, option_kinds[name]) if name in option_kinds else (params, kinds.get(name, str))
        if name in target:
            raise ParameterError(f"{name} given twice")
        target[name] = parse_value(name, text, kind)
    return options, params


def _example(result: "ResultInfo") -> str:
    return f"{result.params[0].name}={result.params[0].default}" if result.params else "form=as_printed"


# ---------------------------------------------------------------------------------------------------
# list / show / check
# ---------------------------------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> int:
    results = registry.catalog()
    if not results:
        print("no results are registered", file=sys.stderr)
    id_width = max((len(r.id) for r in results), default=0)
    status_width = max((len(str(r.status)) for r in results), default=0)
    for r in results:
        print(f"{r.id:<{id_width}}  {str(r.status):<{status_width}}  {r.title}")
    return EXIT_HOLDS


def cmd_show(args: argparse.Namespace) -> int:
    r = registry.info(args.id)
    out = [
        f"{r.id}  [{r.status}]",
        f"{r.title}",
        f"Paper {r.paper}: {r.paper_title}",
        f"Forms: {', '.join(r.forms)} (default: {r.default_form})",
        "",
        "Statement as printed:",
        _indent(r.statement),
    ]
    if r.correction:
        out += ["", "Correction:", _indent(r.correction)]
    if r.correction_reason:
        out += ["", "Why:", _indent(r.correction_reason)]
    if r.for_all:
        out += ["", "Quantifiers:", _indent(f"for all {r.for_all}" + (f"; there exists {r.exists}" if r.exists else ""))]
    if r.open_reason:
        out += ["", "Why open:", _indent(r.open_reason)]
    if r.vacuity:
        out += ["", "Vacuous against:", _indent(r.vacuity)]
    if r.counterexamples:
        out += ["", "Counterexamples to the printed statement (replay each"
                + ("; each with the grade of its failure):" if args.grades else "; --grades replays them here):")]
        for cx in r.counterexamples:
            out.append(f"  python -m theorems check {r.id} "
                       + " ".join(f"{k}={command_word(v)}" for k, v in cx.items()) + " form=as_printed")
            if args.grades:  # runs the replay (torch): off by default, so that `show` answers from the manifest
                out.append(f"    -> {_counterexample_grade(r.id, cx)}")
    if r.proof_errata:
        out += ["", "Proof errata (broken proof steps; not a verdict on the statement):"]
        for e in r.proof_errata:
            out += [_indent(f"{e['step']}: the proof says \"{e['printed']}\". {e['why']}"),
                    f"    python -m theorems check {r.id} "
                    + " ".join(f"{k}={command_word(v)}" for k, v in e["params"].items()) + f" form={e['form']}"]
    out += ["", "Parameters:"]
    out += _param_table(r)
    out += ["", f"Try it: python -m theorems check {r.id}"]
    print("\n".join(out))
    return EXIT_HOLDS


def _counterexample_grade(result_id: str, cx: dict) -> str:
    """'fails; grade …' for a counterexample replayed now (theorems.core.grade), or what it did instead."""
    try:
        ev = theorems.check(result_id, form="as_printed", **cx)
    except Exception as err:  # noqa: BLE001 - `show` reports what the replay did, whatever it was
        return f"raised {type(err).__name__}: {' '.join(str(err).split())}"
    return f"{ev.outcome}; grade {ev.grade_text()}" if ev.grade else f"{ev.outcome} (no grade: it decides nothing)"


def _indent(text: str, width: int = 100) -> str:
    # Wrap each line on its own: statements keep the line breaks their authors put in.
    return "\n".join(textwrap.fill(line, width, initial_indent="  ", subsequent_indent="  ") or ""
                     for line in text.strip().splitlines())


# The headings of `show`'s parameter groups (Param.purpose): the theorem's own parameters first.
_PURPOSES = (("theorem", "Parameters:"),
             ("effort", "Effort (how hard the suite searches and optimises; not part of the statement):"),
             ("control", "Control switches (break the statement on purpose, for negative controls):"))


def _param_table(r: "ResultInfo") -> list[str]:
    """One block per parameter: name, type and default, meaning, then its declared domain, the range the
    suite draws from and the theorem's hypothesis on it (all from the one declaration, `Param.describe`),
    grouped by what the parameter is for: the theorem's, effort knobs, control switches."""
    from theorems.core.params import kind_name

    out: list[str] = []
    for purpose, heading in _PURPOSES:
        group = [p for p in r.params if p.purpose == purpose]
        if purpose != "theorem":
            if not group:
                continue
            out += ["", heading]
        for p in group:
            default = ",".join(map(str, p.default)) if isinstance(p.default, tuple) else repr(p.default)
            out.append(f"  {p.name} ({kind_name(p.kind)}, default {default}): {p.doc}")
            out.append(_indent(p.describe(), 100).replace("  ", "      ", 1))
    return out or ["  (none)"]


def cmd_check(args: argparse.Namespace) -> int:
    result = registry.info(args.id)
    options, params = parse_assignments(result, args.assignments)
    if args.device is not None and options.setdefault("device", args.device) != args.device:
        raise ParameterError(f"device={options['device']} contradicts --device {args.device}")
    # Names, form, types and choices are checked from the metadata before torch loads; `check` checks
    # them again (cheaply) and then the hypotheses, which need the result's code.
    registry.validate_structure(result, params, options.get("form") or result.default_form)
    evidence = theorems.check(result.id, **options, **params)
    print(json.dumps(evidence.to_dict(), indent=2) if args.json else repr(evidence))
    return EXIT_HOLDS if evidence.holds else EXIT_FAILS


# ---------------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------------
def cmd_report(args: argparse.Namespace) -> int:
    if args.workers is not None and args.workers < 1:
        raise ParameterError(f"--workers {args.workers}: expected a positive number of processes")
    only = _known_ids(args.only) if args.only else None
    if args.plan:
        return _plan_report(args, only)
    if args.out is None:
        raise CommandLineError("report needs --out DIR (or --plan, which runs nothing)")
    try:
        import reports
    except ImportError as err:
        raise CommandLineError(f"the report builder is not importable ({err}); run `pip install -e .` "
                               "from the repository root") from None
    try:
        out = reports.prepare_out_dir(args.out)  # before running, so a long run never ends on a write error
    except OSError as err:
        raise _unwritable(args.out, err) from None
    interrupted = False
    if args.from_run is not None:
        for flag, value in (("--suite", args.suite), ("--device", args.device), ("--workers", args.workers),
                            ("--ray", args.ray)):
            if value is not None:
                _log(f"note: {flag} is ignored with --from-run: the evidence was computed by that run")
        from theorems.core.recording import checked_for_report

        run = _read_recorded_run(Path(args.from_run))
        try:
            meta, evidences, expected, notes = checked_for_report(run, args.from_run, only, args.allow_unfinished)
        except ValueError as err:
            raise CommandLineError(str(err)) from None
        for note in notes:
            _log(f"note: {note}")
        meta = {**meta, "source": str(args.from_run)}
        errors: list = []
    else:
        evidences, errors, meta, interrupted = _run_report(args, only, reports)
        expected = {}
    if only:
        meta = {**meta, "only": " ".join(only)}
    try:
        path = reports.build_report(out, evidences, meta, errors, only=only, expected=expected)
    except OSError as err:
        raise _unwritable(out, err) from None
    print(f"wrote {path}: {reports.summary_line(reports.counts(evidences, errors, expected))}")
    return EXIT_INTERRUPTED if interrupted else EXIT_HOLDS


# A thorough report should finish within this on the --workers given (issue 42); --plan says what does not fit.
PLAN_BUDGET_S = 3600.0


def _plan_report(args: argparse.Namespace, only: list[str] | None) -> int:
    """``report --plan``: the predicted CPU time of every result's instances (theorems.core.costs), nothing run."""
    from theorems.core import costs
    from theorems.core.runner import plan_instances

    try:
        suite = get_suite(args.suite)
    except ValueError as err:
        raise CommandLineError(str(err)) from None
    instances, plan_errors = plan_instances(suite, only)
    model = costs.CostModel()
    predictions = model.predict_all(instances)
    workers = args.workers or default_workers()
    print(f"plan: suite {suite.name}, {len(instances)} instance(s) of {len(only or registry.ids())} result(s); "
          f"predicted CPU seconds from {costs.TIMINGS_FILE.name} (theorems.core.costs), nothing run")
    print(costs.format_plan(costs.plan_rows(instances, predictions), predictions, workers, model.startup_s,
                            budget_s=PLAN_BUDGET_S))
    for rid, message in plan_errors:
        print(f"not planned: {rid}: {message}")
    return EXIT_HOLDS


def _known_ids(names: Sequence[str]) -> list[str]:
    """``--only`` ids, each checked against the registry (UnknownResult names close matches)."""
    for name in names:
        registry.info(name)
    return list(dict.fromkeys(names))


def _run_report(args: argparse.Namespace, only: list[str] | None, reports) -> tuple[list, list, dict, bool]:
    from theorems.core.context import resolve_device
    from theorems.core.recording import provenance
    from theorems.core.runner import plan_instances, require_ray, run_instances

    if args.ray is not None:
        require_ray()  # before planning and announcing a run that cannot start
    try:
        suite = get_suite(args.suite)
    except ValueError as err:  # only a bad $THEOREMS_SUITE gets here; argparse checks --suite
        raise CommandLineError(str(err)) from None
    # On Ray the cluster decides (a GPU per task where it has them); here, fail now, not on the first instance.
    device = args.device if args.ray is not None else str(resolve_device(args.device))
    workers = _memory_capped(args.workers or default_workers())
    started = time.perf_counter()
    instances, plan_errors = plan_instances(suite, only)
    where = f"on Ray ({args.ray})" if args.ray is not None else f"in {min(workers, max(len(instances), 1))} process(es)"
    _log(f"running {len(instances)} instance(s) of {len(only or registry.ids())} result(s), suite {suite.name}, "
         f"device {device or 'chosen by the cluster'}, {where}")
    # A remote cluster's size is not known here: its estimate assumes one task at a time (an upper bound).
    parallel = workers if args.ray in (None, RAY_LOCAL) else 1
    # The time left comes from the cost model of what is still to run (theorems.core.costs), learnt against this
    # machine's speed as instances finish.
    from theorems.core.costs import CostModel

    try:
        predicted: list[float] | None = [p.seconds for p in CostModel().predict_all(instances)]
    except Exception as err:  # a damaged timings file must not cost the run: the estimate falls back to the means
        _log(f"note: no cost model for the time left ({describe_error(err)})")
        predicted = None
    progress = Progress(len(instances), result_ids=[i.result_id for i in instances], workers=parallel,
                        predicted=predicted)
    finished, interrupted = run_instances(
        instances, device, workers=workers, ray_address=args.ray, progress=progress,
        on_interrupt=lambda done, total: _log(
            f"\ninterrupted: the report will hold the {done} of {total} instances that finished"))
    errors = [reports.InstanceError(rid, None, {}, False, message) for rid, message in plan_errors]
    errors += [reports.InstanceError(d.instance.result_id, d.instance.form, d.instance.params,
                                     d.instance.allow_violation, d.error) for d in finished if d.error is not None]
    evidences = [d.evidence for d in finished if d.evidence is not None]
    used = sorted({e.device for e in evidences}) or [device or "cpu"]
    meta = provenance(suite=suite.name, device=", ".join(used), wall_time_s=round(time.perf_counter() - started, 1),
                      workers=f"Ray {args.ray}" if args.ray is not None else workers)
    if interrupted:
        meta["interrupted"] = f"after {len(finished)} of {len(instances)} instances"
    return evidences, errors, meta, interrupted


# What one report worker holds at its peak (torch, a paper's modules, one instance): measured about 0.6 GB.
WORKER_MEMORY_BYTES = 600 * 2**20


def _memory_capped(workers: int) -> int:
    """``workers``, but no more than the available memory holds (WORKER_MEMORY_BYTES each), saying so."""
    try:
        available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # not a POSIX system: no cap
        return workers
    fits = max(1, available // WORKER_MEMORY_BYTES)
    if workers > fits:
        _log(f"note: {workers} workers need about {workers * WORKER_MEMORY_BYTES / 2**30:.1f} GB; "
             f"{available / 2**30:.1f} GB is available, so {fits} will run")
        return int(fits)
    return workers


def cmd_diff(args: argparse.Namespace) -> int:
    from theorems import diff

    try:
        return diff.main(args.old, args.new, rtol=args.rtol)
    except FileNotFoundError as err:
        raise CommandLineError(f"no such file: {err.filename}") from None
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise CommandLineError(f"cannot compare {args.old} and {args.new}: {describe_error(err)}") from None


def cmd_manifest(args: argparse.Namespace) -> int:
    from theorems.core import manifest

    # The built-in papers only: a plugin's results are described by its own package, not by this file.
    live = [manifest.info_of(r) for r in map(theorems.get, theorems.ids()) if registry.is_builtin(r)]
    text = manifest.render(live)
    if args.write:
        manifest.MANIFEST_FILE.write_text(text, encoding="utf-8")
        print(f"wrote {manifest.MANIFEST_FILE} ({len(live)} results)")
        return EXIT_HOLDS
    if args.check:
        recorded = manifest.read()
        if recorded is None:
            print(f"{manifest.MANIFEST_FILE} is missing or unreadable: run `{manifest.REGENERATE}`")
            return EXIT_FAILS
        differences = manifest.differences(recorded, live)
        on_disk = manifest.MANIFEST_FILE.read_text(encoding="utf-8")
        if differences or on_disk != text:
            print(f"{manifest.MANIFEST_FILE} is stale: run `{manifest.REGENERATE}`")
            print("\n".join(f"  {line}" for line in differences or ["formatting differs"]))
            return EXIT_FAILS
        print(f"{manifest.MANIFEST_FILE} is current ({len(live)} results)")
        return EXIT_HOLDS
    sys.stdout.write(text)
    return EXIT_HOLDS


def cmd_new(args: argparse.Namespace) -> int:
    from theorems import scaffold

    try:
        out = scaffold.write(args.id, args.out)
    except OSError as err:
        raise CommandLineError(f"cannot write the package to {args.out}: {err.strerror or err}") from None
    pkg = args.id.split(".")[0]
    print(f"wrote {out}: the package {pkg} with the result {args.id} (TODOs mark where your theorem goes)\n"
          f"  pip install -e {out}        (or: export PYTHONPATH={out.resolve()} THEOREMS_PLUGINS={pkg})\n"
          f"  python -m theorems check {args.id}\n"
          f"  python -m pytest --theorems-conformance {pkg} {out / 'tests'}")
    return EXIT_HOLDS


def _log(line: str) -> None:
    """Progress goes to stderr, so that stdout carries only the summary line."""
    print(line, file=sys.stderr, flush=True)


def _unwritable(out: str | Path, err: OSError) -> CommandLineError:
    return CommandLineError(f"cannot write the report to {out}: {err.strerror or err}")


def _read_recorded_run(path: Path):
    from theorems.core.recording import load_run

    try:
        return load_run(path)
    except FileNotFoundError:
        raise CommandLineError(f"no recorded run at {path}: run `pytest` first, or name the file "
                               "with --from-run PATH") from None
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise CommandLineError(f"cannot read the recorded run {path}: {describe_error(err)}") from None


# ---------------------------------------------------------------------------------------------------
# entry point
# ---------------------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m theorems", description="Check theorems from ML-theory papers numerically. "
                     "Exit status: 0 holds, 1 does not hold, 2 usage error.")
    parser.add_argument("--version", action="version", version=f"theorems {theorems.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{list,show,check,report,diff,manifest,new}")

    p = sub.add_parser("list", help="one line per registered result: id, status, title")
    p.set_defaults(handler=cmd_list)

    p = sub.add_parser("show", help="a result's statement, correction, status, forms and parameters")
    p.add_argument("id")
    p.add_argument("--grades", action="store_true",
                   help="replay each registered counterexample and give the grade of its failure (runs them)")
    p.set_defaults(handler=cmd_show)

    p = sub.add_parser("check", help="check one result on one instance",
                       description="Check one result. Exit status 0 if it holds, 1 if not, 2 on a usage error.")
    p.add_argument("id")
    p.add_argument("assignments", nargs="*", metavar="k=v",
                   help="parameters (see `show ID`), and form=as_printed|corrected, allow_violation=true")
    p.add_argument("--device", choices=("cpu", "cuda"), default=None, help="default: $THEOREMS_DEVICE or cpu")
    p.add_argument("--json", action="store_true", help="print the evidence as JSON instead of a summary")
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser("report", help="run every report instance and write DIR/index.html")
    p.add_argument("--out", default=None, metavar="DIR", help="folder for index.html (created if missing)")
    p.add_argument("--plan", action="store_true",
                   help="run nothing: print each result's predicted CPU time and the total (theorems.core.costs)")
    p.add_argument("--suite", choices=tuple(SUITES), default=None, help="default: $THEOREMS_SUITE or ci")
    p.add_argument("--device", choices=("cpu", "cuda"), default=None, help="default: $THEOREMS_DEVICE or cpu")
    p.add_argument("--from-run", nargs="?", const=str(DEFAULT_RUN_FILE), default=None, metavar="PATH",
                   help=f"build from the evidence the last pytest run recorded (default {DEFAULT_RUN_FILE}) "
                        "instead of running; every verdict is re-derived from the recorded claims")
    p.add_argument("--allow-unfinished", action="store_true",
                   help="with --from-run: build from a run that did not finish (interrupted, stopped by -x), "
                        "saying so on the page; refused otherwise")
    p.add_argument("--only", nargs="+", default=None, metavar="ID",
                   help="report only these results (ids as `list` shows them)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help=f"local processes that run instances in parallel (default: the cores, here {default_workers()})")
    p.add_argument("--ray", default=None, metavar="ADDRESS",
                   help=f"run one Ray task per instance on the cluster at ADDRESS ('{RAY_LOCAL}' starts Ray "
                        "on this machine, with --workers CPUs); a GPU per task where the cluster has them; "
                        "needs pip install 'theorems[ray]'")
    p.set_defaults(handler=cmd_report)

    p = sub.add_parser("diff", help="what changed between two runs (evidence.json or last-run.json)",
                       description="Print what changed between two recorded runs: statuses, each instance's "
                                   "verdict, and numbers that moved beyond --rtol. Exit status 1 when a verdict "
                                   "changed (an instance's holds, or a result's status), else 0.")
    p.add_argument("old", metavar="OLD.json")
    p.add_argument("new", metavar="NEW.json")
    p.add_argument("--rtol", type=float, default=1e-6, metavar="R",
                   help="a number counts as changed when it moved by more than R relative (default 1e-6)")
    p.set_defaults(handler=cmd_diff)

    p = sub.add_parser("manifest", help="the registry's metadata that list/show read (theorems/manifest.json)",
                       description="Print the registry's metadata as list/show read it, or --write it to "
                                   "theorems/manifest.json (run after changing a result's status, title, "
                                   "statement or parameters), or --check that the file is current.")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help="regenerate theorems/manifest.json from the registry")
    group.add_argument("--check", action="store_true", help="exit 1, listing the differences, if the file is stale")
    p.set_defaults(handler=cmd_manifest)

    p = sub.add_parser("new", help="write a package that checks a theorem of your own (PKG.RESULT)",
                       description="Write a small installable package for the result PKG.RESULT into DIR: "
                                   "pyproject.toml with the theorems.results entry point, the paper, one result "
                                   "module (statement, quantifiers, parameters, evaluate, a negative control) and "
                                   "its tests, with TODOs where your mathematics goes.")
    p.add_argument("id", metavar="PKG.RESULT")
    p.add_argument("--out", required=True, metavar="DIR", help="a new (or empty) folder for the package")
    p.set_defaults(handler=cmd_new)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exit_:  # --help, --version, or a usage error already printed
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    try:
        return args.handler(args)
    except USER_ERRORS as err:
        _print_error(err)
        return EXIT_USAGE
    except KeyboardInterrupt:
        _print_error("interrupted")
        return EXIT_INTERRUPTED
    except Exception as err:  # a bug of the suite: never exit 1, which means "the bound does not hold"
        import traceback

        traceback.print_exc(file=sys.stderr)
        _print_error(f"internal error of the suite, not a verdict: {type(err).__name__}: {err}")
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
