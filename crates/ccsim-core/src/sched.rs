//! Event scheduler: a binary heap ordered by (time, insertion number), so
//! events at the same instant run in the order they were scheduled. The
//! engine keeps about one pending event per component (a link schedules only
//! the arrival of its head packet, and a dequeue-time link its next service;
//! a flow only its earliest timer and its application's next action), so the
//! heap stays small.

use crate::units::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head packet of link `0` reaches the far end.
    LinkArrival(u32),
    /// A timer of flow `0` may be due (RTO, delayed ACK); checked lazily.
    FlowTimer(u32),
    /// Flow `0` starts.
    FlowStart(u32),
    /// Record one row of every time series.
    Sample,
    /// Flow `0`'s application acts (ON/OFF switch, next transfer).
    App(u32),
    /// UDP source `0` sends.
    Udp(u32),
    /// The transmitter of dequeue-time link `0` frees up (CoDel).
    LinkService(u32),
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: SimTime,
    seq: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    // One 128-bit comparison of (time, seq) instead of two chained ones.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        let k = |e: &Entry| (e.time as u128) << 64 | e.seq as u128;
        k(o).cmp(&k(self))
    }
}

#[derive(Default)]
pub struct Scheduler {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    /// Number of events handed out so far.
    pub popped: u64,
}

impl Scheduler {
    pub fn new() -> Self {
        Scheduler { heap: BinaryHeap::with_capacity(1024), next_seq: 0, popped: 0 }
    }

    #[inline]
    pub fn schedule(&mut self, time: SimTime, ev: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, ev });
    }

    /// Pop the next event if it is due no later than `until`.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        match self.heap.peek() {
            Some(e) if e.time <= until => {
                let e = self.heap.pop().unwrap();
                self.popped += 1;
                Some((e.time, e.ev))
            }
            _ => None,
        }
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn ties_break_by_insertion_order() {
        let mut s = Scheduler::new();
        s.schedule(5, Event::FlowTimer(2));
        s.schedule(3, Event::FlowTimer(9));
        s.schedule(5, Event::FlowTimer(1));
        s.schedule(5, Event::Sample);
        let order: Vec<_> = std::iter::from_fn(|| s.pop_until(u64::MAX)).collect();
        assert_eq!(
            order,
            vec![
                (3, Event::FlowTimer(9)),
                (5, Event::FlowTimer(2)),
                (5, Event::FlowTimer(1)),
                (5, Event::Sample)
            ]
        );
    }

    #[test]
    fn pop_until_respects_horizon() {
        let mut s = Scheduler::new();
        s.schedule(10, Event::Sample);
        assert!(s.pop_until(9).is_none());
        assert_eq!(s.pop_until(10), Some((10, Event::Sample)));
    }
}
