//! Columnar results. The core produces named tables of typed columns; the
//! Python layer turns them into numpy arrays (one memcpy each) and then
//! polars / Parquet.

#[derive(Clone, Debug)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    Str(Vec<String>),
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

/// Growing columns for the per-flow time series.
#[derive(Default)]
pub struct FlowSeries {
    pub time_s: Vec<f64>,
    pub flow: Vec<u64>,
    pub cwnd: Vec<u64>,
    pub ssthresh: Vec<f64>,
    pub srtt_s: Vec<f64>,
    pub rto_s: Vec<f64>,
    pub inflight_bytes: Vec<u64>,
    pub delivered_bytes: Vec<u64>,
    /// Data bytes put on the wire (headers and retransmissions included).
    pub bytes_sent: Vec<u64>,
    pub acks_received: Vec<u64>,
    pub pkts_injected: Vec<u64>,
    pub pkts_arrived: Vec<u64>,
    pub pkts_dropped: Vec<u64>,
    pub snd_una: Vec<u64>,
    pub snd_max: Vec<u64>,
    pub retransmits: Vec<u64>,
    pub ca_state: Vec<u64>,
    pub pacing_rate_bps: Vec<f64>,
    pub delivery_rate_bps: Vec<f64>,
}

#[derive(Default)]
pub struct LinkSeries {
    pub time_s: Vec<f64>,
    pub link: Vec<u64>,
    pub queue_pkts: Vec<u64>,
    pub queue_bytes: Vec<u64>,
    pub held_pkts: Vec<u64>,
    /// RED's average queue (NaN for other disciplines).
    pub avg_queue: Vec<f64>,
    /// RED's current max_p (NaN for other disciplines).
    pub max_p: Vec<f64>,
    pub drops: Vec<u64>,
    pub losses: Vec<u64>,
    pub bytes_tx: Vec<u64>,
}
