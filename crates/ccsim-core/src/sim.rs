//! The simulation: one owned value holding the scheduler, links, routes and
//! flows; no global state. `Simulation::new` validates a scenario and builds
//! it (`from_checked` builds one `Scenario::checked_from_json` has validated,
//! so a run from JSON is validated once), `run` executes it, `output`
//! returns the columns.

use crate::app::{App, AppAction, Transfer, UdpSource};
use crate::config::ConfigError;
use crate::config::Scenario;
use crate::control::{Cancelled, MemoryExceeded, RunControl, Stopped, REPORT_EVERY};
use crate::link::{Admission, Link};
use crate::output::{self, FlowCtx, LinkCtx, LinkRow, Recorder};
use crate::packet::{Packet, PktKind};
use crate::record::SimOutput;
use crate::sched::{Event, Scheduler};
use crate::tcp::TcpFlow;
use crate::units::{ps_to_s, SimTime};

/// Reports between two counts of a controlled run's memory.
const MEMORY_CHECK_EVERY: u64 = 4;

pub struct Simulation {
    pub now: SimTime,
    duration: SimTime,
    sample_interval: Option<SimTime>,
    sched: Scheduler,
    nodes: Vec<String>,
    pub links: Vec<Link>,
    /// Times of each flow's timer events in the scheduler, latest first: a
    /// new event is pushed only when it is earlier than all of them, and
    /// events fire earliest first, so the top is always the next to fire.
    timer_events: Vec<Vec<SimTime>>,
    /// The top of each flow's `timer_events` (`SimTime::MAX` when empty),
    /// dense: a flush reads it after every packet a flow handles, while
    /// the stacks themselves (one allocation each) change only when a
    /// timer event is added or fires.
    timer_next: Vec<SimTime>,
    routes: crate::route::Routes,
    pub flows: Vec<TcpFlow>,
    apps: Vec<App>,
    pub udp: Vec<UdpSource>,
    /// Finished transfers (files and repeated objects), in completion order.
    transfers: Vec<Transfer>,
    out: Vec<Packet>,
    fseries: Recorder,
    lseries: Recorder,
    /// Whether the time series samples each link.
    sample_link: Vec<bool>,
    delivered_data_pkts: u64,
    /// Links whose arrivals are captured (empty: none), and the capture.
    capture_link: Vec<bool>,
    capture: Vec<output::CaptureRow>,
}

/// Time a packet of `bytes` takes along route `r` with no queue: each
/// link's propagation delay plus its serialisation at the link's nominal
/// rate (None when a link's nominal rate is 0).
fn path_time(links: &[Link], routes: &crate::route::Routes, r: u32, bytes: u32) -> Option<SimTime> {
    let mut t: SimTime = 0;
    for hop in 0..routes.len(r) {
        let l = &links[routes.link(r, hop as u16)];
        let cap = l.capacity_bps();
        if cap == 0 {
            return None;
        }
        t += l.delay + crate::units::serialization_ps(bytes, cap);
    }
    Some(t)
}

impl Simulation {
    /// Validate `sc` and build its simulation.
    pub fn new(sc: &Scenario) -> Result<Self, ConfigError> {
        sc.validate()?;
        Simulation::build(sc)
    }

    /// Build the simulation of a scenario already validated, moving each
    /// flow's configuration into its flow rather than copying it (a
    /// million-flow scenario's flows are about 150 MB).
    pub fn from_checked(sc: crate::config::Checked) -> Result<Self, ConfigError> {
        let mut sc = sc.into_scenario();
        let (links, plan, apps) = Simulation::prepare(&sc)?;
        let cfgs = std::mem::take(&mut sc.flows);
        Simulation::assemble(&sc, links, plan, apps, cfgs)
    }

    fn build(sc: &Scenario) -> Result<Self, ConfigError> {
        let (links, plan, apps) = Simulation::prepare(sc)?;
        Simulation::assemble(sc, links, plan, apps, sc.flows.iter().cloned())
    }

    /// The links, the routes and the flows' applications (what reads the
    /// scenario's flows before they move into the simulation's).
    fn prepare(sc: &Scenario) -> Result<(Vec<Link>, crate::route::Plan, Vec<App>), ConfigError> {
        let links: Vec<Link> = (0..sc.links.len()).map(|i| Link::build(sc, i)).collect();
        let plan = crate::route::plan(sc)?;
        let apps = sc.flows.iter().enumerate().map(|(i, f)| App::new(&f.app, sc.seed, i as u32)).collect();
        Ok((links, plan, apps))
    }

    /// The simulation of `sc` whose flows are `cfgs` (`sc.flows`, or
    /// taken from it), with what `prepare` made.
    fn assemble(
        sc: &Scenario,
        links: Vec<Link>,
        plan: crate::route::Plan,
        apps: Vec<App>,
        cfgs: impl IntoIterator<Item = crate::config::FlowCfg>,
    ) -> Result<Self, ConfigError> {
        let mut flows = Vec::with_capacity(plan.flows.len());
        for (i, (f, &(fwd, rev))) in cfgs.into_iter().zip(&plan.flows).enumerate() {
            let mut flow = TcpFlow::new(i as u32, f, fwd, rev, sc.seed);
            flow.c.enable_trace(sc.trace.rtt, sc.trace.seq, sc.trace.cc);
            let (data, ack) = flow.c.wire_sizes();
            flow.c.stats.base_rtt_ps = path_time(&links, &plan.routes, fwd, data)
                .and_then(|t| path_time(&links, &plan.routes, rev, ack).map(|r| t + r));
            flows.push(flow);
        }
        let mut udp = Vec::with_capacity(sc.udp.len());
        for (i, (u, &r)) in sc.udp.iter().zip(&plan.udp).enumerate() {
            udp.push(UdpSource::new(i as u32, u.clone(), r, sc.seed));
        }
        let mut sched = Scheduler::new();
        if sc.sample_interval_ps.is_some() {
            sched.schedule(0, Event::Sample);
        }
        for (i, f) in flows.iter().enumerate() {
            if f.c.start <= sc.duration_ps {
                sched.schedule(f.c.start, Event::FlowStart(i as u32));
            }
        }
        for (i, u) in udp.iter_mut().enumerate() {
            let t = u.start();
            if t <= sc.duration_ps {
                sched.schedule(t, Event::Udp(i as u32));
            }
        }
        let nl = links.len();
        Ok(Simulation {
            now: 0,
            duration: sc.duration_ps,
            sample_interval: sc.sample_interval_ps,
            sample_link: match &sc.sample_links {
                None => vec![true; nl],
                Some(ids) => {
                    let mut m = vec![false; nl];
                    ids.iter().for_each(|&i| m[i as usize] = true);
                    m
                }
            },
            sched,
            nodes: sc.nodes.clone(),
            links,
            timer_events: vec![Vec::new(); flows.len()],
            timer_next: vec![SimTime::MAX; flows.len()],
            routes: plan.routes,
            flows,
            apps,
            udp,
            transfers: Vec::new(),
            out: Vec::with_capacity(64),
            fseries: Recorder::new(output::FLOW_SERIES),
            lseries: Recorder::new(&output::link_series()),
            delivered_data_pkts: 0,
            capture_link: if sc.capture_links.is_empty() {
                Vec::new()
            } else {
                let mut m = vec![false; nl];
                sc.capture_links.iter().for_each(|&i| m[i as usize] = true);
                m
            },
            capture: Vec::new(),
        })
    }

    pub fn events_processed(&self) -> u64 {
        self.sched.popped
    }

    /// Put a packet on the next link of its route.
    #[inline]
    fn forward(&mut self, pkt: Packet) {
        let l = self.routes.link(pkt.route, pkt.hop);
        match self.links[l].enqueue(self.now, pkt) {
            Admission::Dropped => self.count_drop(l, &pkt, output::CaptureEvent::Drop),
            Admission::Accepted(_) => {
                if self.links[l].dequeue_time() {
                    return self.after_service(l);
                }
                if let Some(t) = self.links[l].arm() {
                    self.sched.schedule(t, Event::LinkArrival(l as u32));
                }
            }
        }
    }

    /// A dequeue-time link changed: account its drops, and schedule its
    /// head arrival and next service if needed.
    #[inline(never)]
    fn after_service(&mut self, l: usize) {
        while let Some(p) = self.links[l].pop_dropped() {
            self.count_drop(l, &p, output::CaptureEvent::Drop);
        }
        if let Some(t) = self.links[l].arm() {
            self.sched.schedule(t, Event::LinkArrival(l as u32));
        }
        if let Some(t) = self.links[l].service_request() {
            self.sched.schedule(t, Event::LinkService(l as u32));
        }
    }

    /// A packet link `l` dropped from its queue or lost on the wire: count
    /// it against its flow, and capture it if the link is captured.
    #[inline]
    fn count_drop(&mut self, l: usize, pkt: &Packet, why: output::CaptureEvent) {
        if !self.capture_link.is_empty() && self.capture_link[l] {
            self.record_capture(l, pkt, why);
        }
        if pkt.kind == PktKind::Udp {
            self.udp[pkt.flow as usize].stats.pkts_dropped += 1;
        } else {
            let st = &mut self.flows[pkt.flow as usize].c.stats;
            st.pkts_dropped += 1;
            if pkt.hop == 0 && pkt.kind == PktKind::Data {
                st.first_hop_drop_bytes += pkt.size as u64;
            }
        }
    }

    /// Inject the packets a flow just produced and re-arm its timer event.
    #[inline]
    fn flush(&mut self, f: usize, mut out: Vec<Packet>) {
        let flow = &mut self.flows[f];
        let conn = flow.c.conn;
        flow.c.stats.pkts_injected += out.len() as u64;
        for mut p in out.drain(..) {
            p.conn = conn;
            self.forward(p);
        }
        self.out = out;
        if let Some(d) = self.flows[f].c.next_deadline() {
            if d < self.timer_next[f] {
                self.timer_events[f].push(d);
                self.timer_next[f] = d;
                self.sched.schedule(d, Event::FlowTimer(f as u32));
            }
        }
    }

    #[inline]
    fn deliver(&mut self, pkt: Packet) {
        let f = pkt.flow as usize;
        if pkt.kind == PktKind::Udp {
            let s = &mut self.udp[f].stats;
            s.pkts_received += 1;
            s.bytes_received += pkt.size as u64;
            return;
        }
        let mut out = std::mem::take(&mut self.out);
        let now = self.now;
        let flow = &mut self.flows[f];
        if pkt.conn != flow.c.conn {
            // A late packet of the slot's previous connection: discarded,
            // as a closed connection's segments would be.
            flow.c.stats.stale_pkts += 1;
            flow.c.stats.pkts_arrived += 1;
            self.out = out;
            return;
        }
        flow.c.stats.pkts_arrived += 1;
        match pkt.kind {
            PktKind::Data => {
                self.delivered_data_pkts += 1;
                flow.c.on_data(now, &pkt, &mut out);
                if let Some(done) = flow.c.completed_at {
                    if let App::Repeat { current: Some(_), .. } = self.apps[f] {
                        self.transfer_done(f, done);
                    }
                }
            }
            PktKind::Syn => flow.c.on_data(now, &pkt, &mut out),
            PktKind::Ack | PktKind::SynAck => flow.on_ack(now, &pkt, &mut out),
            PktKind::Udp => unreachable!("UDP packets are handled above"),
        }
        self.flush(f, out);
    }

    /// A repeated transfer finished at `done`: record it and schedule the
    /// next one after a think time.
    #[inline(never)]
    fn transfer_done(&mut self, f: usize, done: SimTime) {
        let App::Repeat { think, rng, left, current, done: n, .. } = &mut self.apps[f] else { return };
        let mut tr = current.take().expect("a transfer was in progress");
        tr.end = Some(done);
        tr.first_data = self.flows[f].c.first_data;
        self.transfers.push(tr);
        *n += 1;
        if left.is_some_and(|l| *n >= l) {
            return;
        }
        // A think time may be 0 (back-to-back transfers).
        let next = done + (think.sample(rng).round().max(0.0)).min(crate::config::MAX_TIME_PS as f64) as SimTime;
        if next <= self.duration {
            self.sched.schedule(next, Event::App(f as u32));
        }
    }

    /// Start the next transfer of a repeating app on a fresh connection.
    #[inline(never)]
    fn start_transfer(&mut self, f: usize, first: bool) {
        let now = self.now;
        let App::Repeat { size, rng, current, done, .. } = &mut self.apps[f] else { return };
        let bytes = App::draw_size(size, rng);
        *current = Some(Transfer { flow: f as u32, index: *done, bytes, start: now, first_data: None, end: None });
        let mut out = std::mem::take(&mut self.out);
        if first {
            self.flows[f].reconnect_first(bytes);
            self.flows[f].start(now, &mut out);
        } else {
            self.flows[f].reconnect(now, bytes, &mut out);
        }
        self.flush(f, out);
    }

    /// Schedule a flow's next App event if it falls within the run.
    fn schedule_app(&mut self, f: usize, at: Option<SimTime>) {
        if let Some(t) = at.filter(|&t| t <= self.duration) {
            self.sched.schedule(t, Event::App(f as u32));
        }
    }

    #[inline(never)]
    fn on_app(&mut self, f: usize) {
        let now = self.now;
        let (action, next) = self.apps[f].at_event(now);
        if action == AppAction::Transfer {
            return self.start_transfer(f, false);
        }
        let mut out = std::mem::take(&mut self.out);
        match action {
            AppAction::Resume => self.flows[f].app_resume(now, &mut out),
            AppAction::Pause => self.flows[f].app_pause(),
            _ => {}
        }
        self.schedule_app(f, next);
        self.flush(f, out);
    }

    #[inline(never)]
    fn on_udp(&mut self, u: usize) {
        let mut out = std::mem::take(&mut self.out);
        let next = self.udp[u].fire(self.now, &mut out);
        for p in out.drain(..) {
            self.forward(p);
        }
        self.out = out;
        if let Some(t) = next.filter(|&t| t <= self.duration) {
            self.sched.schedule(t, Event::Udp(u as u32));
        }
    }

    fn on_link_arrival(&mut self, l: usize) {
        if let Some(upcoming) = self.sched.upcoming_links() {
            for next in upcoming {
                if let Some(link) = self.links.get(next as usize) {
                    crate::link::prefetch(link);
                }
            }
        }
        self.links[l].arrival_fired();
        while let Some(slot) = self.links[l].pop_arrived(self.now) {
            let mut pkt = slot.pkt;
            if slot.lost {
                self.count_drop(l, &pkt, output::CaptureEvent::Loss);
                continue;
            }
            if !self.capture_link.is_empty() && self.capture_link[l] {
                self.record_capture(l, &pkt, output::CaptureEvent::Arrival);
            }
            let hop = pkt.hop as usize + 1;
            if hop < self.routes.len(pkt.route) {
                pkt.hop = hop as u16;
                self.forward(pkt);
            } else {
                self.deliver(pkt);
            }
        }
        // The event that brought us here is still at the top of the
        // scheduler: re-arm it for the next packet, or remove it.
        match self.links[l].arm() {
            Some(t) => self.sched.reschedule_current(t, Event::LinkArrival(l as u32)),
            None => self.sched.pop_current(),
        }
    }

    #[inline(never)]
    fn record_capture(&mut self, l: usize, pkt: &Packet, event: output::CaptureEvent) {
        let (mut nsack, mut sack) = (0, [(0, 0); 4]);
        if pkt.kind == crate::packet::PktKind::Ack && pkt.flags & crate::packet::FLAG_SACK != 0 {
            if let Some((n, b)) = self.flows.get(pkt.flow as usize).and_then(|f| f.sack_blocks(pkt.aux)) {
                (nsack, sack) = (n, b);
            }
        }
        self.capture.push(output::CaptureRow { time: self.now, link: l as u32, event, pkt: *pkt, nsack, sack });
    }

    fn on_flow_timer(&mut self, f: usize) {
        let t = self.timer_events[f].pop();
        debug_assert_eq!(t, Some(self.now));
        self.timer_next[f] = self.timer_events[f].last().copied().unwrap_or(SimTime::MAX);
        let mut out = std::mem::take(&mut self.out);
        self.flows[f].on_timer(self.now, &mut out);
        self.flush(f, out);
    }

    #[inline(never)]
    fn on_flow_start(&mut self, f: usize) {
        let now = self.now;
        let (action, next) = self.apps[f].at_start(now);
        match action {
            AppAction::Transfer => return self.start_transfer(f, true),
            AppAction::Pause => self.flows[f].app_pause(),
            _ => {}
        }
        self.schedule_app(f, next);
        let mut out = std::mem::take(&mut self.out);
        self.flows[f].start(now, &mut out);
        self.flush(f, out);
    }

    #[inline(never)]
    fn sample(&mut self) {
        let t = ps_to_s(self.now);
        for f in &mut self.flows {
            self.fseries.push(output::FLOW_SERIES, f, &t);
            if f.c.trace.is_some() {
                f.trace_cc(self.now, None);
            }
        }
        let now = self.now;
        let defs = output::link_series();
        for (id, link) in self.links.iter_mut().enumerate() {
            if !self.sample_link[id] {
                continue;
            }
            let (queue_pkts, queue_bytes) = link.queue_at(now);
            let queue_max_pkts = link.take_interval_max(queue_pkts);
            self.lseries.push(&defs, &LinkRow { id, link, queue_pkts, queue_bytes, queue_max_pkts }, &t);
        }
    }

    /// Run while publishing progress to `ctl`; stop early if it is cancelled
    /// (the simulation is then left part-way and should be dropped).
    ///
    /// The run advances in chunks of simulated time, each sized from the
    /// previous one's event count to hold about `REPORT_EVERY` events, and
    /// reports between chunks. Events are handled in the same order as by
    /// `run`, so the output is identical. (A check inside the event loop
    /// instead, even a mask and a branch, made the compiler stop inlining
    /// the heap's `pop` into it: +2.7 % instructions, docs/performance.md.)
    ///
    /// With a memory limit on `ctl`, the rows recorded so far and the
    /// packets the links hold are counted at every `MEMORY_CHECK_EVERY`-th
    /// report (O(flows + links), against the ~64 k events of those chunks,
    /// each of which adds at most a few rows) and the run stops with
    /// `Stopped::Memory` once they take more than the limit.
    pub fn run_controlled(&mut self, ctl: &RunControl) -> Result<(), Stopped> {
        let mut chunk: SimTime = 1_000_000_000; // 1 ms to start
        let mut t = 0;
        let mut reports = 0u64;
        while t < self.duration {
            let h = t.saturating_add(chunk).min(self.duration);
            let before = self.sched.popped;
            self.run_until(h);
            t = h;
            ctl.report(t);
            if ctl.is_cancelled() && t < self.duration {
                return Err(Stopped::Cancelled(Cancelled { sim_time_s: ps_to_s(t) }));
            }
            reports += 1;
            if let Some(limit) = ctl.memory_limit().filter(|_| reports % MEMORY_CHECK_EVERY == 1) {
                let rows = self.memory_use();
                let bytes = output::memory_bytes(&rows);
                if bytes > limit {
                    return Err(Stopped::Memory(MemoryExceeded { sim_time_s: ps_to_s(t), rows, bytes, limit }));
                }
            }
            let n = (self.sched.popped - before).max(1);
            // aim at REPORT_EVERY events per chunk; grow at most 8× at a time
            let scaled = (chunk as u128 * REPORT_EVERY as u128 / n as u128).min(chunk as u128 * 8);
            chunk = (scaled as SimTime).max(1_000_000); // at least 1 µs
        }
        self.now = self.duration;
        Ok(())
    }

    pub fn run(&mut self) {
        self.run_until(self.duration);
    }

    /// Rows of every table that grows with the run, recorded so far, and
    /// the packets the links hold ("packets_held"), for the memory limit
    /// of `run_controlled` (priced by `output::memory_bytes`).
    pub fn memory_use(&self) -> Vec<(&'static str, u64)> {
        let (mut cc, mut rtt, mut seq, mut events) = (0usize, 0usize, 0usize, 0usize);
        for f in &self.flows {
            events += f.c.events.len();
            if let Some(t) = f.c.trace.as_deref() {
                cc += t.cc.len();
                rtt += t.rtt.len();
                seq += t.seq.len();
            }
        }
        let held: usize = self.links.iter().map(Link::held_pkts).sum();
        vec![
            ("flow_series", self.fseries.rows() as u64),
            ("link_series", self.lseries.rows() as u64),
            ("cc_state", cc as u64),
            ("rtt_trace", rtt as u64),
            ("seq_trace", seq as u64),
            ("capture", self.capture.len() as u64),
            ("transfers", self.transfers.len() as u64),
            ("events", events as u64),
            ("packets_held", held as u64),
        ]
    }

    /// Run up to simulated time `t` (at most the duration) and stop there;
    /// `run` or `run_to` may continue later (for inspection mid-run).
    pub fn run_to(&mut self, t: SimTime) {
        self.run_until(t.min(self.duration));
    }

    /// Handle every event due at or before `horizon` (≤ the duration).
    /// Never inlined: one copy of the loop keeps the heap's `pop` at a single
    /// call site, which the compiler then inlines (a copy per caller
    /// stops that: +2.7 % instructions).
    #[inline(never)]
    fn run_until(&mut self, horizon: SimTime) {
        while let Some((t, ev)) = self.sched.peek_until(horizon) {
            self.now = t;
            if let Event::LinkArrival(l) = ev {
                // removes or re-arms its own event
                self.on_link_arrival(l as usize);
                continue;
            }
            self.sched.pop_current();
            match ev {
                Event::LinkArrival(_) => unreachable!("handled above"),
                Event::FlowTimer(f) => self.on_flow_timer(f as usize),
                Event::FlowStart(f) => self.on_flow_start(f as usize),
                Event::App(f) => self.on_app(f as usize),
                Event::LinkService(l) => {
                    self.links[l as usize].on_service(self.now);
                    self.after_service(l as usize);
                }
                Event::Udp(u) => self.on_udp(u as usize),
                Event::Sample => {
                    self.sample();
                    if let Some(iv) = self.sample_interval {
                        let next = self.now + iv;
                        if next <= self.duration {
                            self.sched.schedule(next, Event::Sample);
                        }
                    }
                }
            }
        }
        self.now = horizon;
    }

    /// The result tables (output.rs defines every column).
    pub fn output(&mut self) -> SimOutput {
        let end = self.duration;
        let mut out = SimOutput {
            events: self.sched.popped,
            sim_time_s: ps_to_s(end),
            delivered_data_pkts: self.delivered_data_pkts,
            ..Default::default()
        };
        // Counters on the wire: a packet admitted to a FIFO but still waiting
        // at the end has not been transmitted; data of a flow still waiting
        // in its first link has not been put on the wire.
        let mut unsent = vec![0u64; self.flows.len()];
        let mut waiting_at_end = Vec::with_capacity(self.links.len());
        for link in &self.links {
            let (mut p, mut b) = (0u32, 0u64);
            let counted = link.untransmitted(end, |pkt| {
                p += 1;
                b += pkt.size as u64;
                if pkt.hop == 0 && pkt.kind == PktKind::Data {
                    unsent[pkt.flow as usize] += pkt.size as u64;
                }
            });
            // Packets a dequeue-time discipline still holds are not in the
            // link's pkts_tx, so nothing is taken off it for them.
            waiting_at_end.push(if counted { (p, b) } else { (0, 0) });
        }
        let fctx = FlowCtx { nodes: &self.nodes, apps: &self.apps, end, unsent: &unsent };
        out.tables.push(output::table("flows", &output::flow_columns(), &self.flows, &fctx));
        let tr = output::all_transfers(&self.transfers, &self.flows, &self.apps);
        out.tables.push(output::table("transfers", &output::transfer_columns(), &tr, &&self.flows[..]));
        out.tables.push(output::table("udp", &output::udp_columns(), &self.udp, &&self.nodes[..]));
        let rows: Vec<LinkRow> = self
            .links
            .iter()
            .enumerate()
            .map(|(id, link)| LinkRow {
                id,
                link,
                queue_pkts: waiting_at_end[id].0,
                queue_bytes: waiting_at_end[id].1,
                queue_max_pkts: 0,
            })
            .collect();
        let lctx = LinkCtx { nodes: &self.nodes, end };
        out.tables.push(output::table("links", &output::link_columns(), &rows, &lctx));
        drop(rows);

        let fs = std::mem::replace(&mut self.fseries, Recorder::new(output::FLOW_SERIES));
        out.tables.push(fs.into_table("flow_series", output::FLOW_SERIES));
        let ls = std::mem::replace(&mut self.lseries, Recorder::new(&output::link_series()));
        out.tables.push(ls.into_table("link_series", &output::link_series()));

        // Every flow's events by time, then flow: each flow's list is in
        // time order, so they are merged straight into the table's columns
        // (no copy of them all to sort: 166,000 events of 10,000 flows).
        let mut next: std::collections::BinaryHeap<std::cmp::Reverse<(SimTime, u32, u32)>> =
            self.flows.iter().filter_map(|f| f.c.events.first().map(|e| std::cmp::Reverse((e.0, f.c.id, 0)))).collect();
        let mut ev = Recorder::new(output::EVENT_COLUMNS);
        while let Some(std::cmp::Reverse((_, id, i))) = next.pop() {
            let events = &self.flows[id as usize].c.events;
            let (time, kind, v) = events[i as usize];
            ev.push(output::EVENT_COLUMNS, &(time, id as u64, kind.name(), v), &());
            if let Some(e) = events.get(i as usize + 1) {
                next.push(std::cmp::Reverse((e.0, id, i + 1)));
            }
        }
        out.tables.push(ev.into_table("events", output::EVENT_COLUMNS));

        // per-packet traces (only flows that asked for them)
        let (mut rtt, mut seq) = (Vec::new(), Vec::new());
        out.tables.push(output::cc_state_table(&self.flows));
        for f in &mut self.flows {
            if let Some(tr) = f.c.trace.take() {
                rtt.extend(tr.rtt.iter().map(|&(t, r)| (t, f.c.id as u64, r)));
                seq.extend(tr.seq.iter().map(|&(t, k, s)| (t, f.c.id as u64, k, s)));
            }
        }
        out.tables.push(output::table("rtt_trace", output::RTT_TRACE, &rtt, &()));
        out.tables.push(output::table("seq_trace", output::SEQ_TRACE, &seq, &()));
        if !self.capture_link.is_empty() {
            let cap = std::mem::take(&mut self.capture);
            out.tables.push(output::table("capture", output::CAPTURE, &cap, &()));
        }
        out
    }
}
