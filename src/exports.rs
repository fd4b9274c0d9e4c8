//! The export files of a run, `show` or `compare` (`--export-json`/`--json`, `--export-csv`,
//! `--export-markdown`): checked before any work, written through `outfile` (never renamed over a
//! device or a symlink), `-` meaning standard output. JSON is rewritten after every sample of a
//! run, so a killed run leaves its samples; CSV and Markdown are written at the end.

use crate::cli::ExportArgs;
use crate::error::{CliError, CliResult};
use fsbench_model::RunRecord;
use fsbench_output::file::OutputKind;
use fsbench_report::export::{Csv, Json, Markdown, Renderer, SeriesCsv};
use std::path::PathBuf;

/// Where one export goes.
enum Dest {
    /// Standard output (`-`): written once, at the end.
    Stdout,
    /// A file, replaced or streamed as `outfile` decided.
    File(PathBuf, OutputKind),
}

/// The exports asked for, validated.
#[derive(Default)]
pub struct Exports {
    outputs: Vec<(Box<dyn Renderer + Send>, Dest, &'static str)>,
    /// The first write error, reported at the end.
    pub error: Option<String>,
}

impl Exports {
    /// Validates every export path (one line per problem, exit 2) before anything runs: none
    /// may be a `protected` file, one of the `others` outputs, or another export.
    pub fn check(
        args: &ExportArgs,
        protected: &[fsbench_output::protect::Protected],
        others: &[(&str, &std::path::Path)],
    ) -> CliResult<Self> {
        let mut named: Vec<(&str, &std::path::Path)> = [
            ("--export-json", args.export_json.as_deref()),
            ("--export-csv", args.export_csv.as_deref()),
            ("--export-markdown", args.export_markdown.as_deref()),
            ("--export-csv-series", args.export_csv_series.as_deref()),
        ]
        .into_iter()
        .filter_map(|(f, p)| p.map(|p| (f, p)))
        .collect();
        named.extend_from_slice(others);
        fsbench_output::protect::check(&named, protected).map_err(CliError::usage)?;
        let mut outputs: Vec<(Box<dyn Renderer + Send>, Dest, &'static str)> = Vec::new();
        let asked: [(Option<&PathBuf>, Box<dyn Renderer + Send>, &'static str); 4] = [
            (args.export_json.as_ref(), Box::new(Json), "--export-json"),
            (args.export_csv.as_ref(), Box::new(Csv), "--export-csv"),
            (
                args.export_markdown.as_ref(),
                Box::new(Markdown::default()),
                "--export-markdown",
            ),
            (
                args.export_csv_series.as_ref(),
                Box::new(SeriesCsv),
                "--export-csv-series",
            ),
        ];
        for (path, exporter, flag) in asked {
            let Some(p) = path else { continue };
            let dest = if p.as_os_str() == "-" {
                Dest::Stdout
            } else {
                Dest::File(
                    p.clone(),
                    fsbench_output::file::check(p, flag).map_err(CliError::usage)?,
                )
            };
            outputs.push((exporter, dest, flag));
        }
        Ok(Self {
            outputs,
            error: None,
        })
    }

    /// True when an export is rewritten after every sample (a JSON file).
    pub fn rewritten_during_run(&self) -> bool {
        self.outputs.iter().any(|(e, d, _)| {
            e.format() == "json" && matches!(d, Dest::File(_, OutputKind::Replace))
        })
    }

    /// True when an export goes to standard output (the terminal report is then not printed).
    pub fn uses_stdout(&self) -> bool {
        self.outputs
            .iter()
            .any(|(_, d, _)| matches!(d, Dest::Stdout))
    }

    /// Writes the exports due now: JSON files after every sample, everything at the end (`last`).
    pub fn write(&mut self, record: &RunRecord, last: bool) {
        for (exporter, dest, flag) in &self.outputs {
            let due = last
                || (exporter.format() == "json"
                    && matches!(dest, Dest::File(_, OutputKind::Replace)));
            if !due {
                continue;
            }
            let text = if exporter.format() == "markdown" {
                // Markdown carries the seed layout of the run's suite, as the terminal does.
                let seed = crate::cmd::show::seed_kind(record);
                Markdown { seed }.text(record)
            } else {
                exporter.text(record)
            };
            let result = match dest {
                Dest::Stdout => crate::out::stdout(&text).map_err(|e| e.message),
                Dest::File(p, _) => fsbench_output::file::write(p, text.as_bytes()).map_err(|e| {
                    format!("cannot write {flag} {}: {e} — check the path", p.display())
                }),
            };
            if let Err(e) = result {
                self.error.get_or_insert(e);
            }
        }
    }

    /// What the signal watcher writes before a forced exit: the JSON files, marked interrupted.
    pub fn last_words(&self, record: &RunRecord) -> Option<Box<dyn FnOnce() + Send>> {
        let files: Vec<PathBuf> = self
            .outputs
            .iter()
            .filter_map(|(e, d, _)| match d {
                Dest::File(p, OutputKind::Replace) if e.format() == "json" => Some(p.clone()),
                _ => None,
            })
            .collect();
        if files.is_empty() {
            return None;
        }
        let mut words = record.clone();
        words.run.status = fsbench_model::RunStatus::Interrupted;
        Some(Box::new(move || {
            let text = Json.text(&words);
            for f in files {
                let _ = fsbench_output::file::write(&f, text.as_bytes());
            }
        }))
    }
}
