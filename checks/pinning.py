"""What the pin and hypothesis-edge test files of every paper share (not a test module: nothing here is collected)."""
from __future__ import annotations

import pytest

from theorems.core import recording, registry
from theorems.core.errors import IdentityFailure
from theorems.core.verdict import run_spec


def excess(claim) -> float:
    """How many allowances ``observed`` lies beyond ``bound`` (≤ 1 passes)."""
    gap = {"<=": claim.observed - claim.bound, ">=": claim.bound - claim.observed}.get(
        claim.relation, abs(claim.observed - claim.bound))
    return gap / claim.allowance


def assert_registered_pin(run, rid: str, control: dict, claims, kinds=("bound",)) -> None:
    """``control`` is a registered control of ``rid`` and lies 1–10 allowances outside each of ``claims``: the
    tolerance loosened ×10 lets it pass. Failing there (or, for a convergence tolerance, not converging) is what a
    pin is for, so the run file expects either."""
    result = registry.get(rid)
    assert control in [dict(c) for c in result.controls], f"{rid}: {control} is not a registered control"
    ev = recording.expect(run_spec(run, result, control), recording.FAILS, recording.NOT_CONVERGED)
    for name in claims:
        c = ev.claim(name)
        assert c.kind in kinds and c.allowance > 0, c
        assert 1.0 < excess(c) <= 10.0, f"{rid}: {name} is {excess(c):.3g} allowances outside on {control}"


def assert_hypothesis_edge(rid: str, form, params: dict, name) -> None:
    """The declared hypotheses alone (before any computation) name ``name`` on ``params``, or nothing if ``name``
    is None."""
    result = registry.get(rid)
    form = form or result.default_form
    violations = result.hypotheses(registry.validate_structure(result, dict(params), form), form)
    found = [v.hypothesis for v in violations]
    if name is None:
        assert not found, f"{rid} {params}: inside the hypotheses, yet {found}"
    else:
        assert any(name in h for h in found), f"{rid} {params}: expected a violation of {name!r}, got {found}"


def probe(rid: str, **params):
    """``theorems.check(rid, **params)`` for a probe meant to hold or fail (every outcome expected: the run file
    records it so, and the report does not ask for a look). Called while the test has something monkeypatched (a
    constant, a formula), it is a patched probe: its numbers are not the instance's, so the run file leaves it out
    and expects nothing of the instance (`theorems.core.recording.patched_what`, set up by conftest.py)."""
    import theorems

    with recording.expecting(*recording.OUTCOMES):
        return theorems.check(rid, **params)


def assert_identity_fails(rid: str, claim: str, **params) -> None:
    """The check raises IdentityFailure naming ``claim`` among the identities that failed (the message's first
    line; the explanation below it lists every claim, so matching the whole text would accept any identity)."""
    with pytest.raises(IdentityFailure) as raised:
        probe(rid, **params)
    first = str(raised.value).split("\n", 1)[0]
    broken = first.split(": identity ", 1)[1].split(" failed on ", 1)[0].split(", ")
    assert claim in broken, first


def assert_identity_pin(rid: str, claim: str, passes: bool, **params) -> None:
    """One side of an identity tolerance's pin: ``claim`` passes on the probe (an input just inside the tolerance),
    or the check raises IdentityFailure naming it (`assert_identity_fails`: just outside)."""
    if passes:
        assert probe(rid, **params).claim(claim).passed
    else:
        assert_identity_fails(rid, claim, **params)


def hypotheses_named(rid: str, form, params: dict) -> list[str]:
    """The hypotheses the declared checks name on ``params`` (``form`` None: the default form), before any
    computation."""
    result = registry.get(rid)
    form = form or result.default_form
    return [v.hypothesis for v in result.hypotheses(registry.validate_structure(result, dict(params), form), form)]


def uncached_probe(rid: str, **params):
    """An uncached run of a module with one input patched, at seed 7 (an instance no other test runs, so the run file
    does not mix the probe with the module's real instance): its outcome, holds or fails, is the probe's purpose."""
    import theorems

    return recording.expect(theorems.check(rid, seed=7, **params), *recording.OUTCOMES)


def assert_claim_fails(rid: str, claim: str, identity: bool) -> None:
    """``claim`` fails on the default instance: an identity raises IdentityFailure naming it, a bound is recorded
    as failed."""
    if identity:
        assert_identity_fails(rid, claim)
    else:
        c = probe(rid).claim(claim)
        assert not c.passed, c


def second_call_changed(monkeypatch, module, name: str, change):
    """``module.name`` patched so that its second call returns ``change`` of a copy of what it returned (the first
    and later calls unchanged): the second seed / restart made worse. Returns the list that counts the calls."""
    original, calls = getattr(module, name), []

    def moved(*a, **k):
        out = original(*a, **k)
        calls.append(1)
        return change(dict(out)) if len(calls) == 2 else out

    monkeypatch.setattr(module, name, moved)
    return calls


def assert_named_iff(rid: str, form, params: dict, name: str, present: bool) -> None:
    """The declared hypotheses name one containing ``name`` on ``params`` exactly when ``present`` (one side of a
    hypothesis edge: just outside it named, just inside not)."""
    found = hypotheses_named(rid, form, params)
    hit = any(name in h for h in found)
    assert hit == present, f"{rid} {form} {params}: {name!r} {'not ' if present else ''}named; named: {found}"


def assert_refused_naming(rid: str, params: dict, text: str, errors, allow_violation: bool = False) -> None:
    """``theorems.check(rid, **params)`` raises one of ``errors`` (the typed refusal, before computing) with ``text``
    (the hypothesis or parameter it names) in its message; with ``allow_violation``, even as a negative control (a
    structural hypothesis: no instance can be built outside it)."""
    import theorems

    with pytest.raises(errors) as err:
        if allow_violation:
            theorems.check(rid, allow_violation=True, **params)
        else:
            theorems.check(rid, **params)
    assert text in str(err.value)


def row_ids(rows) -> list[str]:
    """Test ids of parametrised rows that lead with a result id: ``<id>-<row number>``."""
    return [f"{r}-{i}" for i, (r, *_) in enumerate(rows)]


def short_row_ids(rows) -> list[str]:
    """`row_ids` with the result's name only (its paper package left off)."""
    return [f"{r.split('.')[-1]}-{i}" for i, (r, *_) in enumerate(rows)]


def bypassing_controls(papers: tuple[str, ...]) -> list[tuple[str, dict]]:
    """(result id, control) for each registered control that steps over a hypothesis (``allow_violation``) of the
    results whose ids start with one of ``papers``."""
    return [(rid, dict(c)) for rid in registry.ids() if rid.startswith(papers)
            for c in registry.get(rid).controls if c.get("allow_violation")]


def assert_fails_within_ten_times_the_bound(run, rid: str, where: str, spec: dict, claims) -> None:
    """``spec`` is registered among ``rid``'s ``where`` (controls or counterexamples) and fails each of ``claims``
    (bound or proof-step claims) by a ratio in (1, 10]: the bound constant (or a z-threshold) loosened ×10 lets it
    pass."""
    result = registry.get(rid)
    assert spec in [dict(c) for c in getattr(result, where)], f"{rid}: {spec} is not in {where}"
    # a counterexample is one of the printed statement
    form = "as_printed" if where == "counterexamples" else None
    ev = recording.expect(run_spec(run, result, spec, form=form), recording.FAILS)
    for name in claims:
        c = ev.claim(name)
        assert c.kind in ("bound", "proof_step") and c.bound > 0 and not c.passed, c
        ratio = c.observed / c.bound if c.relation == "<=" else c.bound / c.observed
        assert 1.0 < ratio <= 10.0, f"{rid}: {name} is {ratio:.3g}× its bound on {spec}"


def assert_binding_near_its_edge(run, rid: str, params: dict, slack: float) -> None:
    """``params`` is a registered binding instance of ``rid`` and holds with normalised slack in [0, ``slack``]: its
    tightest bound claim is near its edge, so a binding moved off its edge fails."""
    result = registry.get(rid)
    binding = [b for b in result.binding if dict(b.params) == params]
    assert binding, f"{rid}: {params} is not a registered binding instance"
    ev = run_spec(run, result, params, binding[0].form)
    assert ev.holds and 0.0 <= ev.slack <= slack, f"{rid}: slack {ev.slack:.3g} on its binding instance"


def assert_registered_bindings(rid: str, params: list[dict]) -> None:
    """``rid``'s registered binding instances are exactly ``params`` (where its module's docstring says each
    hypothesis binds), in order."""
    assert [dict(b.params) for b in registry.get(rid).binding] == params


def assert_default_proof_steps_fail_only_at_errata(run, rid: str) -> None:
    """The default instance carries proof steps, and those that fail there are exactly ``rid``'s registered proof
    errata of the default form (a proof step broken by a wrong constant would not move the statement's verdict)."""
    result = registry.get(rid)
    ev = run(rid)
    steps = [c for c in ev.claims if c.kind == "proof_step"]
    errata = {e.claim for e in result.proof_errata if not e.params and e.form == result.default_form}
    assert steps and {c.name for c in steps if not c.passed} == errata, ev.explain()


def assert_report_instances_flag_exactly_the_negative_controls(rid: str) -> None:
    """Each of ``rid``'s report instances (ci suite) has allow_violation=True iff its parameters step over a
    hypothesis (no evaluation needed)."""
    from theorems.core.suite import get_suite

    result = registry.get(rid)
    for form, params, allow in result.report_instances(get_suite("ci")):
        _, violations = registry.validate(result, params, form)
        assert bool(violations) == allow, (rid, form, params, violations)


def assert_out_of_domain_refused(rid: str, params: dict) -> None:
    """``params`` holds a value outside its parameter's domain (the last one): the check refuses it with a
    ParameterError naming that parameter, even as a negative control."""
    from theorems import ParameterError

    assert_refused_naming(rid, params, list(params)[-1], ParameterError, allow_violation=True)


def assert_hypothesis_refused(rid: str, params: dict, hypothesis: str) -> None:
    """``params`` steps over a hypothesis: the check refuses it with a HypothesisViolation naming ``hypothesis``."""
    from theorems import HypothesisViolation

    assert_refused_naming(rid, params, hypothesis, HypothesisViolation)


def assert_registered_controls_step_over_and_fail(run, rid: str) -> None:
    """``rid`` registers controls; each asks for allow_violation, is refused without it (HypothesisViolation), and
    fails a bound claim with it."""
    import theorems
    from theorems import HypothesisViolation

    result = registry.get(rid)
    assert result.controls
    for spec in result.controls:
        assert spec.get("allow_violation") is True, spec
        params = {k: v for k, v in spec.items() if k != "allow_violation"}
        with pytest.raises(HypothesisViolation):
            theorems.check(rid, **params)
        assert run_spec(run, result, spec).failed_bounds, spec


def assert_default_and_bindings_hold(run, rid: str) -> None:
    """The default instance and each registered binding instance of ``rid`` hold."""
    result = registry.get(rid)
    assert run(rid).holds
    for b in result.binding:
        ev = run(rid, **b.params)
        assert ev.holds, ev.explain()


def assert_energy_identity_pinned_just_outside(run, rid: str) -> None:
    """The printed formula scaled by 1 + 1e-9 fails the energy identity at 1e-9 (10× its 1e-10 tolerance), the
    Riemannian gradient moving beyond 1e-10 with it."""
    ev = run(rid, form="as_printed", formula_scale=1 + 1e-9, allow_violation=True)
    c = ev.claim("energy_identity")
    assert not c.passed and c.observed == pytest.approx(1e-9, rel=1e-3)  # 10× the 1e-10 tolerance
    assert ev.claim("riemannian_gradient").observed > 1e-10


def assert_verified_and_controls_fail_outside(run, rid: str) -> None:
    """``rid`` is verified, holds on its default and binding instances, and each registered control is refused
    without allow_violation (HypothesisViolation) and, converged, fails a bound claim with it."""
    import theorems
    from theorems import HypothesisViolation

    result = registry.get(rid)
    assert str(result.status) == "verified"
    assert run(rid).holds
    for b in result.binding:
        assert run(rid, **b.params).holds
    for spec in result.controls:
        params = {k: v for k, v in spec.items() if k != "allow_violation"}
        with pytest.raises(HypothesisViolation):
            theorems.check(rid, **params)
        ev = run_spec(run, result, spec)
        assert ev.converged is True and ev.failed_bounds, spec


def assert_first_control_fails_at(run, rid: str, ratio: float) -> None:
    """``rid``'s first registered control fails, observed ``ratio`` (to 0.01)."""
    spec = next(iter(registry.get(rid).controls))
    ev = run(rid, **spec)
    assert not ev.holds and ev.observed == pytest.approx(ratio, abs=0.01)
