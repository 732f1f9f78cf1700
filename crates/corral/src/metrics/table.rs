//! A columnar table: the shape every output file has, handed to Python as named columns.

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    Int(Vec<i64>),
    OptInt(Vec<Option<i64>>),
    Float(Vec<f64>),
    OptFloat(Vec<Option<f64>>),
    OptBool(Vec<Option<bool>>),
    Str(Vec<String>),
    /// Text with few distinct values: the values, and each row's index into them (no string
    /// per row to build, nor to hand over).
    Cat(Vec<String>, Vec<u32>),
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
            Column::Cat(_, rows) => rows.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Goodput in bit/s of `bytes` delivered over each sampling interval of `widths`.
    pub fn goodput_bps(bytes: &[u64], widths: &[crate::units::Time]) -> Column {
        Column::Float(
            bytes
                .iter()
                .zip(widths)
                .map(|(&b, &w)| b as f64 * 8.0 / w.as_secs_f64().max(1e-12))
                .collect(),
        )
    }

    /// Each row's text, for a text column ([`Column::Str`] or [`Column::Cat`]).
    pub fn texts(&self) -> Option<Vec<&str>> {
        match self {
            Column::Str(v) => Some(v.iter().map(String::as_str).collect()),
            Column::Cat(names, rows) => {
                Some(rows.iter().map(|&r| names[r as usize].as_str()).collect())
            }
            _ => None,
        }
    }

    /// A text column of `rows`, as [`Column::Cat`].
    pub fn cat<'a>(rows: impl Iterator<Item = &'a str>) -> Column {
        let mut names = crate::text::Names::default();
        let codes = rows.map(|r| names.index(r)).collect();
        Column::Cat(names.list, codes)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(&'static str, Column)>,
}

impl Table {
    pub fn with(mut self, name: &'static str, col: Column) -> Table {
        debug_assert!(
            self.columns.first().is_none_or(|(_, c)| c.len() == col.len()),
            "column {name} has a different length"
        );
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

#[cfg(test)]
mod tests {
    use super::Column;

    #[test]
    fn a_cat_column_codes_each_distinct_value_once_in_order_of_first_use() {
        let c = Column::cat(["b", "b", "", "a", "b", ""].into_iter());
        assert_eq!(c, Column::Cat(vec!["b".into(), "".into(), "a".into()], vec![0, 0, 1, 2, 0, 1]));
        assert_eq!(c.len(), 6);
        assert_eq!(Column::cat(std::iter::empty()), Column::Cat(Vec::new(), Vec::new()));
    }
}
