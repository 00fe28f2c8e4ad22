//! Result tables and time series, table-driven: every column is one line
//! (name, type, getter) in one of the lists below, used both to record the
//! sampled series and to build the summary tables. Adding a column means
//! adding one line here (and documenting it in docs/scenario.md, "Results").
//!
//! `Simulation::output` (sim.rs) gathers what the getters read: the flows,
//! the links, the UDP sources, the finished transfers and the event traces.

use crate::app::{App, Transfer, UdpSource};
use crate::config::AppCfg;
use crate::link::Link;
use crate::record::{Column, Table};
use crate::tcp::TcpFlow;
use crate::units::{ps_to_s, SimTime, PS_PER_S};

/// How a column gets its value from an item `T` given a context `C`.
pub enum Get<T, C> {
    F(fn(&T, &C) -> f64),
    U(fn(&T, &C) -> u64),
    I(fn(&T, &C) -> i64),
    S(fn(&T, &C) -> String),
}

/// One column: its name and its getter.
pub struct Col<T, C>(pub &'static str, pub Get<T, C>);

impl<T, C> Col<T, C> {
    fn empty(&self) -> Column {
        match self.1 {
            Get::F(_) => Column::F64(Vec::new()),
            Get::U(_) => Column::U64(Vec::new()),
            Get::I(_) => Column::I64(Vec::new()),
            Get::S(_) => Column::Str(Default::default()),
        }
    }

    fn push(&self, col: &mut Column, item: &T, ctx: &C) {
        match (&self.1, col) {
            (Get::F(g), Column::F64(v)) => v.push(g(item, ctx)),
            (Get::U(g), Column::U64(v)) => v.push(g(item, ctx)),
            (Get::I(g), Column::I64(v)) => v.push(g(item, ctx)),
            (Get::S(g), Column::Str(v)) => v.push(&g(item, ctx)),
            _ => unreachable!("a column's storage is made from its own getter"),
        }
    }
}

/// Columns growing one row at a time (the sampled time series).
pub struct Recorder {
    cols: Vec<Column>,
}

impl Recorder {
    pub fn new<T, C>(defs: &[Col<T, C>]) -> Self {
        Recorder { cols: defs.iter().map(Col::empty).collect() }
    }

    pub fn push<T, C>(&mut self, defs: &[Col<T, C>], item: &T, ctx: &C) {
        for (d, c) in defs.iter().zip(self.cols.iter_mut()) {
            d.push(c, item, ctx);
        }
    }

    /// Rows recorded so far.
    pub fn rows(&self) -> usize {
        self.cols.first().map_or(0, Column::len)
    }

    pub fn into_table<T, C>(self, name: &str, defs: &[Col<T, C>]) -> Table {
        Table { name: name.to_string(), columns: defs.iter().map(|d| d.0.to_string()).zip(self.cols).collect() }
    }
}

/// Memory one recorded cell takes over a whole run, peak resident: the
/// core's column, its copy handed to Python, the DataFrame and the Parquet
/// write (measured as in docs/reliability.md). A string cell becomes its
/// own Python object.
pub const NUM_CELL_BYTES: u64 = 16;
pub const STR_CELL_BYTES: u64 = 112;

/// (table, numeric columns, string columns, measured extra bytes per row)
/// of every table whose rows grow with the run rather than with the flows
/// and links; "packets_held" is the packets the links hold, priced at their
/// slot in a link's ring. The extra is what a whole run measured above the
/// cell prices: `transfers` and `events` grow together, 430 B per pair of
/// rows against 400 priced (an RPC mix of 64 flows × 1 KB at 10 Gb/s, 1 s
/// against 3 s of it, written to Parquet, `ru_maxrss`:
/// docs/reliability.md), so each takes 20 B more (440 B a pair).
/// `growing_tables_have_these_shapes` keeps the shapes equal to the tables
/// written.
pub const GROWING_TABLES: &[(&str, u64, u64, u64)] = &[
    ("flow_series", 19, 0, 0),
    ("link_series", 14, 0, 0),
    ("cc_state", 4, 4, 0),
    ("rtt_trace", 3, 0, 0),
    ("seq_trace", 3, 1, 0),
    ("capture", 18, 2, 0),
    ("transfers", 8, 1, 20),
    ("events", 3, 1, 20),
    ("packets_held", 0, 0, 0),
];

/// The result tables a run writes, in the order a reader lists them (the
/// run's folder, `ccsim query`). A run's `capture` is not among them: it is
/// the source of a pcap file, not a table of results.
/// `every_result_table_is_named_once` keeps this list equal to the tables
/// `Simulation::output` makes.
pub const RESULT_TABLES: &[&str] = &[
    "flows",
    "links",
    "flow_series",
    "link_series",
    "events",
    "transfers",
    "udp",
    "rtt_trace",
    "seq_trace",
    "cc_state",
];

/// Bytes one row of a `GROWING_TABLES` table takes (0 for an unknown name).
pub fn row_bytes(table: &str) -> u64 {
    if table == "packets_held" {
        return std::mem::size_of::<crate::link::Slot>() as u64;
    }
    GROWING_TABLES
        .iter()
        .find(|t| t.0 == table)
        .map_or(0, |&(_, n, s, extra)| n * NUM_CELL_BYTES + s * STR_CELL_BYTES + extra)
}

/// Bytes the rows `rows` (table, rows) take.
pub fn memory_bytes(rows: &[(&str, u64)]) -> u64 {
    rows.iter().map(|&(t, r)| r.saturating_mul(row_bytes(t))).fold(0, u64::saturating_add)
}

/// A whole table at once: one row per item.
pub fn table<'i, T: 'i, C>(name: &str, defs: &[Col<T, C>], items: impl IntoIterator<Item = &'i T>, ctx: &C) -> Table {
    let mut r = Recorder::new(defs);
    for it in items {
        r.push(defs, it, ctx);
    }
    r.into_table(name, defs)
}

fn nan_or(x: Option<SimTime>) -> f64 {
    x.map_or(f64::NAN, ps_to_s)
}

// ------------------------------------------------------------------ flows

/// What the per-flow summary needs beside the flow.
pub struct FlowCtx<'a> {
    pub nodes: &'a [String],
    pub apps: &'a [App],
    pub end: SimTime,
    /// Per flow: bytes of its data still waiting in its first link at the end.
    pub unsent: &'a [u64],
}

impl FlowCtx<'_> {
    /// A single transfer is active until it completes; every other app
    /// (bulk, ON-OFF, schedule, repeated transfers) until the end.
    fn single_done(&self, f: &TcpFlow) -> Option<SimTime> {
        if matches!(self.apps[f.c.id as usize], App::Repeat { .. }) {
            None
        } else {
            f.c.completed_at
        }
    }

    /// Seconds the flow was active (from its start to its end).
    fn active(&self, f: &TcpFlow) -> f64 {
        let s = f.c.start.min(self.end);
        let e = self.single_done(f).unwrap_or(self.end).max(s);
        ps_to_s(e - s)
    }

    fn rate(&self, f: &TcpFlow, bytes: u64) -> f64 {
        let a = self.active(f);
        if a > 0.0 {
            bytes as f64 * 8.0 / a
        } else {
            0.0
        }
    }
}

/// Columns of the per-flow summary that repeat the scenario (endpoints,
/// algorithm, label, configured start) rather than measure the run: what a
/// comparison of two runs' behaviour leaves out (a sweep's check that an
/// axis acted at all).
pub const FLOW_ECHO_COLUMNS: &[&str] = &["src", "dst", "cc", "label", "start_s"];
/// The same for the per-link summary: name, ends, configured capacity,
/// delay, discipline and limits.
pub const LINK_ECHO_COLUMNS: &[&str] =
    &["name", "from", "to", "rate_bps", "delay_s", "queue", "limit_pkts", "limit_bytes"];

pub fn flow_columns<'a>() -> Vec<Col<TcpFlow, FlowCtx<'a>>> {
    use Get::*;
    vec![
        Col("id", U(|f, _| f.c.id as u64)),
        Col("src", S(|f, c| c.nodes[f.c.cfg.src as usize].clone())),
        Col("dst", S(|f, c| c.nodes[f.c.cfg.dst as usize].clone())),
        Col("cc", S(|f, _| f.c.cc_name().to_string())),
        Col("label", S(|f, _| f.c.cfg.label.clone())),
        Col("start_s", F(|f, _| ps_to_s(f.c.start))),
        Col("delivered_bytes", U(|f, _| f.c.delivered_bytes())),
        Col("goodput_bps", F(|f, c| c.rate(f, f.c.delivered_bytes()))),
        // bytes put on the wire: sent, minus what the first link refused or
        // had not started transmitting by the end
        Col(
            "throughput_bps",
            F(|f, c| {
                c.rate(
                    f,
                    f.c.stats
                        .data_bytes_sent
                        .saturating_sub(f.c.stats.first_hop_drop_bytes + c.unsent[f.c.id as usize]),
                )
            }),
        ),
        Col("data_pkts_sent", U(|f, _| f.c.stats.data_pkts_sent)),
        Col("retransmits", U(|f, _| f.c.stats.retransmits)),
        Col("timeouts", U(|f, _| f.c.stats.timeouts)),
        Col("fast_retransmits", U(|f, _| f.c.stats.fast_retransmits)),
        Col("ecn_reductions", U(|f, _| f.c.stats.ecn_reductions)),
        Col("ce_received", U(|f, _| f.c.stats.ce_received)),
        Col("delivered_ce", U(|f, _| f.c.delivered_ce())),
        Col("acks_sent", U(|f, _| f.c.stats.acks_sent)),
        Col("acks_received", U(|f, _| f.c.stats.acks_received)),
        Col("dupacks_received", U(|f, _| f.c.stats.dupacks_received)),
        Col(
            "rtt_mean_s",
            F(|f, _| {
                if f.c.stats.rtt_samples > 0 {
                    f.c.stats.rtt_sum_ps as f64 / f.c.stats.rtt_samples as f64 / 1e12
                } else {
                    f64::NAN
                }
            }),
        ),
        Col("rtt_min_s", F(|f, _| nan_or(f.c.stats.rtt_min_ps))),
        Col("rtt_samples", U(|f, _| f.c.stats.rtt_samples)),
        // the path with no queue: propagation both ways, one data segment's
        // and one ACK's serialisation per link (hist.rs has the percentiles'
        // resolution: within 1/64 of the exact nearest-rank value)
        Col("base_rtt_s", F(|f, _| nan_or(f.c.stats.base_rtt_ps))),
        Col("qdelay_p50_s", F(|f, _| nan_or(f.c.stats.qdelay_hist.quantile(0.50)))),
        Col("qdelay_p95_s", F(|f, _| nan_or(f.c.stats.qdelay_hist.quantile(0.95)))),
        Col("qdelay_p99_s", F(|f, _| nan_or(f.c.stats.qdelay_hist.quantile(0.99)))),
        // data segments from leaving the sender to reaching the receiver
        Col("owd_p50_s", F(|f, _| nan_or(f.c.stats.owd_hist.quantile(0.50)))),
        Col("owd_p95_s", F(|f, _| nan_or(f.c.stats.owd_hist.quantile(0.95)))),
        Col("owd_p99_s", F(|f, _| nan_or(f.c.stats.owd_hist.quantile(0.99)))),
        Col(
            "rto_mean_at_timeout_s",
            F(|f, _| {
                if f.c.stats.timeouts > 0 {
                    f.c.stats.rto_sum_at_timeout_ps as f64 / f.c.stats.timeouts as f64 / 1e12
                } else {
                    f64::NAN
                }
            }),
        ),
        Col(
            "fct_s",
            F(|f, c| match c.single_done(f) {
                Some(done) => ps_to_s(done - f.c.first_send.unwrap_or(f.c.start)),
                None => f64::NAN,
            }),
        ),
        // FCT from the first data segment (excludes the handshake)
        Col(
            "fct_data_s",
            F(|f, c| match (c.single_done(f), f.c.first_data) {
                (Some(done), Some(d)) => ps_to_s(done - d),
                _ => f64::NAN,
            }),
        ),
        Col("pkts_injected", U(|f, _| f.c.stats.pkts_injected)),
        Col("pkts_arrived", U(|f, _| f.c.stats.pkts_arrived)),
        Col("pkts_dropped", U(|f, _| f.c.stats.pkts_dropped)),
        Col("idle_restarts", U(|f, _| f.c.stats.idle_restarts)),
        Col("stale_pkts", U(|f, _| f.c.stats.stale_pkts)),
        Col("dup_segs_received", U(|f, _| f.c.stats.dup_segs_received)),
        Col("dsacks_received", U(|f, _| f.c.stats.dsacks_received)),
        Col("rack_lost", U(|f, _| f.c.stats.rack_lost)),
        Col("lost_retransmits", U(|f, _| f.c.stats.lost_retransmits)),
        Col("reorder_seen", U(|f, _| f.c.stats.reorder_seen)),
        Col("tlp_probes", U(|f, _| f.c.stats.tlp_probes)),
        Col("tlp_recoveries", U(|f, _| f.c.stats.tlp_recoveries)),
        Col("undos", U(|f, _| f.c.stats.undos)),
        Col("spurious_rtos", U(|f, _| f.c.stats.spurious_rtos)),
    ]
}

/// Per-flow time series, one row per flow per sample (context: the time, s).
pub static FLOW_SERIES: &[Col<TcpFlow, f64>] = &[
    Col("time_s", Get::F(|_, t| *t)),
    Col("flow", Get::U(|f, _| f.c.id as u64)),
    Col("cwnd", Get::U(|f, _| f.c.open_cwnd() as u64)),
    Col("ssthresh", Get::F(|f, _| if f.c.tp.ssthresh == u32::MAX { f64::INFINITY } else { f.c.tp.ssthresh as f64 })),
    Col("srtt_s", Get::F(|f, _| nan_or(f.c.rtt.srtt))),
    Col("rto_s", Get::F(|f, _| ps_to_s(f.c.rtt.rto()))),
    Col("inflight_bytes", Get::U(|f, _| f.c.inflight_bytes())),
    Col("delivered_bytes", Get::U(|f, _| f.c.delivered_bytes())),
    // data bytes put on the wire (headers and retransmissions included)
    Col("bytes_sent", Get::U(|f, _| f.c.stats.data_bytes_sent)),
    Col("acks_received", Get::U(|f, _| f.c.stats.acks_received)),
    Col("pkts_injected", Get::U(|f, _| f.c.stats.pkts_injected)),
    Col("pkts_arrived", Get::U(|f, _| f.c.stats.pkts_arrived)),
    Col("pkts_dropped", Get::U(|f, _| f.c.stats.pkts_dropped)),
    Col("snd_una", Get::U(|f, _| f.c.snd_una)),
    Col("snd_max", Get::U(|f, _| f.c.snd_max)),
    Col("retransmits", Get::U(|f, _| f.c.stats.retransmits)),
    Col("ca_state", Get::U(|f, _| f.ca_state_code())),
    Col("pacing_rate_bps", Get::F(|f, _| f.c.pacing_rate_bps())),
    Col("delivery_rate_bps", Get::F(|f, _| f.c.delivery_rate_bps())),
];

// ------------------------------------------------------------------ links

/// A link with its index and, for the series, its queue at the sample time
/// (read before, because reading it advances the link's lazy counter).
pub struct LinkRow<'a> {
    pub id: usize,
    pub link: &'a Link,
    pub queue_pkts: u32,
    pub queue_bytes: u64,
    /// The series only: the largest queue since the previous sample.
    pub queue_max_pkts: u32,
}

impl LinkRow<'_> {
    /// Packets whose transmission had started by the row's time: a FIFO
    /// link counts a packet when it admits it (its departure is known then),
    /// so the ones still waiting are taken off. A dequeue-time discipline
    /// counts at service already and keeps its waiting packets apart.
    pub fn pkts_on_wire(&self) -> u64 {
        if self.link.dequeue_time() {
            self.link.stats.pkts_tx
        } else {
            self.link.stats.pkts_tx - self.queue_pkts as u64
        }
    }
    pub fn bytes_on_wire(&self) -> u64 {
        if self.link.dequeue_time() {
            self.link.stats.bytes_tx
        } else {
            self.link.stats.bytes_tx - self.queue_bytes
        }
    }
}

/// What the per-link summary needs beside the link.
pub struct LinkCtx<'a> {
    pub nodes: &'a [String],
    pub end: SimTime,
}

pub fn link_columns<'a, 'n>() -> Vec<Col<LinkRow<'a>, LinkCtx<'n>>> {
    use Get::*;
    vec![
        Col("id", U(|r, _| r.id as u64)),
        Col("name", S(|r, _| r.link.name.clone())),
        Col("from", S(|r, c| c.nodes[r.link.from as usize].clone())),
        Col("to", S(|r, c| c.nodes[r.link.to as usize].clone())),
        Col("rate_bps", U(|r, _| r.link.capacity_bps())),
        Col("delay_s", F(|r, _| ps_to_s(r.link.delay))),
        Col("queue", S(|r, _| r.link.queue_name().to_string())),
        Col("limit_pkts", I(|r, _| r.link.limit_pkts().map_or(-1, |x| x as i64))),
        Col("limit_bytes", I(|r, _| r.link.limit_bytes().map_or(-1, |x| x as i64))),
        Col("pkts_offered", U(|r, _| r.link.stats.pkts_offered)),
        // transmitted by the end (a FIFO counts a packet at admission; the
        // row carries what still waited at the end)
        Col("pkts_tx", U(|r, _| r.pkts_on_wire())),
        Col("bytes_tx", U(|r, _| r.bytes_on_wire())),
        Col("drops", U(|r, _| r.link.stats.drops)),
        Col("losses", U(|r, _| r.link.stats.losses)),
        Col("marks", U(|r, _| r.link.marks())),
        Col("reordered", U(|r, _| r.link.reorder.as_deref().map_or(0, |x| x.delayed))),
        Col("max_queue_pkts", U(|r, _| r.link.stats.max_waiting_pkts as u64)),
        Col("max_queue_bytes", U(|r, _| r.link.stats.max_waiting_bytes)),
        Col("utilization", F(|r, c| r.link.utilization_within(c.end))),
    ]
}

pub fn link_series<'a>() -> Vec<Col<LinkRow<'a>, f64>> {
    use Get::*;
    vec![
        Col("time_s", F(|_, t| *t)),
        Col("link", U(|r, _| r.id as u64)),
        Col("queue_pkts", U(|r, _| r.queue_pkts as u64)),
        Col("queue_bytes", U(|r, _| r.queue_bytes)),
        Col("queue_max_pkts", U(|r, _| r.queue_max_pkts as u64)),
        Col("held_pkts", U(|r, _| r.link.held() as u64)),
        // RED's average queue and current max_p (NaN for other disciplines)
        Col("avg_queue", F(|r, _| r.link.disc.avg_queue().unwrap_or(f64::NAN))),
        Col("max_p", F(|r, _| r.link.disc.max_p().unwrap_or(f64::NAN))),
        Col("drops", U(|r, _| r.link.stats.drops)),
        Col("losses", U(|r, _| r.link.stats.losses)),
        Col("pkts_offered", U(|r, _| r.link.stats.pkts_offered)),
        Col("pkts_tx", U(|r, _| r.pkts_on_wire())),
        Col("bytes_tx", U(|r, _| r.bytes_on_wire())),
        // bits the transmitter could have sent by the sample (rate × t, or
        // what a trace or schedule offered): capacity over time
        Col("offered_bits", F(|r, t| r.link.offered_bits((*t * PS_PER_S as f64).round() as SimTime))),
    ]
}

// ------------------------------------------------------------------ the rest

pub fn udp_columns<'n>() -> Vec<Col<UdpSource, &'n [String]>> {
    use Get::*;
    vec![
        Col("id", U(|u, _| u.id as u64)),
        Col("label", S(|u, _| u.cfg.label.clone())),
        Col("src", S(|u, nodes| nodes[u.cfg.src as usize].clone())),
        Col("dst", S(|u, nodes| nodes[u.cfg.dst as usize].clone())),
        Col("rate_bps", U(|u, _| u.cfg.rate_bps)),
        Col("pkts_sent", U(|u, _| u.stats.pkts_sent)),
        Col("bytes_sent", U(|u, _| u.stats.bytes_sent)),
        Col("pkts_received", U(|u, _| u.stats.pkts_received)),
        Col("bytes_received", U(|u, _| u.stats.bytes_received)),
        Col("pkts_dropped", U(|u, _| u.stats.pkts_dropped)),
    ]
}

pub fn transfer_columns<'a>() -> Vec<Col<Transfer, &'a [TcpFlow]>> {
    use Get::*;
    vec![
        Col("flow", U(|x, _| x.flow as u64)),
        Col("label", S(|x, flows| flows[x.flow as usize].c.cfg.label.clone())),
        Col("index", U(|x, _| x.index)),
        Col("bytes", U(|x, _| x.bytes)),
        Col("start_s", F(|x, _| ps_to_s(x.start))),
        Col("first_data_s", F(|x, _| nan_or(x.first_data))),
        Col("end_s", F(|x, _| nan_or(x.end))),
        Col("fct_s", F(|x, _| x.end.map_or(f64::NAN, |e| ps_to_s(e - x.start)))),
        Col(
            "fct_data_s",
            F(|x, _| match (x.end, x.first_data) {
                (Some(e), Some(d)) => ps_to_s(e - d),
                _ => f64::NAN,
            }),
        ),
    ]
}

/// Every file and repeated object, finished or not, by flow then index.
pub fn all_transfers(done: &[Transfer], flows: &[TcpFlow], apps: &[App]) -> Vec<Transfer> {
    let mut tr: Vec<Transfer> = done.to_vec();
    for (i, (f, a)) in flows.iter().zip(apps).enumerate() {
        match a {
            App::Plain => {
                if let (AppCfg::File { bytes }, Some(st)) = (&f.c.cfg.app, f.c.first_send) {
                    tr.push(Transfer {
                        flow: i as u32,
                        index: 0,
                        bytes: *bytes,
                        start: st,
                        first_data: f.c.first_data,
                        end: f.c.completed_at,
                    });
                }
            }
            App::Repeat { current: Some(c), .. } => tr.push(Transfer { first_data: f.c.first_data, ..*c }),
            _ => {}
        }
    }
    tr.sort_by_key(|t| (t.flow, t.index));
    tr
}

/// A flow event (timeout, fast retransmit, ...): time, flow, kind, value.
pub type EventRow = (SimTime, u64, &'static str, f64);

pub static EVENT_COLUMNS: &[Col<EventRow, ()>] = &[
    Col("time_s", Get::F(|e, _| ps_to_s(e.0))),
    Col("flow", Get::U(|e, _| e.1)),
    Col("kind", Get::S(|e, _| e.2.to_string())),
    Col("value", Get::F(|e, _| e.3)),
];

/// Per-packet RTT samples: time, flow, RTT.
pub static RTT_TRACE: &[Col<(SimTime, u64, SimTime), ()>] = &[
    Col("time_s", Get::F(|r, _| ps_to_s(r.0))),
    Col("flow", Get::U(|r, _| r.1)),
    Col("rtt_s", Get::F(|r, _| ps_to_s(r.2))),
];

/// A sequence-trace record: time, flow, kind (0 send, 1 rexmit, 2 ack), sequence.
pub type SeqRecord = (SimTime, u64, u8, u64);

/// Per-packet sequence events: time, flow, kind (0 send, 1 rexmit, 2 ack), sequence.
pub static SEQ_TRACE: &[Col<SeqRecord, ()>] = &[
    Col("time_s", Get::F(|r, _| ps_to_s(r.0))),
    Col("flow", Get::U(|r, _| r.1)),
    Col("kind", Get::S(|r, _| ["send", "rexmit", "ack"][r.2 as usize].to_string())),
    Col("seq", Get::U(|r, _| r.3)),
];

// ------------------------------------------------------------ capture

/// One packet arriving at the far end of a captured link.
#[derive(Clone, Copy, Debug)]
pub struct CaptureRow {
    pub time: SimTime,
    pub link: u32,
    pub event: CaptureEvent,
    pub pkt: crate::packet::Packet,
    /// SACK blocks of an ACK (segments) and how many.
    pub nsack: u8,
    pub sack: [(u64, u64); 4],
}

/// What happened to a captured packet at its link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureEvent {
    /// It reached the link's far end.
    Arrival,
    /// The link's queue refused or dropped it (at the time of the drop).
    Drop,
    /// The link's loss model lost it (at the time it would have arrived).
    Loss,
}

fn kind_name(k: crate::packet::PktKind) -> &'static str {
    use crate::packet::PktKind::*;
    match k {
        Data => "data",
        Ack => "ack",
        Syn => "syn",
        SynAck => "synack",
        Udp => "udp",
    }
}

/// The `capture` table: every packet that reached the far end of a captured
/// link, and every one the link dropped or lost, with what a pcap header needs.
pub static CAPTURE: &[Col<CaptureRow, ()>] = &[
    Col("time_ns", Get::U(|r, _| r.time / 1000)),
    Col("link", Get::U(|r, _| r.link as u64)),
    // arrival (at the far end), drop (by the queue), loss (on the wire)
    Col(
        "event",
        Get::S(|r, _| {
            match r.event {
                CaptureEvent::Arrival => "arrival",
                CaptureEvent::Drop => "drop",
                CaptureEvent::Loss => "loss",
            }
            .to_string()
        }),
    ),
    Col("kind", Get::S(|r, _| kind_name(r.pkt.kind).to_string())),
    Col("flow", Get::U(|r, _| r.pkt.flow as u64)),
    Col("conn", Get::U(|r, _| r.pkt.conn as u64)),
    // data: segment number; ACK: next segment expected
    Col("seq", Get::U(|r, _| r.pkt.seq)),
    Col("size", Get::U(|r, _| r.pkt.size as u64)),
    // data/SYN: TSval; ACK/SYN-ACK: TSecr (ps)
    Col("ts_ps", Get::U(|r, _| r.pkt.ts)),
    Col("ecn", Get::U(|r, _| r.pkt.ecn.bits() as u64)),
    Col("flags", Get::U(|r, _| r.pkt.flags as u64)),
    Col("nsack", Get::U(|r, _| r.nsack as u64)),
    Col("sack1_l", Get::U(|r, _| r.sack[0].0)),
    Col("sack1_r", Get::U(|r, _| r.sack[0].1)),
    Col("sack2_l", Get::U(|r, _| r.sack[1].0)),
    Col("sack2_r", Get::U(|r, _| r.sack[1].1)),
    Col("sack3_l", Get::U(|r, _| r.sack[2].0)),
    Col("sack3_r", Get::U(|r, _| r.sack[2].1)),
    Col("sack4_l", Get::U(|r, _| r.sack[3].0)),
    Col("sack4_r", Get::U(|r, _| r.sack[3].1)),
];

// ------------------------------------------------------------ cc_state

/// The `cc_state` trace of every flow that keeps one: time_s, flow, cc,
/// cause, ca_state, cwnd, ssthresh, mode, then the union of the algorithms'
/// variables in order of first appearance (NaN for a flow whose algorithm
/// lacks one).
pub fn cc_state_table(flows: &[TcpFlow]) -> Table {
    let mut names: Vec<&'static str> = Vec::new();
    let traced: Vec<&TcpFlow> = flows.iter().filter(|f| f.c.trace.as_deref().is_some_and(|t| t.want_cc)).collect();
    for f in &traced {
        for n in f.c.cc_var_names() {
            if !names.contains(n) {
                names.push(n);
            }
        }
    }
    let (mut time, mut flow, mut cc, mut cause, mut state) = (vec![], vec![], vec![], vec![], vec![]);
    let (mut cwnd, mut ssth, mut mode) = (vec![], vec![], vec![]);
    let mut vars: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    for f in &traced {
        let own = f.c.cc_var_names();
        let slot: Vec<usize> =
            own.iter().map(|n| names.iter().position(|m| m == n).expect("collected above")).collect();
        for s in &f.c.trace.as_deref().expect("traced").cc {
            time.push(ps_to_s(s.time));
            flow.push(f.c.id as u64);
            cc.push(f.c.cc_name().to_string());
            cause.push(s.cause.map_or("sample", |k| k.name()).to_string());
            state.push(["open", "cwr", "recovery", "loss"][s.ca_state as usize].to_string());
            cwnd.push(s.cwnd as u64);
            ssth.push(if s.ssthresh == u32::MAX { f64::INFINITY } else { s.ssthresh as f64 });
            mode.push(s.mode.unwrap_or("").to_string());
            for v in vars.iter_mut() {
                v.push(f64::NAN);
            }
            for (j, &k) in slot.iter().enumerate() {
                *vars[k].last_mut().expect("pushed above") = s.vars[j];
            }
        }
    }
    let mut t = Table::new("cc_state");
    t.push("time_s", Column::F64(time));
    t.push("flow", Column::U64(flow));
    t.push("cc", Column::Str(cc.into()));
    t.push("cause", Column::Str(cause.into()));
    t.push("ca_state", Column::Str(state.into()));
    t.push("cwnd", Column::U64(cwnd));
    t.push("ssthresh", Column::F64(ssth));
    t.push("mode", Column::Str(mode.into()));
    for (n, v) in names.iter().zip(vars) {
        t.push(n, Column::F64(v));
    }
    t
}

#[cfg(test)]
mod echo_tests {
    use super::*;

    #[test]
    fn echo_columns_are_columns() {
        let flows: Vec<&str> = flow_columns().iter().map(|c| c.0).collect();
        let links: Vec<&str> = link_columns().iter().map(|c| c.0).collect();
        for c in FLOW_ECHO_COLUMNS {
            assert!(flows.contains(c), "{c} is not a per-flow column");
        }
        for c in LINK_ECHO_COLUMNS {
            assert!(links.contains(c), "{c} is not a per-link column");
        }
    }
}
