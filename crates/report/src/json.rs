//! The JSON document of `--json`: the run record as specified in docs/formats.md.

use fsbench_model::RunRecord;

/// Serialises `record` as pretty JSON followed by a newline.
pub fn render(record: &RunRecord) -> String {
    let mut s = serde_json::to_string_pretty(record).expect("invariant: run records serialise");
    s.push('\n');
    s
}
