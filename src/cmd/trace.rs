//! `fsbench trace show FILE [--export-json F]`: what a trace holds.

use crate::cli::TraceCommand;
use crate::error::{CliError, CliResult};
use fsbench_trace::Summary;
use std::path::Path;

/// Largest trace read (a compressed trace of tens of millions of calls is far below this).
const MAX_TRACE: u64 = 4 << 30;

/// Runs a `trace` subcommand.
pub fn run(command: TraceCommand) -> CliResult<i32> {
    match command {
        TraceCommand::Show {
            file,
            export_json,
            calls,
            outside,
        } => show(&file, export_json.as_deref(), calls.then_some(outside)),
    }
}

/// Reads and checks `file` as a trace, or says in one line why it is not one.
pub fn read(file: &Path) -> CliResult<fsbench_trace::Trace> {
    let bytes = fsbench_sys::infile::read_regular(file, MAX_TRACE).map_err(|e| {
        CliError::usage(format!(
            "cannot read the trace {}: {e} — give a file written by fsbench record",
            file.display()
        ))
    })?;
    fsbench_trace::decode(&bytes).map_err(|e| CliError::usage(format!("{} {e}", file.display())))
}

/// `calls`: list the calls (`Some(true)`: those outside the root too).
fn show(file: &Path, export_json: Option<&Path>, calls: Option<bool>) -> CliResult<i32> {
    if let Some(out) = export_json {
        fsbench_output::protect::check_files(
            &[("--export-json", out)],
            &[fsbench_output::protect::Protected {
                what: "the trace".into(),
                path: file.to_path_buf(),
            }],
        )?;
    }
    let trace = read(file)?;
    let s = Summary::of(&trace);
    if let Some(out) = export_json {
        let json = serde_json::to_string_pretty(&s).expect("a summary always serialises") + "\n";
        if out.as_os_str() == "-" {
            crate::out::stdout(&json)?;
            return Ok(0);
        }
        fsbench_output::file::write(out, json.as_bytes()).map_err(|e| {
            CliError::run(format!("cannot write --export-json {}: {e}", out.display()))
        })?;
    }
    let mut out = text(file, &trace, &s);
    if let Some(outside) = calls {
        out += "  calls (thread, start, call, arguments = result, time as traced):\n";
        for (i, c) in trace.calls.iter().enumerate() {
            if outside || !c.outside {
                out += &format!(
                    "  {}\n",
                    crate::escape_controls(&fsbench_trace::listing::line(&trace, i))
                );
            }
        }
    }
    crate::out::stdout(&out)?;
    Ok(0)
}

fn text(file: &Path, trace: &fsbench_trace::Trace, s: &Summary) -> String {
    use crate::format::bytes;
    let ms = |ns: u64| format!("{:.1} ms", ns as f64 / 1e6);
    let mut t = format!(
        "trace {}: `{}` recorded by fsbench {} under {}\n",
        file.display(),
        crate::escape_controls(&s.command.join(" ")),
        trace.fsbench_version,
        crate::escape_controls(&trace.root)
    );
    t += &format!(
        "  calls under the root: {} ({} failed), {} in calls as traced\n    {}\n",
        s.replayed(),
        s.failed,
        ms(s.call_time_ns),
        super::record::by_kind(&s.calls, usize::MAX)
    );
    t += &format!(
        "  threads: {} in {} process{}\n",
        s.threads,
        s.processes,
        if s.processes == 1 { "" } else { "es" }
    );
    t += &format!(
        "  start state: {} paths ({} directories, {} in files), rebuilt by a replay\n",
        s.files,
        s.dirs,
        bytes(s.start_bytes)
    );
    t += &format!(
        "  bytes under the root: {} read, {} written\n",
        bytes(s.bytes_read),
        bytes(s.bytes_written)
    );
    t += &format!(
        "  outside the root: {} calls ({})\n",
        s.outside_root,
        super::record::by_kind(&s.outside_root_calls, 6)
    );
    if s.outside_root > 0 {
        let o = &s.outside;
        t += &format!(
            "    {} only read {} paths identified as recorded ({} there, {} absent): a replay makes them too, read-only, where those files are still as recorded; {} on /proc, /sys or /dev and {} that change something are never replayed\n",
            o.read_only,
            o.files,
            o.found,
            o.files - o.found,
            o.kernels,
            o.changing
        );
    }
    if s.not_files > 0 {
        t += &format!(
            "  on pipes, sockets, terminals and inherited descriptors: {} calls, not recorded\n",
            s.not_files
        );
    }
    t += &format!("  {}\n", s.overhead_line());
    t += &format!("  {}\n", s.pace_line());
    t
}
