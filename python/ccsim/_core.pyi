"""Type stub for the compiled core (crates/ccsim-py)."""

from typing import Any

__version__: str
MODEL_VERSION: int
"""The simulation model's version; bumped whenever some scenario's results change (docs/experiments.md)."""
MAX_INITIAL_WINDOW: int  # the core's bound on tcp.initial_window (segments)
MAX_TIME_PS: int  # the latest time the core accepts (2^62 ps, about 53 days)
TRACE_OPPORTUNITY_BYTES: int  # bytes one delivery opportunity of a mahimahi trace carries
FLOW_ECHO_COLUMNS: list[str]  # per-flow columns that repeat the scenario rather than measure the run
LINK_ECHO_COLUMNS: list[str]  # the same for the per-link summary
RESULT_TABLES: list[str]  # the result tables a run writes, in reading order (output::RESULT_TABLES)

class ScenarioError(ValueError): ...
class InternalError(RuntimeError): ...

class RunCancelled(RuntimeError):
    """The run was stopped through its RunControl before its end."""

class RunInterrupted(BaseException):
    """Raised inside a Python algorithm's hook when its run is cancelled while
    the hook runs (the run then raises RunCancelled)."""

class RunControl:
    """Watch a run from another thread and stop it (progress bars, timeouts)."""
    def __init__(self) -> None: ...
    def sim_time_s(self) -> float:
        """Simulated time reached at the latest report (every 16,384 events)."""
    def cancel(self) -> None:
        """Ask the run to stop; it raises RunCancelled within milliseconds, and a
        Python algorithm's hook running then gets RunInterrupted."""
    def cancelled(self) -> bool: ...
    def set_memory_limit(self, bytes: int) -> None:
        """Stop the run (ScenarioError, worded by ccsim.memory.exceeded) once its
        recorded tables and the packets its links hold take more than `bytes`
        (0: no limit)."""

def run(scenario_json: str, control: RunControl | None = None) -> dict[str, Any]:
    """Run a resolved scenario (JSON). Returns {"tables": {name: [(column, dtype, data)]},
    "events": int, "sim_time_s": float, "delivered_data_pkts": int}; numeric `data`
    are raw native-endian buffers of dtype "f8", "u8" or "i8"; a "str" column's is (each row's
    code as native uint32 bytes, the list of distinct values): `ccsim.analysis.results.str_cells`.
    With `control`, progress is published there and a cancel raises RunCancelled."""

def algorithms() -> list[str]: ...
def algorithm_specs() -> str:
    """Every algorithm's source, parameters (kind, default, range, meaning) and presets, as JSON."""

def red_params(link_json: str) -> str:
    """RED's parameters on a link of a resolved scenario (JSON) as the queue runs them, as JSON."""

def tcp_defaults(stack: str, cc: str) -> str:
    """Every TCP option as the stack sets it for algorithm cc (resolved form), as JSON."""

def packet_bytes(tcp_json: str) -> int:
    """Bytes of a full-sized data packet of a resolved TCP configuration (JSON): mss, headers, options."""

def tcp_options() -> str:
    """Every [tcp] option of the core's schema (name as written, resolved field,
    kind with bounds or values, unit, doc line, needs_scoreboard; the rows
    stack and cc also carry the default a flow naming neither takes), as JSON."""

def load_trace(path: str) -> tuple[int, int, int]:
    """Read and check a mahimahi trace file: (opportunities, period in ms,
    mean rate in b/s); ValueError names the file, the line and the value."""

def check_tcp(json: str) -> tuple[str, str, str] | None:
    """The rules between [tcp] options applied to a resolved TCP configuration
    (JSON): None when it passes, else (option as written, value, what is accepted)."""

def queue_options() -> str:
    """Every queue kind of the core's schema (name, resolved variant, the
    fields it sets, options with resolved field, kind, unit and doc), as JSON."""

def check_queue(json: str) -> tuple[str, str, str] | None:
    """The queue options' bounds and rules applied to a resolved queue (JSON):
    None when it passes, else (option or field the kind sets, value, what is accepted)."""

def app_options() -> str:
    """Every application of the core's schema (name, resolved variant,
    options with resolved field, kind, unit and doc, the required ones, the
    defaults of the rest), as JSON."""

def check_app(json: str) -> tuple[str, str, str] | None:
    """The application options' bounds and rules applied to a resolved
    application (JSON; a UDP source as kind 'udp'): None when it passes,
    else (option as written, value, what is accepted)."""

def link_options() -> str:
    """The shapers (name, rule, options with resolved field, kind, unit and
    doc, defaults) and reordering's options and defaults of the core's
    schema, as JSON."""

def check_shaper(json: str) -> tuple[str, str, str] | None:
    """A resolved shaper's bounds and rules: None, or (option as written,
    value, what is accepted)."""

def check_reorder(json: str) -> tuple[str, str, str] | None:
    """Resolved reordering's bounds and rules: None, or (option as written,
    value, what is accepted)."""

def buffer_refusal(limit_bytes: int, packet_bytes: int) -> str | None:
    """The core's rule for a byte-limited buffer: None, or why
    `limit_bytes` cannot hold a packet of `packet_bytes`."""

def check_schedule(json: str) -> tuple[int | None, int, str] | None:
    """A rate schedule's rules on [[ps, b/s], ...]: None, or (step, or None
    for the whole list; part, 0 time and 1 rate; what is accepted)."""

def dist_options() -> str:
    """Every distribution a scenario writes (name, parameters with whether
    each is a plain number, doc line), as JSON."""

def check_dist(json: str, positive: bool) -> tuple[str, float, str] | None:
    """A resolved distribution's bounds (every draw > 0 when `positive`):
    None, or (parameter, value, what is accepted)."""

def dist_quantiles(json: str, us: list[float]) -> list[float]:
    """The values at quantiles `us` of a resolved distribution (the core's formulas)."""

def dist_least(json: str) -> float:
    """The smallest value a resolved distribution draws."""

def check_cc(cc: str, preset_json: str, params_json: str) -> tuple[str, str, bool] | None:
    """An algorithm's preset and parameter overrides checked by the core's
    rules: None, or (sub-field, what it accepts, whether the name is unknown)."""

def sim_options() -> str:
    """The [sim] table of the core's schema (options with resolved field,
    kind and doc, the required ones, the defaults of the rest), as JSON."""

def loss_options() -> str:
    """Every loss model of the core's schema (name, resolved variant, options
    with resolved field, kind, unit and doc, the required ones), as JSON."""

def check_loss(json: str) -> tuple[str, str, str] | None:
    """The loss options' bounds and rules applied to a resolved loss model (JSON):
    None when it passes, else (option, value, what is accepted)."""

def net_defaults() -> str:
    """Default options of every queue discipline and loss model, as JSON
    {"queue": {kind: {option: value}}, "loss": {kind: {option: value}}}."""

def _panic_for_test() -> None: ...
def forward(config_json: str, fds: list[int], control: RunControl) -> dict[str, Any]:
    """The emulation backend's real-time forwarder (crates/ccsim-emu): move packets between
    the TUN devices `fds` through the scenario's links until the configured end or a cancel.
    Returns the dictionary of `run` with tables links, link_series and forwarder."""

def debug_assertions() -> bool: ...
def growing_tables() -> list[tuple[str, int]]:
    """Bytes per row of each table that grows with a run ("packets_held": per packet a link holds)."""

def routes(scenario_json: str, pairs: list[tuple[int, int]]) -> list[list[int] | None]:
    """The simulator's link path (link indices) from node s to node d for each (s, d)."""

# Python congestion-control algorithms (crates/ccsim-py/src/pyalgo.rs)
CA_ACK_ECE: int

class Tcp:
    """The connection as a hook sees it (Linux struct tcp_sock's fields used
    by congestion modules); valid only during the hook."""

    flow: int
    now_s: float
    now_us: int
    cwnd: int
    ssthresh: int
    cwnd_cnt: int
    cwnd_clamp: int
    pacing_rate: float | None
    mark_app_limited: bool
    in_flight: int
    pipe: int
    delivered: int
    delivered_ce: int
    lost: int
    srtt_s: float | None
    min_rtt_s: float | None
    rttvar_s: float | None
    rto_s: float
    rwnd: int | None
    app_backlog: int | None
    prior_cwnd: int
    mss: int
    app_limited: bool
    is_cwnd_limited: bool
    ca_state: int
    snd_una: int
    snd_nxt: int
    lsndtime_s: float
    lsndtime_us: int
    delivered_at_s: float
    paced: bool
    ecn_ok: bool
    def in_slow_start(self) -> bool: ...

class AckSample:
    acked: int
    rtt_s: float | None
    rtt_us: int | None
    in_flight: int

class RateSample:
    delivered: int | None
    interval_s: float
    rate_pps: float | None
    is_app_limited: bool
    acked_sacked: int
    losses: int
    prior_in_flight: int
    rtt_s: float | None
    prior_delivered: int
    ece_delta: int
    tx_in_flight: int
    lost: int
    delivered_ce: int
    delivered_count: int
    is_ece: bool

def slow_start(tp: Tcp, acked: int) -> int: ...
def cong_avoid_ai(tp: Tcp, w: int, acked: int) -> None: ...
def reno_cong_avoid(tp: Tcp, acked: int) -> None: ...

class SteppedSimulation:
    """A simulation advanced one interval at a time (the Gymnasium environment's core)."""

    now_s: float
    duration_s: float
    def __init__(self, scenario_json: str, flow: int) -> None: ...
    def set_rate(self, bytes_per_s: float) -> None: ...
    def set_window(self, segments: int) -> None: ...
    def run_to(self, t_s: float) -> dict[str, Any]: ...
    def finish(self) -> dict[str, Any]: ...
