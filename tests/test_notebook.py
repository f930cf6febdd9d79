"""An Evidence in a real Jupyter kernel: a notebook executed by nbclient displays the Evidence as its HTML
table and picture (``_repr_html_``, found through the ``theorems.renderers`` entry point), and its plain
text as the one-screen summary. Rendering the string in this process (tests/test_report.py) cannot show
that the kernel's display machinery picks the HTML up."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="nbclient/nbformat are in the test extra")
nbclient = pytest.importorskip("nbclient", reason="nbclient/nbformat are in the test extra")
pytest.importorskip("ipykernel", reason="the notebook runs in an ipykernel")

from fakes import FAKE_ID  # noqa: E402

TESTS = Path(__file__).resolve().parent


def test_evidence_displays_as_html_in_a_jupyter_kernel(tmp_path):
    cells = [
        nbformat.v4.new_code_cell(f"import sys; sys.path.insert(0, {str(TESTS)!r})\n"
                                  "import registered_fakes  # registers the fake results in the kernel\n"
                                  "import theorems"),
        nbformat.v4.new_code_cell(f"theorems.check({FAKE_ID!r}, x=0.8, form='as_printed')"),
    ]
    notebook = nbformat.v4.new_notebook(cells=cells)
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = notebook.cells[1].outputs
    assert len(outputs) == 1 and outputs[0].output_type == "execute_result"
    data = outputs[0].data
    page = data["text/html"]
    assert "<table>" in page and "<svg" in page and "square_below_line" in page
    assert "fails" in page and "python -m theorems check fake.square_below_line" in html.unescape(page)
    assert data["text/plain"].startswith(f"Evidence {FAKE_ID} [as_printed] -> DOES NOT HOLD")
