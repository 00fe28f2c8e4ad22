"""docs/tutorial.md, run as a notebook in a real Jupyter kernel (nbclient):
every code block in order, then the numbers the page quotes are checked
against what the cells printed and against the formulas the page compares
them with (the payload bound, Mathis et al. 1997)."""

import json
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from pytest import TempPathFactory

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "tutorial.md"


def notebook_from_markdown(text: str) -> nbformat.NotebookNode:
    """Markdown cells for the prose, code cells for the ```python blocks."""
    nb: nbformat.NotebookNode = nbformat.v4.new_notebook()
    parts = re.split(r"```python\n(.*?)```\n", text, flags=re.S)
    for i, part in enumerate(parts):
        if i % 2:
            nb.cells.append(nbformat.v4.new_code_cell(part.rstrip("\n")))
        elif part.strip():
            nb.cells.append(nbformat.v4.new_markdown_cell(part.strip()))
    return nb


def cell_text(cell: Any) -> str:
    out = []
    for o in cell.get("outputs", []):
        if o["output_type"] == "stream":
            out.append(o["text"])
        elif "data" in o:
            out.append(o["data"].get("text/plain", ""))
    return "".join(out)


def quoted(pattern: str) -> float:
    """A number the page's prose quotes in bold, found by the words around it."""
    m = re.search(pattern, PAGE.read_text())
    assert m, f"docs/tutorial.md no longer says {pattern!r}"
    return float(m.group(1))


@pytest.fixture(scope="module")
def executed(tmp_path_factory: TempPathFactory) -> tuple[list[Any], dict[str, Any]]:
    d = tmp_path_factory.mktemp("tutorial")
    nb = notebook_from_markdown(PAGE.read_text())
    # what the cells computed, read back from the kernel after the page's own cells
    nb.cells.append(
        nbformat.v4.new_code_cell(
            "import json\nprint('CHECK ' + json.dumps({'table': table.to_dicts(), "
            "'jain': jain['jain(flows.goodput_bps)'].to_list(), 'backend': __import__('matplotlib').get_backend(), "
            "'fig_title': fig.axes[0].get_title(), 'fig_ylabel': fig.axes[0].get_ylabel()}))"
        )
    )
    NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(d)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    return code, json.loads(cell_text(code[-1]).split("CHECK ", 1)[1])


def test_one_flow_numbers(executed: tuple[list[Any], dict[str, Any]]) -> None:
    code, _ = executed
    out = "".join(cell_text(c) for c in code)
    m = re.search(r"goodput ([\d.]+) Mb/s of at most ([\d.]+); link busy ([\d.]+)% of the time", out)
    assert m, out
    g, bound, util = map(float, m.groups())
    assert bound == pytest.approx(10 * 1448 / 1500, abs=0.005)
    assert 0.95 * bound <= g <= bound  # the payload bound, and a busy link with a 1-BDP buffer
    assert g == pytest.approx(quoted(r"goodput of about \*\*([\d.]+) Mb/s"), abs=0.005)
    assert util == pytest.approx(quoted(r"busy\s+\*\*([\d.]+) %"), abs=0.05)
    assert "ccsim Scenario" in "".join(str(o.get("data", {}).get("text/html", "")) for o in code[0].outputs)


def test_random_loss_against_mathis(executed: tuple[list[Any], dict[str, Any]]) -> None:
    code, _ = executed
    out = "".join(cell_text(c) for c in code)
    m = re.search(r"goodput ([\d.]+) Mb/s; Mathis ([\d.]+) Mb/s at the measured RTT ([\d.]+) ms; ratio ([\d.]+)", out)
    assert m, out
    g, mathis, rtt, ratio = map(float, m.groups())
    assert 0.8 <= ratio <= 1.25  # Mathis' formula is an approximation; ±20 % is its usual agreement
    assert 40.0 <= rtt <= 45.0  # base RTT 40 ms plus serialization, little queueing
    assert g == pytest.approx(quoted(r"about \*\*([\d.]+) Mb/s\*\* against"), abs=0.005)
    assert mathis == pytest.approx(quoted(r"Mathis' \*\*([\d.]+) Mb/s"), abs=0.005)
    assert ratio == pytest.approx(quoted(r"ratio\s+of about \*\*([\d.]+)\*\*"), abs=0.005)


def test_l4s_latency_separation(executed: tuple[list[Any], dict[str, Any]]) -> None:
    code, _ = executed
    out = "".join(cell_text(c) for c in code)
    got = {
        m.group(1): (float(m.group(2)), float(m.group(3)), float(m.group(4)))
        for m in re.finditer(r"(cubic|prague): ([\d.]+) Mb/s, queueing delay mean ([\d.]+) ms, p99 ([\d.]+) ms", out)
    }
    assert set(got) == {"cubic", "prague"}, out
    # RFC 9332: the L queue's step at 1 ms, the C queue's PI2 target of 15 ms
    assert got["prague"][2] < 1.0 and 10.0 <= got["cubic"][1] <= 20.0
    assert got["prague"][1] == pytest.approx(quoted(r"wait about \*\*([\d.]+) ms\*\* on average"), abs=0.005)
    assert got["cubic"][1] == pytest.approx(quoted(r"CUBIC's about \*\*([\d.]+) ms"), abs=0.005)


def test_sweep_table_figure_and_query(executed: tuple[list[Any], dict[str, Any]]) -> None:
    code, check = executed
    out = "".join(cell_text(c) for c in code)
    assert "18 runs: 18 computed, 0 already there, 0 failed, 0 invalid" in out
    rows = {(r["tcp.cc"], r["topology.buffer"]): r["links.utilization_mean"] for r in check["table"]}
    assert len(rows) == 6 and all(r["links.utilization_n"] == 3 for r in check["table"])
    assert all(0 < u < 1 for u in rows.values())
    # what the page says about them: NewReno leaves about a tenth unused at 0.25 BDP, about 2 % at 1 BDP;
    # CUBIC keeps almost all of the link at 0.25 BDP
    assert 0.85 <= rows[("newreno", "0.25bdp")] <= 0.95 and 0.97 <= rows[("newreno", "1bdp")] < 1
    assert rows[("cubic", "0.25bdp")] >= 0.96
    assert all(0.2 <= j <= 1.0 for j in check["jain"])  # 1/n ≤ Jain ≤ 1 with n = 5 flows
    assert check["fig_ylabel"] == "Jain's fairness index of goodput over flows"
    assert "inline" in check["backend"]  # ccsim never switched the notebook's backend
    figure_outputs = [o for c in code for o in c.outputs if "image/png" in o.get("data", {})]
    assert figure_outputs, "the figure cell displays a figure"
    query = [c for c in code if "c.query(" in c.source][0]
    assert "shape: (6, 4)" in cell_text(query)
    assert check["fig_title"].endswith("CI clipped to [0, 1])") or "CI over n = 3 runs" in check["fig_title"]
