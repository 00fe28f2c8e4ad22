//! Columnar results. The core produces named tables of typed columns; the
//! Python layer turns them into numpy arrays (one memcpy each) and then
//! polars / Parquet.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

#[derive(Clone, Debug)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    Str(Strings),
}

/// A column of strings kept as a code per row into its distinct values
/// (in order of first appearance), as Arrow's dictionary arrays: a
/// million flows' `src`, `dst`, `cc` and `label` hold a handful of
/// distinct names, and a `String` per cell cost about 56 bytes each.
#[derive(Clone, Default)]
pub struct Strings {
    codes: Vec<u32>,
    values: Vec<String>,
    /// The code of the first value with each hash (`str_hash`), once there
    /// are more than `SCAN` values: a column of a million distinct names
    /// (each flow's own hosts) keeps each name once, and a few values are
    /// found faster by comparing them in turn.
    index: HashMap<u64, u32, BuildHasherDefault<Prehashed>>,
}

/// Distinct values looked up by a scan rather than the index.
const SCAN: usize = 16;

/// FxHash (Firefox's, as rustc uses) of a string's bytes, 8 at a time,
/// a value's hash is its key in `Strings::index`, so the index keeps no
/// copy of the value.
fn str_hash(s: &str) -> u64 {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut h = s.len() as u64;
    for c in s.as_bytes().chunks(8) {
        let mut w = [0u8; 8];
        w[..c.len()].copy_from_slice(c);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    // a product's low bits depend only on its factors' low bits, and the
    // table indexes by the low bits: fold the high ones in (MurmurHash3's
    // finaliser), or "src1" … "src9" would share a bucket
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// A hasher for keys that are already hashes.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 keys")
    }
    fn write_u64(&mut self, h: u64) {
        self.0 = h;
    }
}

impl Strings {
    pub fn push(&mut self, s: &str) {
        // consecutive rows mostly repeat a value
        if let Some(&last) = self.codes.last() {
            if self.values[last as usize] == s {
                self.codes.push(last);
                return;
            }
        }
        let code = self.find(s).unwrap_or_else(|| self.add(s));
        self.codes.push(code);
    }

    fn find(&self, s: &str) -> Option<u32> {
        let scan = |vs: &[String]| vs.iter().position(|v| v == s).map(|i| i as u32);
        if self.values.len() <= SCAN {
            return scan(&self.values);
        }
        match self.index.get(&str_hash(s)) {
            None => None,
            Some(&c) if self.values[c as usize] == s => Some(c),
            // another value has this hash (about never): look at them all
            Some(_) => scan(&self.values),
        }
    }

    fn add(&mut self, s: &str) -> u32 {
        let c = u32::try_from(self.values.len()).expect("fewer than 2^32 distinct strings in a column");
        self.values.push(s.to_owned());
        if self.values.len() == SCAN + 1 {
            for (i, v) in self.values.iter().enumerate() {
                self.index.entry(str_hash(v)).or_insert(i as u32);
            }
        } else if self.values.len() > SCAN + 1 {
            self.index.entry(str_hash(s)).or_insert(c);
        }
        c
    }

    pub fn len(&self) -> usize {
        self.codes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }
    /// Row `i`'s value.
    pub fn get(&self, i: usize) -> &str {
        &self.values[self.codes[i] as usize]
    }
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.codes.iter().map(|&c| self.values[c as usize].as_str())
    }
    /// Each row's index into `values`.
    pub fn codes(&self) -> &[u32] {
        &self.codes
    }
    /// The distinct values, in order of first appearance.
    pub fn values(&self) -> &[String] {
        &self.values
    }
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_owned).collect()
    }
}

/// Shown as the list of its rows, as a `Vec<String>` is (the fingerprint
/// of a run's tables hashes this text).
impl std::fmt::Debug for Strings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<S: AsRef<str>> FromIterator<S> for Strings {
    fn from_iter<I: IntoIterator<Item = S>>(it: I) -> Self {
        let mut s = Strings::default();
        it.into_iter().for_each(|x| s.push(x.as_ref()));
        s
    }
}

impl From<Vec<String>> for Strings {
    fn from(v: Vec<String>) -> Self {
        v.into_iter().collect()
    }
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Debug, Default)]
pub struct Table {
    pub name: String,
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn new(name: &str) -> Self {
        Table { name: name.to_string(), columns: Vec::new() }
    }
    pub fn push(&mut self, name: &str, c: Column) {
        self.columns.push((name.to_string(), c));
    }
    pub fn get(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
}

#[derive(Clone, Debug, Default)]
pub struct SimOutput {
    pub tables: Vec<Table>,
    pub events: u64,
    pub sim_time_s: f64,
    pub delivered_data_pkts: u64,
}

impl SimOutput {
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }
}
