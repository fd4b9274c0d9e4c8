//! A trace's calls one line each, as `fsbench trace show --calls` prints them (strace-like:
//! thread, start, call and arguments, result, duration; an open says the number, `as #N`, by
//! which the calls on its file name it, `#N:"path"`). Pure.

use crate::model::{Call, Op, Target, Trace};

/// One line for call `i` of `trace`.
pub fn line(trace: &Trace, i: usize) -> String {
    let c: &Call = &trace.calls[i];
    let path = |p: &u32| quoted(&trace.paths[*p as usize]);
    let file = |f: &u32| match &trace.calls[*f as usize].op {
        Op::Open { path: p, .. } => format!("#{f}:{}", path(p)),
        _ => format!("#{f}"),
    };
    let target = |t: &Target| match t {
        Target::Path(p) => path(p),
        Target::File(f) => file(f),
    };
    let at = |o: &Option<u64>| o.map(|o| format!(" @{o}")).unwrap_or_default();
    let args = match &c.op {
        Op::Open {
            path: p,
            flags,
            mode,
        } => format!("{} flags={flags:#o} mode={mode:#o} as #{i}", path(p)),
        Op::Close { file: f, last } => {
            format!("{}{}", file(f), if *last { "" } else { " (a copy)" })
        }
        Op::Read {
            file: f,
            offset,
            size,
        }
        | Op::Write {
            file: f,
            offset,
            size,
        } => {
            format!("{} {size}{}", file(f), at(offset))
        }
        Op::Seek {
            file: f,
            offset,
            whence,
        } => format!("{} {offset} whence={whence}", file(f)),
        Op::Sync { file: f, .. } => file(f),
        Op::SyncRange {
            file: f,
            offset,
            len,
        }
        | Op::Mmap {
            file: f,
            offset,
            len,
        } => {
            format!("{} {len} @{offset}", file(f))
        }
        Op::Truncate { target: t, len } => format!("{} {len}", target(t)),
        Op::Fallocate {
            file: f,
            mode,
            offset,
            len,
        } => {
            format!("{} {len} @{offset} mode={mode:#x}", file(f))
        }
        Op::Stat {
            target: t,
            nofollow,
        } => {
            format!("{}{}", target(t), if *nofollow { " nofollow" } else { "" })
        }
        Op::Access { path: p, mode } => format!("{} mode={mode}", path(p)),
        Op::Getdents { file: f, size } => format!("{} {size}", file(f)),
        Op::Readlink { path: p } | Op::Rmdir { path: p } | Op::Unlink { path: p } => path(p),
        Op::Mkdir { path: p, mode } => format!("{} mode={mode:#o}", path(p)),
        Op::Rename { from, to, flags } => format!("{} {} flags={flags}", path(from), path(to)),
        Op::Link { from, to } => format!("{} {}", path(from), path(to)),
        Op::Symlink { path: p, target: t } => format!("{} -> {}", path(p), quoted(t)),
        Op::Chmod { target: t, mode } => format!("{} mode={mode:#o}", target(t)),
        Op::Chown { target: t } | Op::Utimens { target: t } | Op::Chdir { target: t } => target(t),
    };
    let result = if c.result < 0 {
        format!("-1 {}", errno_name(-c.result))
    } else {
        c.result.to_string()
    };
    let gap = gap_note(c);
    format!(
        "{:>3} {:>10.3} ms {}{} {args} = {result} ({:.1} µs{gap})",
        c.thread,
        c.start_ns as f64 / 1e6,
        c.op.kind(),
        if c.outside { " [outside]" } else { "" },
        c.dur_ns as f64 / 1e3
    )
}

/// The thread's own time before the call, as its clocks said (tracing's cost still in).
fn gap_note(c: &Call) -> String {
    let Some(b) = c.before else {
        return String::new();
    };
    let hidden = if c.hidden > 0 {
        format!(", {} calls not recorded", c.hidden)
    } else {
        String::new()
    };
    format!(
        "; before it {:.1} µs on CPU, {:.1} off{hidden}",
        b.cpu_ns as f64 / 1e3,
        b.off_ns as f64 / 1e3
    )
}

fn quoted(p: &[u8]) -> String {
    if p.is_empty() {
        return "\".\"".into();
    }
    format!("{:?}", String::from_utf8_lossy(p))
}

/// The usual name of an errno ("ENOENT"), or its number.
pub fn errno_name(e: i64) -> String {
    let known = [
        (libc::ENOENT, "ENOENT"),
        (libc::EEXIST, "EEXIST"),
        (libc::EACCES, "EACCES"),
        (libc::EPERM, "EPERM"),
        (libc::ENOTDIR, "ENOTDIR"),
        (libc::EISDIR, "EISDIR"),
        (libc::ENOTEMPTY, "ENOTEMPTY"),
        (libc::EINVAL, "EINVAL"),
        (libc::EBADF, "EBADF"),
        (libc::ENOSPC, "ENOSPC"),
        (libc::EROFS, "EROFS"),
        (libc::ELOOP, "ELOOP"),
        (libc::ENAMETOOLONG, "ENAMETOOLONG"),
        (libc::ENODATA, "ENODATA"),
        (libc::ESPIPE, "ESPIPE"),
        (libc::ENOTTY, "ENOTTY"),
        (libc::EAGAIN, "EAGAIN"),
        (libc::EINTR, "EINTR"),
        (libc::EXDEV, "EXDEV"),
    ];
    known
        .iter()
        .find(|(n, _)| i64::from(*n) == e)
        .map_or_else(|| format!("errno {e}"), |(_, s)| (*s).to_string())
}
