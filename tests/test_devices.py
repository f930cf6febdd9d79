"""Tensors stay on their device: every default check completes with torch's *default* device set to
``meta`` while the check's context device is ``cpu``.

A tensor made without naming its device (``torch.zeros(n)``, ``torch.eye(k)``, ``torch.tensor(x)``) lands on
torch's default device, not on the context's; on a GPU run that is the CPU, and the run breaks or silently
copies. ``meta`` tensors have no data, so any such tensor meeting a real one raises here, on a CPU-only
machine, which is the code path that breaks under ``--device cuda``. (Numerics that run through numpy on
purpose, e.g. scipy's ODE integration, are fine as long as what comes back is put on the context's device.)
"""

from __future__ import annotations

import pytest
import torch

import theorems

IDS = theorems.ids()  # loads every paper module now, outside the meta context (module constants are real)


@pytest.mark.slow
@pytest.mark.parametrize("result_id", IDS)
def test_default_check_keeps_its_tensors_on_the_context_device(result_id, run, evaluated, device):
    """The context device is the run's (``--device``, cpu by default). Where this process has not computed
    the default instance yet (conftest.py runs these tests first in each worker), it is computed here
    through the shared `run` cache, so the conformance checks reuse it rather than compute it again;
    otherwise it is computed afresh."""
    with torch.device("meta"):
        if evaluated(result_id):
            evidence = theorems.check(result_id)
        else:
            evidence = run(result_id)
    assert torch.device(evidence.device).type == torch.device(device).type
    assert isinstance(evidence.observed, float)


def test_the_audit_catches_a_tensor_made_on_the_default_device():
    """The negative control of the test above: a tensor made without a device meets a context tensor."""
    from theorems.core.context import Context

    ctx = Context.make("cpu", seed=0)
    with torch.device("meta"):
        drawn = ctx.randn(3)  # drawn on the CPU generator, then moved to the context's device
        assert drawn.device.type == "cpu"
        with pytest.raises((RuntimeError, NotImplementedError)):
            float((drawn + torch.ones(3)).sum())
