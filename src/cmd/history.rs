//! `fsbench history`: stored runs, newest first, with filters; `--export-json` for scripts. A run
//! still marked running whose process is gone (killed, crashed) is shown as `incomplete`.

use crate::cli::HistoryArgs;
use crate::error::{CliError, CliResult};
use comfy_table::{Table, presets};
use fsbench_model::RunStatus;
use fsbench_store::{HistoryFilter, RunRow};

/// The status to show: `incomplete` for a run whose owner is gone before it finished.
pub fn shown_status(r: &RunRow) -> RunStatus {
    if r.status != RunStatus::Running {
        return r.status;
    }
    match r.owner {
        Some((pid, ticks)) if crate::scratch::owner_alive(pid, Some(ticks)) => RunStatus::Running,
        _ => RunStatus::Incomplete,
    }
}

/// Refuses a `--since` that is neither a date (`2026-11-01`) nor an RFC 3339 time
/// (`2026-11-01T10:00:00Z`): compared as text, garbage would silently select nothing.
fn check_since(since: &str) -> CliResult<()> {
    let full = if since.len() == 10 {
        format!("{since}T00:00:00Z")
    } else {
        since.to_string()
    };
    humantime::parse_rfc3339_weak(&full).map(drop).map_err(|_| {
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
        crate::outputs::check(&[("--export-json", path)], &protected).map_err(CliError::usage)?;
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
        return write_json(path, &text).map(|()| 0);
    }
    let mut t = Table::new();
    t.load_preset(presets::UTF8_FULL_CONDENSED);
    t.set_header([
        "run",
        "started",
        "targets",
        "workloads",
        "status",
        "samples",
    ]);
    for r in &rows {
        t.add_row([
            r.id.clone(),
            r.started_at.clone(),
            crate::escape_controls(&r.targets.join(", ")),
            r.workloads.join(", "),
            shown_status(r).to_string(),
            r.samples.to_string(),
        ]);
    }
    crate::outln!("{}", fsbench_report::format::terminal_safe(&t.to_string()))?;
    Ok(0)
}

fn row_json(r: &RunRow) -> serde_json::Value {
    serde_json::json!({
        "id": r.id,
        "started_at": r.started_at,
        "finished_at": r.finished_at,
        "status": shown_status(r),
        "fsbench_version": r.fsbench_version,
        "targets": r.targets,
        "workloads": r.workloads,
        "samples": r.samples,
    })
}

fn write_json(path: &std::path::Path, text: &str) -> CliResult<()> {
    if path.as_os_str() == "-" {
        return crate::out::stdout(text);
    }
    crate::outfile::check(path, "--export-json").map_err(CliError::usage)?;
    crate::outfile::write(path, text.as_bytes())
        .map_err(|e| CliError::run(format!("cannot write {}: {e}", path.display())))
}
