//! Per-packet channel models applied per link direction, each with its own
//! random stream. A lost packet still occupies the transmitter (it was sent
//! and corrupted on the wire) and is discarded when it would have arrived.
//!
//! Besides losses this holds the test marker of RFC 3168 experiments: a link
//! that sets CE on chosen ECN-capable packets (every n-th, or scripted
//! numbers). It is a measuring device, not a model of a router: packets that
//! are not ECN-capable pass untouched. Marking by a congested queue (RED and
//! friends) is the queue discipline's job (`queue::Verdict::Mark`).

use crate::config::LossCfg;
use crate::packet::Packet;
use crate::rng::{Dist, Stream, StreamKind};
use crate::units::SimTime;

/// Gilbert–Elliott per-packet chain (Gilbert 1960, Elliott 1963): before each
/// packet the chain moves Good→Bad with probability `p` and Bad→Good with
/// probability `r`; the packet is then lost with `loss_good` or `loss_bad`.
/// Stationary P(Bad) = p/(p + r); with loss_good = 0 and loss_bad = 1 the loss
/// bursts are geometric with mean 1/r.
pub struct GilbertElliott {
    pub p: f64,
    pub r: f64,
    pub loss_good: f64,
    pub loss_bad: f64,
    pub bad: bool,
    pub rng: Stream,
}

/// Time-driven two-state channel (ns-2 ErrorModel/TwoStateErrorModel and the
/// MultiState model of Grieco & Mascolo's wireless runs): the channel stays in
/// a state for a duration drawn from that state's distribution; when it ends
/// the next state is Bad with probability `to_bad_after_good` (from Good) or
/// `to_bad_after_bad` (from Bad) — a state may follow itself. A packet that
/// starts transmission in a state is lost with that state's probability.
pub struct TwoStateTime {
    pub good: Dist,
    pub bad_dur: Dist,
    pub loss_good: f64,
    pub loss_bad: f64,
    pub to_bad_after_good: f64,
    pub to_bad_after_bad: f64,
    pub bad: bool,
    /// End of the current state.
    pub until: SimTime,
    pub rng: Stream,
}

impl TwoStateTime {
    /// Starts in Good at time 0 with a drawn Good duration.
    pub fn new(
        good: Dist,
        bad_dur: Dist,
        loss_good: f64,
        loss_bad: f64,
        to_bad_after_good: f64,
        to_bad_after_bad: f64,
        mut rng: Stream,
    ) -> Self {
        let until = Self::draw(&good, &mut rng);
        TwoStateTime { good, bad_dur, loss_good, loss_bad, to_bad_after_good, to_bad_after_bad, bad: false, until, rng }
    }

    /// A state duration in ps, at least 1 ps so time always advances.
    fn draw(d: &Dist, rng: &mut Stream) -> SimTime {
        (d.sample(rng).round() as SimTime).max(1)
    }

    /// Move the channel to time `t` and return whether it is Bad then.
    pub fn state_at(&mut self, t: SimTime) -> bool {
        while t >= self.until {
            let q = if self.bad { self.to_bad_after_bad } else { self.to_bad_after_good };
            self.bad = self.rng.bernoulli(q);
            let d = if self.bad { &self.bad_dur } else { &self.good };
            self.until += Self::draw(d, &mut self.rng);
        }
        self.bad
    }
}

pub enum LossModel {
    None,
    /// Each packet is lost independently with probability `p`.
    Bernoulli {
        p: f64,
        rng: Stream,
    },
    /// Independent bit errors: a packet of `size` bytes is lost with
    /// P = 1 − (1 − ber)^(8·size) (ns-2 ErrorModel unit_ bit, as Lee, Seo & Park use it), so
    /// 40-byte ACKs and 1500-byte segments differ. `last` caches the
    /// probability of the last size seen.
    Ber {
        ber: f64,
        last: (u32, f64),
        rng: Stream,
    },
    GilbertElliott(Box<GilbertElliott>),
    TwoStateTime(Box<TwoStateTime>),
    /// Lose the packets with these 1-based arrival numbers on this link
    /// direction (for tests: "drop data packets 30, 32 and 34").
    Scripted {
        drops: Vec<u64>,
        next: usize,
        count: u64,
    },
    /// Set CE on every `n`-th ECN-capable packet (counted from 1).
    CeEvery {
        n: u64,
        count: u64,
    },
    /// Set CE on the ECN-capable packets with these 1-based numbers
    /// (counted over ECN-capable packets only).
    CeScripted {
        marks: Vec<u64>,
        next: usize,
        count: u64,
    },
}

/// P(packet of `bytes` bytes has at least one bit error) = 1 − (1 − ber)^(8·bytes),
/// computed as −expm1(8·bytes·ln(1 − ber)) to keep precision for small ber.
pub fn ber_packet_loss(ber: f64, bytes: u32) -> f64 {
    if ber >= 1.0 {
        return 1.0;
    }
    -(8.0 * bytes as f64 * (-ber).ln_1p()).exp_m1()
}

impl LossModel {
    /// The loss model a link's configuration asks for; `index` picks the
    /// link's random stream.
    pub fn build(cfg: &LossCfg, seed: u64, index: u64) -> LossModel {
        let rng = || Stream::new(seed, StreamKind::LinkLoss, index);
        match cfg {
            LossCfg::None => LossModel::None,
            LossCfg::Bernoulli { p } => LossModel::Bernoulli { p: *p, rng: rng() },
            LossCfg::Ber { ber } => LossModel::Ber { ber: *ber, last: (0, 0.0), rng: rng() },
            LossCfg::GilbertElliott { p, r, loss_good, loss_bad } => {
                LossModel::GilbertElliott(Box::new(GilbertElliott {
                    p: *p,
                    r: *r,
                    loss_good: *loss_good,
                    loss_bad: *loss_bad,
                    bad: false,
                    rng: rng(),
                }))
            }
            LossCfg::TwoState { good, bad, loss_good, loss_bad, to_bad_after_good, to_bad_after_bad } => {
                LossModel::TwoStateTime(Box::new(TwoStateTime::new(
                    *good,
                    *bad,
                    *loss_good,
                    *loss_bad,
                    *to_bad_after_good,
                    *to_bad_after_bad,
                    rng(),
                )))
            }
            LossCfg::Scripted { drop } => LossModel::Scripted { drops: drop.clone(), next: 0, count: 0 },
            LossCfg::CeEvery { n } => LossModel::CeEvery { n: *n, count: 0 },
            LossCfg::CeScripted { mark } => LossModel::CeScripted { marks: mark.clone(), next: 0, count: 0 },
        }
    }

    /// Apply the model to a packet that starts transmission at `t`;
    /// true = lost.
    #[inline(always)]
    pub fn apply(&mut self, t: SimTime, pkt: &mut Packet) -> bool {
        // Most link directions have no loss model: decided without a call.
        if matches!(self, LossModel::None) {
            return false;
        }
        self.apply_model(t, pkt)
    }

    #[inline(never)]
    fn apply_model(&mut self, t: SimTime, pkt: &mut Packet) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p, rng } => rng.bernoulli(*p),
            LossModel::Ber { ber, last, rng } => {
                if last.0 != pkt.size {
                    *last = (pkt.size, ber_packet_loss(*ber, pkt.size));
                }
                rng.bernoulli(last.1)
            }
            LossModel::GilbertElliott(g) => {
                g.bad = if g.bad { !g.rng.bernoulli(g.r) } else { g.rng.bernoulli(g.p) };
                let q = if g.bad { g.loss_bad } else { g.loss_good };
                q > 0.0 && g.rng.bernoulli(q)
            }
            LossModel::TwoStateTime(c) => {
                let q = if c.state_at(t) { c.loss_bad } else { c.loss_good };
                q > 0.0 && c.rng.bernoulli(q)
            }
            LossModel::Scripted { drops, next, count } => {
                *count += 1;
                if *next < drops.len() && drops[*next] == *count {
                    *next += 1;
                    true
                } else {
                    false
                }
            }
            LossModel::CeEvery { n, count } => {
                if pkt.ecn.capable() {
                    *count += 1;
                    if *count % *n == 0 {
                        pkt.ecn.mark();
                    }
                }
                false
            }
            LossModel::CeScripted { marks, next, count } => {
                if pkt.ecn.capable() {
                    *count += 1;
                    if *next < marks.len() && marks[*next] == *count {
                        *next += 1;
                        pkt.ecn.mark();
                    }
                }
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PktKind;
    use crate::rng::StreamKind;

    fn pkt(size: u32) -> Packet {
        Packet::new(PktKind::Data, 0, 0, 0, size, 0)
    }

    fn stream(i: u64) -> Stream {
        Stream::new(11, StreamKind::LinkLoss, i)
    }

    /// Loss rate and mean length of runs of consecutive losses.
    fn run(m: &mut LossModel, n: u64, size: u32, gap: SimTime) -> (f64, f64) {
        let (mut lost, mut bursts, mut prev) = (0u64, 0u64, false);
        let mut p = pkt(size);
        for i in 0..n {
            let l = m.apply(i * gap, &mut p);
            lost += l as u64;
            bursts += (l && !prev) as u64;
            prev = l;
        }
        (lost as f64 / n as f64, lost as f64 / bursts.max(1) as f64)
    }

    fn within(got: f64, want: f64, rel: f64) {
        assert!((got / want - 1.0).abs() < rel, "got {got}, expected {want} ± {}%", rel * 100.0);
    }

    #[test]
    fn ber_vectors_from_the_reference() {
        // docs/reference.md R8 (ns-2/ns-3 error models, unit bit).
        for (ber, bytes, want) in
            [(1e-6, 1500, 0.011928), (1e-5, 1500, 0.11308), (1e-5, 40, 0.0031949), (1e-4, 1000, 0.55069)]
        {
            let got = ber_packet_loss(ber, bytes);
            assert!((got - want).abs() < 5e-6 * want.max(1e-3) * 10.0, "{ber} {bytes}: {got} vs {want}");
        }
        assert_eq!(ber_packet_loss(0.0, 1500), 0.0);
        assert_eq!(ber_packet_loss(1.0, 40), 1.0);
    }

    #[test]
    fn ber_loss_differs_for_acks_and_data_as_the_formula_says() {
        // 10^6 packets of each size; within 3 % of 1 − (1 − BER)^(8·size).
        let ber = 1e-5;
        let mut m = LossModel::Ber { ber, last: (0, 0.0), rng: stream(1) };
        let (data, _) = run(&mut m, 1_000_000, 1500, 1);
        let (ack, _) = run(&mut m, 1_000_000, 40, 1);
        within(data, 1.0 - (1.0 - ber).powf(8.0 * 1500.0), 0.03);
        within(ack, 1.0 - (1.0 - ber).powf(8.0 * 40.0), 0.03);
    }

    #[test]
    fn gilbert_stationary_loss_and_burst_length() {
        // Reference §12 vector: p = 0.01, r = 0.3 → loss p/(p+r) = 0.03226,
        // mean burst 1/r = 3.33 packets (simple Gilbert: lose all in Bad).
        // 10^7 packets (≈ 97 000 bursts): the estimate's relative standard
        // error is ≈ 0.4 %, so 3 % is far outside chance (10^6 would give ≈ 1.3 %).
        let g = GilbertElliott { p: 0.01, r: 0.3, loss_good: 0.0, loss_bad: 1.0, bad: false, rng: stream(2) };
        let mut m = LossModel::GilbertElliott(Box::new(g));
        let (rate, burst) = run(&mut m, 10_000_000, 1500, 1);
        within(rate, 0.01 / 0.31, 0.03);
        within(burst, 1.0 / 0.3, 0.03);
    }

    #[test]
    fn gilbert_elliott_mean_loss() {
        // loss = (1−k)·r/(p+r) + (1−h)·p/(p+r), with 1−k = 0.001, 1−h = 0.5.
        let (p, r, lg, lb) = (0.02, 0.2, 0.001, 0.5);
        let g = GilbertElliott { p, r, loss_good: lg, loss_bad: lb, bad: false, rng: stream(3) };
        let mut m = LossModel::GilbertElliott(Box::new(g));
        let (rate, _) = run(&mut m, 10_000_000, 1500, 1);
        within(rate, lg * r / (p + r) + lb * p / (p + r), 0.03);
    }

    #[test]
    fn two_state_time_channel_loss_matches_time_in_bad() {
        // Grieco & Mascolo 2004's wireless channel: Good lasts 1 s, Bad lasts d; at the end of
        // a state the next is Bad with probability 0.5. The embedded chain has
        // P(B) = a/(a + b) with a = P(G→B) = 0.5, b = P(B→G) = 0.5, so the share
        // of time in Bad is a·d / (b·1 s + a·d); packets sent at a constant rate
        // are lost with 0.1 in Bad. Here d = 100 ms and 4·10^6 packets 25 ms
        // apart (10^5 s, ≈ 180 000 states): relative standard error ≈ 0.6 %.
        let ms = crate::units::PS_PER_MS as f64;
        for (dist_good, dist_bad) in [
            (Dist::Fixed { value: 1000.0 * ms }, Dist::Fixed { value: 100.0 * ms }),
            (Dist::Exponential { mean: 1000.0 * ms }, Dist::Exponential { mean: 100.0 * ms }),
        ] {
            let mut m = LossModel::TwoStateTime(Box::new(TwoStateTime::new(
                dist_good,
                dist_bad,
                0.0,
                0.1,
                0.5,
                0.5,
                stream(4),
            )));
            let (rate, _) = run(&mut m, 4_000_000, 1500, 25 * crate::units::PS_PER_MS);
            let share_bad = 0.5 * 100.0 / (0.5 * 1000.0 + 0.5 * 100.0);
            within(rate, 0.1 * share_bad, 0.03);
        }
    }

    #[test]
    fn two_state_time_fixed_durations_follow_the_clock() {
        // Always switch (to_bad_after_good = 1, to_bad_after_bad = 0), Good 10 ps,
        // Bad 5 ps, every packet lost in Bad: the pattern repeats every 15 ps.
        let c =
            TwoStateTime::new(Dist::Fixed { value: 10.0 }, Dist::Fixed { value: 5.0 }, 0.0, 1.0, 1.0, 0.0, stream(5));
        let mut m = LossModel::TwoStateTime(Box::new(c));
        let got: Vec<bool> = (0..30).map(|t| m.apply(t, &mut pkt(100))).collect();
        let want: Vec<bool> = (0..30).map(|t| t % 15 >= 10).collect();
        assert_eq!(got, want);
    }
}
