//! `fsbench record [-o FILE] [--root DIR] [--untraced N] -- CMD [ARGS…]`: runs CMD traced
//! (`fsbench_trace::session`), writes the trace, and says what it holds and what tracing cost.

use crate::cli::RecordArgs;
use crate::error::{CliError, CliResult};
use fsbench_trace::session::{self, RecordError, Request};
use fsbench_trace::{Summary, encode};
use fsbench_workload::CancelToken;
use std::path::{Path, PathBuf};

/// Records; exit 0 when the trace was written (whatever the program's own exit status).
pub fn run(args: RecordArgs) -> CliResult<i32> {
    let root_arg = args.root.clone().unwrap_or_else(|| PathBuf::from("."));
    let root = std::fs::canonicalize(&root_arg)
        .ok()
        .filter(|r| r.is_dir())
        .ok_or_else(|| {
            CliError::usage(format!(
                "cannot use --root {}: not an existing directory — give the directory the program works in",
                root_arg.display()
            ))
        })?;
    let output = args.output.clone().unwrap_or_else(|| default_output(&args));
    let db = crate::storage::db_path(None).ok();
    let protected: Vec<fsbench_output::protect::Protected> = db
        .into_iter()
        .map(|path| fsbench_output::protect::Protected {
            what: "the results database".into(),
            path,
        })
        .collect();
    fsbench_output::protect::check_files(&[("-o", output.as_path())], &protected)?;
    let cancel = CancelToken::new();
    crate::signals::install(cancel.clone())
        .map_err(|e| CliError::run(format!("cannot install signal handlers: {e}")))?;
    let exe = std::env::current_exe()
        .map_err(|e| CliError::run(format!("cannot find fsbench's own executable: {e}")))?;
    let req = Request {
        command: args.command.clone(),
        root,
        untraced: args.untraced,
        prepare: args.prepare.clone(),
        exe,
    };
    let recorded =
        session::record(&req, crate::signals::cleanup(), &cancel).map_err(|e| match e {
            RecordError::Interrupted => CliError::interrupted(),
            e @ (RecordError::Spawn { .. } | RecordError::Prepare { .. }) => {
                CliError::usage(e.to_string())
            }
            e => CliError::run(e.to_string()),
        })?;
    let bytes = encode(&recorded.trace);
    fsbench_output::file::write(&output, &bytes).map_err(|e| {
        CliError::run(format!(
            "cannot write the trace {}: {e} — check the path and the free space",
            output.display()
        ))
    })?;
    let s = Summary::of(&recorded.trace);
    crate::errln!(
        "fsbench: recorded {} calls under {} ({}), {} outside it, from {} thread{} in {} process{}; start state {} paths; trace {} ({})",
        s.replayed(),
        recorded.trace.root,
        by_kind(&s.calls, 6),
        s.outside_root,
        s.threads,
        plural(s.threads),
        s.processes,
        if s.processes == 1 { "" } else { "es" },
        s.files,
        output.display(),
        crate::format::bytes(bytes.len() as u64)
    );
    crate::errln!("fsbench: {}", s.overhead_line());
    crate::errln!("fsbench: {}", s.pace_line());
    if !recorded.status.success() {
        crate::errln!(
            "fsbench: note: the program ended with {}; the trace records that run",
            recorded.status
        );
    }
    if let Some(st) = recorded.untraced_failed {
        crate::errln!(
            "fsbench: note: an untraced run ended with {st}: compare the overhead with care (--untraced 0 skips them)"
        );
    }
    Ok(0)
}

/// `PROGRAM.fsbtrace` in the current directory.
fn default_output(args: &RecordArgs) -> PathBuf {
    let name = args
        .command
        .first()
        .and_then(|p| Path::new(p).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "program".into());
    PathBuf::from(format!("{name}.fsbtrace"))
}

/// The `n` commonest kinds: "stat 6000, open 3000, …".
pub fn by_kind(calls: &std::collections::BTreeMap<String, u64>, n: usize) -> String {
    let mut v: Vec<(&String, &u64)> = calls.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let mut parts: Vec<String> = v.iter().take(n).map(|(k, c)| format!("{k} {c}")).collect();
    if v.len() > n {
        parts.push(format!("{} more kinds", v.len() - n));
    }
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
