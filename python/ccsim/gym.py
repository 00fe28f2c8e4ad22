"""A Gymnasium environment for learning-based congestion control.

``gymnasium.make("ccsim/CongestionControl-v0")`` (after ``import ccsim.gym``)
or :class:`CongestionControlEnv` directly. One flow of a scenario is the
agent's; the rest of the scenario (cross traffic, queues, loss, traces) runs
as configured. A step is one monitor interval: the simulation advances under
the same core run (it is built once per episode, at ``reset``), and the
agent's flow sends at the rate (or with the window) the action sets.

Defaults follow Aurora (Jay, Rotman, Godfrey, Schapira & Tamar, "A Deep
Reinforcement Learning Perspective on Internet Congestion Control", ICML
2019; its simulator PCC-RL, src/gym/network_sim.py and
src/common/sender_obs.py): the action scales the sending rate by
(1 + 0.025·a) for a ≥ 0 and 1/(1 − 0.025·a) below; the observation is a
history of 10 intervals of (sent latency inflation, latency ratio, send
ratio), here followed by raw per-interval figures; the reward is
0.001·(10·packets delivered per second − 1000·mean RTT in s − 2000·loss
ratio); a monitor interval lasts half the flow's smoothed RTT.
docs/gym.md has the spaces, units and episode rules.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from . import _core
from .errors import ScenarioError
from .scenario.units import parse_rate, parse_time

ENV_ID = "ccsim/CongestionControl-v0"


# Intervals an observation may hold (the observation space has features ×
# history numbers; Aurora uses 10).
MAX_HISTORY = 10_000


def _whole(name: str, v: Any, lo: int, hi: int, what: str) -> int:
    """A whole number in [lo, hi] for the constructor argument `name`."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
        raise ScenarioError(name, v, f"a whole number of {what} from {lo:,} to {hi:,}")
    return int(v)


@dataclass(frozen=True)
class Feature:
    low: float
    high: float
    unit: str
    doc: str


# Every observable of one monitor interval, in the order of the default
# observation; Aurora's three first (their bounds are Aurora's).
FEATURES: dict[str, Feature] = {
    "sent_latency_inflation": Feature(
        -1.0, 10.0, "", "(mean RTT of the interval's second half of samples − first half) / interval length (Aurora)"
    ),
    "latency_ratio": Feature(1.0, 10000.0, "", "mean RTT of the interval / the smallest interval mean so far (Aurora)"),
    "send_ratio": Feature(
        0.0, 1000.0, "", "packets sent / packets delivered in the interval, 1 when none delivered (Aurora)"
    ),
    "delivery_rate_bps": Feature(0.0, np.inf, "b/s", "payload delivered (acked or SACKed) per second"),
    "loss_rate": Feature(0.0, 1.0, "", "segments marked lost / (lost + delivered)"),
    "rtt_min_s": Feature(0.0, np.inf, "s", "smallest RTT sample of the interval (0 when none)"),
    "rtt_mean_s": Feature(0.0, np.inf, "s", "mean RTT sample of the interval (0 when none)"),
    "queue_delay_s": Feature(0.0, np.inf, "s", "mean RTT of the interval − the flow's smallest RTT sample so far"),
    "ecn_fraction": Feature(0.0, 1.0, "", "segments reported CE-marked / segments delivered"),
}
AURORA_FEATURES = ("sent_latency_inflation", "latency_ratio", "send_ratio")

# Aurora's step size for the rate (config.DELTA_SCALE).
AURORA_ALPHA = 0.025


def default_scenario() -> dict[str, Any]:
    """One flow over a 12 Mb/s, 50 ms RTT link with a 1 BDP DropTail buffer,
    for 30 s (Aurora trained on 100-500 packets/s and 50-500 ms; 12 Mb/s
    is 1,000 packets/s of 1,500 bytes)."""
    return {
        "sim": {"duration": "30s", "seed": 1, "sample_interval": "off"},
        "topology": {"kind": "single_link", "rate": "12Mbps", "delay": "25ms", "buffer": "1bdp"},
        "flows": [{"count": 1, "app": "bulk"}],
    }


# Aurora's per-episode link (PCC-RL src/gym/network_sim.py,
# SimulatedNetworkEnv.create_new_links_and_senders): each drawn uniformly in
# its range at every reset. Bandwidth in 1,500-byte packets per second, the
# one-way delay of each direction in s, the queue as 1 + int(exp(x))
# packets, the loss probability of each direction, and the sender's first
# rate as a share of the bandwidth. Its episodes last MAX_STEPS = 400 steps.
AURORA_LINK_RANGES: dict[str, tuple[float, float]] = {
    "rate_pps": (100.0, 500.0),
    "delay_s": (0.05, 0.5),
    "queue_exp": (0.0, 8.0),
    "loss": (0.0, 0.05),
    "initial_rate_share": (0.3, 1.5),
}
AURORA_MAX_STEPS = 400
AURORA_PACKET_BYTES = 1500


def aurora_link(
    rng: np.random.Generator, ranges: Mapping[str, tuple[float, float]] = AURORA_LINK_RANGES
) -> dict[str, Any]:
    """One draw of Aurora's link: the scenario mapping of a single link with
    that rate, delay, buffer and loss in both directions, and the first rate
    (``"initial_rate_bps"``, not a scenario key: popped by the caller)."""
    u = {k: float(rng.uniform(lo, hi)) for k, (lo, hi) in ranges.items()}
    rate_bps = u["rate_pps"] * AURORA_PACKET_BYTES * 8
    queue = 1 + int(np.exp(u["queue_exp"]))
    loss = {"kind": "bernoulli", "p": u["loss"]}
    return {
        "sim": {"duration": "600s", "seed": 1, "sample_interval": "off"},
        "topology": {
            "kind": "single_link",
            "rate": f"{rate_bps!r}bps",
            "delay": f"{u['delay_s']!r}s",
            "buffer": f"{queue}pkt",
            "loss": loss,
            "reverse_loss": loss,
        },
        "flows": [{"count": 1, "app": "bulk"}],
        "initial_rate_bps": u["initial_rate_share"] * rate_bps,
    }


def aurora_reward(mi: Mapping[str, float]) -> float:
    """Aurora's reward (PCC-RL network_sim.py, REWARD_SCALE 0.001):
    10·throughput in packets/s − 1000·mean latency in s − 2000·loss ratio."""
    return 0.001 * (10.0 * mi["delivered_pps"] - 1e3 * mi["rtt_mean_s"] - 2e3 * mi["loss_rate"])


SECTIONS = ("sim", "topology", "tcp", "flows")


def _link_ranges(v: Any) -> dict[str, tuple[float, float]]:
    if v is True:
        return dict(AURORA_LINK_RANGES)
    if not isinstance(v, Mapping):
        raise ScenarioError("randomize_link", v, "True (Aurora's ranges) or a mapping of ranges to replace")
    out = dict(AURORA_LINK_RANGES)
    for k, r in v.items():
        if k not in AURORA_LINK_RANGES:
            raise ScenarioError(
                f"randomize_link.{k}",
                message=f"randomize_link.{k}: unknown; expected one of " + ", ".join(AURORA_LINK_RANGES),
            )
        ok = (
            isinstance(r, (tuple, list))
            and len(r) == 2
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) and np.isfinite(x) for x in r)
            and 0 <= r[0] <= r[1]
        )
        if not ok:
            raise ScenarioError(f"randomize_link.{k}", r, "(low, high), finite, 0 ≤ low ≤ high")
        out[k] = (float(r[0]), float(r[1]))
    if out["rate_pps"][0] <= 0 or out["delay_s"][0] <= 0 or out["loss"][1] >= 1:
        raise ScenarioError("randomize_link", v, "rate_pps and delay_s above 0, loss below 1")
    return out


class CongestionControlEnv(gymnasium.Env[np.ndarray[Any, Any], Any]):
    """One flow of a ccsim scenario, driven by an agent.

    Parameters
    ----------
    scenario: a Scenario, a scenario mapping or a file path (default
        :func:`default_scenario`); its ``sim.seed`` is replaced by the seed of
        each ``reset``.
    flow: index of the controlled flow in the resolved scenario.
    action: "rate" (default, Aurora) or "window": what the action scales.
    interval: the monitor interval: "0.5rtt" (default, Aurora: a multiple
        of the flow's smoothed RTT) or a time such as "20ms".
    first_interval: the interval before the first RTT sample.
    history: intervals in the observation (Aurora: 10).
    features: names of :data:`FEATURES` per interval (default: all).
    reward: a callable of the interval's figures (see ``info``), default
        :func:`aurora_reward`.
    initial_rate / min_rate / max_rate: the rate action's start (default
        3 Mb/s; not with ``randomize_link``, which draws it, kept within
        min_rate–max_rate) and bounds.
    initial_window / min_window / max_window: the window action's (segments).
    alpha: the step of the multiplicative action (Aurora: 0.025).
    action_bound: the action Box is [−bound, bound] (Aurora: 10¹²; a
        Gaussian policy learns better with a small one, such as 4).
    max_steps: end the episode (truncated) after this many steps; it also
        ends when the scenario's duration is reached.
    randomize_link: True for Aurora's training links (a single link drawn
        anew at every reset from :data:`AURORA_LINK_RANGES`, the first rate
        a drawn share of its bandwidth), or a mapping of some of those
        ranges to replace; not with ``scenario``.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        scenario: Any = None,
        flow: int = 0,
        action: str = "rate",
        interval: str = "0.5rtt",
        first_interval: str = "100ms",
        history: int = 10,
        features: tuple[str, ...] | None = None,
        reward: Callable[[Mapping[str, float]], float] | None = None,
        initial_rate: str | None = None,
        min_rate: str = "100kbps",
        max_rate: str = "10Gbps",
        initial_window: int = 10,
        min_window: int = 2,
        max_window: int = 100_000,
        alpha: float = AURORA_ALPHA,
        action_bound: float = 1e12,
        max_steps: int | None = None,
        randomize_link: bool | Mapping[str, tuple[float, float]] = False,
    ) -> None:
        from .scenario import Scenario, load

        self._ranges: dict[str, tuple[float, float]] | None = None
        if randomize_link is not False:
            self._ranges = _link_ranges(randomize_link)
            if scenario is not None:
                raise ScenarioError(
                    "randomize_link",
                    message="randomize_link: draws its own single link at every reset; not with scenario= "
                    "(vary a scenario of your own by making one environment per scenario)",
                )
            scenario = {k: v for k, v in aurora_link(np.random.default_rng(0), self._ranges).items() if k in SECTIONS}
        if scenario is None:
            scenario = default_scenario()
        if isinstance(scenario, Mapping):
            scenario = Scenario(dict(scenario))
        elif not isinstance(scenario, Scenario):
            scenario = load(scenario)
        self._scenario = scenario
        nflows = len(scenario.core["flows"])
        if not isinstance(flow, int) or isinstance(flow, bool) or not 0 <= flow < nflows:
            raise ScenarioError("flow", flow, f"the index of a flow of the scenario, 0..{nflows - 1}")
        self.flow = flow
        if action not in ("rate", "window"):
            raise ScenarioError("action", action, "one of 'rate', 'window'")
        self.action_kind = action
        self._interval_rtts: float | None = None
        self._interval_s: float | None = None
        if isinstance(interval, str) and interval.strip().endswith("rtt"):
            try:
                self._interval_rtts = float(interval.strip()[:-3])
            except ValueError:
                raise ScenarioError(
                    "interval", interval, "a multiple of the smoothed RTT such as '0.5rtt', or a time such as '20ms'"
                ) from None
            if not self._interval_rtts > 0:
                raise ScenarioError("interval", interval, "a multiple of the smoothed RTT > 0")
        else:
            self._interval_s = parse_time("interval", interval, allow_zero=False) * 1e-12
        self._first_interval_s = parse_time("first_interval", first_interval, allow_zero=False) * 1e-12
        self.history = _whole("history", history, 1, MAX_HISTORY, "intervals")
        if features is not None and (isinstance(features, (str, bytes)) or not isinstance(features, Iterable)):
            raise ScenarioError("features", features, "a list of names from ccsim.gym.FEATURES (or None: all)")
        self.features = tuple(FEATURES) if features is None else tuple(features)
        if not self.features:
            raise ScenarioError("features", features, "at least one name from ccsim.gym.FEATURES")
        for f in self.features:
            if not isinstance(f, str) or f not in FEATURES:
                raise ScenarioError("features", f, "names from ccsim.gym.FEATURES: " + ", ".join(FEATURES))
        if reward is not None and not callable(reward):
            raise ScenarioError("reward", reward, "a function of the interval's features returning a number, or None")
        self.reward_fn = reward or aurora_reward
        if randomize_link is not False and initial_rate is not None:
            raise ScenarioError(
                "initial_rate",
                message="initial_rate: randomize_link draws the first rate at every reset (a share of the drawn "
                "link's rate); set randomize_link={'initial_rate_share': (lo, hi)} instead",
            )
        initial_rate = "3Mbps" if initial_rate is None else initial_rate
        self._rate0 = parse_rate("initial_rate", initial_rate) / 8
        self._rate_lo = parse_rate("min_rate", min_rate) / 8
        self._rate_hi = parse_rate("max_rate", max_rate) / 8
        if not self._rate_lo <= self._rate0 <= self._rate_hi:
            raise ScenarioError(
                "initial_rate", initial_rate, f"a rate between min_rate {min_rate} and max_rate {max_rate}"
            )
        for name, w in (("min_window", min_window), ("initial_window", initial_window), ("max_window", max_window)):
            _whole(name, w, 1, _core.MAX_INITIAL_WINDOW, "segments")
        if not 1 <= min_window <= initial_window <= max_window:
            raise ScenarioError("initial_window", initial_window, "1 ≤ min_window ≤ initial_window ≤ max_window")
        self._win0, self._win_lo, self._win_hi = initial_window, min_window, max_window
        if isinstance(alpha, bool) or not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
            raise ScenarioError("alpha", alpha, "a step in (0, 1)")
        self.alpha = float(alpha)
        if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1):
            raise ScenarioError("max_steps", max_steps, "a whole number of steps ≥ 1, or None (the run's duration)")
        self.max_steps = max_steps

        lo = np.array([FEATURES[f].low for f in self.features] * history, dtype=np.float32)
        hi = np.array([FEATURES[f].high for f in self.features] * history, dtype=np.float32)
        self.observation_space = spaces.Box(lo, hi, dtype=np.float32)
        if isinstance(action_bound, bool) or not (isinstance(action_bound, (int, float)) and 0 < action_bound < np.inf):
            raise ScenarioError("action_bound", action_bound, "a finite number > 0")
        # Aurora's (network_sim.py): effectively unbounded
        self._action_bound = float(np.float32(action_bound))
        self.action_space = spaces.Box(
            np.float32(-action_bound), np.float32(action_bound), shape=(1,), dtype=np.float32
        )
        self._sim: Any = None

    # ------------------------------------------------------------------ gym

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray[Any, Any], dict[str, Any]]:
        super().reset(seed=seed)
        run_seed = int(self.np_random.integers(0, 2**31 - 1))
        self._rate0_now = self._rate0
        if self._ranges is not None:
            from .scenario import Scenario

            drawn = aurora_link(self.np_random, self._ranges)
            self._rate0_now = min(max(drawn.pop("initial_rate_bps") / 8, self._rate_lo), self._rate_hi)
            self._scenario = Scenario(drawn, source="<aurora link>")
        core = json.loads(json.dumps(self._scenario.with_seed(run_seed).core))  # a copy, tables inline
        tcp = core["flows"][self.flow]["tcp"]
        tcp.update(cc="agent", cc_preset=None, cc_params={}, cc_external={"source": "agent", "recovery": "newreno"})
        self._sim = _core.SteppedSimulation(json.dumps(core), self.flow)
        self._rate, self._win = self._rate0_now, self._win0
        self._apply()
        self._hist = np.tile(np.array([self._neutral(f) for f in self.features], dtype=np.float32), self.history)
        self._min_lat: float | None = None
        self._min_rtt: float | None = None
        self._sent0 = 0
        self._srtt: float | None = None
        self._steps = 0
        info: dict[str, Any] = {"now_s": 0.0}
        if self._ranges is not None:
            t = self._scenario.raw["topology"]
            info["link"] = {
                "rate_bps": float(t["rate"][:-3]),
                "delay_s": float(t["delay"][:-1]),
                "buffer_pkts": int(t["buffer"][:-3]),
                "loss": t["loss"]["p"],
                "initial_rate_bps": self._rate0_now * 8,
            }
        return self._hist.copy(), info

    def step(self, action: Any) -> tuple[np.ndarray[Any, Any], float, bool, bool, dict[str, Any]]:
        if self._sim is None:
            raise RuntimeError("call reset() before step()")
        a = float(np.asarray(action, dtype=np.float64).reshape(-1)[0])
        if not np.isfinite(a):
            raise ValueError(f"action {action!r}: expected a finite number")
        # the action Box's bounds hold: a policy's sample outside them is clipped
        a = min(max(a, -self._action_bound), self._action_bound)
        step = a * self.alpha
        scale = (1.0 + step) if step >= 0 else 1.0 / (1.0 - step)
        if self.action_kind == "rate":
            self._rate = min(max(self._rate * scale, self._rate_lo), self._rate_hi)
        else:
            self._win = int(min(max(round(self._win * scale), self._win_lo), self._win_hi))
        self._apply()
        start = self._sim.now_s
        end = min(start + self._next_interval(), self._sim.duration_s)
        raw = self._sim.run_to(end)
        mi = self._figures(raw, end - start)
        self._hist = np.concatenate([self._hist[len(self.features) :], self._observe(mi)])
        self._steps += 1
        truncated = end >= self._sim.duration_s or (self.max_steps is not None and self._steps >= self.max_steps)
        return self._hist.copy(), float(self.reward_fn(mi)), False, truncated, mi

    # -------------------------------------------------------------- helpers

    def _apply(self) -> None:
        if self.action_kind == "rate":
            self._sim.set_rate(self._rate)
        else:
            self._sim.set_window(self._win)

    def _next_interval(self) -> float:
        if self._interval_s is not None:
            return self._interval_s
        if self._srtt is None:
            return self._first_interval_s
        assert self._interval_rtts is not None
        return max(self._interval_rtts * self._srtt, 1e-6)

    @staticmethod
    def _neutral(f: str) -> float:
        return {"latency_ratio": 1.0, "send_ratio": 1.0}.get(f, 0.0)

    def _figures(self, raw: dict[str, Any], dur: float) -> dict[str, float]:
        """The interval's figures (Aurora's definitions, sender_obs.py)."""
        rtts = raw["rtts_s"]
        if raw["srtt_s"] is not None:
            self._srtt = raw["srtt_s"]
        acked, lost, sent = raw["acked"], raw["lost"], raw["data_pkts_sent"] - self._sent0
        self._sent0 = raw["data_pkts_sent"]
        mean = float(np.mean(rtts)) if rtts else 0.0
        if rtts:
            m = min(rtts)
            self._min_rtt = m if self._min_rtt is None else min(self._min_rtt, m)
            self._min_lat = mean if self._min_lat is None else min(self._min_lat, mean)
        half = len(rtts) // 2
        increase = float(np.mean(rtts[half:]) - np.mean(rtts[:half])) if half >= 1 else 0.0
        return {
            "now_s": raw["now_s"],
            "interval_s": dur,
            "sent": sent,
            "delivered": acked,
            "lost": lost,
            "delivered_pps": acked / dur if dur > 0 else 0.0,
            **({"rate_bps": self._rate * 8} if self.action_kind == "rate" else {"window": self._win}),
            "sent_latency_inflation": increase / dur if dur > 0 else 0.0,
            "latency_ratio": mean / self._min_lat if rtts and self._min_lat else 1.0,
            "send_ratio": sent / acked if acked > 0 and sent < 1000 * acked else 1.0,
            "delivery_rate_bps": acked * raw["mss"] * 8 / dur if dur > 0 else 0.0,
            "loss_rate": lost / (lost + acked) if lost + acked > 0 else 0.0,
            "rtt_min_s": min(rtts) if rtts else 0.0,
            "rtt_mean_s": mean,
            "queue_delay_s": max(mean - self._min_rtt, 0.0) if rtts and self._min_rtt is not None else 0.0,
            "ecn_fraction": min(raw["ce"] / acked, 1.0) if acked > 0 else 0.0,
        }

    def _observe(self, mi: dict[str, Any]) -> np.ndarray:
        v = np.array([mi[f] for f in self.features], dtype=np.float64)
        lo = np.array([FEATURES[f].low for f in self.features])
        hi = np.array([FEATURES[f].high for f in self.features])
        return np.clip(v, lo, hi).astype(np.float32)


gymnasium.register(id=ENV_ID, entry_point="ccsim.gym:CongestionControlEnv")
