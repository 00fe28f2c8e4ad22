//! FQ-CoDel (Hoeiland-Joergensen et al.; RFC 8290, as Linux `sch_fq_codel`):
//! packets are hashed by flow into `buckets` queues, each managed by its own
//! CoDel; a deficit round robin with a byte `quantum` serves them, newly
//! active queues first. When the total limit is exceeded, the head packet of
//! the queue with the most bytes is dropped.

use super::codel::{Codel, CodelCfg, CodelParams};
use super::{DequeueDisc, Discipline, LinkFacts, QueueKind};
use crate::opts::{options, Kind, Named, Opt};
use crate::packet::{Packet, PktKind};
use crate::rng::Stream;
use crate::units::SimTime;
use std::collections::VecDeque;

options! {
    /// FQ-CoDel (RFC 8290; Linux sch_fq_codel's defaults): CoDel's options
    /// (their rows and defaults are CoDel's) and the scheduler's two. The
    /// buffer (`limit_pkts`, set from the link's) counts every queue.
    pub struct FqCodelCfg, rows OPTS {
        limit_pkts: u32 = 0,
        target_ps: SimTime = CodelCfg::default().target_ps => [CodelCfg::OPTS[0]],
        interval_ps: SimTime = CodelCfg::default().interval_ps => [CodelCfg::OPTS[1]],
        mtu: u32 = CodelCfg::default().mtu => [CodelCfg::OPTS[2]],
        ecn: bool = CodelCfg::default().ecn => [CodelCfg::OPTS[3]],
        /// DRR quantum, bytes (RFC 8290: one MTU; Linux 1514).
        quantum: u32 = 1514
            => ("quantum", Kind::Int { lo: 1, hi: i32::MAX as u64 }, "bytes", "fq_codel only: DRR bytes per round"),
        buckets: u32 = 1024
            => ("buckets", Kind::Int { lo: 1, hi: 65_536 }, "queues", "fq_codel only: flow queues, flows hashed into them"),
    }
}

impl QueueKind for FqCodelCfg {
    const ROWS: &'static [Opt] = Self::OPTS;
    const NAMES: &'static [Named] = &[Named { name: "fq_codel", fixed: &[], doc: "FQ-CoDel (RFC 8290)" }];
    fn buffer(&self) -> (Option<u32>, Option<u64>) {
        (Some(self.limit_pkts), None)
    }
    fn build(&self, _: LinkFacts, rng: &mut dyn FnMut() -> Stream) -> Discipline {
        let FqCodelCfg { limit_pkts, target_ps, interval_ps, mtu, ecn, quantum, buckets } = *self;
        let codel = CodelCfg { limit_pkts, target_ps, interval_ps, mtu, ecn }.params();
        // Linux draws a hash perturbation at setup; here from the link's stream.
        let perturb = rng().next_u64();
        Discipline::Dequeue(Box::new(FqCodel::new(FqCodelParams { codel, limit_pkts, quantum, buckets, perturb })))
    }
}

#[derive(Clone, Copy, Debug)]
pub struct FqCodelParams {
    pub codel: CodelParams,
    /// Total packets held across all queues.
    pub limit_pkts: u32,
    /// DRR quantum, bytes (RFC 8290: one MTU, 1514 in Linux).
    pub quantum: u32,
    /// Number of flow queues (Linux 1024).
    pub buckets: u32,
    /// Hash perturbation (Linux draws one at setup): from the run seed.
    pub perturb: u64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

struct FlowQ {
    codel: Codel,
    deficit: i64,
    list: List,
}

pub struct FqCodel {
    p: FqCodelParams,
    queues: Vec<FlowQ>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    pkts: u32,
    bytes: u64,
}

fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl FqCodel {
    pub fn new(p: FqCodelParams) -> Self {
        let mut c = p.codel;
        c.limit_pkts = u32::MAX; // the total limit is enforced here
        let queues = (0..p.buckets).map(|_| FlowQ { codel: Codel::new(c), deficit: 0, list: List::None }).collect();
        FqCodel { p, queues, new_flows: VecDeque::new(), old_flows: VecDeque::new(), pkts: 0, bytes: 0 }
    }

    /// The queue of a packet: a hash of its flow (TCP flows and UDP sources
    /// are numbered apart) and the perturbation, modulo the bucket count.
    pub fn bucket(&self, pkt: &Packet) -> u32 {
        let key =
            pkt.flow as u64 | ((pkt.kind == PktKind::Udp) as u64) << 32 | ((pkt.kind == PktKind::Ack) as u64) << 33;
        (mix64(key ^ self.p.perturb) % self.p.buckets as u64) as u32
    }

    fn fattest(&self) -> u32 {
        let mut best = 0;
        for (i, q) in self.queues.iter().enumerate() {
            if q.codel.len_bytes() > self.queues[best].codel.len_bytes() {
                best = i;
            }
        }
        best as u32
    }
}

impl DequeueDisc for FqCodel {
    fn name(&self) -> &'static str {
        "fq_codel"
    }

    fn enqueue(&mut self, now: SimTime, pkt: Packet, drops: &mut Vec<Packet>) {
        let b = self.bucket(&pkt);
        let size = pkt.size as u64;
        let q = &mut self.queues[b as usize];
        q.codel.enqueue(now, pkt, drops);
        self.pkts += 1;
        self.bytes += size;
        if q.list == List::None {
            q.list = List::New;
            q.deficit = self.p.quantum as i64;
            self.new_flows.push_back(b);
        }
        if self.pkts > self.p.limit_pkts {
            let f = self.fattest();
            if let Some(d) = self.queues[f as usize].codel.drop_head() {
                self.pkts -= 1;
                self.bytes -= d.size as u64;
                drops.push(d);
            }
        }
    }

    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<Packet>) -> Option<Packet> {
        loop {
            let (b, from_new) = if let Some(&b) = self.new_flows.front() {
                (b, true)
            } else if let Some(&b) = self.old_flows.front() {
                (b, false)
            } else {
                return None;
            };
            let q = &mut self.queues[b as usize];
            if q.deficit <= 0 {
                q.deficit += self.p.quantum as i64;
                q.list = List::Old;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(b);
                continue;
            }
            let before = drops.len();
            let bytes_before = q.codel.len_bytes();
            let out = q.codel.dequeue(now, drops);
            let dropped = (drops.len() - before) as u32;
            self.pkts -= dropped + out.is_some() as u32;
            self.bytes -= bytes_before - q.codel.len_bytes();
            match out {
                Some(p) => {
                    q.deficit -= p.size as i64;
                    return Some(p);
                }
                None => {
                    // Empty: a new queue goes to the end of the old list (so
                    // it cannot jump the line again at once), an old one
                    // becomes inactive (RFC 8290 §4.2).
                    if from_new {
                        self.new_flows.pop_front();
                        if self.old_flows.is_empty() {
                            q.list = List::None;
                        } else {
                            q.list = List::Old;
                            self.old_flows.push_back(b);
                        }
                    } else {
                        self.old_flows.pop_front();
                        q.list = List::None;
                    }
                }
            }
        }
    }

    fn len_pkts(&self) -> u32 {
        self.pkts
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn limit_pkts(&self) -> Option<u32> {
        Some(self.p.limit_pkts)
    }
    fn marks(&self) -> u64 {
        self.queues.iter().map(|q| q.codel.marks()).sum()
    }
    fn packets(&self) -> Box<dyn Iterator<Item = &Packet> + '_> {
        Box::new(self.queues.iter().flat_map(|q| q.codel.packets()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: SimTime = crate::units::PS_PER_MS;

    fn fq(limit: u32) -> FqCodel {
        let codel = CodelParams { target: 5 * MS, interval: 100 * MS, limit_pkts: 0, mtu: 1514, ecn: false };
        FqCodel::new(FqCodelParams { codel, limit_pkts: limit, quantum: 1514, buckets: 1024, perturb: 7 })
    }

    fn pkt(flow: u32, size: u32) -> Packet {
        Packet::new(PktKind::Data, 0, 0, flow, size, 0)
    }

    #[test]
    fn round_robin_shares_bytes_between_backlogged_flows() {
        // Flow 0 sends 1500-byte packets, flow 1 300-byte packets, both
        // backlogged: DRR with a 1514-byte quantum gives each about the same
        // bytes per round (within one packet), not the same packets.
        let mut q = fq(100_000);
        let mut drops = Vec::new();
        assert_ne!(q.bucket(&pkt(0, 1)), q.bucket(&pkt(1, 1)), "test flows must not collide");
        for _ in 0..2000 {
            q.enqueue(0, pkt(0, 1500), &mut drops);
        }
        for _ in 0..10_000 {
            q.enqueue(0, pkt(1, 300), &mut drops);
        }
        let mut bytes = [0u64; 2];
        for _ in 0..3000 {
            // dequeue at time 0: sojourn 0, CoDel never drops
            let p = q.dequeue(0, &mut drops).unwrap();
            bytes[p.flow as usize] += p.size as u64;
        }
        assert!(drops.is_empty());
        let (a, b) = (bytes[0] as f64, bytes[1] as f64);
        assert!((a - b).abs() <= 1500.0 + 1514.0, "{a} vs {b}");
    }

    #[test]
    fn a_new_flow_is_served_before_backlogged_ones() {
        let mut q = fq(100_000);
        let mut drops = Vec::new();
        for _ in 0..100 {
            q.enqueue(0, pkt(0, 1500), &mut drops);
        }
        q.dequeue(0, &mut drops);
        q.dequeue(0, &mut drops); // flow 0's quantum is spent: it moves to the old list
        q.enqueue(0, pkt(5, 100), &mut drops);
        assert_eq!(q.dequeue(0, &mut drops).unwrap().flow, 5, "sparse flow goes first");
    }

    #[test]
    fn overflow_drops_from_the_fattest_queue() {
        let mut q = fq(10);
        let mut drops = Vec::new();
        for _ in 0..9 {
            q.enqueue(0, pkt(0, 1500), &mut drops);
        }
        q.enqueue(0, pkt(1, 1500), &mut drops);
        q.enqueue(0, pkt(1, 1500), &mut drops); // 11 > 10: flow 0 holds the most bytes
        assert_eq!(drops.len(), 1);
        assert_eq!(drops[0].flow, 0);
        assert_eq!(q.len_pkts(), 10);
    }
}
