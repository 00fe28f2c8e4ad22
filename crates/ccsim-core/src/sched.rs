//! Event scheduler: a priority queue ordered by (time, insertion number), so
//! events at the same instant run in the order they were scheduled. The
//! engine keeps about one pending event per component (a link schedules only
//! the arrival of its head packet, and a dequeue-time link its next service;
//! a flow only its earliest timer and its application's next action).
//!
//! Two binary heaps share one insertion counter: `hot` for the per-packet
//! events (link arrivals and services, UDP sends, samples) and `cold` for
//! the per-flow ones (timers, starts, application actions). A pop takes the
//! earlier of the two tops, so the order is exactly that of one heap (keys
//! are unique) and no result changes. What it buys: every flow keeps a timer
//! pending, so with 10,000 flows one heap held over 10,000 events and each
//! per-packet pop walked its 14 cache-missing levels (over a third of the
//! run); now the per-packet events sift through a heap of about one entry
//! per busy link, and the large heap is touched only when a flow's own event
//! comes due. (A radix heap and a 4-ary heap were measured too:
//! docs/performance.md.)

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

impl Event {
    /// Per-flow events (one pending per flow however busy it is) go to the
    /// cold heap.
    #[inline(always)]
    fn cold(&self) -> bool {
        matches!(self, Event::FlowTimer(_) | Event::FlowStart(_) | Event::App(_))
    }
}

impl Event {
    /// The event as one 64-bit word (kind above, index below). Entries
    /// hold it so: an `Event` written as two 32-bit halves and read back
    /// as one word by the heap's sift (the entry just put at the top) made
    /// the store-to-load forwarding fail, a stall that was a fifth of the
    /// run loop's time on the reference dumbbell (perf annotate).
    #[inline(always)]
    fn pack(self) -> u64 {
        let (k, i) = match self {
            Event::LinkArrival(i) => (0u64, i),
            Event::FlowTimer(i) => (1, i),
            Event::FlowStart(i) => (2, i),
            Event::Sample => (3, 0),
            Event::App(i) => (4, i),
            Event::Udp(i) => (5, i),
            Event::LinkService(i) => (6, i),
        };
        k << 32 | i as u64
    }

    #[inline(always)]
    fn unpack(w: u64) -> Event {
        let i = w as u32;
        match w >> 32 {
            0 => Event::LinkArrival(i),
            1 => Event::FlowTimer(i),
            2 => Event::FlowStart(i),
            3 => Event::Sample,
            4 => Event::App(i),
            5 => Event::Udp(i),
            _ => Event::LinkService(i),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: SimTime,
    seq: u64,
    /// `Event::pack`.
    ev: u64,
}

impl Entry {
    #[inline(always)]
    fn key(&self) -> u128 {
        (self.time as u128) << 64 | self.seq as u128
    }
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
        o.key().cmp(&self.key())
    }
}

#[derive(Default)]
pub struct Scheduler {
    hot: BinaryHeap<Entry>,
    cold: BinaryHeap<Entry>,
    next_seq: u64,
    /// Whether the event `peek_until` returned is in the cold heap.
    cur_cold: bool,
    /// Number of events handed out so far.
    pub popped: u64,
}

impl Scheduler {
    pub fn new() -> Self {
        Scheduler {
            hot: BinaryHeap::with_capacity(1024),
            cold: BinaryHeap::with_capacity(1024),
            next_seq: 0,
            cur_cold: false,
            popped: 0,
        }
    }

    /// Links whose arrival events sit just below the top of the per-packet
    /// heap (its second and third entries; `u32::MAX` for none or another
    /// kind), when the heap is large: one of them is usually the next event,
    /// and with many busy links their state is rarely in cache, so the run
    /// loop can start loading it early. A small heap (a few dozen links,
    /// whose state stays cached) returns none and costs one comparison.
    #[inline(always)]
    pub fn upcoming_links(&self) -> Option<[u32; 2]> {
        let h = self.hot.as_slice();
        if h.len() < 64 {
            return None;
        }
        let link = |e: &Entry| match Event::unpack(e.ev) {
            Event::LinkArrival(l) => l,
            _ => u32::MAX,
        };
        Some([link(&h[1]), link(&h[2])])
    }

    #[inline]
    pub fn schedule(&mut self, time: SimTime, ev: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let e = Entry { time, seq, ev: ev.pack() };
        if ev.cold() {
            self.cold.push(e);
        } else {
            self.hot.push(e);
        }
    }

    /// Pop the next event if it is due no later than `until`.
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        let next = self.peek_until(until);
        if next.is_some() {
            self.pop_current();
        }
        next
    }

    /// The next event if it is due no later than `until`, left at the top
    /// of its heap: the caller handles it, then removes it with
    /// `pop_current` or re-arms it with `reschedule_current`. Events
    /// scheduled meanwhile sort after it (their time is not earlier and
    /// their insertion number is larger), so it stays on top.
    #[inline]
    pub fn peek_until(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        let from_cold = match (self.hot.peek(), self.cold.peek()) {
            (Some(h), Some(c)) => c.key() < h.key(),
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (None, None) => return None,
        };
        let e = if from_cold { self.cold.peek() } else { self.hot.peek() }.expect("peeked");
        if e.time > until {
            return None;
        }
        self.cur_cold = from_cold;
        self.popped += 1;
        Some((e.time, Event::unpack(e.ev)))
    }

    /// Remove the event `peek_until` returned.
    #[inline]
    pub fn pop_current(&mut self) {
        if self.cur_cold { self.cold.pop() } else { self.hot.pop() }.expect("an event was peeked");
    }

    /// Replace the event `peek_until` returned, a per-packet one, by `ev`
    /// at `time`: one sift instead of a pop and a push. The new entry takes
    /// the next insertion number, exactly as `schedule` would give it, so
    /// the order of events is the same as popping and scheduling.
    #[inline]
    pub fn reschedule_current(&mut self, time: SimTime, ev: Event) {
        debug_assert!(!self.cur_cold && !ev.cold(), "only per-packet events are re-armed in place");
        let seq = self.next_seq;
        self.next_seq += 1;
        let mut top = self.hot.peek_mut().expect("an event was peeked");
        debug_assert!(time >= top.time, "rescheduled into the past");
        *top = Entry { time, seq, ev: ev.pack() };
    }

    pub fn len(&self) -> usize {
        self.hot.len() + self.cold.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hot.is_empty() && self.cold.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upcoming_links_name_the_next_arrival_once_the_heap_is_large() {
        let mut s = Scheduler::new();
        // Scheduled out of order: link k arrives at time 1000 - k.
        for k in 0..40u32 {
            s.schedule(1000 - k as u64, Event::LinkArrival(k));
        }
        assert_eq!(s.upcoming_links(), None, "a small heap asks for nothing");
        for k in 40..100u32 {
            s.schedule(1000 - k as u64, Event::LinkArrival(k));
        }
        // While the current event is at the top (as when the run loop
        // handles it), the hint names the event that follows it.
        for _ in 0..30 {
            let up = s.upcoming_links().expect("a large heap");
            s.peek_until(u64::MAX).unwrap();
            s.pop_current();
            let (_, next) = s.peek_until(u64::MAX).unwrap();
            let Event::LinkArrival(n) = next else { panic!("{next:?}") };
            assert!(up.contains(&n), "{up:?} should name link {n}");
        }
        // Entries of other kinds are not links.
        let mut s = Scheduler::new();
        for k in 0..100u64 {
            s.schedule(k, Event::Sample);
        }
        assert_eq!(s.upcoming_links(), Some([u32::MAX; 2]));
    }

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
            vec![(3, Event::FlowTimer(9)), (5, Event::FlowTimer(2)), (5, Event::FlowTimer(1)), (5, Event::Sample)]
        );
    }

    #[test]
    fn pop_until_respects_horizon() {
        let mut s = Scheduler::new();
        s.schedule(10, Event::Sample);
        assert!(s.pop_until(9).is_none());
        assert_eq!(s.pop_until(10), Some((10, Event::Sample)));
    }

    /// Random schedules and pops, the pops interleaved as in a run (never
    /// scheduling before the last popped time): the order is exactly that
    /// of sorting by (time, insertion number).
    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut rng = crate::rng::Stream::new(1, crate::rng::StreamKind::Flow, 0);
        let mut next = move |m: u64| rng.next_u64() % m;
        let mut s = Scheduler::new();
        let mut model: Vec<(SimTime, u64, u32)> = Vec::new();
        let (mut now, mut id) = (0u64, 0u32);
        for _ in 0..20_000 {
            if next(3) > 0 || model.is_empty() {
                let t = now + next(50);
                s.schedule(t, Event::FlowTimer(id));
                model.push((t, id as u64, id));
                id += 1;
            } else {
                model.sort();
                let (t, _, want) = model.remove(0);
                assert_eq!(s.pop_until(u64::MAX), Some((t, Event::FlowTimer(want))));
                now = t;
            }
            assert_eq!(s.len(), model.len());
        }
    }
}
