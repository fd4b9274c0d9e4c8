//! `fsbench ministat`: a drop-in for Debian's `ministat` (20150715): the same getopt-style flags
//! (permuted, so flags may follow files), the same messages and exit codes, and byte-identical
//! output from `fsbench_stats::ministat`. Extensions: `-q` (no legend or header, as current
//! FreeBSD) and `--modern` (current FreeBSD formulas).

use fsbench_stats::ministat::{self, Dataset, Options, ParseError};
use std::ffi::OsString;
use std::io::{IsTerminal, Read, Write};

const USAGE: &str = "Usage: ministat [-C column] [-c confidence] [-d delimiter(s)] [-Ans] [-w width] [file [file ...]]
\tconfidence = {80%, 90%, 95%, 98%, 99%, 99.5%}
\t-A : print statistics only. suppress the graph.
\t-C : column number to extract (starts and defaults to 1)
\t-d : delimiter(s) string, default to \" \\t\"
\t-n : print summary statistics only, no graph/test
\t-s : print avg/median/stddev bars on separate lines
\t-w : width of graph/test output (default 74 or terminal width)
";

/// Maximum datasets (ministat's MAX_DS - 1).
const MAX_SETS: usize = 7;

/// Why ministat stops: the stderr text and the exit code.
struct Exit {
    stderr: String,
    code: i32,
}

fn usage(reason: &str) -> Exit {
    Exit {
        stderr: format!("{reason}\n{USAGE}"),
        code: 2,
    }
}

struct Args {
    opts: Options,
    column: usize,
    delims: Vec<u8>,
    files: Vec<String>,
}

/// Runs ministat on `args` (everything after `fsbench ministat`); returns the exit code.
pub fn run(args: Vec<OsString>) -> i32 {
    let args: Vec<String> = args
        .into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let result = parse_args(&args).and_then(|a| {
        let sets = read_sets(&a)?;
        Ok(ministat::render(&sets, &a.opts))
    });
    match result {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Ok(()) => 0,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
                Err(e) => {
                    crate::errln!("ministat: cannot write to standard output: {e}");
                    3
                }
            }
        }
        Err(e) => {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(e.stderr.as_bytes());
            e.code
        }
    }
}

fn default_width() -> usize {
    if !std::io::stdout().is_terminal() {
        return 74;
    }
    if let Some(c) = std::env::var_os("COLUMNS").filter(|c| !c.is_empty()) {
        return atoi(&c.to_string_lossy()).max(0) as usize;
    }
    match rustix::termios::tcgetwinsize(std::io::stdout()) {
        Ok(w) if w.ws_col > 0 => w.ws_col as usize - 2,
        _ => 74,
    }
}

/// C's atoi: leading white space, optional sign, digits; 0 when there are none.
fn atoi(s: &str) -> i64 {
    strtol(s).0
}

/// C's strtol base 10: (value, whether the whole string was consumed).
fn strtol(s: &str) -> (i64, bool) {
    let t = s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let (neg, rest) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return (0, s.is_empty());
    }
    let v = rest[..digits].parse::<i64>().unwrap_or(i64::MAX);
    (if neg { -v } else { v }, digits == rest.len())
}

/// glibc getopt for "AC:c:d:snw:" (plus -q and --modern), permuting operands.
/// [`parse_args`] for the fuzz tests (whether it accepted the arguments).
#[cfg(test)]
pub(crate) fn parse_args_for_fuzz(args: &[String]) -> bool {
    parse_args(args).is_ok()
}

fn parse_args(args: &[String]) -> Result<Args, Exit> {
    let mut a = Args {
        opts: Options {
            width: default_width(),
            confidence_index: 2,
            no_plot: false,
            stats_only: false,
            separate_bars: false,
            quiet: false,
            modern: false,
        },
        column: 1,
        delims: b" \t".to_vec(),
        files: Vec::new(),
    };
    let mut ci: Option<usize> = None;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            a.files.extend(args[i..].iter().cloned());
            break;
        }
        if arg == "--modern" {
            a.opts.modern = true;
            continue;
        }
        if !arg.starts_with('-') || arg == "-" {
            a.files.push(arg.clone());
            continue;
        }
        let chars: Vec<char> = arg[1..].chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            k += 1;
            let needs_arg = matches!(c, 'C' | 'c' | 'd' | 'w');
            let optarg = if needs_arg {
                let rest: String = chars[k..].iter().collect();
                k = chars.len();
                if !rest.is_empty() {
                    rest
                } else if i < args.len() {
                    i += 1;
                    args[i - 1].clone()
                } else {
                    return Err(Exit {
                        stderr: format!(
                            "ministat: option requires an argument -- '{c}'\nUnknown option\n{USAGE}"
                        ),
                        code: 2,
                    });
                }
            } else {
                String::new()
            };
            apply_flag(&mut a, &mut ci, c, &optarg)?;
        }
    }
    a.opts.confidence_index = ci.unwrap_or(2);
    if a.files.len() > MAX_SETS {
        return Err(usage("Too many datasets."));
    }
    Ok(a)
}

fn apply_flag(a: &mut Args, ci: &mut Option<usize>, c: char, optarg: &str) -> Result<(), Exit> {
    match c {
        'A' => a.opts.no_plot = true,
        'n' => a.opts.stats_only = true,
        's' => a.opts.separate_bars = true,
        'q' => a.opts.quiet = true,
        'C' => {
            let (v, whole) = strtol(optarg);
            if !whole {
                return Err(usage("Invalid column number."));
            }
            if v <= 0 {
                return Err(usage("Column number should be positive."));
            }
            a.column = v as usize;
        }
        'c' => {
            let v = ministat::strtod(optarg).ok_or_else(|| usage("Not a floating point number"))?;
            if let Some(idx) = ministat::confidence_index(v) {
                *ci = Some(idx);
            }
            if ci.is_none() {
                return Err(usage("No support for confidence level"));
            }
        }
        'd' => {
            if optarg.is_empty() {
                return Err(usage("Can't use empty delimiter string"));
            }
            a.delims = optarg.as_bytes().to_vec();
        }
        'w' => {
            let (v, whole) = strtol(optarg);
            if !whole {
                return Err(usage("Invalid width, not a number."));
            }
            if v < 0 {
                return Err(usage("Unable to move beyond left margin."));
            }
            // ministat draws an empty frame at 0 (reproduced) and crashes at 1 (refused).
            if v == 1 {
                return Err(usage("Invalid width, too narrow (at least 2)."));
            }
            a.opts.width = v as usize;
        }
        other => {
            return Err(Exit {
                stderr: format!("ministat: invalid option -- '{other}'\nUnknown option\n{USAGE}"),
                code: 2,
            });
        }
    }
    Ok(())
}

fn read_sets(a: &Args) -> Result<Vec<Dataset>, Exit> {
    let names: Vec<&str> = if a.files.is_empty() {
        vec!["-"]
    } else {
        a.files.iter().map(String::as_str).collect()
    };
    let mut sets = Vec::new();
    for name in names {
        let (shown, bytes) = read_input(name)?;
        match ministat::parse_dataset(&shown, &bytes, a.column, &a.delims) {
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
            return Err(std::io::Error::from_raw_os_error(libc::EISDIR));
        }
        Ok(f)
    }) {
        Ok(mut f) => Ok((name.into(), read_bounded(&mut f, name)?)),
        Err(e) if e.raw_os_error() == Some(libc::EISDIR) => Ok((name.into(), Vec::new())),
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
