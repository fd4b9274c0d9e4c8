//! The JSON document of `--json`: the run record as specified in docs/formats.md.

use crate::Renderer;
use fsbench_model::RunRecord;

/// The run record as pretty JSON followed by a newline.
#[derive(Debug, Clone, Copy, Default)]
pub struct Json;

impl Renderer for Json {
    fn format(&self) -> crate::Format {
        crate::Format::Json
    }

    fn render(&self, record: &RunRecord, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(record).map_err(std::io::Error::other)?;
        out.write_all(fsbench_model::text::json_safe(text).as_bytes())?;
        out.write_all(b"\n")
    }
}
