//! A columnar table: the shape every output file has, handed to Python as named columns.

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    Int(Vec<i64>),
    OptInt(Vec<Option<i64>>),
    Float(Vec<f64>),
    OptFloat(Vec<Option<f64>>),
    OptBool(Vec<Option<bool>>),
    Str(Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::Int(v) => v.len(),
            Column::OptInt(v) => v.len(),
            Column::Float(v) => v.len(),
            Column::OptFloat(v) => v.len(),
            Column::OptBool(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(&'static str, Column)>,
}

impl Table {
    pub fn with(mut self, name: &'static str, col: Column) -> Table {
        debug_assert!(self.columns.first().is_none_or(|(_, c)| c.len() == col.len()), "column {name} has a different length");
        self.columns.push((name, col));
        self
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| *n == name).map(|(_, c)| c)
    }
}
