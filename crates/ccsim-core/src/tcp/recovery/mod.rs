//! Loss recovery, one type per mode. A flow's mode is fixed when it is
//! built: without SACK the algorithm's spec chooses Tahoe, Reno or NewReno
//! (`AlgoSpec::recovery`, `Classic`); `tcp.sack = "rfc6675"` gives RFC 6675 conservative SACK
//! recovery with optional RFC 6937 PRR (`Rfc6675`); `tcp.sack = "sack1"`
//! gives ns-2's `Agent/TCP/Sack1` (`Sack1`). Each type owns its state and
//! answers the few questions the sender asks: what to send next, what an
//! ACK means for recovery, what an RTO does to the scoreboard.
//!
//! Adding a mode: one file with its type, one variant and one arm in each
//! `match` below.

mod classic;
mod rfc6675;
mod sack1;

use super::conn::{AckInfo, AckStep, Conn};
use super::types::Pick;
use crate::config::{SackCfg, TcpCfg};
use crate::packet::Packet;
use crate::units::SimTime;

pub(super) use classic::Classic;
pub(super) use rfc6675::Rfc6675;
pub(super) use sack1::Sack1;

pub(super) enum Recovery {
    Classic(Classic),
    Rfc6675(Rfc6675),
    Sack1(Sack1),
}

impl Recovery {
    pub(super) fn new(t: &TcpCfg) -> Self {
        match t.sack {
            SackCfg::Off => Recovery::Classic(Classic::new(t.recovery_flavour())),
            SackCfg::Rfc6675 => Recovery::Rfc6675(Rfc6675::default()),
            SackCfg::Sack1 => Recovery::Sack1(Sack1::default()),
        }
    }

    /// In RFC 6675's loss phase after an RTO (Linux TCP_CA_Loss).
    #[inline]
    pub(super) fn in_loss(&self) -> bool {
        match self {
            Recovery::Rfc6675(m) => m.in_loss,
            _ => false,
        }
    }

    /// Whether the sender uses the SACK blocks of an arriving ACK.
    #[inline]
    pub(super) fn reads_sack(&self) -> bool {
        match self {
            Recovery::Classic(_) => false,
            Recovery::Rfc6675(_) => true,
            Recovery::Sack1(m) => !m.ignore_sack,
        }
    }

    /// Whether new data goes at snd_nxt (which go-back-N moves back to
    /// snd_una after a timeout) rather than at snd_max.
    #[inline]
    pub(super) fn go_back_n(&self, c: &Conn) -> bool {
        match self {
            Recovery::Classic(_) => true,
            Recovery::Rfc6675(_) => false,
            Recovery::Sack1(_) => !c.in_recovery,
        }
    }

    /// Segments newly presumed lost after this ACK: RACK's scan when RACK
    /// is on and has advanced (RFC 8985 §6.2), else RFC 6675 IsLost after new
    /// SACK information.
    #[inline]
    pub(super) fn newly_lost(&self, c: &mut Conn, now: SimTime, new_sacked: u64) -> u32 {
        match self {
            Recovery::Rfc6675(m) if c.cfg.tcp.rack && c.rack.advanced => {
                c.rack_detect_loss(now, c.in_recovery || m.in_loss)
            }
            Recovery::Rfc6675(_) if c.cfg.tcp.rack => 0,
            Recovery::Rfc6675(_) if new_sacked > 0 => {
                let (una, dupthresh) = (c.snd_una, c.cfg.tcp.dupthresh as u64);
                c.sb.update_lost(una, dupthresh, |r| crate::tcp::rate::skb_lost(&mut *c.cc, &mut c.tp, r))
            }
            _ => 0,
        }
    }

    /// RACK's reordering timer found `lost` segments (only RFC 6675 runs
    /// RACK): start a recovery unless one or a loss phase is under way.
    pub(super) fn on_rack_timeout(&mut self, c: &mut Conn, now: SimTime, lost: u32, out: &mut Vec<Packet>) {
        if let Recovery::Rfc6675(m) = self {
            m.on_rack_timeout(c, now, lost, out);
        }
    }

    /// What to send next, if anything (window, scoreboard and file allowing).
    pub(super) fn pick(&mut self, c: &mut Conn) -> Option<Pick> {
        match self {
            Recovery::Classic(_) => c.go_back_n_allowed().then_some(Pick::Next),
            Recovery::Rfc6675(m) => m.pick(c),
            Recovery::Sack1(m) => m.pick(c),
        }
    }

    /// A segment was just sent by the send loop.
    #[inline]
    pub(super) fn on_sent(&mut self, c: &Conn) {
        if let Recovery::Rfc6675(m) = self {
            m.on_sent(c);
        }
    }

    /// The recovery part of an ACK: enter, continue or leave recovery.
    pub(super) fn on_ack(&mut self, c: &mut Conn, now: SimTime, a: &AckInfo, out: &mut Vec<Packet>) -> AckStep {
        match self {
            Recovery::Classic(m) => m.on_ack(c, now, a, out),
            Recovery::Rfc6675(m) => m.on_ack(c, now, a, out),
            Recovery::Sack1(m) => m.on_ack(c, now, a, out),
        }
    }

    /// After the common part of an RTO (`Conn::timeout`): what the mode
    /// does with its scoreboard and send point.
    pub(super) fn on_rto(&mut self, c: &mut Conn, frto: bool) {
        match self {
            Recovery::Classic(_) => {
                c.timeout_mark_lost();
                c.snd_nxt = c.snd_una;
            }
            Recovery::Rfc6675(m) => m.on_rto(c, frto),
            Recovery::Sack1(m) => m.on_rto(c),
        }
    }
}
