//! One renderer trait for every format (as hyperfine's `export/` and ripgrep's sinks): terminal,
//! JSON, CSV, Markdown and HTML each implement [`Renderer`] in a file of their own and write to
//! the caller's `Write`. They are pure: a run record in, text out, so each is snapshot-tested.
//! `fsbench run`, `show`, `compare` and `report` all go through it.

use fsbench_model::RunRecord;
use std::io::{self, Write};

/// The document formats fsbench writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The terminal's tables.
    Terminal,
    /// The JSON contract of `docs/formats.md`.
    Json,
    /// One CSV row per sample.
    Csv,
    /// One CSV row per interval of every sample's time series.
    SeriesCsv,
    /// Tables and comparisons as Markdown.
    Markdown,
    /// The self-contained HTML report.
    Html,
}

impl Format {
    /// Its name for messages (`terminal`, `json`, `csv`, `series-csv`, `markdown`, `html`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Terminal => "terminal",
            Self::Json => "json",
            Self::Csv => "csv",
            Self::SeriesCsv => "series-csv",
            Self::Markdown => "markdown",
            Self::Html => "html",
        }
    }
}

/// A way of writing a run record as a document.
pub trait Renderer {
    /// Which format it writes.
    fn format(&self) -> Format;

    /// Writes the whole document of `record` to `out`.
    fn render(&self, record: &RunRecord, out: &mut dyn Write) -> io::Result<()>;

    /// The document as text (for callers that still need a string).
    fn text(&self, record: &RunRecord) -> String {
        let mut bytes = Vec::new();
        self.render(record, &mut bytes)
            .expect("invariant: writing to a Vec cannot fail");
        String::from_utf8(bytes).expect("invariant: renderers write UTF-8")
    }
}
