//! Packets are small `Copy` values stored inline in link rings: no heap
//! allocation per packet, no pool bookkeeping. A packet carries its route (an
//! index into the simulation's route table) and its position on it, as in
//! htsim, so forwarding needs no per-node table lookup.
//!
//! Header fields that matter to the models are explicit: the IP ECN field
//! (`ecn`), the TCP flags ECE/CWR, the timestamp option (`ts`) and a SACK
//! option. SACK blocks do not travel inside the packet (that would make every
//! ring slot larger): the receiver files them in its flow's SACK log under an
//! id carried in `aux`, and the sender reads them back when the ACK arrives.
//! ACKs of one flow follow one fixed route through FIFO links, so they arrive
//! in the order they were sent and the log is read front to back. The option's
//! bytes are counted in `size`, as on the wire.

use crate::units::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PktKind {
    Data,
    Ack,
    Syn,
    SynAck,
    /// A datagram of a UDP source (`flow` indexes the UDP sources).
    Udp,
}

/// IP ECN field bits (RFC 3168 §5): ECN-capable transport, congestion experienced.
pub const ECN_ECT: u8 = 1;
pub const ECN_CE: u8 = 2;

/// TCP flags the models use.
pub const FLAG_ECE: u8 = 1;
pub const FLAG_CWR: u8 = 2;
/// The ACK carries a SACK option; its blocks are in the flow's log under `aux`.
pub const FLAG_SACK: u8 = 4;

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Data: segment number (0-based). ACK: cumulative ACK (next expected segment).
    pub seq: u64,
    /// Timestamp option. Data/SYN: TSval, the sender's clock when this
    /// (re)transmission left. ACK/SYN-ACK: TSecr, the TSval echoed
    /// (RFC 7323 §4.3). Always filled; whether the sender may use it for RTT
    /// measurement depends on the flow's `timestamps` option.
    pub ts: SimTime,
    pub flow: u32,
    /// Bytes on the wire (payload + headers + options).
    pub size: u32,
    pub route: u32,
    /// ACK with FLAG_SACK: id of its entry in the flow's SACK log.
    pub aux: u32,
    pub hop: u16,
    /// Connection number of the flow slot that sent it (see TcpFlow::conn).
    pub conn: u16,
    pub kind: PktKind,
    /// ECN_ECT / ECN_CE bits.
    pub ecn: u8,
    /// FLAG_* bits.
    pub flags: u8,
}

impl Packet {
    pub fn new(kind: PktKind, seq: u64, ts: SimTime, flow: u32, size: u32, route: u32) -> Self {
        Packet { seq, ts, flow, size, route, aux: 0, hop: 0, conn: 0, kind, ecn: 0, flags: 0 }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn packet_stays_small() {
        // Ring slots hold packets inline; keep them within 40 bytes.
        assert!(std::mem::size_of::<super::Packet>() <= 40);
    }
}
