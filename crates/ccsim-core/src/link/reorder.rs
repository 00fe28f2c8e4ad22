//! netem-like reordering of one link direction: a packet leaving the FIFO
//! at its arrival time draws an extra delay (uniform jitter, and/or a fixed
//! delay with some probability) and waits it out in a heap ordered by its new
//! arrival time, so packets behind it overtake it.

use super::Slot;
use crate::units::SimTime;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// A packet waiting out its extra delay, ordered by (arrival, admission).
struct Held {
    arrive: SimTime,
    n: u64,
    slot: Slot,
}

impl PartialEq for Held {
    fn eq(&self, o: &Self) -> bool {
        (self.arrive, self.n) == (o.arrive, o.n)
    }
}
impl Eq for Held {}
impl PartialOrd for Held {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Held {
    fn cmp(&self, o: &Self) -> Ordering {
        (self.arrive, self.n).cmp(&(o.arrive, o.n))
    }
}

/// netem-like reordering of one link direction (`LinkCfg::reorder`).
pub struct Reorder {
    /// Every packet: extra delay uniform in [0, jitter].
    pub jitter: SimTime,
    /// With this probability a packet is held `delay` longer.
    pub probability: f64,
    pub delay: SimTime,
    rng: crate::rng::Stream,
    held: BinaryHeap<Reverse<Held>>,
    count: u64,
    /// Packets given extra delay.
    pub delayed: u64,
}

impl Reorder {
    pub fn new(jitter: SimTime, probability: f64, delay: SimTime, rng: crate::rng::Stream) -> Self {
        Reorder { jitter, probability, delay, rng, held: BinaryHeap::new(), count: 0, delayed: 0 }
    }

    fn draw(&mut self) -> SimTime {
        let mut x = 0;
        if self.jitter > 0 {
            x += (self.rng.uniform() * self.jitter as f64) as SimTime;
        }
        if self.probability > 0.0 && self.rng.bernoulli(self.probability) {
            x += self.delay;
        }
        if x > 0 {
            self.delayed += 1;
        }
        x
    }

    /// A packet leaves the FIFO: it draws its extra delay (none if lost, so
    /// the loss is counted when it would have arrived) and waits in the heap.
    #[inline]
    pub(super) fn hold(&mut self, mut s: Slot) {
        if !s.lost {
            s.arrive += self.draw();
        }
        self.count += 1;
        self.held.push(Reverse(Held { arrive: s.arrive, n: self.count, slot: s }));
    }

    /// The held packet due first, if it is due by `now`.
    #[inline]
    pub(super) fn pop_due(&mut self, now: SimTime) -> Option<Slot> {
        match self.held.peek() {
            Some(Reverse(h)) if h.arrive <= now => Some(self.held.pop().unwrap().0.slot),
            _ => None,
        }
    }

    /// When the next held packet is due.
    #[inline]
    pub(super) fn next_due(&self) -> Option<SimTime> {
        self.held.peek().map(|Reverse(h)| h.arrive)
    }

    pub(super) fn len(&self) -> usize {
        self.held.len()
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &Slot> {
        self.held.iter().map(|Reverse(h)| &h.slot)
    }
}
