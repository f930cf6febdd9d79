"""The errors a user of the suite can meet, each with a message that names what went wrong."""

from __future__ import annotations

from typing import Any, Mapping


class HypothesisViolation(ValueError):
    """Parameters that violate a hypothesis of the result being checked.

    ``hypothesis`` names the hypothesis (as the paper states it), ``values`` holds the
    offending parameter values, and the message says both, so that a user sees at once what to change.
    """

    def __init__(
        self,
        hypothesis: str,
        message: str,
        *,
        result_id: str | None = None,
        values: Mapping[str, Any] | None = None,
        bypassable: bool = True,
    ) -> None:
        self.hypothesis = hypothesis
        self.result_id = result_id
        self.values = dict(values or {})
        self.bypassable = bypassable
        where = f"{result_id}: " if result_id else ""
        shown = ", ".join(f"{k}={v!r}" for k, v in self.values.items())
        text = f"{where}hypothesis '{hypothesis}' violated: {message}"
        if shown:
            text += f" (got {shown})"
        if bypassable and result_id:
            text += "; pass allow_violation=True to run it anyway as a negative control"
        super().__init__(text)


class UnknownResult(LookupError):
    """An id that no registered result carries."""

    def __init__(self, result_id: str, known: list[str]) -> None:
        import difflib

        close = difflib.get_close_matches(result_id, known, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else "; `python -m theorems list` shows them all"
        super().__init__(f"no result with id {result_id!r}{hint}")
        self.result_id = result_id


class ParameterError(TypeError):
    """A value no instance can be built from: a parameter the result does not take, a value of the wrong
    type, outside its declared domain (a NaN, a negative size, an unknown choice, a list out of order), an
    unknown form, a malformed command-line word. ``name`` and ``value`` say which, where there is one."""

    def __init__(self, message: str, *, name: str | None = None, value: Any = None) -> None:
        super().__init__(message)
        self.name = name
        self.value = value


class ResourceLimit(ParameterError):
    """An instance inside its parameters' domains whose size together exceeds what one instance may use on
    this machine (memory or time); the message names the ceiling and the variable that raises it."""


class PluginError(ValueError):
    """A plugin (entry point ``theorems.results`` or a module named in ``$THEOREMS_PLUGINS``) that cannot be
    loaded as it is: an id that clashes with a built-in or another plugin's, an id without the plugin's prefix,
    a result that declares no negative control, a claim without a kind. The message names the plugin, the
    result and what to change; it is raised when the plugin loads, never later as a wrong verdict."""

    def __init__(self, message: str, *, plugin: str | None = None, result_id: str | None = None) -> None:
        super().__init__(message)
        self.plugin = plugin
        self.result_id = result_id


class SuiteError(RuntimeError):
    """The suite produced something it must never produce (a verdict on a non-finite number): a bug of the
    suite, reported as such rather than as a verdict on the paper."""


class DeviceUnavailable(RuntimeError):
    """A device was asked for that this machine does not have."""


class IdentityFailure(RuntimeError):
    """A claim of kind ``identity`` (true by algebra or by construction) failed on an instance inside the
    hypotheses: a bug in the suite, never a verdict on the paper."""

    def __init__(self, result_id: str, claims: list, explanation: str) -> None:
        names = ", ".join(c.name for c in claims)
        super().__init__(
            f"{result_id}: identity {names} failed on an instance inside the hypotheses; an identity holds by "
            f"construction, so this is a bug in the suite, not a finding about the paper\n{explanation}"
        )
        self.result_id = result_id
        self.claims = claims
