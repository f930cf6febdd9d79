"""Command line: ``python -m theorems list | show ID | check ID k=v ... | report --out DIR``.

Exit status: 0 when a check holds (or a report was written), 1 when a check does not hold, 2 for a
mistake on the command line (unknown id or parameter, malformed value, violated hypothesis, missing
device, unwritable folder), which is reported as one ``error: ...`` line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import theorems
from theorems.core.context import resolve_device
from theorems.core.errors import DeviceUnavailable, HypothesisViolation, ParameterError, UnknownResult
from theorems.core.evidence import Evidence
from theorems.core.recording import DEFAULT_RUN_FILE, provenance, read_run
from theorems.core.result import Result
from theorems.core.suite import SUITES, get_suite

EXIT_HOLDS, EXIT_FAILS, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # the shell's convention for SIGINT

_TRUE = frozenset({"true", "1", "yes", "y", "on"})
_FALSE = frozenset({"false", "0", "no", "n", "off"})


class CommandLineError(Exception):
    """A mistake on the command line that the library's own errors do not cover (files, folders)."""


# Everything a user can get wrong; each becomes one 'error:' line and exit status 2.
USER_ERRORS = (CommandLineError, UnknownResult, ParameterError, HypothesisViolation, DeviceUnavailable)


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
    """``text`` as a value of ``kind`` (int, float, bool or str); ParameterError naming ``name`` if not."""
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
    raise ParameterError(f"{name}={text!r}: expected {expected}")


def parse_assignments(result: Result, assignments: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any]]:
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


def _example(result: Result) -> str:
    return f"{result.params[0].name}={result.params[0].default}" if result.params else "form=as_printed"


# ---------------------------------------------------------------------------------------------------
# list / show / check
# ---------------------------------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> int:
    results = [theorems.get(i) for i in theorems.ids()]
    if not results:
        print("no results are registered", file=sys.stderr)
    id_width = max((len(r.id) for r in results), default=0)
    status_width = max((len(str(r.status)) for r in results), default=0)
    for r in results:
        print(f"{r.id:<{id_width}}  {str(r.status):<{status_width}}  {r.title}")
    return EXIT_HOLDS


def cmd_show(args: argparse.Namespace) -> int:
    r = theorems.get(args.id)
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
    out += ["", "Parameters:"]
    out += _param_table(r) if r.params else ["  (none)"]
    out += ["", f"Try it: python -m theorems check {r.id}"]
    print("\n".join(out))
    return EXIT_HOLDS


def _indent(text: str, width: int = 100) -> str:
    # Wrap each line on its own: statements keep the line breaks their authors put in.
    return "\n".join(textwrap.fill(line, width, initial_indent="  ", subsequent_indent="  ") or ""
                     for line in text.strip().splitlines())


def _param_table(r: Result) -> list[str]:
    rows = [("name", "type", "default", "valid", "meaning")]
    for p in r.params:
        valid = p.valid or (f"one of {', '.join(map(str, p.choices))}" if p.choices else "")
        rows.append((p.name, p.kind.__name__, repr(p.default), valid, p.doc))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return ["  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[4] for row in rows]


def cmd_check(args: argparse.Namespace) -> int:
    result = theorems.get(args.id)
    options, params = parse_assignments(result, args.assignments)
    if args.device is not None and options.setdefault("device", args.device) != args.device:
        raise ParameterError(f"device={options['device']} contradicts --device {args.device}")
    evidence = theorems.check(result.id, **options, **params)
    print(json.dumps(evidence.to_dict(), indent=2) if args.json else repr(evidence))
    return EXIT_HOLDS if evidence.holds else EXIT_FAILS


# ---------------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------------
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


def plan_instances(suite) -> tuple[list[Instance], list]:
    """Every instance the report runs, and an error for each result whose ``report_instances`` raised."""
    # `reports` (matplotlib, jinja2) is imported only by the report command: list/show/check stay fast.
    from reports import InstanceError

    planned: list[Instance] = []
    errors: list[InstanceError] = []
    for rid in theorems.ids():
        result = theorems.get(rid)
        if result.report_instances is None:
            planned.append(Instance(rid, result.default_form, {}, False))
            continue
        try:
            for form, params, *allow in result.report_instances(suite):
                # Result's docstring also allows (form, params) pairs: no third item means no violation.
                planned.append(Instance(rid, form, dict(params), bool(allow and allow[0])))
        except Exception as err:  # a defect of that result, not a reason to lose the whole report
            errors.append(InstanceError(rid, None, {}, False, f"report_instances failed: {_describe_error(err)}"))
    return planned, errors


class Progress:
    """A progress bar with an estimate of the time left, on stderr.

    On a terminal the bar is redrawn in place and only instances that did not hold leave a line; in a
    log (CI, a pipe) every instance gets its own line, so that the log says where a run stopped. The
    estimate is the mean time per finished instance times the number left.
    """

    WIDTH = 28

    def __init__(self, total: int, stream=None, live: bool | None = None) -> None:
        self.total, self.done = total, 0
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.started = time.perf_counter()

    def eta(self) -> float | None:
        if not self.done or self.done >= self.total:
            return None
        return (time.perf_counter() - self.started) / self.done * (self.total - self.done)

    def bar(self) -> str:
        filled = self.WIDTH * self.done // max(self.total, 1)
        left = self.eta()
        eta = f"  ~{_duration(left)} left" if left is not None else ""
        return f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {self.done}/{self.total}{eta}"

    def step(self, line: str, took: float, notable: bool) -> None:
        """One instance finished: ``line`` says which and how it fared, in ``took`` seconds; ``notable``
        if it did not hold."""
        self.done += 1
        if self.live:
            if notable:
                self._write(f"\r\033[K{line} ({_duration(took)})\n")
            self._write("\r\033[K" + self.bar() + ("\n" if self.done >= self.total else ""))
        else:
            left = self.eta()
            eta = f"; ~{_duration(left)} left" if left is not None else ""
            self._write(f"[{self.done}/{self.total}] {line} ({_duration(took)}{eta})\n")

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


def run_instances(
    instances: Sequence[Instance], device: str, progress: Progress | None = None
) -> tuple[list[Evidence], list, bool]:
    """Run each instance, showing progress; returns evidence, errors, and whether it was interrupted."""
    from reports import InstanceError

    progress = progress or Progress(len(instances))
    evidences: list[Evidence] = []
    errors: list[InstanceError] = []
    for i, inst in enumerate(instances, 1):
        t0 = time.perf_counter()
        try:
            ev = theorems.check(inst.result_id, form=inst.form, allow_violation=inst.allow_violation,
                                device=device, **inst.params)
        except KeyboardInterrupt:
            _log(f"\ninterrupted: the report will hold the {i - 1} of {len(instances)} instances that finished")
            return evidences, errors, True
        except Exception as err:  # recorded as an error row; the other instances still run
            errors.append(InstanceError(inst.result_id, inst.form, inst.params, inst.allow_violation,
                                        _describe_error(err)))
            verdict, notable, control = f"ERROR {_describe_error(err)}", True, None
        else:
            evidences.append(ev)
            verdict = "holds" if ev.holds else ("fails (not converged)" if ev.converged is False else "fails")
            notable, control = not ev.holds, bool(ev.violations)
        progress.step(f"{inst.describe(control)} -> {verdict}", time.perf_counter() - t0, notable)
    return evidences, errors, False


def _describe_error(err: BaseException) -> str:
    return f"{type(err).__name__}: {' '.join(str(err).split())}"


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes}m{secs:02d}s" if minutes < 60 else f"{minutes // 60}h{minutes % 60:02d}m"


def cmd_report(args: argparse.Namespace) -> int:
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
        for flag, value in (("--suite", args.suite), ("--device", args.device)):
            if value is not None:
                _log(f"note: {flag} is ignored with --from-run: the evidence was computed by that run")
        meta, evidences = _read_recorded_run(Path(args.from_run))
        meta = {**meta, "source": str(args.from_run)}
        errors: list = []
    else:
        try:
            suite = get_suite(args.suite)
        except ValueError as err:  # only a bad $THEOREMS_SUITE gets here; argparse checks --suite
            raise CommandLineError(str(err)) from None
        device = str(resolve_device(args.device))  # fail now, not on the first instance
        started = time.perf_counter()
        instances, errors = plan_instances(suite)
        _log(f"running {len(instances)} instance(s) of {len(theorems.ids())} result(s), suite {suite.name}, "
             f"device {device}")
        evidences, run_errors, interrupted = run_instances(instances, device)
        errors += run_errors
        meta = provenance(suite=suite.name, device=device, wall_time_s=round(time.perf_counter() - started, 1))
        if interrupted:
            meta["interrupted"] = f"after {len(evidences) + len(run_errors)} of {len(instances)} instances"
    try:
        path = reports.build_report(out, evidences, meta, errors)
    except OSError as err:
        raise _unwritable(out, err) from None
    c = reports.counts(evidences, errors)
    print(f"wrote {path}: {c['instances']} instance(s), {c['holds']} hold, {c['fails']} fail "
          f"(including {c['controls']} negative control(s)), {c['not_converged']} not converged, "
          f"{c['errors']} error(s)")
    return EXIT_INTERRUPTED if interrupted else EXIT_HOLDS


def _log(line: str) -> None:
    """Progress goes to stderr, so that stdout carries only the summary line."""
    print(line, file=sys.stderr, flush=True)


def _unwritable(out: str | Path, err: OSError) -> CommandLineError:
    return CommandLineError(f"cannot write the report to {out}: {err.strerror or err}")


def _read_recorded_run(path: Path) -> tuple[dict[str, Any], list[Evidence]]:
    try:
        return read_run(path)
    except FileNotFoundError:
        raise CommandLineError(f"no recorded run at {path}: run `pytest` first, or name the file "
                               "with --from-run PATH") from None
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise CommandLineError(f"cannot read the recorded run {path}: {_describe_error(err)}") from None


# ---------------------------------------------------------------------------------------------------
# entry point
# ---------------------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m theorems", description="Check theorems from ML-theory papers numerically. "
                     "Exit status: 0 holds, 1 does not hold, 2 usage error.")
    parser.add_argument("--version", action="version", version=f"theorems {theorems.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{list,show,check,report}")

    p = sub.add_parser("list", help="one line per registered result: id, status, title")
    p.set_defaults(handler=cmd_list)

    p = sub.add_parser("show", help="a result's statement, correction, status, forms and parameters")
    p.add_argument("id")
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
    p.add_argument("--out", required=True, metavar="DIR", help="folder for index.html (created if missing)")
    p.add_argument("--suite", choices=tuple(SUITES), default=None, help="default: $THEOREMS_SUITE or ci")
    p.add_argument("--device", choices=("cpu", "cuda"), default=None, help="default: $THEOREMS_DEVICE or cpu")
    p.add_argument("--from-run", nargs="?", const=str(DEFAULT_RUN_FILE), default=None, metavar="PATH",
                   help=f"build from the evidence the last pytest run recorded (default {DEFAULT_RUN_FILE}) "
                        "instead of running")
    p.set_defaults(handler=cmd_report)
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


if __name__ == "__main__":
    sys.exit(main())
