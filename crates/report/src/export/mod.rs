//! Exports: one file per format behind one trait (as hyperfine's `export/`), each a pure function
//! from the record a run built (or the store gave back) to text. `fsbench run`, `show` and
//! `compare` write them with the same flags.

mod csv;
mod markdown;

pub use self::csv::CsvExporter;
pub use self::markdown::MarkdownExporter;

use fsbench_model::RunRecord;

/// A way of writing a run record as text.
pub trait Exporter {
    /// Format name for messages (`json`, `csv`, `markdown`).
    fn format(&self) -> &'static str;
    /// The whole document.
    fn render(&self, record: &RunRecord) -> String;
}

/// The JSON document of docs/formats.md.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn format(&self) -> &'static str {
        "json"
    }

    fn render(&self, record: &RunRecord) -> String {
        crate::json::render(record)
    }
}

#[cfg(test)]
pub(crate) mod tests;
