"""The first hour of a new user: the README's Python snippet as a script
(with and without the `__main__` guard), sweeps that fail loudly, notebooks
(a real Jupyter kernel through jupyter_client / nbclient), errors with the
way out, the identical-seeds warning and the sweep figure's bounds."""

import os
import re
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import ccsim
import helpers
import polars as pl
import pytest
from ccsim.experiments.aggregate import aggregate, describe_metric, plot_sweep
from ccsim.experiments.runner import IdenticalSeedsWarning, run_sweep

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable

TINY = dict(helpers.TINY, flows=[{"count": 2, "app": "bulk"}])  # no random element
DRAWN = helpers.TINY  # start times drawn from the seed


def readme_snippet() -> str:
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "README.md has no ```python block"
    return str(blocks[0])


def unguarded(snippet: str) -> str:
    """The same code written as a new user often writes it: at top level."""
    head, guard, body = snippet.partition('if __name__ == "__main__":')
    assert guard, "the README snippet is not guarded"
    body = body.split("\n", 1)[1]
    return head + textwrap.dedent(body)


def run_script(tmp_path: Path, name: str, code: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    if not (tmp_path / "examples").exists():
        (tmp_path / "examples").symlink_to(ROOT / "examples")
    (tmp_path / name).write_text(code)
    return subprocess.run([PY, name], cwd=tmp_path, capture_output=True, text=True, timeout=timeout)


def test_readme_snippet_guarded_runs_and_unguarded_fails_loudly(tmp_path: Path) -> None:
    snippet = readme_snippet()
    (tmp_path / "a").mkdir()
    r = run_script(tmp_path / "a", "study.py", snippet)
    assert r.returncode == 0, r.stderr
    assert "20 runs: 20 computed, 0 already there, 0 failed, 0 invalid" in r.stdout
    # the snippet draws start times, so its seeds differ: no identical-seeds warning
    assert "identical results" not in r.stderr
    c = ccsim.open_campaign(tmp_path / "a" / "results" / "mine")
    assert c.ok_runs.height == 20 and c.failures.height == 0

    (tmp_path / "b").mkdir()
    t0 = time.monotonic()
    r = run_script(tmp_path / "b", "study.py", unguarded(snippet))
    took = time.monotonic() - t0
    assert r.returncode != 0
    assert "WorkerStartError" in r.stderr and 'has no `if __name__ == "__main__":` guard' in r.stderr
    assert "study.py" in r.stderr and "No run was recorded as failed" in r.stderr
    # nothing was recorded as a failure of the sweep
    store = tmp_path / "b" / "results" / "mine" / "catalogue.jsonl"
    assert not store.exists() or '"failed"' not in store.read_text()
    assert took < 120, "the workers stop at the script's first ccsim call instead of re-running it"


def test_a_worker_that_dies_while_starting_names_the_cause(tmp_path: Path) -> None:
    # an unguarded script whose worker dies of something else on import
    code = textwrap.dedent(f"""
        import os, sys, ccsim
        if sys.argv[0] == "" or "__mp_main__" in sys.modules:
            sys.exit(3)   # the re-import in a worker fails for its own reason
        sw = ccsim.Sweep({TINY!r}, grid={{"tcp.cc": ["reno", "cubic"]}})
        ccsim.run_sweep(sw, "c", jobs=2)
        """)
    r = run_script(tmp_path, "s.py", code)
    assert r.returncode != 0
    assert "died while starting (exit code 3)" in r.stderr and "has no `if __name__" in r.stderr


CRASH_HARNESS = """
# Test harness: a native crash of one run, as a segfault in the core would be.
import os
import ccsim._core as core

_run = core.run


def run(payload, control=None):
    if '"duration_ps":1234000000000' in payload.replace(" ", ""):
        os.abort()
    return _run(payload, control)


core.run = run
"""


def test_sweep_with_a_crashing_point_fails_and_names_it(tmp_path: Path) -> None:
    harness = tmp_path / "harness"
    harness.mkdir()
    (harness / "sitecustomize.py").write_text(CRASH_HARNESS)
    (tmp_path / "base.toml").write_text(ccsim.Scenario(TINY).to_toml())
    (tmp_path / "s.toml").write_text('base = "base.toml"\n[grid]\n"sim.duration" = ["1s", "1.234s", "2s"]\n')
    env = dict(os.environ, PYTHONPATH=str(harness))
    r = subprocess.run(
        [PY, "-m", "ccsim", "sweep", str(tmp_path / "s.toml"), "--out", str(tmp_path / "c"), "-j", "2"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 1, r.stderr
    assert "1 runs did not produce results" in r.stderr
    assert re.search(r"sim\.duration='1\.234s'.*crash: worker process died \(exit code -6\)", r.stderr), r.stderr
    # the two good runs are kept and the crash is in the catalogue
    c = ccsim.open_campaign(tmp_path / "c")
    assert sorted(c.ok_runs["sim.duration"].to_list()) == ["1s", "2s"]
    assert c.failures.select("kind", "sim.duration").row(0) == ("crash", "1.234s")
    # the Python API raises, with the same summary
    code = textwrap.dedent(f"""
        import ccsim
        if __name__ == "__main__":
            sw = ccsim.Sweep.from_file({str(tmp_path / "s.toml")!r})
            try:
                ccsim.run_sweep(sw, {str(tmp_path / "d")!r}, jobs=2)
            except ccsim.SweepFailed as e:
                print("RAISED", e.report.computed, len(e.report.failed))
                print(e)
        """)
    r = subprocess.run([PY, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert "RAISED 2 1" in r.stdout, r.stdout + r.stderr
    assert "crash: 1 run; first" in r.stdout and "sim.duration='1.234s'" in r.stdout


def test_dry_run_with_invalid_points_exits_2(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text(ccsim.Scenario(TINY).to_toml())
    (tmp_path / "s.toml").write_text('base = "base.toml"\n[grid]\n"topology.buffer" = ["1bdp", "0bdp"]\n')
    r = subprocess.run(
        [PY, "-m", "ccsim", "sweep", str(tmp_path / "s.toml"), "--dry-run", "--out", str(tmp_path / "c")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "1 invalid points" in r.stderr and "0bdp" in r.stdout
    r = subprocess.run(
        [PY, "-m", "ccsim", "run", str(tmp_path / "s.toml"), "--no-write"], capture_output=True, text=True
    )
    assert r.returncode == 2 and "this is a sweep file" in r.stderr and "ccsim sweep" in r.stderr


@pytest.mark.parametrize(
    "override, hint",
    [
        ({"tcp.cc": "cubik"}, "did you mean 'cubic'?"),
        ({"tcp.cc": "BBR"}, "did you mean 'bbr'?"),
        ({"tcp.delayed_ak": True}, "did you mean 'delayed_ack'?"),
        ({"topology.queue": "codle"}, "did you mean 'codel'"),
        ({"topology.kind": "dumbel"}, "did you mean 'dumbbell'?"),
    ],
)
def test_errors_suggest_the_close_name(override: dict[str, Any], hint: str) -> None:
    with pytest.raises(ccsim.ScenarioError) as ei:
        ccsim.load(ROOT / "examples" / "dumbbell.toml").with_overrides(override)
    assert hint in str(ei.value)


def test_query_hints_quoting_and_columns(tmp_path: Path) -> None:
    run_sweep(ccsim.Sweep(DRAWN, grid={"tcp.cc": ["reno", "cubic"]}), tmp_path / "c", executor="serial")
    c = ccsim.open_campaign(tmp_path / "c")
    with pytest.raises(ccsim.ScenarioError) as ei:
        c.query("SELECT tcp.cc, avg(goodput_bps) FROM flows GROUP BY 1")
    assert 'axis columns with dots must be quoted in SQL: "tcp.cc"' in str(ei.value)
    assert c.query('SELECT "tcp.cc", avg(goodput_bps) AS g FROM flows GROUP BY 1').height == 2
    with pytest.raises(ccsim.ScenarioError) as ei:
        c.per_run("flows.goodput_bp", "sum")
    assert "did you mean 'goodput_bps'?" in str(ei.value)
    with pytest.raises(ccsim.ScenarioError) as ei:
        c.table("flow")
    assert "did you mean 'flows'" in str(ei.value)


def test_identical_seeds_warn_and_random_ones_do_not(tmp_path: Path) -> None:
    with pytest.warns(IdenticalSeedsWarning, match="every point gave identical results for each of its 3 seeds"):
        rep = run_sweep(
            ccsim.Sweep(TINY, grid={"tcp.cc": ["reno", "cubic"]}, seeds=3), tmp_path / "a", executor="serial"
        )
    assert rep.warnings and "drawn start times" in rep.warnings[0] and "warning:" in rep.summary()
    with warnings.catch_warnings():
        warnings.simplefilter("error", IdenticalSeedsWarning)
        rep = run_sweep(
            ccsim.Sweep(DRAWN, grid={"tcp.cc": ["reno", "cubic"]}, seeds=3), tmp_path / "b", executor="serial"
        )
    assert rep.warnings == []


def test_sweep_figure_labels_and_bounded_ci(tmp_path: Path) -> None:
    # Jain indices near 1 with a spread whose Student-t interval crosses 1:
    # mean 0.97, s = 0.0283, n = 3 -> half-width t(0.975, 2) * s / sqrt(3) = 4.303 * 0.01633 = 0.0703
    frame = pl.DataFrame({"x": ["a"] * 3 + ["b"] * 3, "jain(flows.goodput_bps)": [0.99, 0.99, 0.93, 0.5, 0.6, 0.7]})
    a = aggregate(frame, "x", "jain(flows.goodput_bps)", bounds=(0.0, 1.0)).sort("x")
    assert a["jain(flows.goodput_bps)_ci_hi"][0] == 1.0 and a["jain(flows.goodput_bps)_ci_clipped"][0]
    assert a["jain(flows.goodput_bps)_ci_lo"][0] == pytest.approx(0.97 - 4.302653 * 0.034641 / 3**0.5, rel=1e-4)
    assert not a["jain(flows.goodput_bps)_ci_clipped"][1]
    fig = plot_sweep(frame, "x", "jain(flows.goodput_bps)", out=tmp_path / "j.png")
    ax = fig.axes[0]
    assert ax.get_ylabel() == "Jain's fairness index of goodput over flows"
    assert "CI clipped to [0, 1]" in ax.get_title() and ax.get_ylim()[1] <= 1.05
    assert describe_metric("flows.goodput_bps", "sum")["label"] == "total goodput over flows, Mb/s"
    assert describe_metric("flows.fct_s", "max")["label"] == "largest flow completion time among flows, s"
    assert (tmp_path / "j.png").stat().st_size > 0
    with pytest.raises(FileExistsError):
        plot_sweep(frame, "x", "jain(flows.goodput_bps)", out=tmp_path / "j.png", overwrite=False)


def test_hue_by_a_table_column_and_replacing_a_figure_is_said(tmp_path: Path) -> None:
    mixed = dict(
        TINY,
        flows=[
            {"count": 1, "app": "bulk", "cc": "reno", "start": {"dist": "uniform", "min": "0s", "max": "0.2s"}},
            {"count": 1, "app": "bulk", "cc": "cubic"},
        ],
    )
    run_sweep(
        ccsim.Sweep(mixed, grid={"topology.buffer": ["0.5bdp", "2bdp"]}, seeds=2), tmp_path / "c", executor="serial"
    )
    per = ccsim.open_campaign(tmp_path / "c").per_run("flows.goodput_bps", "sum", by="cc")
    assert per.height == 8 and set(per["cc"].to_list()) == {"reno", "cubic"}
    args = [
        PY,
        "-m",
        "ccsim",
        "plot-sweep",
        str(tmp_path / "c"),
        "--x",
        "topology.buffer",
        "--y",
        "flows.goodput_bps",
        "--hue",
        "cc",
        "--reduce",
        "sum",
    ]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = Path(r.stdout.strip())
    assert out.name == "flows.goodput_bps_vs_topology.buffer_by_cc.png" and out.exists()
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0 and f"replacing the existing figure {out}" in r.stderr
    r = subprocess.run(args[:-4] + ["--hue", "ccc"], capture_output=True, text=True)
    assert r.returncode == 2 and "did you mean 'cc'" in r.stderr


def test_ctrl_c_stops_a_run_within_a_second() -> None:
    sc = ccsim.Scenario(
        TINY
        | {"sim": {"duration": "100000s", "sample_interval": "off"}, "topology": TINY["topology"] | {"rate": "1Gbps"}}
    )
    fired = {}

    def interrupt() -> None:
        fired["t"] = time.monotonic()
        os.kill(os.getpid(), 2)  # SIGINT, as Ctrl-C sends

    import signal

    # Python's own Ctrl-C handler (another library imported earlier in this
    # process, dask_jobqueue's runner, replaces it with one that exits)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Timer(0.5, interrupt).start()
        with pytest.raises(KeyboardInterrupt):
            sc.run()
    finally:
        signal.signal(signal.SIGINT, old)
    assert time.monotonic() - fired["t"] < 1.0
    with pytest.raises(TimeoutError, match="stopped after 0.3 s of wall time"):
        sc.run(timeout=0.3)


def test_reprs_say_what_the_object_is() -> None:
    sc = ccsim.load(ROOT / "examples" / "dumbbell.toml").with_overrides({"sim.duration": "2s"})
    r = repr(sc)
    assert "dumbbell" in r and "10× newreno bulk" in r and "100Mbps" in r and "seed 1" in r
    assert "<table>" in sc._repr_html_()
    res = sc.run()
    assert repr(res).startswith("<Result ") and "10 flows, total goodput" in repr(res)
    assert "goodput_Mbps" in res._repr_html_()
    sw = ccsim.Sweep(sc, grid={"tcp.cc": ["reno", "cubic"]}, seeds=3)
    assert "2 points × 3 seeds = 6 runs" in repr(sw) and "tcp.cc" in sw._repr_html_()


NOTEBOOK_CHECK = r"""
import json, time
import matplotlib
before = matplotlib.get_backend()
import ccsim
from ccsim.experiments.aggregate import plot_sweep
import polars as pl
fig = plot_sweep(pl.DataFrame({"x": [1, 1, 2, 2], "flows.goodput_bps": [1e6, 2e6, 3e6, 4e6]}), "x", "flows.goodput_bps")
res = ccsim.load(EXAMPLE).with_overrides({"sim.duration": "1s"}).run()
print(json.dumps({"before": before, "after": matplotlib.get_backend()}))
res
"""


def test_in_a_jupyter_kernel_backend_html_and_interrupt(tmp_path: Path) -> None:
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3", cwd=str(tmp_path))
    try:

        def execute(code: str, timeout: int = 120) -> tuple[list[dict[str, Any]], dict[str, Any]]:
            msg_id = kc.execute(code)
            outputs, reply = [], None
            while True:
                msg = kc.get_iopub_msg(timeout=timeout)
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                if msg["msg_type"] in ("stream", "execute_result", "display_data", "error"):
                    outputs.append(msg)
                if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                    break
            reply = kc.get_shell_msg(timeout=timeout)
            return outputs, reply

        outs, reply = execute(NOTEBOOK_CHECK.replace("EXAMPLE", repr(str(ROOT / "examples" / "dumbbell.toml"))))
        assert reply["content"]["status"] == "ok", outs
        import json

        stream = "".join(o["content"]["text"] for o in outs if o["msg_type"] == "stream")
        b = json.loads(stream.strip().splitlines()[-1])
        assert b["before"] == b["after"] and "inline" in b["before"], b
        result = [o for o in outs if o["msg_type"] == "execute_result"][0]["content"]["data"]
        assert "text/html" in result and "ccsim Result" in result["text/html"]

        long = repr(
            dict(
                TINY,
                sim={"duration": "100000s", "sample_interval": "off"},
                topology=dict(TINY["topology"], rate="1Gbps"),
            )
        )
        msg_id = kc.execute(f"import ccsim\nccsim.Scenario({long}).run()")
        time.sleep(2.0)
        t0 = time.monotonic()
        km.interrupt_kernel()
        while True:
            msg = kc.get_iopub_msg(timeout=30)
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "error":
                break
        took = time.monotonic() - t0
        assert msg["content"]["ename"] == "KeyboardInterrupt"
        assert took < 1.0, took
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_worked_example_in_experiments_md_is_what_the_sweep_prints(tmp_path: Path) -> None:
    doc = (ROOT / "docs" / "experiments.md").read_text()
    block = doc.split("tests/test_first_hour.py checks every table row against a new run -->", 1)[1]
    block = block.split("```text\n", 1)[1].split("```", 1)[0]
    rows = [line for line in block.splitlines() if re.match(r"\s+[\d.]+bdp\s", line)]
    assert len(rows) == 18
    r = subprocess.run(
        [PY, "-m", "ccsim", "sweep", str(ROOT / "examples" / "sweep_buffers.toml"), "--out", str(tmp_path / "c")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    for row in rows:
        assert row in r.stdout.splitlines(), f"docs/experiments.md shows a row the sweep no longer prints: {row}"
    # the prose: NewReno leaves about 9 % unused at 0.25 BDP, CUBIC and Vegas under 3 %
    util = {
        (m.group(2), m.group(1)): float(m.group(3))
        for m in (re.match(r"\s+([\d.]+bdp)\s+(\w+)\s+([\d.]+)", row) for row in rows[:9])
        if m is not None
    }
    assert 0.89 <= util[("newreno", "0.25bdp")] <= 0.93
    assert util[("cubic", "0.25bdp")] > 0.97 and util[("vegas", "0.25bdp")] > 0.97


def test_every_script_snippet_that_runs_a_sweep_is_guarded() -> None:
    """README and docs code that starts a process pool keeps it under the
    `__main__` guard (docs/tutorial.md is a notebook's cells, which need none,
    and says so to script users)."""
    pages = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    checked = 0
    for page in pages:
        if page.name == "tutorial.md":
            continue
        for block in re.findall(r"```python\n(.*?)```", page.read_text(), re.S):
            if "run_sweep(" not in block:
                continue
            checked += 1
            guard = block.find('if __name__ == "__main__":')
            assert 0 <= guard < block.find("run_sweep("), f"{page.name}: unguarded sweep snippet:\n{block}"
    assert checked >= 3
