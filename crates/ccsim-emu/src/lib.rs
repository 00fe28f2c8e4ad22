//! The emulation backend's real-time forwarder.
//!
//! Each end host of a scenario is a network namespace holding one TUN
//! device; the kernel's own TCP runs there. The forwarder holds the other
//! end of every TUN device (the file descriptors) and moves IPv4 packets
//! between them through the scenario's links, built by
//! [`ccsim_core::link::Link::build`]: the same serialization, propagation
//! delay, queue disciplines (DropTail, the RED family, CoDel, FQ-CoDel, PIE),
//! loss models and reordering as the simulator, and the same static routes
//! ([`ccsim_core::route::static_routes`]).
//!
//! Time: model time is `CLOCK_MONOTONIC` minus the run's epoch. A packet
//! read from a TUN device enters its first link at the time it was read; from
//! then on the link model computes every instant exactly (when it leaves each
//! queue, when it arrives at the far end), exactly as in the simulator, and
//! the forwarder writes it into the destination's TUN device as soon after
//! its model arrival time as it can. The difference between the two instants
//! is the forwarder's *lateness*; it delays delivery but never accumulates,
//! because later departures are computed from model time, not from when the
//! forwarder happened to run. Lateness percentiles are part of the result so
//! a run that the machine could not keep up with is visible.

pub mod ip;

use ccsim_core::link::{Admission, Link};
use ccsim_core::output::{self, LinkCtx, LinkRow, Recorder};
use ccsim_core::packet::{Ecn, Packet, PktKind};
use ccsim_core::record::{Column, SimOutput, Table};
use ccsim_core::units::SimTime;
use ccsim_core::{RunControl, Scenario};
use serde::Deserialize;
use std::collections::HashMap;
use std::os::fd::RawFd;

/// One end host: the scenario node it stands for and its IPv4 address
/// (host byte order), as configured on its TUN device.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostCfg {
    pub node: u32,
    pub addr: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmuCfg {
    /// The resolved scenario, as the simulator takes it.
    pub scenario: serde_json::Value,
    pub hosts: Vec<HostCfg>,
    /// `CLOCK_MONOTONIC` (ns) of model time 0.
    pub epoch_ns: u64,
    /// Model time (ns) at which the forwarder stops.
    pub end_ns: u64,
    /// Stop sleeping this long (ns) before each model event and poll
    /// without sleeping until it; 0 = sleep until the event (the thread's
    /// timer slack is set to 1 µs either way).
    #[serde(default)]
    pub spin_ns: u64,
    /// Record every TCP packet read and delivered (table `wire`).
    #[serde(default)]
    pub trace_packets: bool,
}

/// One row of the wire trace: a packet read from its source host (`out` =
/// false, at the read instant) or delivered to its destination (`out` =
/// true, at its model arrival time). A packet read but never delivered was
/// dropped or lost by the model.
#[derive(Clone, Copy, Debug)]
struct WireRow {
    time: SimTime,
    out: bool,
    pkt: u64,
    src: u32,
    dst: u32,
    tcp: ip::Tcp,
}

/// Counters of the forwarder itself, beside the link tables.
#[derive(Debug, Clone, Default)]
pub struct FwdStats {
    pub pkts_read: u64,
    pub pkts_written: u64,
    /// Packets that were not IPv4 (router solicitations, IPv6) or malformed.
    pub foreign: u64,
    /// IPv4 packets to an address no host has.
    pub unroutable: u64,
    /// Writes into a TUN device that failed: drops the model did not decide.
    pub write_errors: u64,
    /// Reads that filled the whole buffer (a packet larger than it).
    pub oversize: u64,
    /// Lateness of each delivery (actual write − model arrival), ns.
    pub lateness_ns: Vec<u64>,
    /// Model arrival time (ps) of each delivery, beside `lateness_ns`.
    pub delivered_at: Vec<SimTime>,
    /// The largest lateness (ns) and the model time (ps) of that delivery.
    pub worst: u64,
    pub worst_at: SimTime,
    /// Times the loop woke from ppoll.
    pub wakeups: u64,
}

const BUF: usize = 4096;

fn mono_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

const PS_PER_NS: u64 = 1000;

struct Fwd {
    sc: Scenario,
    links: Vec<Link>,
    svc: Vec<Option<SimTime>>,
    routes: Vec<Vec<u32>>,
    /// (source host, destination host) -> route index
    route_of: HashMap<(usize, usize), u32>,
    addr_host: HashMap<u32, usize>,
    fds: Vec<RawFd>,
    bufs: Vec<Vec<u8>>,
    free: Vec<u32>,
    flows: HashMap<ip::FiveTuple, u32>,
    stats: FwdStats,
    epoch: u64,
    lseries: Recorder,
    sample_link: Vec<bool>,
    wire: Option<Vec<WireRow>>,
    /// Links whose arrivals are captured (`Scenario::capture_links`) and
    /// the captured packets' headers: (model arrival time, link, IP length,
    /// the IP and transport headers as they were on the wire).
    capture: Option<(Vec<bool>, Vec<CapturedHeader>)>,
}

/// A captured packet: model arrival time, link, IP length, header bytes.
type CapturedHeader = (SimTime, u32, u32, Vec<u8>);

/// The IP and TCP/UDP header bytes of an IPv4 packet (all of it if shorter).
fn header_len(b: &[u8]) -> usize {
    if b.len() < 20 {
        return b.len();
    }
    let ihl = ((b[0] & 0x0f) as usize) * 4;
    let l4 = match b[9] {
        6 if b.len() >= ihl + 13 => ((b[ihl + 12] >> 4) as usize) * 4,
        17 => 8,
        _ => 0,
    };
    (ihl + l4).min(b.len())
}

impl Fwd {
    fn now_ps(&self) -> SimTime {
        mono_ns().saturating_sub(self.epoch) * PS_PER_NS
    }

    fn alloc(&mut self) -> u32 {
        match self.free.pop() {
            Some(i) => i,
            None => {
                self.bufs.push(vec![0u8; BUF]);
                (self.bufs.len() - 1) as u32
            }
        }
    }

    /// Drop-time discipline verdicts (CoDel, FQ-CoDel) hand their packets back.
    fn reap(&mut self, l: usize) {
        while let Some(p) = self.links[l].pop_dropped() {
            self.free.push(p.seq as u32);
        }
        if let Some(t) = self.links[l].service_request() {
            self.svc[l] = Some(t);
        }
    }

    fn offer(&mut self, l: usize, t: SimTime, pkt: Packet) {
        let buf = pkt.seq as u32;
        match self.links[l].enqueue(t, pkt) {
            Admission::Dropped => self.free.push(buf),
            Admission::Accepted(_) => {}
        }
        self.reap(l);
    }

    /// The earliest pending model event: (time, link, is_service).
    fn next_event(&self) -> Option<(SimTime, usize, bool)> {
        let mut best: Option<(SimTime, usize, bool)> = None;
        for (i, l) in self.links.iter().enumerate() {
            if let Some(a) = l.next_arrival() {
                if best.is_none_or(|b| a < b.0) {
                    best = Some((a, i, false));
                }
            }
            if let Some(s) = self.svc[i] {
                if best.is_none_or(|b| s < b.0) {
                    best = Some((s, i, true));
                }
            }
        }
        best
    }

    fn sample(&mut self, t: SimTime) {
        let ts = t as f64 * 1e-12;
        let defs = output::link_series();
        for (id, link) in self.links.iter_mut().enumerate() {
            if !self.sample_link[id] {
                continue;
            }
            let (qp, qb) = link.queue_at(t);
            let qmax = link.take_interval_max(qp);
            self.lseries.push(&defs, &LinkRow { id, link, queue_pkts: qp, queue_bytes: qb, queue_max_pkts: qmax }, &ts);
        }
    }

    /// Carry out every model event up to `now`, sampling on the way.
    fn advance(&mut self, now: SimTime, next_sample: &mut Option<(SimTime, SimTime)>) {
        loop {
            let ev = self.next_event().filter(|e| e.0 <= now);
            if let Some((ts, step)) = *next_sample {
                if ts <= now && ev.is_none_or(|e| ts <= e.0) {
                    self.sample(ts);
                    *next_sample = Some((ts + step, step));
                    continue;
                }
            }
            let Some((t, l, service)) = ev else { break };
            if service {
                self.svc[l] = None;
                self.links[l].on_service(t);
                self.reap(l);
                continue;
            }
            let Some(slot) = self.links[l].pop_arrived(t) else { continue };
            let mut pkt = slot.pkt;
            let buf = pkt.seq as u32;
            if slot.lost {
                self.free.push(buf);
                continue;
            }
            if let Some((on, rows)) = &mut self.capture {
                if on[l] {
                    let b = &self.bufs[buf as usize][..pkt.size as usize];
                    let mut h = b[..header_len(b)].to_vec();
                    if pkt.ecn.is_ce() && Ecn::from_bits(h[1]) != Ecn::Ce {
                        ip::mark_ce(&mut h);
                    }
                    rows.push((slot.arrive, l as u32, pkt.size, h));
                }
            }
            let route = &self.routes[pkt.route as usize];
            let hop = pkt.hop as usize + 1;
            if hop < route.len() {
                let next = route[hop] as usize;
                pkt.hop = hop as u16;
                self.offer(next, slot.arrive, pkt);
                continue;
            }
            self.deliver(pkt, slot.arrive);
        }
    }

    fn deliver(&mut self, pkt: Packet, arrive: SimTime) {
        let i = pkt.seq as usize;
        let len = pkt.size as usize;
        let host = pkt.aux as usize;
        let b = &mut self.bufs[i];
        if let Some(w) = &mut self.wire {
            if let Some(t) = ip::tcp(&b[..len]) {
                let src = *self.addr_host.get(&u32::from_be_bytes([b[12], b[13], b[14], b[15]])).unwrap_or(&usize::MAX)
                    as u32;
                w.push(WireRow { time: arrive, out: true, pkt: pkt.ts, src, dst: host as u32, tcp: t });
            }
        }
        if pkt.ecn.is_ce() && Ecn::from_bits(b[1]) != Ecn::Ce {
            ip::mark_ce(&mut b[..len]);
        }
        // SAFETY: writing `len` initialised bytes of our buffer to a TUN fd.
        let n = unsafe { libc::write(self.fds[host], b.as_ptr() as *const libc::c_void, len) };
        if n == len as isize {
            self.stats.pkts_written += 1;
        } else {
            self.stats.write_errors += 1;
        }
        let actual = self.now_ps();
        let late = actual.saturating_sub(arrive) / PS_PER_NS;
        if late >= self.stats.worst {
            self.stats.worst = late;
            self.stats.worst_at = arrive;
        }
        self.stats.lateness_ns.push(late);
        self.stats.delivered_at.push(arrive);
        self.free.push(i as u32);
    }

    /// Read every packet waiting on host `h`'s TUN device and offer each to
    /// the first link of its route at model time `now`.
    fn read_host(&mut self, h: usize, now: SimTime) {
        loop {
            let i = self.alloc();
            let fd = self.fds[h];
            let b = &mut self.bufs[i as usize];
            // SAFETY: reading into our BUF-byte buffer.
            let n = unsafe { libc::read(fd, b.as_mut_ptr() as *mut libc::c_void, BUF) };
            if n <= 0 {
                self.free.push(i);
                return;
            }
            let n = n as usize;
            self.stats.pkts_read += 1;
            if n == BUF {
                self.stats.oversize += 1;
                self.free.push(i);
                continue;
            }
            let Some(hdr) = ip::parse(&b[..n]) else {
                self.stats.foreign += 1;
                self.free.push(i);
                continue;
            };
            let Some(&dst) = self.addr_host.get(&hdr.tuple.dst) else {
                self.stats.unroutable += 1;
                self.free.push(i);
                continue;
            };
            let Some(&route) = self.route_of.get(&(h, dst)) else {
                self.stats.unroutable += 1;
                self.free.push(i);
                continue;
            };
            let nflows = self.flows.len() as u32;
            let flow = *self.flows.entry(hdr.tuple).or_insert(nflows);
            // `ts` is free in the forwarder: it carries the wire-trace id.
            let id = self.stats.pkts_read;
            if let Some(w) = &mut self.wire {
                if let Some(t) = ip::tcp(&b[..n]) {
                    w.push(WireRow { time: now, out: false, pkt: id, src: h as u32, dst: dst as u32, tcp: t });
                }
            }
            let mut pkt = Packet::new(PktKind::Data, i as u64, id, flow, n as u32, route);
            pkt.aux = dst as u32;
            pkt.ecn = hdr.ecn;
            let first = self.routes[route as usize][0] as usize;
            self.offer(first, now, pkt);
        }
    }
}

fn set_nonblocking(fd: RawFd) -> Result<(), String> {
    // SAFETY: fcntl on a caller-provided descriptor.
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        if fl < 0 || libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK) < 0 {
            return Err(format!("fd {fd}: cannot make it non-blocking (is it open?)"));
        }
    }
    Ok(())
}

/// Run the forwarder until model time `end_ns` or until `ctl` is cancelled.
/// Returns the `links` and `link_series` tables (as the simulator writes
/// them) and a one-row `forwarder` table of its own counters.
pub fn forward(cfg: &EmuCfg, fds: &[RawFd], ctl: &RunControl) -> Result<SimOutput, String> {
    let mut sc: Scenario = serde_json::from_value(cfg.scenario.clone()).map_err(|e| format!("scenario: {e}"))?;
    sc.load_traces().map_err(|e| e.to_string())?;
    sc.validate().map_err(|e| e.to_string())?;
    if fds.len() != cfg.hosts.len() {
        return Err(format!("hosts: {} hosts but {} file descriptors", cfg.hosts.len(), fds.len()));
    }
    for &fd in fds {
        set_nonblocking(fd)?;
    }
    let nh = cfg.hosts.len();
    let mut pairs = Vec::new();
    for a in 0..nh {
        for b in 0..nh {
            if a != b {
                pairs.push((cfg.hosts[a].node, cfg.hosts[b].node));
            }
        }
    }
    let found = ccsim_core::route::static_routes(&sc, &pairs);
    let mut routes = Vec::new();
    let mut route_of = HashMap::new();
    let mut k = 0;
    for a in 0..nh {
        for b in 0..nh {
            if a == b {
                continue;
            }
            if let Some(r) = &found[k] {
                if !r.is_empty() {
                    routes.push(r.clone());
                    route_of.insert((a, b), (routes.len() - 1) as u32);
                }
            }
            k += 1;
        }
    }
    let links: Vec<Link> = (0..sc.links.len()).map(|i| Link::build(&sc, i)).collect();
    let nl = links.len();
    let sample_link = match &sc.sample_links {
        None => vec![true; nl],
        Some(v) => {
            let mut s = vec![false; nl];
            for &i in v {
                s[i as usize] = true;
            }
            s
        }
    };
    let mut f = Fwd {
        links,
        svc: vec![None; nl],
        routes,
        route_of,
        addr_host: cfg.hosts.iter().enumerate().map(|(i, h)| (h.addr, i)).collect(),
        fds: fds.to_vec(),
        bufs: Vec::new(),
        free: Vec::new(),
        flows: HashMap::new(),
        stats: FwdStats::default(),
        epoch: cfg.epoch_ns,
        lseries: Recorder::new(&output::link_series()),
        sample_link,
        wire: cfg.trace_packets.then(Vec::new),
        capture: (!sc.capture_links.is_empty()).then(|| {
            let mut on = vec![false; nl];
            sc.capture_links.iter().for_each(|&i| on[i as usize] = true);
            (on, Vec::new())
        }),
        sc,
    };
    // SAFETY: prctl on the calling thread; a 1 µs timer slack makes ppoll
    // wake close to the next model event instead of up to 50 µs late.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1000u64, 0u64, 0u64, 0u64) };
    // Wait for the epoch (the hosts send nothing before it).
    loop {
        let n = mono_ns();
        if n >= cfg.epoch_ns || ctl.is_cancelled() {
            break;
        }
        let d = (cfg.epoch_ns - n).min(50_000_000);
        std::thread::sleep(std::time::Duration::from_nanos(d));
    }
    let end = cfg.end_ns * PS_PER_NS;
    let mut next_sample = f.sc.sample_interval_ps.map(|s| (0, s));
    let mut pfds: Vec<libc::pollfd> =
        f.fds.iter().map(|&fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 }).collect();
    loop {
        let now = f.now_ps().min(end);
        f.advance(now, &mut next_sample);
        if now >= end || ctl.is_cancelled() {
            break;
        }
        ctl.report(now);
        for (h, pfd) in pfds.iter_mut().enumerate().take(nh) {
            if pfd.revents & libc::POLLIN != 0 {
                // Stamp what is read with the clock as it is read, not with
                // `now` from before `advance`: a busy forwarder (writes, a
                // slow VM) can spend milliseconds there, and a packet the
                // kernel sent meanwhile would enter the model before it
                // existed and cross the path faster than its delays allow
                // (kernel min RTT half the configured one was seen). The
                // model is first brought to that instant, so links still
                // see their packets in time order.
                let t = f.now_ps().min(end);
                f.advance(t, &mut next_sample);
                f.read_host(h, t);
            }
            pfd.revents = 0;
        }
        // Sleep until the next model event (or a packet to read).
        let mut wake = end;
        if let Some((t, _, _)) = f.next_event() {
            wake = wake.min(t);
        }
        if let Some((t, _)) = next_sample {
            wake = wake.min(t);
        }
        let now2 = f.now_ps();
        let wait_ns = wake.saturating_sub(now2) / PS_PER_NS;
        let wait_ns = wait_ns.min(20_000_000); // re-check cancel at least every 20 ms
                                               // Sleep until `spin_ns` before the event, then poll without sleeping:
                                               // a sleeping thread wakes tens of µs late (more on a busy VM).
        let sleep_ns = wait_ns.saturating_sub(cfg.spin_ns);
        let ts =
            libc::timespec { tv_sec: (sleep_ns / 1_000_000_000) as i64, tv_nsec: (sleep_ns % 1_000_000_000) as i64 };
        // SAFETY: ppoll over our pollfd array with a timeout we own.
        let r = unsafe { libc::ppoll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, &ts, std::ptr::null()) };
        f.stats.wakeups += 1;
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(format!("ppoll: {e}"));
            }
        }
    }
    let end_model = f.now_ps().min(end).max(1);
    let mut out = SimOutput { sim_time_s: end_model as f64 * 1e-12, ..Default::default() };
    // what still waits in each queue at the end has not been transmitted
    let waiting: Vec<(u32, u64)> = f.links.iter_mut().map(|l| l.queue_at(end_model)).collect();
    let rows: Vec<LinkRow> = f
        .links
        .iter()
        .enumerate()
        .map(|(id, link)| LinkRow {
            id,
            link,
            queue_pkts: waiting[id].0,
            queue_bytes: waiting[id].1,
            queue_max_pkts: 0,
        })
        .collect();
    let lctx = LinkCtx { nodes: &f.sc.nodes, end: end_model };
    out.tables.push(output::table("links", &output::link_columns(), &rows, &lctx));
    drop(rows);
    let ls = std::mem::replace(&mut f.lseries, Recorder::new(&output::link_series()));
    out.tables.push(ls.into_table("link_series", &output::link_series()));
    let mut lt = Table::new("lateness");
    lt.push("time_s", Column::F64(f.stats.delivered_at.iter().map(|&t| t as f64 * 1e-12).collect()));
    lt.push("late_s", Column::F64(f.stats.lateness_ns.iter().map(|&x| x as f64 * 1e-9).collect()));
    out.tables.push(lt);
    out.tables.push(stats_table(&mut f.stats, f.flows.len()));
    if let Some(w) = f.wire.take() {
        out.tables.push(wire_table(&w));
    }
    if let Some((_, rows)) = f.capture.take() {
        let mut t = Table::new("capture_raw");
        t.push("time_ns", Column::U64(rows.iter().map(|r| r.0 / PS_PER_NS).collect()));
        t.push("link", Column::U64(rows.iter().map(|r| r.1 as u64).collect()));
        t.push("size", Column::U64(rows.iter().map(|r| r.2 as u64).collect()));
        t.push(
            "hdr_hex",
            Column::Str(rows.iter().map(|r| r.3.iter().map(|x| format!("{x:02x}")).collect::<String>()).collect()),
        );
        out.tables.push(t);
    }
    out.delivered_data_pkts = f.stats.pkts_written;
    Ok(out)
}

fn pct(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let k = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[k] as f64 * 1e-9
}

fn stats_table(s: &mut FwdStats, flows: usize) -> Table {
    s.lateness_ns.sort_unstable();
    let l = &s.lateness_ns;
    let mut t = Table::new("forwarder");
    let u = |v: u64| Column::U64(vec![v]);
    let f = |v: f64| Column::F64(vec![v]);
    t.push("pkts_read", u(s.pkts_read));
    t.push("pkts_written", u(s.pkts_written));
    t.push("foreign", u(s.foreign));
    t.push("unroutable", u(s.unroutable));
    t.push("write_errors", u(s.write_errors));
    t.push("oversize", u(s.oversize));
    t.push("five_tuples", u(flows as u64));
    t.push("wakeups", u(s.wakeups));
    t.push("lateness_p50_s", f(pct(l, 50.0)));
    t.push("lateness_p99_s", f(pct(l, 99.0)));
    t.push("lateness_max_s", f(l.last().map_or(f64::NAN, |&x| x as f64 * 1e-9)));
    t.push("lateness_max_at_s", f(s.worst_at as f64 * 1e-12));
    t.push("late_over_500us", u(l.iter().filter(|&&x| x > 500_000).count() as u64));
    t
}

fn wire_table(w: &[WireRow]) -> Table {
    let mut t = Table::new("wire");
    t.push("time_s", Column::F64(w.iter().map(|r| r.time as f64 * 1e-12).collect()));
    t.push("out", Column::U64(w.iter().map(|r| r.out as u64).collect()));
    t.push("pkt", Column::U64(w.iter().map(|r| r.pkt).collect()));
    t.push("src", Column::U64(w.iter().map(|r| r.src as u64).collect()));
    t.push("dst", Column::U64(w.iter().map(|r| r.dst as u64).collect()));
    t.push("sport", Column::U64(w.iter().map(|r| r.tcp.sport as u64).collect()));
    t.push("dport", Column::U64(w.iter().map(|r| r.tcp.dport as u64).collect()));
    t.push("tcp_seq", Column::U64(w.iter().map(|r| r.tcp.seq as u64).collect()));
    t.push("tcp_ack", Column::U64(w.iter().map(|r| r.tcp.ack as u64).collect()));
    t.push("tcp_flags", Column::U64(w.iter().map(|r| r.tcp.flags as u64).collect()));
    t.push("payload", Column::U64(w.iter().map(|r| r.tcp.payload as u64).collect()));
    t
}

/// Parse the forwarder's configuration (JSON text).
pub fn parse_cfg(json: &str) -> Result<EmuCfg, String> {
    serde_json::from_str(json).map_err(|e| format!("emulation config: {e}"))
}
