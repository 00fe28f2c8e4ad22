"""A scenario file from someone else, and a run that will not end: what
ccsim does not do on its own (import code, hang, wait forever), each
checked where it failed before (docs/reliability.md)."""

import shutil
import subprocess
import sys
from pathlib import Path

import ccsim
import pytest

ROOT = Path(__file__).resolve().parent.parent
CCSIM = [sys.executable, "-m", "ccsim"]
ZEN = "Beautiful is better than ugly"

SCENARIO = """
[sim]
duration = "2s"
seed = 1
[topology]
kind = "single_link"
rate = "10Mbps"
delay = "10ms"
[tcp]
cc = "{cc}"
[[flows]]
count = 2
app = "bulk"
"""


def ccsim_cli(*args, cwd=None):
    return subprocess.run([*CCSIM, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300)


def scenario_file(folder: Path, cc: str, name="s.toml") -> Path:
    p = folder / name
    p.write_text(SCENARIO.format(cc=cc))
    return p


# ---------------------------------------------------------------- py: from a file


def test_a_scenario_file_imports_no_code_unless_the_user_allows_it(tmp_path):
    """`py:this:X` (the standard library's `this` prints the Zen of Python
    when imported) from a file: refused in one line, nothing imported, with
    or without --allow-code (with it, only this.py in the file's folder is
    looked for, never the module path)."""
    f = scenario_file(tmp_path, "py:this:X")
    r = ccsim_cli("run", "--no-write", f)
    assert r.returncode == 2 and ZEN not in r.stdout + r.stderr
    assert "would import and run the Python module 'this'" in r.stderr and "--allow-code" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = ccsim_cli("run", "--no-write", "--allow-code", f)
    assert r.returncode == 2 and ZEN not in r.stdout + r.stderr
    assert "no module file" in r.stderr and str(tmp_path / "this.py") in r.stderr
    # the counterfactual: Python's own import would have run it
    r = subprocess.run([sys.executable, "-c", "import this"], capture_output=True, text=True)
    assert ZEN in r.stdout
    # the Python API says the same without allow_code
    with pytest.raises(ccsim.ScenarioError, match="would import and run"):
        ccsim.Scenario.from_file(f)
    with pytest.raises(ccsim.ScenarioError, match="would import and run"):
        ccsim.run(str(f))


def test_an_allowed_file_algorithm_is_found_beside_the_file_and_runs_on_worker_processes(tmp_path):
    """With leave, MODULE.py beside the scenario (whatever the current
    directory) or at a path the reference gives; a sweep's worker
    processes, which do not have that folder on their path, load it from
    the same file. Results equal the built-in reno's (the port is exact)."""
    algos = tmp_path / "algos"
    algos.mkdir()
    shutil.copy(ROOT / "examples" / "pyreno.py", tmp_path / "myreno.py")
    shutil.copy(ROOT / "examples" / "pyreno.py", algos / "otherreno.py")
    beside = scenario_file(tmp_path, "py:myreno:PyReno")
    by_path = scenario_file(tmp_path, "py:algos/otherreno.py:PyReno", "p.toml")
    ref = ccsim.Scenario.from_file(scenario_file(tmp_path, "reno", "ref.toml")).run()
    for f in (beside, by_path):
        res = ccsim.Scenario.from_file(f, allow_code=True).run()
        assert res.flows["goodput_bps"].to_list() == ref.flows["goodput_bps"].to_list()
    sweep = tmp_path / "sw.toml"
    sweep.write_text('base = "s.toml"\nseeds = 2\n')
    r = ccsim_cli("sweep", "--out", tmp_path / "camp", "-q", sweep, cwd=ROOT)
    assert r.returncode == 2 and "--allow-code" in r.stderr, r.stderr
    r = ccsim_cli("sweep", "--out", tmp_path / "camp", "-q", "-j", "2", "--allow-code", sweep, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert ccsim.open_campaign(tmp_path / "camp").ok_runs.height == 2


def test_a_module_of_the_same_name_from_another_file_is_refused(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        shutil.copy(ROOT / "examples" / "pyreno.py", d / "samename_reno.py")
    ccsim.Scenario.from_file(scenario_file(a, "py:samename_reno:PyReno"), allow_code=True)
    with pytest.raises(ccsim.ScenarioError, match="already loaded from"):
        ccsim.Scenario.from_file(scenario_file(b, "py:samename_reno:PyReno"), allow_code=True)
