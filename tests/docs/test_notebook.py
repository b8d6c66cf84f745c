"""notebooks/quickstart.ipynb runs top to bottom on a CPU at its tiny sizes, and shows what it says.

The notebook is read and validated with nbformat, checked to be stored without outputs, and run
with nbclient in a fresh kernel whose working directory is a temporary one (nothing is written
into the repository).  The tiny sizes are injected papermill-style: a code cell that sets
``SIZE = "tiny"`` and ``WORKDIR`` (in the temporary directory) goes right after the cell tagged
``parameters``, and overrides it.  A last cell, appended too, prints the notebook's results as
JSON for the assertions.  The pretrained player the notebook loads is the one shipped in the
package.
"""

from __future__ import annotations

import json
import os
import re

import pytest

import cardjax
from cardjax.agents import pretrained
from conftest import ROOT

nbformat = pytest.importorskip("nbformat", reason="the test extra: pip install -e '.[test]'")
nbclient = pytest.importorskip("nbclient", reason="the test extra: pip install -e '.[test]'")
pytest.importorskip("ipykernel", reason="the test extra: pip install -e '.[test]'")

NOTEBOOK = ROOT / "notebooks" / "quickstart.ipynb"
PRETRAINED = "scrofazero-pretrained"
CELL_TIMEOUT = 300  # seconds per cell (the slowest, compiling a match, takes ~30 s on 2 cores)
RESULTS = "NOTEBOOK-RESULTS "
REPO_BADGE = re.compile(r"https://colab\.research\.google\.com/github/([\w.-]+/[\w.-]+)/blob/"
                        r"main/notebooks/quickstart\.ipynb")


def read():
    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    nbformat.validate(nb)
    return nb


def parameters_index(nb) -> int:
    tagged = [i for i, c in enumerate(nb.cells)
              if c.cell_type == "code" and "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, "one code cell tagged 'parameters'"
    return tagged[0]


def test_notebook_is_valid_and_stored_without_outputs():
    nb = read()
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"cell {i} has outputs"
    first = nb.cells[0]
    assert first.cell_type == "markdown"
    badge = REPO_BADGE.search(first.source)
    assert badge and "colab-badge.svg" in first.source, "an Open in Colab badge first"
    params = nb.cells[parameters_index(nb)].source
    repo = re.search(r'^REPO = "https://github\.com/([\w.-]+/[\w.-]+)"', params, re.M)
    assert repo and repo.group(1) == badge.group(1), "the badge and REPO name one repository"
    assert re.search(r'^SIZE = "full"', params, re.M)
    assert sum("REPO = " in c.source for c in nb.cells if c.cell_type == "code") == 1


def text_of(cell) -> str:
    """A cell's printed text (stdout and stderr streams, and plain-text results)."""
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type in ("execute_result", "display_data"):
            parts.append(out.get("data", {}).get("text/plain", "") + "\n")
    return "".join(parts)


def cell_after(nb, heading: str):
    """The first code cell after the markdown cell whose first line is ``heading``."""
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and cell.source.splitlines()[0] == heading:
            return next(c for c in nb.cells[i + 1:] if c.cell_type == "code")
    raise AssertionError(f"no markdown cell {heading!r}")


@pytest.mark.slow
def test_notebook_runs_tiny_on_cpu(tmp_path):
    nb = read()
    shipped = pretrained.info(PRETRAINED)  # the player the notebook loads is in the package
    work = tmp_path / "work"
    work.mkdir()
    injected = nbformat.v4.new_code_cell(
        f'SIZE = "tiny"\nWORKDIR = {str(work / "quickstart")!r}',
        metadata={"tags": ["injected-parameters"]})
    nb.cells.insert(parameters_index(nb) + 1, injected)
    nb.cells.append(nbformat.v4.new_code_cell(
        "import json\n"
        f"print({RESULTS!r} + json.dumps(dict(simulated=SIMULATED, run_dir=RUN_DIR, "
        "iterations=int(state.iteration), platform=PLATFORM, evaluation=EVALUATION, "
        "pretrained=PRETRAINED_MATCH, pretrained_about=about)))"))

    client = nbclient.NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(work)}})
    client.execute()

    assert text_of(cell_after(nb, "## Install")) == "cardjax is already installed\n"
    last = text_of(nb.cells[-1])
    line = next((x for x in last.splitlines() if x.startswith(RESULTS)), None)
    assert line, last
    got = json.loads(line[len(RESULTS):])
    assert got["platform"] == "cpu"

    # every game: 64 deals dealt and played to the end, timed apart from compiling
    assert set(got["simulated"]) == set(cardjax.GAMES)
    for name, sim in got["simulated"].items():
        assert sim["deals"] == sim["finished"] == 64, name
        assert sim["compile_s"] > 0 and sim["run_s"] > 0, name
    assert got["simulated"]["gongzhu"]["steps"] == 64 * 52  # every card played
    assert 64 * 2 * 17 <= got["simulated"]["doudizhu"]["steps"] < 64 * 200
    assert got["simulated"]["tractor"]["steps"] > 64 * 100  # a hand is ~275 sub-actions
    table = text_of(cell_after(nb, "## Simulate 4,096 deals of each game"))
    for name in cardjax.GAMES:
        assert re.search(rf"^{name}\s+64\s+[\d.]+\s+[\d.]+\s+[\d,]+\s", table, re.M), table

    # training: 3 iterations of 8 games in the temporary directory, its curve drawn, one WPG
    run_dir = got["run_dir"]
    assert run_dir == str(work / "quickstart" / "scrofazero") and got["iterations"] == 3
    with open(os.path.join(run_dir, "metrics.jsonl")) as f:
        records = [json.loads(line) for line in f if line.strip()]
    assert [r["iteration"] for r in records] == [1, 2, 3]
    assert all(r["loss"] == r["loss"] and r["positions_per_s"] > 0 for r in records)
    assert os.path.isfile(os.path.join(run_dir, "curves.png"))
    train_cell = cell_after(nb, "## Train ScrofaZero, with a live curve")
    assert any("image/png" in o.get("data", {}) for o in train_cell.outputs)
    assert re.search(r"^iteration 3: loss \d", text_of(train_cell), re.M)
    with open(os.path.join(run_dir, "eval.json")) as f:  # WPG during training, at iteration 3
        wpg = json.load(f)["evaluations"]
    assert [e["iteration"] for e in wpg] == [3] and wpg[0]["games"] == 4
    assert re.search(rf"^WPG vs two Mr Greeds at iteration 3: {wpg[0]['mean']:+.1f} ± ",
                     text_of(train_cell), re.M)

    # the trained player against Mr Greed, and the pretrained one, on 2 deals each
    for key, heading, who in (
            ("evaluation", "## Evaluate against Mr Greed", r"ScrofaZero \(3 iterations\)"),
            ("pretrained", "## A pretrained player", PRETRAINED)):
        r = got[key]
        assert r["b"] == "greed" and r["deals"] == 2 and r["games"] == 4, r
        assert r["wpg"] == r["mean"] and -1000 < r["mean"] < 1000 and r["stderr"] >= 0, r
        assert re.search(rf"{who} vs Mr Greed on 2 deals \(4 games\): WPG [+-]\d+\.\d ± \d+\.\d",
                         text_of(cell_after(nb, heading))), text_of(cell_after(nb, heading))
    assert got["pretrained_about"] == shipped
    assert re.search(rf"^  {re.escape(shipped['lineage']['command'])}$",
                     text_of(cell_after(nb, "## A pretrained player")), re.M)

    # written only into WORKDIR, nothing next to the notebook
    assert os.listdir(work) == ["quickstart"]
    assert not (ROOT / "notebooks" / "cardjax-quickstart").exists()
