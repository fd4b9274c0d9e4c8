//! ministat's command line, parsed exactly as Debian's `ministat` (20150715) parses it:
//! glibc-style permuted flags, C's `atoi`/`strtol` for numbers, the same messages and exit codes.
//! Pure: the caller reads the files and the terminal's width.

use super::{Options, confidence_index, strtod};

/// The usage text ministat prints after a usage error.
pub const USAGE: &str = "Usage: ministat [-C column] [-c confidence] [-d delimiter(s)] [-Ans] [-w width] [file [file ...]]
\tconfidence = {80%, 90%, 95%, 98%, 99%, 99.5%}
\t-A : print statistics only. suppress the graph.
\t-C : column number to extract (starts and defaults to 1)
\t-d : delimiter(s) string, default to \" \\t\"
\t-n : print summary statistics only, no graph/test
\t-s : print avg/median/stddev bars on separate lines
\t-w : width of graph/test output (default 74 or terminal width)
";

/// Maximum datasets (ministat's MAX_DS - 1).
pub const MAX_SETS: usize = 7;

/// Why ministat stops: the stderr text and the exit code.
pub struct Exit {
    /// What goes to standard error.
    pub stderr: String,
    /// The exit code.
    pub code: i32,
}

/// A usage error: `reason`, then the usage text; exit code 2.
pub fn usage(reason: &str) -> Exit {
    Exit {
        stderr: format!("{reason}\n{USAGE}"),
        code: 2,
    }
}

/// What ministat was asked to do.
pub struct Args {
    /// How to render.
    pub opts: Options,
    /// The column to read (1-based).
    pub column: usize,
    /// The field delimiters.
    pub delims: Vec<u8>,
    /// The data files, in order (none: standard input).
    pub files: Vec<String>,
}

/// C's atoi: leading white space, optional sign, digits; 0 when there are none.
pub fn atoi(s: &str) -> i64 {
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

/// glibc getopt for "AC:c:d:snw:" (plus -q and --modern), permuting operands; `width` is the
/// default width (the caller's terminal's, or 74).
pub fn parse(args: &[String], width: usize) -> Result<Args, Exit> {
    let mut a = Args {
        opts: Options {
            width,
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
            let v = strtod(optarg).ok_or_else(|| usage("Not a floating point number"))?;
            if let Some(idx) = confidence_index(v) {
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
