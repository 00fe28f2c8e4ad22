//! The few IPv4 header fields the forwarder reads or writes (RFC 791 §3.1;
//! ECN field RFC 3168 §5; TCP/UDP ports RFC 9293 §3.1, RFC 768).

use ccsim_core::packet::Ecn;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FiveTuple {
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
    pub proto: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The ECN field: the low two bits of the TOS byte (RFC 3168 §5).
    pub ecn: Ecn,
    pub tuple: FiveTuple,
}

/// The TCP header fields the wire trace keeps (RFC 9293 §3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tcp {
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    /// CWR ECE URG ACK PSH RST SYN FIN, as on the wire.
    pub flags: u8,
    /// Payload bytes (IP total length − IP header − TCP header).
    pub payload: u32,
}

/// TCP fields of an IPv4 packet; None if it is not TCP or is truncated.
pub fn tcp(p: &[u8]) -> Option<Tcp> {
    if p.len() < 20 || p[9] != 6 {
        return None;
    }
    let ihl = (p[0] & 0x0f) as usize * 4;
    if p.len() < ihl + 20 {
        return None;
    }
    let t = &p[ihl..];
    let doff = (t[12] >> 4) as usize * 4;
    if doff < 20 || t.len() < doff {
        return None;
    }
    Some(Tcp {
        sport: u16::from_be_bytes([t[0], t[1]]),
        dport: u16::from_be_bytes([t[2], t[3]]),
        seq: u32::from_be_bytes([t[4], t[5], t[6], t[7]]),
        ack: u32::from_be_bytes([t[8], t[9], t[10], t[11]]),
        flags: t[13],
        payload: (p.len() - ihl - doff) as u32,
    })
}

/// Parse an IPv4 packet's header; None for anything else (IPv6, short or
/// malformed packets).
pub fn parse(p: &[u8]) -> Option<Header> {
    if p.len() < 20 || p[0] >> 4 != 4 {
        return None;
    }
    let ihl = (p[0] & 0x0f) as usize * 4;
    let total = u16::from_be_bytes([p[2], p[3]]) as usize;
    if ihl < 20 || p.len() < ihl || total != p.len() {
        return None;
    }
    let proto = p[9];
    let src = u32::from_be_bytes([p[12], p[13], p[14], p[15]]);
    let dst = u32::from_be_bytes([p[16], p[17], p[18], p[19]]);
    let (sport, dport) = if (proto == 6 || proto == 17) && p.len() >= ihl + 4 {
        (u16::from_be_bytes([p[ihl], p[ihl + 1]]), u16::from_be_bytes([p[ihl + 2], p[ihl + 3]]))
    } else {
        (0, 0)
    };
    Some(Header { ecn: Ecn::from_bits(p[1]), tuple: FiveTuple { src, dst, sport, dport, proto } })
}

/// The Internet checksum (RFC 1071) of an IPv4 header whose checksum field
/// is taken as zero.
pub fn header_checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for (i, w) in h.chunks(2).enumerate() {
        if i == 5 {
            continue; // the checksum field itself
        }
        let v = if w.len() == 2 { u16::from_be_bytes([w[0], w[1]]) } else { (w[0] as u16) << 8 };
        sum += v as u32;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Set Congestion Experienced on an ECN-capable packet and fix the header
/// checksum. Returns false (and changes nothing) if it is not ECN-capable.
pub fn mark_ce(p: &mut [u8]) -> bool {
    let mut ecn = Ecn::from_bits(p[1]);
    if !ecn.mark() {
        return false;
    }
    p[1] = (p[1] & !0b11) | ecn.bits();
    let ihl = (p[0] & 0x0f) as usize * 4;
    let c = header_checksum(&p[..ihl]);
    p[10..12].copy_from_slice(&c.to_be_bytes());
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worked example of a header checksum in RFC 1071 §3 uses bytes
    /// 00 01 f2 03 f4 f5 f6 f7 (sum ddf2, checksum 220d); here a real IPv4
    /// header whose checksum field, computed independently, is 0xb861
    /// (the header of the example on Wikipedia's "IPv4 header checksum").
    fn sample() -> Vec<u8> {
        let mut h = vec![
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8,
            0x00, 0xc7,
        ];
        h.resize(0x73, 0);
        h[20..24].copy_from_slice(&[0x13, 0x88, 0x00, 0x35]);
        h
    }

    #[test]
    fn checksum_matches_known_header() {
        let p = sample();
        assert_eq!(header_checksum(&p[..20]), 0xb861);
    }

    #[test]
    fn rfc1071_sum_of_words() {
        // RFC 1071 §3: the words 0001 f203 f4f5 f6f7 sum (with end-around
        // carry) to ddf2; the checksum is its complement. Our function skips
        // word 5, so pad the example with zeros after word 3.
        let h = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7, 0, 0, 0, 0];
        assert_eq!(header_checksum(&h), !0xddf2u16);
    }

    #[test]
    fn parse_reads_addresses_ports_and_ecn() {
        let mut p = sample();
        p[1] = 0x02; // ECT(0)
        let h = parse(&p).unwrap();
        assert_eq!(h.tuple.src, 0xc0a8_0001);
        assert_eq!(h.tuple.dst, 0xc0a8_00c7);
        assert_eq!((h.tuple.sport, h.tuple.dport, h.tuple.proto), (5000, 53, 17));
        assert_eq!(h.ecn, Ecn::Ect0);
        assert!(parse(&p[..19]).is_none());
        let mut v6 = p.clone();
        v6[0] = 0x60;
        assert!(parse(&v6).is_none());
    }

    #[test]
    fn tcp_fields_are_read_from_their_offsets() {
        // IPv4 (20 B) + TCP with a 12-byte option block (data offset 8 words) + 100 B payload
        let mut p = vec![0u8; 20 + 32 + 100];
        p[0] = 0x45;
        let total = p.len() as u16;
        p[2..4].copy_from_slice(&total.to_be_bytes());
        p[9] = 6;
        p[20..24].copy_from_slice(&[0x13, 0x89, 0xc0, 0x01]);
        p[24..28].copy_from_slice(&0x0102_0304u32.to_be_bytes());
        p[28..32].copy_from_slice(&0xa0b0_c0d0u32.to_be_bytes());
        p[32] = 8 << 4;
        p[33] = 0x18; // PSH | ACK
        let t = tcp(&p).unwrap();
        assert_eq!(
            t,
            Tcp { sport: 5001, dport: 0xc001, seq: 0x0102_0304, ack: 0xa0b0_c0d0, flags: 0x18, payload: 100 }
        );
        p[9] = 17;
        assert!(tcp(&p).is_none(), "UDP has no TCP fields");
    }

    #[test]
    fn mark_sets_ce_and_keeps_checksum_valid() {
        let mut p = sample();
        assert!(!mark_ce(&mut p), "Not-ECT packets are never marked");
        p[1] = 0x01; // ECT(1)
        let c = header_checksum(&p[..20]);
        p[10..12].copy_from_slice(&c.to_be_bytes());
        assert!(mark_ce(&mut p));
        assert_eq!(p[1] & 0b11, 0b11);
        // a receiver verifies by summing the whole header, checksum included: all ones
        let mut sum: u32 = p[..20].chunks(2).map(|w| u16::from_be_bytes([w[0], w[1]]) as u32).sum();
        while sum >> 16 != 0 {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        assert_eq!(sum, 0xffff);
    }
}
