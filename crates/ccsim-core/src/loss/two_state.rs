//! Time-driven two-state channel (ns-2 ErrorModel/TwoStateErrorModel and the
//! MultiState model of Grieco & Mascolo's wireless runs): the channel stays in
//! a state for a duration drawn from that state's distribution; when it ends
//! the next state is Bad with probability `to_bad_after_good` (from Good) or
//! `to_bad_after_bad` (from Bad) — a state may follow itself. A packet that
//! starts transmission in a state is lost with that state's probability.

use super::{LossKind, LossProcess, P};
use crate::opts::{options, Kind, Named, Opt};
use crate::packet::Packet;
use crate::rng::{Dist, Stream};
use crate::units::SimTime;

/// The shortest mean state of a time-driven channel (a two-state loss
/// model's Good or Bad) and of an ON/OFF source's periods: 1 µs. The model
/// steps through every state it passes, so its cost is the run's duration
/// over the mean state; a state far shorter than any packet's transmission
/// changes nothing a packet can see (a 1500-byte packet takes 1.2 µs at
/// 10 Gb/s), and a picosecond state makes a one-second run step through
/// 10^12 states.
pub const MIN_STATE_PS: u64 = crate::units::PS_PER_US;
pub const STATE_TIME: Kind = Kind::TimeDist {
    min_mean_ps: MIN_STATE_PS,
    accepted: "a time or a distribution of times with a mean of at least 1 µs (a 1500-byte packet takes 1.2 µs \
               at 10 Gb/s; shorter states only make the model step through millions of states)",
};

options! {
    /// Time-driven two-state channel; durations in ps.
    pub struct TwoStateCfg, rows FIELD_ROWS, required {
        good: Dist => ("good", STATE_TIME, "time", "time spent in Good: a time ('1s') or a distribution table"),
        bad: Dist => ("bad", STATE_TIME, "time", "time spent in Bad: a time ('10ms') or a distribution table"),
        loss_good: f64 = 0.0 => ("loss_good", P, "", "loss probability in Good"),
        loss_bad: f64 => ("loss_bad", P, "", "loss probability in Bad (required)"),
        /// P(next state is Bad) when Good ends (1: alternate).
        to_bad_after_good: f64 = 1.0
            => ("to_bad_after_good", P, "", "P(next state is Bad) when Good ends; 1 alternates the states"),
        /// P(next state is Bad) when Bad ends (0: alternate).
        to_bad_after_bad: f64 = 0.0
            => ("to_bad_after_bad", P, "", "P(next state is Bad) when Bad ends; 0 alternates the states (Grieco & Mascolo 2004 use 0.5 and 0.5)"),
    }
}

/// How the resolver reads a plain time in `good` and `bad`: an option with
/// no field of its own.
const DURATIONS: Opt = Opt {
    name: "durations",
    core: "",
    kind: Kind::Choice(&["fixed", "exponential"]),
    unit: "",
    doc: "'fixed' (default) or 'exponential' for plain times",
};

const ROWS: [Opt; 7] = {
    let f = TwoStateCfg::FIELD_ROWS;
    [f[0], f[1], DURATIONS, f[2], f[3], f[4], f[5]]
};

impl LossKind for TwoStateCfg {
    const ROWS: &'static [Opt] = &ROWS;
    const REQUIRED: &'static [&'static str] = Self::REQUIRED;
    const NAME: Named = Named { name: "two_state", fixed: &[], doc: "time-driven two-state channel" };
    type Model = Box<TwoStateTime>;
    fn build(&self, rng: &mut dyn FnMut() -> Stream) -> Box<TwoStateTime> {
        let TwoStateCfg { good, bad, loss_good, loss_bad, to_bad_after_good, to_bad_after_bad } = *self;
        Box::new(TwoStateTime::new(good, bad, loss_good, loss_bad, to_bad_after_good, to_bad_after_bad, rng()))
    }
}

/// The channel at work (boxed in `LossModel` to keep the enum small).
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

impl LossProcess for TwoStateTime {
    #[inline(always)]
    fn apply(&mut self, t: SimTime, _: &mut Packet) -> bool {
        let q = if self.state_at(t) { self.loss_bad } else { self.loss_good };
        q > 0.0 && self.rng.bernoulli(q)
    }
}
