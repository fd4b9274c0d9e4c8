//! The export formats that are only exports (CSV, the series CSV, Markdown), each a
//! [`crate::Renderer`] in a file of its own; every format's snapshot tests (`tests.rs`).

mod csv;
mod markdown;
mod series_csv;

pub use self::csv::Csv;
pub use self::markdown::Markdown;
pub use self::series_csv::SeriesCsv;

#[cfg(test)]
pub(crate) mod tests;
