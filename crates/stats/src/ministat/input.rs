//! The drop-in `ministat`'s inputs: the files (or standard input) it reads, bounded so that a
//! device or an endless stream is refused rather than read until memory runs out, with Debian
//! ministat's messages and exit codes; and the width it draws at.

use super::args::{self as cli, Args, Exit};
use super::{Dataset, ParseError};
use std::io::{IsTerminal, Read};

/// The plot width: 74 off a terminal, else `COLUMNS` or the terminal's width less 2, as
/// ministat computes it.
pub fn default_width() -> usize {
    if !std::io::stdout().is_terminal() {
        return 74;
    }
    if let Some(c) = std::env::var_os("COLUMNS").filter(|c| !c.is_empty()) {
        return cli::atoi(&c.to_string_lossy()).max(0) as usize;
    }
    match terminal_columns() {
        Some(c) if c > 0 => c - 2,
        _ => 74,
    }
}

/// Every dataset `a` names (standard input when none), or the exit ministat would make.
pub fn read_sets(a: &Args) -> Result<Vec<Dataset>, Exit> {
    let names: Vec<&str> = if a.files.is_empty() {
        vec!["-"]
    } else {
        a.files.iter().map(String::as_str).collect()
    };
    let mut sets = Vec::new();
    for name in names {
        let (shown, bytes) = read_input(name)?;
        match super::parse_dataset(&shown, &bytes, a.column, &a.delims) {
            Ok(d) => sets.push(d),
            Err(ParseError::InvalidData { line }) => {
                return Err(Exit {
                    stderr: format!("ministat: Invalid data on line {line} in {shown}\n"),
                    code: 2,
                });
            }
            Err(ParseError::TooFew) => {
                return Err(Exit {
                    stderr: format!("Dataset {shown} must contain at least 3 data points\n"),
                    code: 2,
                });
            }
        }
    }
    Ok(sets)
}

/// Longest line fsbench ministat reads: a data line is a few numbers, so anything longer is not
/// a data file (`/dev/zero` would otherwise be read until memory runs out).
const MAX_LINE: usize = 1 << 20;
/// Largest input (about 40 million numbers).
const MAX_INPUT: usize = 512 << 20;

/// Reads all of `r`, refusing a line longer than [`MAX_LINE`] or more than [`MAX_INPUT`] bytes.
fn read_bounded(r: &mut dyn Read, shown: &str) -> Result<Vec<u8>, Exit> {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut line_start = 0;
    let too_big = |what: String| Exit {
        stderr: format!("ministat: {shown}: {what} — is it a data file?\n"),
        code: 2,
    };
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => return Ok(buf),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Ok(buf),
        };
        let old = buf.len();
        buf.extend_from_slice(&chunk[..n]);
        if let Some(p) = buf[old..].iter().rposition(|&b| b == b'\n') {
            line_start = old + p + 1;
        }
        if buf.len() - line_start > MAX_LINE {
            let line = buf[..line_start].iter().filter(|&&b| b == b'\n').count() + 1;
            return Err(too_big(format!("line {line} is longer than 1 MiB")));
        }
        if buf.len() > MAX_INPUT {
            return Err(too_big("more than 512 MiB of input".into()));
        }
    }
}

/// Reads a file, or standard input for `-`; a directory reads as empty (fgets fails on it).
fn read_input(name: &str) -> Result<(String, Vec<u8>), Exit> {
    if name == "-" {
        let buf = read_bounded(&mut std::io::stdin().lock(), "<stdin>")?;
        return Ok(("<stdin>".into(), buf));
    }
    match std::fs::File::open(name).and_then(|f| {
        if f.metadata()?.is_dir() {
            return Err(std::io::Error::from_raw_os_error(EISDIR));
        }
        Ok(f)
    }) {
        Ok(mut f) => Ok((name.into(), read_bounded(&mut f, name)?)),
        Err(e) if e.raw_os_error() == Some(EISDIR) => Ok((name.into(), Vec::new())),
        Err(e) => {
            let msg = std::io::Error::from_raw_os_error(e.raw_os_error().unwrap_or(0)).to_string();
            let strerror = msg.split(" (os error").next().unwrap_or(&msg).to_string();
            Err(Exit {
                stderr: format!("ministat: Cannot open {name}: {strerror}\n"),
                code: 1,
            })
        }
    }
}

/// EISDIR on Linux (what reading a directory fails with).
const EISDIR: i32 = 21;

/// The width in columns of the terminal standard output is on, if it is one.
fn terminal_columns() -> Option<usize> {
    rustix::termios::tcgetwinsize(std::io::stdout())
        .ok()
        .map(|w| usize::from(w.ws_col))
}
