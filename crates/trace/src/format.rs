//! The trace file: the 8 bytes `FSBTRACE`, the format's version (u16, little-endian), two
//! reserved bytes (0), then the [`Trace`] in postcard's encoding, deflate-compressed. Reading
//! checks all of it before anything is used: not a trace, a newer version, a truncated or
//! damaged body, and a trace whose paths or references would lead a replay out of its scratch
//! are each refused with one line. `docs/formats.md` documents it field by field.

use crate::model::{Entry, Op, Trace};
use std::io::{Read, Write};

/// The first bytes of every trace file.
pub const MAGIC: &[u8; 8] = b"FSBTRACE";

/// The format this fsbench writes, and the newest it reads. Version 3 added the identity of
/// the files outside the root (`outside_files`), version 4 the process each process was copied
/// from (`makers`, the trace's last field).
pub const VERSION: u16 = 4;

/// The oldest format this fsbench reads (version 1, before the threads' own clocks, was never
/// released).
pub const OLDEST: u16 = 2;

/// Why a file could not be read as a trace (the caller names the file).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TraceError {
    /// It does not start with [`MAGIC`].
    #[error(
        "is not an fsbench trace (it does not start with FSBTRACE) — record one with `fsbench record -o FILE -- CMD`"
    )]
    NotATrace,
    /// Made by a newer fsbench.
    #[error(
        "is a trace of format version {found}, newer than this fsbench reads ({VERSION}) — use the fsbench that recorded it, or a newer one"
    )]
    Newer {
        /// The file's version.
        found: u16,
    },
    /// Made by an older fsbench, in a format this one no longer reads.
    #[error(
        "is a trace of format version {found}, older than this fsbench reads ({OLDEST}) — record it again"
    )]
    Older {
        /// The file's version.
        found: u16,
    },
    /// The body does not decode.
    #[error("is truncated or damaged ({0}) — record it again")]
    Damaged(String),
    /// A path or a reference that a replay must not follow.
    #[error("is refused: {0} — a trace names paths relative to its root only; record it again")]
    Unsafe(String),
}

/// The file's bytes for `trace`.
pub fn encode(trace: &Trace) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 << 16);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    let body = postcard::to_stdvec(trace).expect("a trace always encodes");
    let mut z = flate2::write::DeflateEncoder::new(out, flate2::Compression::default());
    z.write_all(&body).expect("writing to memory");
    z.finish().expect("writing to memory")
}

/// The trace in `bytes`, checked ([`check`]).
pub fn decode(bytes: &[u8]) -> Result<Trace, TraceError> {
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(TraceError::NotATrace);
    }
    if bytes.len() < 12 {
        return Err(TraceError::Damaged("it ends inside its header".into()));
    }
    let found = u16::from_le_bytes([bytes[8], bytes[9]]);
    if found > VERSION {
        return Err(TraceError::Newer { found });
    }
    if found < OLDEST {
        return Err(TraceError::Older { found });
    }
    let mut body = Vec::new();
    flate2::read::DeflateDecoder::new(&bytes[12..])
        .read_to_end(&mut body)
        .map_err(|e| TraceError::Damaged(e.to_string()))?;
    // Version 2 ends where version 3's `outside_files` begins, and version 3 where version
    // 4's `makers` begins: postcard writes fields in order with nothing between them, so the
    // same body with an empty sequence (its length, a varint 0) for each missing field is that
    // trace in version 4.
    body.extend(std::iter::repeat_n(0, usize::from(VERSION - found)));
    let (trace, rest) = postcard::take_from_bytes::<Trace>(&body)
        .map_err(|e| TraceError::Damaged(e.to_string()))?;
    if !rest.is_empty() {
        return Err(TraceError::Damaged(format!(
            "{} bytes after its end",
            rest.len()
        )));
    }
    check(&trace)?;
    Ok(trace)
}

/// Refuses a trace a replay could not follow safely: a path under the root that is absolute or
/// climbs out (`..`), an outside path that is not absolute, a start-state entry outside the
/// root, and indices that point nowhere.
pub fn check(trace: &Trace) -> Result<(), TraceError> {
    let paths = trace.paths.len() as u32;
    let inside: Vec<bool> = inside_paths(trace);
    for (i, p) in trace.paths.iter().enumerate() {
        if inside[i] {
            relative_ok(p).map_err(|why| TraceError::Unsafe(format!("path {} {why}", shown(p))))?;
        }
    }
    for Entry { path, .. } in &trace.start {
        if *path >= paths || !inside[*path as usize] {
            return Err(TraceError::Unsafe(format!(
                "a start-state entry names path {path}, not one under the root"
            )));
        }
    }
    for (i, c) in trace.calls.iter().enumerate() {
        if c.thread as usize >= trace.threads.len() {
            return Err(TraceError::Damaged(format!(
                "call {i} names thread {}",
                c.thread
            )));
        }
        if let Some(p) = c.op.paths().into_iter().find(|&p| p >= paths) {
            return Err(TraceError::Damaged(format!("call {i} names path {p}")));
        }
        if let Some(f) = c.op.file() {
            let opened = trace.calls.get(f as usize).map(|o| &o.op);
            if f as usize >= i || !matches!(opened, Some(Op::Open { .. })) {
                return Err(TraceError::Damaged(format!(
                    "call {i} is made on call {f}, not an earlier open"
                )));
            }
        }
        if !c.outside {
            if let Some(p) = c.op.paths().into_iter().find(|&p| !inside[p as usize]) {
                return Err(TraceError::Unsafe(format!(
                    "call {i} ({}) is replayed but names {}, outside the root",
                    c.op.kind(),
                    shown(&trace.paths[p as usize])
                )));
            }
        }
    }
    for f in &trace.outside_files {
        if f.path >= paths || inside[f.path as usize] {
            return Err(TraceError::Unsafe(format!(
                "an identity of a file outside the root names path {}, not an absolute one",
                f.path
            )));
        }
    }
    Ok(())
}

/// Which of `trace.paths` are under the root: every path but the absolute ones.
fn inside_paths(trace: &Trace) -> Vec<bool> {
    trace
        .paths
        .iter()
        .map(|p| p.first() != Some(&b'/'))
        .collect()
}

/// A path under the root: relative, no empty, `.` or `..` component, no NUL.
fn relative_ok(p: &[u8]) -> Result<(), &'static str> {
    if p.is_empty() {
        return Ok(());
    }
    if p.contains(&0) {
        return Err("holds a NUL byte");
    }
    for c in p.split(|&b| b == b'/') {
        match c {
            b".." => return Err("climbs out of the root (`..`)"),
            b"" | b"." => return Err("is not normalised"),
            _ => {}
        }
    }
    Ok(())
}

fn shown(p: &[u8]) -> String {
    format!("'{}'", String::from_utf8_lossy(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Call, FileKind, Thread};

    fn small() -> Trace {
        Trace {
            command: vec!["cat".into(), "a".into()],
            root: "/r".into(),
            fsbench_version: "0".into(),
            wall_ns: 10,
            threads: vec![Thread {
                tid: 7,
                pid: 7,
                begun_ns: 0,
            }],
            paths: vec![b"a".to_vec(), b"/etc/ld.so.cache".to_vec()],
            start: vec![Entry {
                path: 0,
                kind: FileKind::File,
                size: 3,
                mode: 0o644,
                target: None,
            }],
            calls: vec![
                Call {
                    thread: 0,
                    start_ns: 1,
                    dur_ns: 2,
                    op: Op::Open {
                        path: 0,
                        flags: 0,
                        mode: 0,
                    },
                    result: 0,
                    outside: false,
                    before: None,
                    during: None,
                    hidden: 0,
                },
                Call {
                    thread: 0,
                    start_ns: 3,
                    dur_ns: 2,
                    op: Op::Read {
                        file: 0,
                        offset: None,
                        size: 4096,
                    },
                    result: 3,
                    outside: false,
                    before: None,
                    during: None,
                    hidden: 0,
                },
            ],
            ..Trace::default()
        }
    }

    #[test]
    fn a_trace_reads_back_as_written() {
        let t = small();
        assert_eq!(decode(&encode(&t)), Ok(t));
    }

    #[test]
    fn older_traces_read_as_ones_without_the_fields_added_since() {
        let t = small();
        assert!(t.outside_files.is_empty() && t.makers.is_empty());
        let v4 = encode(&t);
        let mut body = Vec::new();
        flate2::read::DeflateDecoder::new(&v4[12..])
            .read_to_end(&mut body)
            .unwrap();
        // The body of version `v`: this one without the fields added after it (each an empty
        // sequence, one byte 0, at the end).
        let older = |v: u16| {
            let mut b = body.clone();
            for _ in v..VERSION {
                assert_eq!(b.pop(), Some(0), "an empty field, last");
            }
            let mut head = v4[..12].to_vec();
            head[8..10].copy_from_slice(&v.to_le_bytes());
            let mut z = flate2::write::DeflateEncoder::new(head, flate2::Compression::default());
            z.write_all(&b).unwrap();
            z.finish().unwrap()
        };
        // Version 2: without `outside_files` and `makers`; version 3: without `makers`.
        assert_eq!(decode(&older(2)), Ok(t.clone()));
        assert_eq!(decode(&older(3)), Ok(t));
        // A version-2 body read as version 3 ends one field short.
        let mut as_v3 = older(2);
        as_v3[8] = 3;
        assert!(matches!(decode(&as_v3), Err(TraceError::Damaged(_))));
    }

    #[test]
    fn outside_identities_read_back_and_one_naming_a_path_under_the_root_is_refused() {
        use crate::outside::{Identity, OutsideFile, Stamp};
        let mut t = small();
        let found = Some(Identity {
            name: Stamp {
                kind: FileKind::File,
                size: 9,
                mtime_ns: 5,
            },
            leads_to: None,
        });
        t.outside_files = vec![OutsideFile { path: 1, found }];
        assert_eq!(decode(&encode(&t)), Ok(t.clone()));
        t.outside_files[0].path = 0;
        assert!(
            matches!(decode(&encode(&t)), Err(TraceError::Unsafe(m)) if m.contains("outside the root"))
        );
        t.outside_files[0].path = 9;
        assert!(matches!(decode(&encode(&t)), Err(TraceError::Unsafe(_))));
    }

    #[test]
    fn bad_files_are_refused_each_with_its_reason() {
        assert_eq!(decode(b"hello world, no trace"), Err(TraceError::NotATrace));
        let mut newer = encode(&small());
        newer[8] = VERSION as u8 + 1;
        assert_eq!(
            decode(&newer),
            Err(TraceError::Newer { found: VERSION + 1 })
        );
        let mut older = encode(&small());
        older[8] = 1;
        assert_eq!(decode(&older), Err(TraceError::Older { found: 1 }));
        assert!(
            TraceError::Older { found: 1 }
                .to_string()
                .contains("record it again")
        );
        let whole = encode(&small());
        let cut = &whole[..whole.len() - 5];
        assert!(matches!(decode(cut), Err(TraceError::Damaged(_))));
        let mut t = small();
        t.paths[0] = b"../../etc/passwd".to_vec();
        assert!(matches!(decode(&encode(&t)), Err(TraceError::Unsafe(m)) if m.contains("..")));
        let mut t = small();
        t.calls[1].op = Op::Read {
            file: 1,
            offset: None,
            size: 1,
        };
        assert!(matches!(decode(&encode(&t)), Err(TraceError::Damaged(_))));
        let mut t = small();
        t.calls[0].op = Op::Open {
            path: 1,
            flags: 0,
            mode: 0,
        };
        assert!(matches!(decode(&encode(&t)), Err(TraceError::Unsafe(m)) if m.contains("outside")));
    }
}
