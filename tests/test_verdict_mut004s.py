"""The trend rule of `theorems.core.verdict` on both of its entries (held-out mutation, seed 23: `or` → `and` in
``if result.trend_controls or result.status is Status.TREND`` survived, because the tests of the rule reached OPEN
by another road). Each row asserts the derivation's own reason, not only its status."""

from __future__ import annotations

from tests.test_verdict import fake_trend
from theorems.core.result import Status
from theorems.core.verdict import CachedRunner, derive_status


def test_a_declared_trend_without_controls_is_open_for_that_reason(registered):
    """Registered TREND with no trend control: OPEN, and the problem says the trend has no contrasting control (not
    merely some other rule failing on the way)."""
    d = derive_status(registered(fake_trend(trend_controls=(), open_reason="r")), CachedRunner())
    assert d.status is Status.OPEN
    assert any("a trend with no control" in p for p in d.problems), d.problems


def test_trend_controls_make_a_trend_whatever_status_is_registered(registered):
    """A result with trend controls is judged by the trend rule even when registered under another status: the
    evidence supports TREND, and the wrong registration is what the conformance check then reports."""
    d = derive_status(registered(fake_trend(status=Status.VERIFIED)), CachedRunner())
    assert d.status is Status.TREND, d.problems
    assert any("contrasting regimes fail it" in r for r in d.reasons), d.reasons


def test_open_reason_is_given_only_for_open(registered):
    """Result.open_reason is quoted as the reason of an OPEN status, and not where the evidence decides another."""
    opened = derive_status(registered(fake_trend(trend_controls=(), open_reason="why not")), CachedRunner())
    assert "open: why not" in opened.reasons
    trend = derive_status(registered(fake_trend(open_reason="why not")), CachedRunner())
    assert trend.status is Status.TREND and "open: why not" not in trend.reasons
