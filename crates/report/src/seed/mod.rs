//! The reports suites add after the standard tables: a seed study's own layout (times with
//! user/sys/%CPU, encryption overhead in %) or a plain-language summary.

pub mod summary;
pub mod tables;

use fsbench_model::RunRecord;

/// A suite's own report after the standard tables (`report = "summary" | "times" |
/// "overhead"` in the suite file); empty for none.
pub fn render(kind: Option<&str>, record: &RunRecord) -> String {
    let text = match kind {
        Some("summary") => summary::render(record),
        Some("times") => tables::times(record),
        Some("overhead") => tables::overhead(record),
        _ => String::new(),
    };
    crate::format::terminal_safe(&text)
}
