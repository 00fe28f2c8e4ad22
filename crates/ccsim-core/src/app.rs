//! Applications and traffic sources around the TCP flows: what a flow slot's
//! application writes and when (bulk, one file, ON-OFF, a fixed schedule,
//! repeated transfers on fresh connections), and UDP sources (constant bit
//! rate, optionally ON-OFF), each drawing from its own random stream.

use crate::config::{AppCfg, UdpCfg};
use crate::packet::{Packet, PktKind};
use crate::rng::{Dist, Stream, StreamKind};
use crate::units::{SimTime, PS_PER_S};

/// One transfer of a flow slot (a file, or one of a repeating app's objects).
#[derive(Clone, Copy, Debug)]
pub struct Transfer {
    pub flow: u32,
    pub index: u64,
    pub bytes: u64,
    pub start: SimTime,
    /// First data segment of the transfer's connection (None before it is sent).
    pub first_data: Option<SimTime>,
    pub end: Option<SimTime>,
}

/// The running state of a TCP flow's application.
pub enum App {
    /// Bulk data or a single file: the flow itself does everything.
    Plain,
    /// ON-OFF: periods drawn from `on` and `off`; `is_on` says which one is running.
    OnOff { on: Dist, off: Dist, rng: Stream, is_on: bool },
    /// Fixed schedule: times at which the application toggles, starting OFF.
    Schedule { toggles: Vec<SimTime>, next: usize },
    /// Repeated transfers: the one in progress (None while thinking).
    Repeat { size: Dist, think: Dist, rng: Stream, left: Option<u64>, current: Option<Transfer>, done: u64 },
}

/// What an application asks of its flow (see `App::at_start`, `App::at_event`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppAction {
    Nothing,
    /// Stop writing (the flow sends what it already has).
    Pause,
    /// Write again (unlimited data until the next pause).
    Resume,
    /// Start (or continue) the repeated transfers of a `Repeat` app.
    Transfer,
}

/// A period length in ps from a distribution, at least 1 ps.
pub fn draw_ps(d: &Dist, rng: &mut Stream) -> SimTime {
    (d.sample(rng).round().max(1.0)).min(crate::config::MAX_TIME_PS as f64) as SimTime
}

impl App {
    pub fn new(cfg: &AppCfg, seed: u64, flow: u32) -> App {
        let rng = || Stream::new(seed, StreamKind::App, flow as u64);
        match cfg {
            AppCfg::Bulk | AppCfg::File { .. } => App::Plain,
            AppCfg::OnOff { on, off, start_off } => App::OnOff { on: *on, off: *off, rng: rng(), is_on: !start_off },
            AppCfg::Schedule { on } => {
                App::Schedule { toggles: on.iter().flat_map(|iv| [iv[0], iv[1]]).collect(), next: 0 }
            }
            AppCfg::Repeat { size, think, count } => {
                App::Repeat { size: *size, think: *think, rng: rng(), left: *count, current: None, done: 0 }
            }
        }
    }

    /// What the application does when its flow starts: whether the flow
    /// starts paused, or is a repeating app, and when its next App event is.
    /// ON-OFF draws its first period; a schedule skips toggles already past
    /// (the app starts in the state they leave it in).
    pub fn at_start(&mut self, now: SimTime) -> (AppAction, Option<SimTime>) {
        match self {
            App::Plain => (AppAction::Nothing, None),
            App::OnOff { on, off, rng, is_on } => {
                let d = draw_ps(if *is_on { on } else { off }, rng);
                (if *is_on { AppAction::Nothing } else { AppAction::Pause }, Some(now + d))
            }
            App::Schedule { toggles, next } => {
                while *next < toggles.len() && toggles[*next] <= now {
                    *next += 1;
                }
                (if *next % 2 == 0 { AppAction::Pause } else { AppAction::Nothing }, toggles.get(*next).copied())
            }
            App::Repeat { .. } => (AppAction::Transfer, None),
        }
    }

    /// What the application does at one of its App events, and when its next
    /// one is: ON-OFF switches and draws the new period's length; toggle k
    /// (0-based) of a schedule turns the application ON when k is even.
    pub fn at_event(&mut self, now: SimTime) -> (AppAction, Option<SimTime>) {
        match self {
            App::Plain => (AppAction::Nothing, None),
            App::OnOff { on, off, rng, is_on } => {
                *is_on = !*is_on;
                let d = draw_ps(if *is_on { on } else { off }, rng);
                (if *is_on { AppAction::Resume } else { AppAction::Pause }, Some(now + d))
            }
            App::Schedule { toggles, next } => {
                let k = *next;
                *next += 1;
                (if k % 2 == 0 { AppAction::Resume } else { AppAction::Pause }, toggles.get(k + 1).copied())
            }
            App::Repeat { .. } => (AppAction::Transfer, None),
        }
    }

    /// Bytes of the next repeated transfer (at least 1).
    pub fn draw_size(size: &Dist, rng: &mut Stream) -> u64 {
        (size.sample(rng).round().max(1.0)).min(u64::MAX as f64 / 2.0) as u64
    }
}

#[derive(Clone, Debug, Default)]
pub struct UdpStats {
    pub pkts_sent: u64,
    pub bytes_sent: u64,
    pub pkts_received: u64,
    pub bytes_received: u64,
    pub pkts_dropped: u64,
}

/// A UDP source: packets of `size` bytes every size·8/rate seconds while
/// ON (ns-2 Application/Traffic/CBR; with `on`/`off` distributions,
/// Application/Traffic/Exponential or Pareto). With `random`, each gap is
/// scaled by a uniform factor in [0.5, 1.5) (ns-2 CBR random_).
pub struct UdpSource {
    pub id: u32,
    pub cfg: UdpCfg,
    pub route: u32,
    /// Mean gap between packets while ON, ps.
    gap: f64,
    rng: Stream,
    is_on: bool,
    /// End of the current ON or OFF period (ON-OFF sources only).
    period_end: SimTime,
    next_send: SimTime,
    pub stats: UdpStats,
}

impl UdpSource {
    pub fn new(id: u32, cfg: UdpCfg, route: u32, seed: u64) -> Self {
        let gap = cfg.size as f64 * 8.0 / cfg.rate_bps as f64 * PS_PER_S as f64;
        let rng = Stream::new(seed, StreamKind::Udp, id as u64);
        UdpSource {
            id,
            route,
            gap,
            rng,
            is_on: true,
            period_end: SimTime::MAX,
            next_send: cfg.start_ps,
            cfg,
            stats: UdpStats::default(),
        }
    }

    /// First event time (the start).
    pub fn start(&mut self) -> SimTime {
        let s = self.cfg.start_ps;
        if let Some(on) = self.cfg.on {
            self.is_on = true;
            self.period_end = s + draw_ps(&on, &mut self.rng);
        }
        self.next_send = s;
        s
    }

    /// Handle the source's event at `now`: send what is due, return the
    /// next event time (None = finished).
    pub fn fire(&mut self, now: SimTime, out: &mut Vec<Packet>) -> Option<SimTime> {
        let stop = self.cfg.stop_ps.unwrap_or(SimTime::MAX);
        if now >= stop {
            return None;
        }
        if let (Some(on), Some(off)) = (self.cfg.on, self.cfg.off) {
            while now >= self.period_end {
                let start = self.period_end;
                self.is_on = !self.is_on;
                let d = if self.is_on { &on } else { &off };
                self.period_end = start + draw_ps(d, &mut self.rng);
                if self.is_on {
                    self.next_send = start;
                }
            }
        }
        if self.is_on && now >= self.next_send {
            out.push(Packet::new(PktKind::Udp, self.stats.pkts_sent, now, self.id, self.cfg.size, self.route));
            self.stats.pkts_sent += 1;
            self.stats.bytes_sent += self.cfg.size as u64;
            let scale = if self.cfg.random { 0.5 + self.rng.uniform() } else { 1.0 };
            // Gaps are rounded to whole ps: under 0.5 ps per packet.
            let g = (self.gap * scale).round().max(1.0) as SimTime;
            self.next_send = now + g;
        }
        let next = if self.is_on { self.next_send.min(self.period_end) } else { self.period_end };
        (next < stop && next != SimTime::MAX).then_some(next)
    }
}
