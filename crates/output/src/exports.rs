//! The export files of a run, `show` or `compare` (`--export-json`/`--json`, `--export-csv`,
//! `--export-markdown`): checked before any work, written through [`crate::file`] (never renamed over a
//! device or a symlink), `-` meaning standard output. JSON is rewritten during a run (see
//! [`crate::run_sink`]), so a killed run leaves its samples; CSV and Markdown are written at the end.

use crate::Refused;
use crate::file::OutputKind;
use crate::protect::Protected;
use fsbench_model::{RunRecord, SeedLayout};
use fsbench_report::export::{Csv, Markdown, SeriesCsv};
use fsbench_report::json::Json;
use fsbench_report::{Format, Renderer};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// Held while export files are written, by the run and by a forced exit's last words; `true`
/// once the last words are written, after which nothing overwrites them. Without it a forced
/// exit could write "interrupted" a moment before the run's own rewrite of the same file
/// replaced it with "running".
static WRITING: Mutex<bool> = Mutex::new(false);

/// The export lock (a panic elsewhere while it was held leaves a usable value).
fn writing() -> MutexGuard<'static, bool> {
    WRITING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The export files asked for (`--export-json`, `--export-csv`, `--export-markdown`,
/// `--export-csv-series`), not yet checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExportPaths {
    /// JSON.
    pub json: Option<PathBuf>,
    /// CSV, one row per sample.
    pub csv: Option<PathBuf>,
    /// Markdown.
    pub markdown: Option<PathBuf>,
    /// CSV, one row per interval of every sample's series.
    pub csv_series: Option<PathBuf>,
}

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
    outputs: Vec<(Format, Dest, &'static str)>,
    /// The first write error, reported at the end.
    pub error: Option<String>,
}

impl Exports {
    /// Validates every export path (one line per problem, exit 2) before anything runs: none
    /// may be a `protected` file, one of the `others` outputs, or another export.
    pub fn check(
        paths: &ExportPaths,
        protected: &[Protected],
        others: &[(&str, &Path)],
    ) -> Result<Self, Refused> {
        let mut named: Vec<(&str, &Path)> = [
            ("--export-json", paths.json.as_deref()),
            ("--export-csv", paths.csv.as_deref()),
            ("--export-markdown", paths.markdown.as_deref()),
            ("--export-csv-series", paths.csv_series.as_deref()),
        ]
        .into_iter()
        .filter_map(|(f, p)| p.map(|p| (f, p)))
        .collect();
        named.extend_from_slice(others);
        crate::protect::check(&named, protected)?;
        let mut outputs = Vec::new();
        let asked = [
            (paths.json.as_ref(), Format::Json, "--export-json"),
            (paths.csv.as_ref(), Format::Csv, "--export-csv"),
            (
                paths.markdown.as_ref(),
                Format::Markdown,
                "--export-markdown",
            ),
            (
                paths.csv_series.as_ref(),
                Format::SeriesCsv,
                "--export-csv-series",
            ),
        ];
        for (path, exporter, flag) in asked {
            let Some(p) = path else { continue };
            let dest = if p.as_os_str() == "-" {
                Dest::Stdout
            } else {
                Dest::File(p.clone(), crate::file::check(p, flag)?)
            };
            outputs.push((exporter, dest, flag));
        }
        Ok(Self {
            outputs,
            error: None,
        })
    }

    /// True when an export is rewritten during a run (a JSON file).
    pub fn rewritten_during_run(&self) -> bool {
        self.outputs
            .iter()
            .any(|(e, d, _)| *e == Format::Json && matches!(d, Dest::File(_, OutputKind::Replace)))
    }

    /// True when an export goes to standard output (the terminal report is then not printed).
    pub fn uses_stdout(&self) -> bool {
        self.outputs
            .iter()
            .any(|(_, d, _)| matches!(d, Dest::Stdout))
    }

    /// Writes the exports due now: JSON files during a run, everything at the end (`last`).
    /// Markdown carries `seed`, the seed layout of the run's suite, as the terminal does;
    /// `stdout` writes an export that goes to standard output (its error a one-line message:
    /// see [`crate::run_sink::Stdout`]).
    pub fn write(
        &mut self,
        record: &RunRecord,
        last: bool,
        seed: Option<SeedLayout>,
        stdout: &mut dyn FnMut(&str) -> Result<(), String>,
    ) {
        let sealed = writing();
        if *sealed {
            return;
        }
        for (format, dest, flag) in &self.outputs {
            let due = last
                || (*format == Format::Json && matches!(dest, Dest::File(_, OutputKind::Replace)));
            if !due {
                continue;
            }
            let text = match format {
                Format::Markdown => Markdown { seed }.text(record),
                Format::Csv => Csv.text(record),
                Format::SeriesCsv => SeriesCsv.text(record),
                _ => Json.text(record),
            };
            let result = match dest {
                Dest::Stdout => stdout(&text),
                Dest::File(p, _) => crate::file::write(p, text.as_bytes()).map_err(|e| {
                    format!("cannot write {flag} {}: {e} — check the path", p.display())
                }),
            };
            if let Err(e) = result {
                self.error.get_or_insert(e);
            }
        }
    }

    /// What the signal watcher writes before a forced exit: the JSON files with the record that
    /// `words` gives then (the run as it stands), marked interrupted.
    pub fn last_words(
        &self,
        words: impl FnOnce() -> RunRecord + Send + 'static,
    ) -> Option<Box<dyn FnOnce() + Send>> {
        let files: Vec<PathBuf> = self
            .outputs
            .iter()
            .filter_map(|(e, d, _)| match d {
                Dest::File(p, OutputKind::Replace) if *e == Format::Json => Some(p.clone()),
                _ => None,
            })
            .collect();
        if files.is_empty() {
            return None;
        }
        Some(Box::new(move || {
            let mut words = words();
            words.run.status = fsbench_model::RunStatus::Interrupted;
            let text = Json.text(&words);
            let mut sealed = writing();
            for f in files {
                let _ = crate::file::write(&f, text.as_bytes());
            }
            *sealed = true;
        }))
    }
}
