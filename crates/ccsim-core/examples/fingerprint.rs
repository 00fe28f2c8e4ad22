//! Hash every result table of core-JSON scenarios, one line per file:
//! `cargo run --release --example fingerprint -- a.json b.json ...`.
//! For refactorings that must not change what is simulated: run on the old
//! and the new commit and diff (tools/fingerprint.py --dump writes a
//! matrix of scenarios as core JSON; `$CCSIM_FP_COLUMNS` set prints a hash
//! per column too, to find what differs). Columns named in `$CCSIM_FP_SKIP`
//! (comma-separated, e.g. a column one of the commits added) are left out.
use std::hash::{Hash, Hasher};

fn main() {
    let skip: Vec<String> = std::env::var("CCSIM_FP_SKIP").unwrap_or_default().split(',').map(str::to_string).collect();
    for path in std::env::args().skip(1) {
        let json = std::fs::read_to_string(&path).expect("readable scenario file");
        let out = ccsim_core::run_json(&json).expect("valid scenario");
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for t in &out.tables {
            t.name.hash(&mut h);
            for (name, col) in &t.columns {
                if !skip.contains(name) {
                    format!("{name}{col:?}").hash(&mut h);
                    if std::env::var_os("CCSIM_FP_COLUMNS").is_some() {
                        let mut c = std::collections::hash_map::DefaultHasher::new();
                        format!("{col:?}").hash(&mut c);
                        println!("  {}.{name} {:016x}", t.name, c.finish());
                    }
                }
            }
        }
        println!("{} {} {:016x}", path, out.events, h.finish());
    }
}
