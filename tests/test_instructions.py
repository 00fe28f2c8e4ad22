"""The core's cost guard: instructions per delivered packet and per event,
counted by valgrind's callgrind (deterministic, unlike CPU time on a shared
machine), must stay within a tolerance of the values recorded in
tools/instructions.json, so a change that costs 5 % is seen. Skipped where
valgrind is missing, unless CCSIM_REQUIRE_VALGRIND is set (.ci/run sets it
where it installed valgrind)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUARD = json.loads((ROOT / "tools" / "instructions.json").read_text())
BIN = ROOT / "target" / "profiling" / "examples" / "quick"


def judge(measured: float, recorded: float, tolerance: float) -> str | None:
    """None when `measured` is within `tolerance` (a fraction) of `recorded`,
    else a line saying by how much it moved."""
    moved = measured / recorded - 1
    return None if abs(moved) <= tolerance else f"{measured:.1f} against {recorded:.1f} recorded ({moved:+.1%})"


def test_the_judge_sees_a_five_percent_change() -> None:
    tol = GUARD["tolerance"]
    assert tol < 0.05
    assert judge(3173.0, 3173.0, tol) is None
    assert judge(3173.0 * 1.02, 3173.0, tol) is None
    assert judge(3173.0 * 1.05, 3173.0, tol) == "3331.7 against 3173.0 recorded (+5.0%)"
    assert judge(3173.0 * 0.95, 3173.0, tol) is not None


def _callgrind(args: str) -> tuple[int, int, int]:
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", str(BIN), *args.split()],
        capture_output=True,
        text=True,
        check=True,
    )
    text = out.stdout + out.stderr
    ir = int(re.search(r"Collected : ([0-9]+)", text).group(1))  # type: ignore[union-attr]
    m = re.search(r"delivered ([0-9]+) pkts, ([0-9]+) events", text)
    assert m, text[-2000:]
    return ir, int(m.group(1)), int(m.group(2))


@pytest.fixture(scope="module")
def quick() -> Path:
    if shutil.which("valgrind") is None:
        if os.environ.get("CCSIM_REQUIRE_VALGRIND"):
            pytest.fail("valgrind is required (CCSIM_REQUIRE_VALGRIND) but not installed")
        pytest.skip("valgrind is not installed")
    cargo = os.environ.get("CARGO", "cargo")
    subprocess.run(
        [cargo, "build", "--quiet", "--profile", "profiling", "--example", "quick", "-p", "ccsim-core"],
        cwd=ROOT,
        check=True,
    )
    return BIN


@pytest.mark.parametrize("case", GUARD["cases"], ids=[c["args"].replace(" ", "_") for c in GUARD["cases"]])
def test_instructions_per_packet_and_per_event_hold(quick: bool, case: dict[str, Any]) -> None:
    ir, pkts, events = _callgrind(case["args"])
    tol = GUARD["tolerance"]
    moved = [
        f"{what}: {line}"
        for what, line in (
            ("instructions per packet", judge(ir / pkts, case["instr_per_pkt"], tol)),
            ("instructions per event", judge(ir / events, case["instr_per_event"], tol)),
        )
        if line is not None
    ]
    assert moved == [], (
        f"quick {case['args']}: " + "; ".join(moved) + " — find the change, or record the new value in "
        "tools/instructions.json with its reason in docs/performance.md"
    )
