//! The mahimahi packet-delivery trace file (Netravali et al., USENIX ATC
//! 2015; `mm-link`): whole milliseconds, one delivery opportunity of 1504
//! bytes per line, repeating with the period of the last line. Reading and
//! parsing a file is here, below the configuration that holds the parsed
//! trace and the link that replays it (`link::trace::TraceTx`).

use crate::units::{SimTime, PS_PER_MS, PS_PER_S};

/// Bytes one delivery opportunity carries (mahimahi's PACKET_SIZE).
pub const OPPORTUNITY_BYTES: u32 = 1504;

/// A parsed trace: opportunity offsets within one period, in ps.
#[derive(Debug, PartialEq, Eq)]
pub struct Trace {
    pub opps: Vec<SimTime>,
    pub period: SimTime,
}

/// How an error shows a line that is not a number: its first token only,
/// at most 16 characters, anything unprintable as '?' (the file may be
/// something else entirely: a secret must not reach the message).
fn quote(line: &str) -> String {
    let token = line.split_whitespace().next().unwrap_or("");
    let mut shown: String = token.chars().take(16).map(|c| if c.is_ascii_graphic() { c } else { '?' }).collect();
    if token.chars().count() > 16 || token.len() < line.len() {
        shown.push('…');
    }
    format!("'{shown}'")
}

impl Trace {
    /// Parse mahimahi's format; errors name the line and the value.
    pub fn parse(text: &str) -> Result<Trace, String> {
        let mut opps = Vec::new();
        let mut last = 0u64;
        for (i, raw) in text.lines().enumerate() {
            let n = i + 1;
            let line = raw.trim();
            if line.is_empty() {
                return Err(format!("line {n}: empty line (one whole number of milliseconds per line)"));
            }
            let ms: u64 = line.parse().map_err(|_| {
                format!("line {n}: {} is not a whole, non-negative number of milliseconds", quote(line))
            })?;
            if ms > (crate::units::MAX_TIME_PS / PS_PER_MS) / 2 {
                return Err(format!(
                    "line {n}: {ms} ms is too large (at most {} ms)",
                    crate::units::MAX_TIME_PS / PS_PER_MS / 2
                ));
            }
            if ms < last {
                return Err(format!(
                    "line {n}: {ms} ms is earlier than the line before ({last} ms); the trace must not go back in time"
                ));
            }
            last = ms;
            opps.push(ms * PS_PER_MS);
        }
        if opps.is_empty() {
            return Err("no delivery opportunities (the file is empty)".into());
        }
        if last == 0 {
            return Err("the last opportunity is at 0 ms; a trace must last a nonzero time (it repeats with the period of its last line)".into());
        }
        let t = Trace { opps, period: last * PS_PER_MS };
        if t.mean_bps() == 0 {
            // a link's rate must be at least 1 b/s (`LinkCfg::validate`)
            return Err(format!(
                "{} delivery opportunities of {OPPORTUNITY_BYTES} bytes in {last} ms are a mean rate below 1 b/s; \
                 expected a trace of at least 1 b/s",
                t.opps.len()
            ));
        }
        Ok(t)
    }

    /// Mean capacity over one period, b/s.
    pub fn mean_bps(&self) -> u64 {
        ((self.opps.len() as u128 * OPPORTUNITY_BYTES as u128 * 8 * PS_PER_S as u128) / self.period as u128) as u64
    }
}

/// Largest trace file the core reads (the Python front end has its own,
/// lower, configurable bound: $CCSIM_MAX_FILE_BYTES).
pub const MAX_TRACE_BYTES: u64 = 1 << 30;

/// Read and parse a trace file; errors name the file.
pub fn load_trace(path: &str) -> Result<Trace, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{path}: {e}"))?;
    if !meta.is_file() {
        // a FIFO would block forever, a device read without end
        return Err(format!("{path}: not a regular file; a trace is a text file of millisecond timestamps"));
    }
    if meta.len() > MAX_TRACE_BYTES {
        return Err(format!(
            "{path}: {} bytes is larger than the {} bytes a trace may have",
            meta.len(),
            MAX_TRACE_BYTES
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    Trace::parse(&text).map_err(|m| format!("{path}: {m}"))
}
