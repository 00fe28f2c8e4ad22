//! Packets are small `Copy` values stored inline in link rings: no heap
//! allocation per packet, no pool bookkeeping. A packet carries its route (an
//! index into the simulation's route table) and its position on it, as in
//! htsim, so forwarding needs no per-node table lookup.
//!
//! Header fields that matter to the models are explicit: the IP ECN field
//! (`ecn`), the TCP flags ECE/CWR, the timestamp option (`ts`: the
//! sender's half; the receiver's half, in milliseconds, rides in `aux`, see
//! there) and a SACK option. SACK blocks do not travel inside the packet (that would make every
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

/// The IP header's two-bit ECN field (RFC 3168 §5), its four codepoints with
/// their wire values. Classic ECN senders send ECT(0) (RFC 3168 §6.1.1, Linux
/// INET_ECN_xmit); L4S senders send ECT(1) (RFC 9331 §4.1), which an L4S-aware
/// queue tells apart. A router marks an ECN-capable packet by setting CE.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-capable transport.
    #[default]
    NotEct = 0b00,
    Ect1 = 0b01,
    Ect0 = 0b10,
    /// Congestion experienced.
    Ce = 0b11,
}

impl Ecn {
    /// The codepoint of a wire value (its low two bits).
    #[inline]
    pub fn from_bits(bits: u8) -> Ecn {
        match bits & 0b11 {
            0b00 => Ecn::NotEct,
            0b01 => Ecn::Ect1,
            0b10 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }

    #[inline]
    pub fn bits(self) -> u8 {
        self as u8
    }

    /// ECN-capable: ECT(0), ECT(1) or already CE (RFC 3168 §5; a router may
    /// mark a CE packet again, which changes nothing).
    #[inline]
    pub fn capable(self) -> bool {
        self != Ecn::NotEct
    }

    #[inline]
    pub fn is_ce(self) -> bool {
        self == Ecn::Ce
    }

    /// Mark congestion on an ECN-capable packet; false (nothing changed) if
    /// the packet is not ECN-capable, when the router must drop instead.
    #[inline]
    pub fn mark(&mut self) -> bool {
        if self.capable() {
            *self = Ecn::Ce;
            true
        } else {
            false
        }
    }
}

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
    /// ACK: its id, under which the receiver files its SACK blocks, AccECN
    /// count, window and TSval for the sender. SYN-ACK: its TSval. Data:
    /// its TSecr. These are the receiver's clock in Linux's timestamp
    /// units, milliseconds (TCP_TS_HZ = 1000).
    pub aux: u32,
    pub hop: u16,
    /// Connection number of the flow slot that sent it (see TcpFlow::conn).
    pub conn: u16,
    pub kind: PktKind,
    /// The IP ECN field.
    pub ecn: Ecn,
    /// FLAG_* bits.
    pub flags: u8,
}

impl Packet {
    pub fn new(kind: PktKind, seq: u64, ts: SimTime, flow: u32, size: u32, route: u32) -> Self {
        Packet { seq, ts, flow, size, route, aux: 0, hop: 0, conn: 0, kind, ecn: Ecn::NotEct, flags: 0 }
    }
}

/// The ECN codepoint an ECN-capable sender puts on its data
/// (`TcpCfg::ecn_codepoint`; RFC 3168 §5, RFC 9331 §4.1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnCodepoint {
    /// ECT(0): a classic ECN sender (RFC 3168).
    #[default]
    Ect0,
    /// ECT(1): an L4S sender (RFC 9331 §4.1), classified into a dual-queue
    /// AQM's L queue; classic AQMs treat it as ECT(0).
    Ect1,
}

/// What the receiver's ACKs say about the CE marks the data met
/// (`TcpCfg::ecn_feedback`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnFeedback {
    /// RFC 3168 §6.1.3: ECE on every ACK from the first CE until a
    /// segment with CWR arrives (at most one signal per round trip).
    #[default]
    Classic,
    /// RFC 8257 §3.2 (Linux tcp_dctcp.c dctcp_ece_ack_update): ECE
    /// reflects the CE state of the segments it acknowledges; when that
    /// state changes, a delayed ACK still owed goes out first with the old
    /// state, and the segment that changed it is ACKed at once. CWR does
    /// not clear ECE.
    Dctcp,
    /// Accurate ECN (RFC 9768; Linux tcp_ecn.h / tcp_input.c
    /// `tcp_ecn_received_counters`, `tcp_accecn_process`): the receiver
    /// counts CE-marked segments (r.cep) and every ACK carries the count;
    /// the sender takes the increase as newly CE-delivered segments. ECE and
    /// CWR lose their RFC 3168 meaning. An ACK goes at once when 6 or more
    /// CE marks wait to be reported (TCP_ACCECN_ACE_MAX_DELTA). Modelled as
    /// if the AccECN option always arrives: the count is exact, without the
    /// 3-bit ACE field's wrap-around guess on ACKs that cover more than 7
    /// segments.
    Accecn,
}

#[cfg(test)]
mod tests {
    #[test]
    fn packet_stays_small() {
        // Ring slots hold packets inline; keep them within 40 bytes.
        assert!(std::mem::size_of::<super::Packet>() <= 40);
    }

    #[test]
    fn ecn_codepoints_have_their_rfc_3168_wire_values() {
        use super::Ecn;
        // RFC 3168 §5: 00 Not-ECT, 01 ECT(1), 10 ECT(0), 11 CE.
        for (bits, cp) in [(0b00, Ecn::NotEct), (0b01, Ecn::Ect1), (0b10, Ecn::Ect0), (0b11, Ecn::Ce)] {
            assert_eq!(Ecn::from_bits(bits), cp);
            assert_eq!(cp.bits(), bits);
        }
        let mut p = Ecn::NotEct;
        assert!(!p.mark(), "a Not-ECT packet cannot be marked");
        assert_eq!(p, Ecn::NotEct);
        for mut p in [Ecn::Ect0, Ecn::Ect1, Ecn::Ce] {
            assert!(p.mark());
            assert_eq!(p, Ecn::Ce);
        }
    }
}
