//! The reports suites add after the standard tables: a seed study's own layout (times with
//! user/sys/%CPU, encryption overhead in %) or a plain-language summary.

pub mod summary;
pub mod tables;

use crate::names::CellNames;
use crate::table::Table;
use fsbench_model::RunRecord;

/// Which seed layout a suite asks for (`report = "summary" | "times" | "overhead"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The plain-language summary.
    Summary,
    /// The Chromium study's times table.
    Times,
    /// The encryption study's overhead table.
    Overhead,
}

impl Kind {
    /// The kind a suite file names; `None` for none or an unknown name.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "summary" => Some(Self::Summary),
            "times" => Some(Self::Times),
            "overhead" => Some(Self::Overhead),
            _ => None,
        }
    }
}

/// The seed layout's tables (none for the summary, which is text).
pub fn tables(kind: Option<Kind>, record: &RunRecord, names: &CellNames) -> Vec<Table> {
    match kind {
        Some(Kind::Times) => vec![tables::times(record, names)],
        Some(Kind::Overhead) => tables::overhead(record, names).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// A suite's own report after the standard tables (`report = "summary" | "times" |
/// "overhead"` in the suite file) as terminal text; empty for none.
pub fn render(kind: Option<&str>, record: &RunRecord) -> String {
    let kind = kind.and_then(Kind::parse);
    let names = CellNames::new(&record.results);
    let text = match kind {
        Some(Kind::Summary) => summary::render(record),
        k => tables(k, record, &names)
            .iter()
            .map(|t| {
                format!(
                    "\n{}",
                    crate::table::terminal::render(t, crate::table::terminal::Style::default())
                )
            })
            .collect(),
    };
    crate::format::terminal_safe(&text)
}
