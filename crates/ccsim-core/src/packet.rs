//! Packets are small `Copy` values stored inline in link rings: no heap
//! allocation per packet, no pool bookkeeping. A packet carries its route (an
//! index into the simulation's route table) and its position on it, as in
//! htsim, so forwarding needs no per-node table lookup.

use crate::units::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PktKind {
    Data,
    Ack,
    Syn,
    SynAck,
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Data: segment number (0-based). ACK: cumulative ACK (next expected segment).
    pub seq: u64,
    /// Sender clock when this (re)transmission left the host.
    pub sent_at: SimTime,
    pub flow: u32,
    /// Bytes on the wire (payload + headers).
    pub size: u32,
    pub route: u32,
    pub hop: u16,
    pub kind: PktKind,
}
