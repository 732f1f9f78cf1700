//! The output schema: every table a run writes, with its columns and their types, defined
//! once here. Packet mode and fluid mode build their tables against it ([`Table::check`]),
//! an empty table takes its columns from it ([`empty`]), and the Python layer reads it
//! (`corral._core.schemas()`) instead of keeping a second copy; the docs' output reference
//! (docs/reference/outputs.md) is generated from it, each column explained in
//! docs/guides/outputs.md.

use super::table::{Column, Table};

/// A column's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColType {
    Int,
    Float,
    Str,
    Bool,
}

impl ColType {
    /// The name the Python layer maps to a polars type.
    pub fn name(self) -> &'static str {
        match self {
            ColType::Int => "int",
            ColType::Float => "float",
            ColType::Str => "str",
            ColType::Bool => "bool",
        }
    }
}

use ColType::{Bool, Float, Int, Str};

/// Every output table, in the order the run folder lists them.
pub const TABLES: &[(&str, &[(&str, ColType)])] = &[
    (
        "flows",
        &[
            ("flow_id", Int),
            ("src", Str),
            ("dst", Str),
            ("tag", Str),
            ("priority", Int),
            ("weight", Float),
            ("transport", Str),
            ("cc", Str),
            ("routing", Str),
            ("hops", Int),
            ("size_bytes", Int),
            ("start_s", Float),
            ("finish_s", Float),
            ("fct_s", Float),
            ("bytes_delivered", Int),
            ("goodput_bps", Float),
            ("packets_sent", Int),
            ("retransmits", Int),
            ("timeouts", Int),
            ("fast_recoveries", Int),
            ("ecn_cuts", Int),
            ("max_reorder_bytes", Int),
            ("tenant", Str),
            ("class", Str),
            ("ideal_fct_s", Float),
            ("slowdown", Float),
            ("deadline_s", Float),
            ("deadline_met", Bool),
        ],
    ),
    (
        "throughput",
        &[
            ("time_s", Float),
            ("flow_id", Int),
            ("bytes", Int),
            ("goodput_bps", Float),
            ("arrived_bytes", Int),
        ],
    ),
    (
        "queues",
        &[
            ("time_s", Float),
            ("node", Str),
            ("port", Int),
            ("bytes", Int),
            ("packets", Int),
            ("tx_bytes", Int),
        ],
    ),
    (
        "drops",
        &[
            ("time_s", Float),
            ("node", Str),
            ("port", Int),
            ("in_node", Str),
            ("in_port", Int),
            ("flow_id", Int),
            ("seq", Int),
        ],
    ),
    (
        "drop_runs",
        &[
            ("node", Str),
            ("port", Int),
            ("in_port", Int),
            ("in_node", Str),
            ("run_length", Int),
            ("episodes", Int),
        ],
    ),
    (
        "ports",
        &[
            ("node", Str),
            ("port", Int),
            ("peer", Str),
            ("rate_bps", Int),
            ("tx_packets", Int),
            ("tx_bytes", Int),
            ("drops", Int),
            ("ecn_marks", Int),
            ("max_queue_bytes", Int),
            ("utilization", Float),
        ],
    ),
    (
        "throughput_class",
        &[
            ("time_s", Float),
            ("class", Str),
            ("bytes", Int),
            ("goodput_bps", Float),
            ("active_flows", Int),
            ("jain", Float),
        ],
    ),
    ("latency", &[("time_s", Float), ("flow_id", Int), ("class", Str), ("latency_s", Float)]),
    (
        "control",
        &[
            ("node", Str),
            ("port", Int),
            ("peer", Str),
            ("kind", Str),
            ("packets", Int),
            ("bytes", Int),
        ],
    ),
];

/// The columns of table `name`.
pub fn columns(name: &str) -> &'static [(&'static str, ColType)] {
    TABLES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, c)| *c)
        .unwrap_or_else(|| panic!("no output table named {name}"))
}

/// Table `name` with its columns and no rows.
pub fn empty(name: &str) -> Table {
    let mut t = Table::default();
    for &(col, ty) in columns(name) {
        t = t.with(
            col,
            match ty {
                Int => Column::Int(Vec::new()),
                Float => Column::Float(Vec::new()),
                Str => Column::Str(Vec::new()),
                Bool => Column::OptBool(Vec::new()),
            },
        );
    }
    t
}

/// Whether `col` can hold values of type `ty` (optional columns hold nulls).
fn fits(col: &Column, ty: ColType) -> bool {
    matches!(
        (col, ty),
        (Column::Int(_) | Column::OptInt(_), Int)
            | (Column::Float(_) | Column::OptFloat(_), Float)
            | (Column::Str(_) | Column::Cat(..), Str)
            | (Column::OptBool(_), Bool)
    )
}

impl Table {
    /// Panics unless the table has exactly the columns of `name`, in order and of their
    /// types: a table built against the wrong schema is a bug, not bad input.
    pub fn check(self, name: &str) -> Table {
        let want = columns(name);
        let got: Vec<&str> = self.columns.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            got,
            want.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
            "table {name}: columns differ from the schema"
        );
        for ((n, col), (_, ty)) in self.columns.iter().zip(want) {
            assert!(fits(col, *ty), "table {name}: column {n} is not {}", ty.name());
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_tables_match_their_schema() {
        for (name, cols) in TABLES {
            let t = empty(name).check(name);
            assert_eq!(t.columns.len(), cols.len());
            assert_eq!(t.rows(), 0);
        }
    }

    #[test]
    #[should_panic(expected = "columns differ")]
    fn a_wrong_table_is_caught() {
        Table::default().with("time_s", Column::Float(vec![])).check("queues");
    }
}
