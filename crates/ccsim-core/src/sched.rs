//! Event scheduler: a priority queue ordered by time, and at one instant by
//! the events themselves: first by kind (link services, link arrivals, flow
//! timers, flow starts, application actions, UDP sends, samples: a sample
//! sees everything that happened at its instant), then within a kind in an
//! order drawn afresh for each instant (`tie_rank`, a hash of the instant
//! and the index), so that no link or flow wins every tie (an order by index
//! favoured low-numbered flows whenever packets of several reached a full
//! queue at the same picosecond). The order does not depend on when an
//! event was scheduled, so an engine that schedules an event earlier (a
//! packet taken ahead by its next link, link/mod.rs) runs the same model;
//! ns-2 and ns-3 break ties by insertion order instead. An event scheduled
//! for the present while another is being handled runs after it
//! (`peek_until`). The engine keeps about one pending event per component (a link schedules only
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
    /// The event due at `time` as one word: its kind (in the order events
    /// of one instant run) in the top 3 bits, its `tie_rank` in the next 29
    /// and its index in the low 32.
    #[inline(always)]
    fn pack(self, time: SimTime) -> u64 {
        let (k, i) = match self {
            Event::LinkService(i) => (0u64, i),
            Event::LinkArrival(i) => (1, i),
            Event::FlowTimer(i) => (2, i),
            Event::FlowStart(i) => (3, i),
            Event::App(i) => (4, i),
            Event::Udp(i) => (5, i),
            Event::Sample => (6, 0),
        };
        k << 61 | tie_rank(time, i) << 32 | i as u64
    }

    #[inline(always)]
    fn unpack(w: u64) -> Event {
        let i = w as u32;
        match w >> 61 {
            0 => Event::LinkService(i),
            1 => Event::LinkArrival(i),
            2 => Event::FlowTimer(i),
            3 => Event::FlowStart(i),
            4 => Event::App(i),
            5 => Event::Udp(i),
            _ => Event::Sample,
        }
    }
}

/// The rank of component `index` among events of its kind at `time`: a
/// 29-bit hash (SplitMix64's finaliser), the same whenever it is scheduled.
#[inline(always)]
fn tie_rank(time: SimTime, index: u32) -> u64 {
    let mut z = time ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) >> 35
}

/// At most one event of a kind and index is pending at a time (a link's
/// one arrival or service, a flow's timers at distinct times, ...), so keys
/// are unique; two equal ones would be the same event.
#[derive(Clone, Copy, Debug)]
struct Entry {
    time: SimTime,
    /// `Event::pack`.
    ev: u64,
}

impl Entry {
    /// `Event::cold` of the packed event (timers, starts, app actions).
    #[inline(always)]
    fn cold(&self) -> bool {
        (2..=4).contains(&(self.ev >> 61))
    }

    #[inline(always)]
    fn key(&self) -> u128 {
        (self.time as u128) << 64 | self.ev as u128
    }
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
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
    // One 128-bit comparison of (time, event) instead of two chained ones.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        o.key().cmp(&self.key())
    }
}

#[derive(Default)]
pub struct Scheduler {
    hot: BinaryHeap<Entry>,
    cold: BinaryHeap<Entry>,
    /// Key of the event `peek_until` returned while it is being handled
    /// (0 otherwise), and the events scheduled meanwhile that would sort
    /// before it (for the same instant, of an earlier kind or index): they
    /// join the heaps once it is removed, and so run after it.
    cur_key: u128,
    deferred: Vec<Entry>,
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
            cur_key: 0,
            deferred: Vec::new(),
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
        let e = Entry { time, ev: ev.pack(time) };
        if e.key() < self.cur_key {
            return self.deferred.push(e);
        }
        self.push(e);
    }

    #[inline(always)]
    fn push(&mut self, e: Entry) {
        if e.cold() {
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
    /// scheduled meanwhile sort after it (their time is not earlier, and
    /// those of its instant that would sort before it wait in `deferred`),
    /// so it stays on top.
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
        self.cur_key = e.key();
        self.popped += 1;
        Some((e.time, Event::unpack(e.ev)))
    }

    /// Remove the event `peek_until` returned.
    #[inline]
    pub fn pop_current(&mut self) {
        if self.cur_cold { self.cold.pop() } else { self.hot.pop() }.expect("an event was peeked");
        self.handled();
    }

    /// The current event is gone: what was deferred behind it joins the
    /// heaps.
    #[inline(always)]
    fn handled(&mut self) {
        self.cur_key = 0;
        if !self.deferred.is_empty() {
            self.release_deferred();
        }
    }

    #[inline(never)]
    fn release_deferred(&mut self) {
        for e in std::mem::take(&mut self.deferred) {
            self.push(e);
        }
    }

    /// Replace the event `peek_until` returned, a per-packet one, by `ev`
    /// at `time`: one sift instead of a pop and a push, with the same
    /// order of events as popping and scheduling.
    #[inline]
    pub fn reschedule_current(&mut self, time: SimTime, ev: Event) {
        debug_assert!(!self.cur_cold && !ev.cold(), "only per-packet events are re-armed in place");
        let mut top = self.hot.peek_mut().expect("an event was peeked");
        debug_assert!(time >= top.time, "rescheduled into the past");
        *top = Entry { time, ev: ev.pack(time) };
        drop(top);
        self.handled();
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
    fn ties_break_by_kind_then_a_fair_draw_whenever_scheduled() {
        let kinds = |order: &[(SimTime, Event)]| {
            let mut s = Scheduler::new();
            order.iter().for_each(|&(t, e)| s.schedule(t, e));
            std::iter::from_fn(|| s.pop_until(u64::MAX)).collect::<Vec<_>>()
        };
        let evs = [
            (5, Event::Sample),
            (5, Event::FlowTimer(2)),
            (3, Event::FlowTimer(9)),
            (5, Event::LinkArrival(7)),
            (5, Event::FlowTimer(1)),
            (5, Event::LinkService(8)),
        ];
        let order = kinds(&evs);
        assert_eq!(order[0], (3, Event::FlowTimer(9)));
        assert_eq!(order[1..3], [(5, Event::LinkService(8)), (5, Event::LinkArrival(7))]);
        assert_eq!(order[5], (5, Event::Sample));
        let mut rev = evs;
        rev.reverse();
        assert_eq!(kinds(&rev), order, "the order does not depend on the order of scheduling");
        // Two links with packets arriving at the same instants: each goes
        // first at about half of them (an order by index would put link 0
        // first at all of them).
        let firsts = (1..=10_000u64)
            .filter(|&t| kinds(&[(t, Event::LinkArrival(1)), (t, Event::LinkArrival(0))])[0].1 == Event::LinkArrival(0))
            .count();
        assert!((4_800..=5_200).contains(&firsts), "link 0 first at {firsts} of 10,000 instants");
    }

    #[test]
    fn an_event_for_the_present_scheduled_while_another_is_handled_runs_after_it() {
        let mut s = Scheduler::new();
        s.schedule(5, Event::LinkArrival(4));
        s.schedule(5, Event::LinkArrival(6));
        let (_, cur) = s.peek_until(u64::MAX).unwrap();
        let other = if cur == Event::LinkArrival(4) { Event::LinkArrival(6) } else { Event::LinkArrival(4) };
        // handling it puts packets on links that arrive at once (no delay):
        // one that sorts before it at this instant and one after it
        let key = |l: u32| Event::LinkArrival(l).pack(5);
        let before = (10..).find(|&l| key(l) < cur.pack(5)).unwrap();
        let after = (10..).find(|&l| key(l) > cur.pack(5)).unwrap();
        s.schedule(5, Event::LinkArrival(before));
        s.schedule(5, Event::LinkArrival(after));
        s.reschedule_current(9, cur);
        let order: Vec<_> = std::iter::from_fn(|| s.pop_until(u64::MAX)).collect();
        let mut at5 = vec![Event::LinkArrival(before), Event::LinkArrival(after), other];
        at5.sort_by_key(|e| e.pack(5));
        let want: Vec<_> = at5.into_iter().map(|e| (5, e)).chain([(9, cur)]).collect();
        assert_eq!(order, want);
    }

    #[test]
    fn packed_events_go_to_their_heap() {
        let all = [
            Event::LinkService(1),
            Event::LinkArrival(1),
            Event::FlowTimer(1),
            Event::FlowStart(1),
            Event::App(1),
            Event::Udp(1),
            Event::Sample,
        ];
        for ev in all {
            for t in [0, 1, 123_456_789, u64::MAX] {
                assert_eq!(Event::unpack(ev.pack(t)), ev);
                assert_eq!(Entry { time: t, ev: ev.pack(t) }.cold(), ev.cold(), "{ev:?}");
            }
        }
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
    /// of sorting by (time, packed event).
    #[test]
    fn pops_in_time_then_event_order() {
        let mut rng = crate::rng::Stream::new(1, crate::rng::StreamKind::Flow, 0);
        let mut next = move |m: u64| rng.next_u64() % m;
        let mut s = Scheduler::new();
        let mut model: Vec<(SimTime, u64, u32)> = Vec::new();
        let (mut now, mut id) = (0u64, 0u32);
        for _ in 0..20_000 {
            if next(3) > 0 || model.is_empty() {
                let t = now + next(50);
                s.schedule(t, Event::FlowTimer(id));
                model.push((t, Event::FlowTimer(id).pack(t), id));
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
