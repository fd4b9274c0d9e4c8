//! The reports suites add after the standard tables: a seed study's own layout (times with
//! user/sys/%CPU, encryption overhead in %) or a plain-language summary.

pub mod card;
pub mod summary;
pub mod tables;

use crate::names::CellNames;
use crate::table::Table;
use fsbench_model::{RunRecord, SeedLayout};

/// The seed layout's tables (none for the summary, which is text).
pub fn tables(kind: Option<SeedLayout>, record: &RunRecord, names: &CellNames) -> Vec<Table> {
    match kind {
        Some(SeedLayout::Times) => vec![tables::times(record, names)],
        Some(SeedLayout::Overhead) => tables::overhead(record, names).into_iter().collect(),
        Some(SeedLayout::Card) => card::tables(record),
        _ => Vec::new(),
    }
}

/// A suite's own report after the standard tables (`report = "summary" | "times" |
/// "overhead"` in the suite file) as terminal text; empty for none.
pub fn render(kind: Option<&str>, record: &RunRecord) -> String {
    let kind = kind.and_then(SeedLayout::parse);
    let names = CellNames::new(&record.results);
    let text = match kind {
        Some(SeedLayout::Summary) => summary::render(record),
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
