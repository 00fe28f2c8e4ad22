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
