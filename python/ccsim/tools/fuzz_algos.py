"""The fixed set of Python algorithms the fuzz generator draws
(`ccsim.tools.fuzz`): one that behaves, and hostile ones that raise, write
bad values, write through a kept view or never return. Each says what a
run of it may end in (`fuzz_expect`): "ok" (the run's invariants hold),
"raised" (an exception from the algorithm, with the core's note naming
the hook, flow and time) or "timeout" (stopped by the case's time limit).
Anything else (a crash, an abort, a hang, an exception without the note)
is a failure."""

from __future__ import annotations

from ccsim import cc
from ccsim.cc import Tcp
from ccsim.pyalgo import Algorithm


class FuzzReno(Algorithm):
    """Linux Reno with the kernel's helpers: behaves."""

    name = "fuzz-reno"
    fuzz_expect: tuple[str, ...] = ("ok",)
    fuzz_timeout_s: float | None = None

    def ssthresh(self, tp: Tcp) -> int:
        return max(tp.cwnd >> 1, 2)

    def cong_avoid(self, tp: Tcp, acked: int) -> None:
        if tp.in_slow_start():
            acked = cc.slow_start(tp, acked)
            if not acked:
                return
        cc.cong_avoid_ai(tp, tp.cwnd, acked)


class FuzzRaise(FuzzReno):
    """Raises from cong_avoid once 0.2 s have been simulated."""

    name = "fuzz-raise"
    fuzz_expect = ("ok", "raised")

    def cong_avoid(self, tp: Tcp, acked: int) -> None:
        if tp.now_s > 0.2:
            raise RuntimeError("a bug in the user's algorithm")
        super().cong_avoid(tp, acked)


class FuzzBadWindow(FuzzReno):
    """Writes a window of 0 (the setter refuses it on this line)."""

    name = "fuzz-bad-window"
    fuzz_expect = ("ok", "raised")

    def cong_avoid(self, tp: Tcp, acked: int) -> None:
        tp.cwnd = 0


class FuzzNaNPacing(FuzzReno):
    """Writes a pacing rate of NaN (refused by the setter)."""

    name = "fuzz-nan-pacing"
    fuzz_expect = ("ok", "raised")

    def init(self, tp: Tcp) -> None:
        tp.pacing_rate = float("nan")


class FuzzKeptView(FuzzReno):
    """Keeps `tp` from one hook and writes it in a later one (refused:
    a view is valid only during its call)."""

    name = "fuzz-kept-view"
    fuzz_expect = ("ok", "raised")

    def init(self, tp: Tcp) -> None:
        self.kept = tp

    def cong_avoid(self, tp: Tcp, acked: int) -> None:
        self.kept.cwnd = 7
        super().cong_avoid(tp, acked)


class FuzzHugeWindow(FuzzReno):
    """Opens the window as far as the setter allows (10^6 segments) on
    every ACK. On a slow link each ACK then sends a burst of up to a
    million segments, an event storm that only the time limit ends (as a
    built-in algorithm with `initial_window = 1000000` does): "timeout" was
    added to its outcomes after `make fuzz N=100000 SEED=50` found such a
    case (66938) over the 60 s budget (docs/reliability.md)."""

    name = "fuzz-huge-window"
    fuzz_expect = ("ok", "raised", "timeout")
    fuzz_timeout_s = 5.0

    def cong_avoid(self, tp: Tcp, acked: int) -> None:
        tp.cwnd = tp.cwnd_clamp


class FuzzSpin(FuzzReno):
    """Never returns from cong_avoid once 0.2 s have been simulated: only
    the time limit's interruption ends the run (`RunInterrupted`)."""

    name = "fuzz-spin"
    fuzz_expect = ("ok", "timeout")
    fuzz_timeout_s = 1.0

    def cong_avoid(self, tp: Tcp, acked: int) -> None:
        while tp.now_s > 0.2:
            pass
        super().cong_avoid(tp, acked)


HOSTILE = [FuzzReno, FuzzRaise, FuzzBadWindow, FuzzNaNPacing, FuzzKeptView, FuzzHugeWindow, FuzzSpin]
