"""What the checks of paper 004's Pre-LN depth results share about their trained sweep (not a test module: nothing
here is collected)."""
from __future__ import annotations

import pytest

from theorems.core import registry
from theorems.core.errors import ParameterError


def assert_empty_trained_sweep_refused(rid: str, arch: str) -> None:
    """An empty trained sweep (no depth to train) on ``arch`` is refused by the declared domain before anything
    runs, naming train_depths."""
    result = registry.get(rid)
    with pytest.raises(ParameterError, match="train_depths"):
        registry.validate_structure(result, dict(arch=arch, train_depths=()), result.default_form)
