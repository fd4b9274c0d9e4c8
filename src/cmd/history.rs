//! `fsbench history`: stored runs, newest first, with filters — how long each took, its status,
//! the suite it ran and its notes — or `--export-json` for scripts. A run still marked running
//! whose process is gone (killed, crashed) is shown as `incomplete`.

use crate::cli::HistoryArgs;
use crate::error::{CliError, CliResult};
use fsbench_report::table::{Column, Table};
use fsbench_store::{HistoryFilter, RunRow};

/// Refuses a `--since` that is neither a date nor an RFC 3339 time.
fn check_since(since: &str) -> CliResult<()> {
    HistoryFilter::since_is_valid(since).then_some(()).ok_or_else(|| {
        CliError::usage(format!(
            "invalid --since '{}' — give a date (2026-11-01) or a UTC time (2026-11-01T10:00:00Z)",
            crate::escape_controls(since)
        ))
    })
}

/// Lists runs.
pub fn run(args: HistoryArgs) -> CliResult<i32> {
    if let Some(since) = &args.since {
        check_since(since)?;
    }
    if let Some(path) = &args.export_json {
        let protected = crate::storage::protected_db(args.db.db.as_deref());
        fsbench_output::protect::check(&[("--export-json", path)], &protected)?;
    }
    let store = crate::storage::open_existing(args.db.db.as_deref())?;
    let f = HistoryFilter {
        target: args.target,
        workload: args.workload,
        since: args.since,
        limit: args.limit,
    };
    let rows = store
        .history(&f)
        .map_err(|e| CliError::run(e.to_string()))?;
    if let Some(path) = &args.export_json {
        let list: Vec<serde_json::Value> = rows.iter().map(row_json).collect();
        let text =
            serde_json::to_string_pretty(&list).expect("invariant: JSON values serialise") + "\n";
        return write_output(path, "--export-json", &text).map(|()| 0);
    }
    let mut t = Table::new(
        "",
        vec![
            Column::text("run"),
            Column::text("started").optional(4),
            Column::number("duration"),
            Column::text("status"),
            Column::text("suite").optional(5),
            Column::text("note"),
            Column::text("targets").optional(3),
            Column::text("workloads").optional(2),
            Column::number("samples").optional(1),
        ],
    );
    for r in &rows {
        let notes: Vec<String> = store
            .notes(&r.id)
            .unwrap_or_default()
            .into_iter()
            .map(|(_, text)| text)
            .collect();
        t.push(vec![
            r.id.clone().into(),
            r.started_at.clone().into(),
            duration(r).into(),
            r.shown_status().to_string().into(),
            suite_or_card(r).into(),
            dash_if_empty(notes.join("; ")).into(),
            r.targets.join(", ").into(),
            r.workloads.join(", ").into(),
            r.samples.to_string().into(),
        ]);
    }
    let style = super::show::terminal_options(false, None).style();
    let text = fsbench_report::table::terminal::render(&t, style);
    crate::out::stdout(&fsbench_report::format::terminal_safe(&text))?;
    Ok(0)
}

/// The suite column: `card` for a character card, else the suite or `-`.
fn suite_or_card(r: &RunRow) -> String {
    if r.kind == fsbench_model::RunKind::Card {
        "card".into()
    } else {
        r.suite.clone().unwrap_or_else(|| "-".into())
    }
}

fn dash_if_empty(s: String) -> String {
    if s.is_empty() { "-".into() } else { s }
}

/// How long a run took (`42 s`, `12 min 5 s`, `1 h 3 min`; times are stored to the second),
/// or `-` when it did not finish.
fn duration(r: &RunRow) -> String {
    let Some(s) = r.seconds() else {
        return "-".into();
    };
    let whole = s.round() as u64;
    if whole < 1 {
        "<1 s".into()
    } else if whole < 60 {
        format!("{whole} s")
    } else if whole < 3600 {
        format!("{} min {} s", whole / 60, whole % 60)
    } else {
        format!("{} h {} min", whole / 3600, whole % 3600 / 60)
    }
}

fn row_json(r: &RunRow) -> serde_json::Value {
    serde_json::json!({
        "id": r.id,
        "started_at": r.started_at,
        "finished_at": r.finished_at,
        "status": r.shown_status(),
        "fsbench_version": r.fsbench_version,
        "targets": r.targets,
        "workloads": r.workloads,
        "samples": r.samples,
        "suite": r.suite,
        "kind": r.kind,
        "duration_s": r.seconds(),
    })
}

/// Writes `text` to the output `flag` names (`-`: standard output) through the careful writer.
pub fn write_output(path: &std::path::Path, flag: &str, text: &str) -> CliResult<()> {
    if path.as_os_str() == "-" {
        return crate::out::stdout(text);
    }
    fsbench_output::file::check(path, flag)?;
    fsbench_output::file::write(path, text.as_bytes())
        .map_err(|e| CliError::run(format!("cannot write {}: {e}", path.display())))
}
