//! Postmark's command language: the command table, prefix dispatch and the setters, with
//! postmark's own parsing (`atoi`, the first space splits `set size L H`, `set location` with
//! `+`/`-` and weights) and its error texts. Executing `run`, `show`, `load` and shell escapes
//! is left to the caller through [`Action`].

use crate::engine::Config;

/// One entry of postmark's command table (order matters: first prefix match wins).
#[derive(Debug, PartialEq, Eq)]
pub struct Command {
    /// Full command name; a line starting with it dispatches here.
    pub name: &'static str,
    /// Postmark's help text.
    pub help: &'static str,
}

/// Postmark's command table, in its order.
pub const COMMANDS: &[Command] = &[
    cmd("set size", "Sets low and high bounds of files"),
    cmd("set number", "Sets number of simultaneous files"),
    cmd("set seed", "Sets seed for random number generator"),
    cmd("set transactions", "Sets number of transactions"),
    cmd("set location", "Sets location of working files"),
    cmd("set subdirectories", "Sets number of subdirectories"),
    cmd("set read", "Sets read block size"),
    cmd("set write", "Sets write block size"),
    cmd("set buffering", "Sets usage of buffered I/O"),
    cmd(
        "set bias read",
        "Sets the chance of choosing read over append",
    ),
    cmd(
        "set bias create",
        "Sets the chance of choosing create over delete",
    ),
    cmd("set report", "Choose verbose or terse report format"),
    cmd("run", "Runs one iteration of benchmark"),
    cmd("load", "Read configuration file"),
    cmd("show", "Displays current configuration"),
    cmd("help", "Prints out available commands"),
    cmd("quit", "Exit program"),
];

const fn cmd(name: &'static str, help: &'static str) -> Command {
    Command { name, help }
}

/// Postmark's settings: the workload configuration plus locations and report format.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Sizes, counts, seed, biases...
    pub cfg: Config,
    /// `set location` entries: directory and weight, in order.
    pub locations: Vec<(String, u32)>,
    /// Terse (true) or verbose report.
    pub terse: bool,
}

/// A command postmark refused; `message` is postmark's text (printed after `Error: `).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LangError {
    /// Postmark's message.
    pub message: String,
    /// How to fix it (fsbench's addition, shown for configuration files).
    pub hint: String,
}

fn lang_err(message: impl Into<String>, hint: &str) -> LangError {
    LangError {
        message: message.into(),
        hint: hint.to_string(),
    }
}

/// What the caller must do after a line was parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Nothing more (a setting changed).
    Done,
    /// `run [FILE]`.
    Run(Option<String>),
    /// `show [FILE]`.
    Show(Option<String>),
    /// `load FILE`.
    Load(String),
    /// `help [PREFIX]`: print these table entries.
    Help(Vec<&'static Command>),
    /// `!CMD` (`None`: start `$SHELL`).
    Shell(Option<String>),
    /// `quit`.
    Quit,
    /// No command matched: postmark prints `Eh?`.
    Unknown,
}

/// C's `atoi`: leading blanks, optional sign, digits; stops at the first other character; a
/// value out of `long` range saturates and is then truncated to `int`, as glibc does.
pub fn atoi(s: &str) -> i32 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        v = v.saturating_mul(10).saturating_add(i64::from(b - b'0'));
    }
    (if neg { v.saturating_neg() } else { v }) as i32
}

/// Parses one line (without its newline) and applies settings to `s`.
pub fn dispatch(s: &mut Settings, line: &str) -> Result<Action, LangError> {
    if let Some(rest) = line.strip_prefix('!') {
        return Ok(Action::Shell((!rest.is_empty()).then(|| rest.to_string())));
    }
    let Some(c) = COMMANDS
        .iter()
        .find(|c| line.as_bytes().starts_with(c.name.as_bytes()))
    else {
        return Ok(Action::Unknown);
    };
    let bytes = line.as_bytes();
    let param = (bytes.len() > c.name.len())
        .then(|| String::from_utf8_lossy(&bytes[c.name.len() + 1..]).into_owned());
    apply(s, c.name, param)
}

fn apply(s: &mut Settings, name: &str, param: Option<String>) -> Result<Action, LangError> {
    let p = param.as_deref();
    let cfg = &mut s.cfg;
    match name {
        "set size" => set_size(cfg, p)?,
        "set number" => cfg.number = positive(p, "invalid number of files")?,
        "set seed" => cfg.seed = positive(p, "invalid seed for random numbers")?,
        "set transactions" => cfg.transactions = positive(p, "no transactions specified")?,
        "set location" => set_location(&mut s.locations, p)?,
        "set subdirectories" => {
            cfg.subdirectories = positive(p, "invalid number of subdirectories")?
        }
        "set read" => cfg.read_block = positive(p, "invalid read block size")?,
        "set write" => cfg.write_block = positive(p, "invalid write block size")?,
        "set buffering" => cfg.buffering = buffering(p)?,
        "set bias read" => cfg.bias_read = bias(p)?,
        "set bias create" => cfg.bias_create = bias(p)?,
        "set report" => s.terse = report(p)?,
        "run" => return Ok(Action::Run(param)),
        "show" => return Ok(Action::Show(param)),
        "load" => {
            return param.map(Action::Load).ok_or_else(|| {
                lang_err("no configuration file specified", "give a file: load FILE")
            });
        }
        "help" => return Ok(Action::Help(help(p))),
        _ => return Ok(Action::Quit),
    }
    Ok(Action::Done)
}

/// `cli_generic_int`: `atoi(param) > 0`, else postmark's error.
fn positive(p: Option<&str>, message: &str) -> Result<u32, LangError> {
    match p.map(atoi) {
        Some(v) if v > 0 => Ok(v as u32),
        _ => Err(lang_err(message, "give a whole number greater than 0")),
    }
}

fn set_size(cfg: &mut Config, p: Option<&str>) -> Result<(), LangError> {
    let low = p.map(atoi).filter(|v| *v > 0).ok_or_else(|| {
        lang_err(
            "no file size low or high bounds specified",
            "give sizes in bytes: set size LOW [HIGH]",
        )
    })?;
    cfg.size_low = low as u32;
    let high = p
        .and_then(|p| p.find(' ').map(|i| atoi(&p[i..])))
        .filter(|h| *h > 0 && *h >= low);
    cfg.size_high = high.unwrap_or(low) as u32;
    Ok(())
}

fn buffering(p: Option<&str>) -> Result<bool, LangError> {
    match p {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        _ => Err(lang_err(
            "no buffering mode (true/false) specified",
            "write: set buffering true|false",
        )),
    }
}

fn bias(p: Option<&str>) -> Result<i32, LangError> {
    match p.map(atoi) {
        Some(v) if (-1..=10).contains(&v) => Ok(v),
        _ => Err(lang_err(
            "no bias specified (0-10 for greater chance,-1 to disable)",
            "give 0..10 (chance in 10) or -1 to disable",
        )),
    }
}

fn report(p: Option<&str>) -> Result<bool, LangError> {
    match p {
        Some("verbose") => Ok(false),
        Some("terse") => Ok(true),
        _ => Err(lang_err(
            "either 'verbose' or 'terse' required",
            "write: set report verbose|terse",
        )),
    }
}

/// `parse_weight`: a weight after the last space, else 1.
fn parse_weight(p: &str) -> Result<(String, u32), LangError> {
    match p.rsplit_once(' ') {
        None => Ok((p.to_string(), 1)),
        Some((name, w)) => match atoi(w) {
            v if v > 0 => Ok((name.to_string(), v as u32)),
            _ => Err(lang_err(
                format!("ignoring invalid weight '{w}'"),
                "a weight is a whole number > 0 after the directory: set location DIR [WEIGHT] (directories with spaces are not supported)",
            )),
        },
    }
}

fn set_location(locs: &mut Vec<(String, u32)>, p: Option<&str>) -> Result<(), LangError> {
    let p = p.ok_or_else(|| {
        lang_err(
            "no directory name specified",
            "write: set location DIR [WEIGHT]",
        )
    })?;
    if let Some(rest) = p.strip_prefix('+') {
        locs.push(parse_weight(rest)?);
    } else if let Some(rest) = p.strip_prefix('-') {
        let i = locs.iter().position(|(n, _)| n == rest).ok_or_else(|| {
            lang_err(
                format!("cannot find location '{rest}'"),
                "remove a location added earlier with set location",
            )
        })?;
        locs.remove(i);
    } else {
        let loc = parse_weight(p)?;
        locs.clear();
        locs.push(loc);
    }
    Ok(())
}

/// `cli_help`: entries whose name starts with the parameter, or all of them.
fn help(p: Option<&str>) -> Vec<&'static Command> {
    let matching: Vec<&Command> = match p {
        Some(p) if !p.is_empty() => COMMANDS.iter().filter(|c| c.name.starts_with(p)).collect(),
        _ => Vec::new(),
    };
    if matching.is_empty() {
        COMMANDS.iter().collect()
    } else {
        matching
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(lines: &[&str]) -> Settings {
        let mut s = Settings::default();
        for l in lines {
            dispatch(&mut s, l).unwrap();
        }
        s
    }

    #[test]
    fn atoi_is_cs() {
        assert_eq!(atoi("  42abc"), 42);
        assert_eq!(atoi("-1"), -1);
        assert_eq!(atoi("abc"), 0);
        assert_eq!(atoi("+7"), 7);
        assert_eq!(atoi("99999999999"), 99_999_999_999_i64 as i32);
    }

    #[test]
    fn set_size_follows_postmark() {
        let s = run(&["set size 500 1048576"]);
        assert_eq!((s.cfg.size_low, s.cfg.size_high), (500, 1_048_576));
        let s = run(&["set size 800"]);
        assert_eq!((s.cfg.size_low, s.cfg.size_high), (800, 800));
        let s = run(&["set size 800 100"]);
        assert_eq!((s.cfg.size_low, s.cfg.size_high), (800, 800));
    }

    #[test]
    fn prefix_dispatch_skips_one_character() {
        // "set numbers 7": "set number" matches and the parameter starts after one more char.
        let s = run(&["set numbers 7", "set bias read 10", "set bias create -1"]);
        assert_eq!(s.cfg.number, 7);
        assert_eq!((s.cfg.bias_read, s.cfg.bias_create), (10, -1));
        let mut s = Settings::default();
        assert_eq!(dispatch(&mut s, "frob").unwrap(), Action::Unknown);
        assert_eq!(dispatch(&mut s, "").unwrap(), Action::Unknown);
        assert_eq!(dispatch(&mut s, "run").unwrap(), Action::Run(None));
        assert_eq!(
            dispatch(&mut s, "run out").unwrap(),
            Action::Run(Some("out".into()))
        );
        assert_eq!(dispatch(&mut s, "quit").unwrap(), Action::Quit);
        assert_eq!(
            dispatch(&mut s, "!ls").unwrap(),
            Action::Shell(Some("ls".into()))
        );
    }

    #[test]
    fn invalid_values_keep_postmarks_messages() {
        let mut s = Settings::default();
        let e = dispatch(&mut s, "set number 0").unwrap_err();
        assert_eq!(e.message, "invalid number of files");
        let e = dispatch(&mut s, "set seed").unwrap_err();
        assert_eq!(e.message, "invalid seed for random numbers");
        assert!(dispatch(&mut s, "set bias read 11").is_err());
        assert!(dispatch(&mut s, "set buffering yes").is_err());
        assert_eq!(s.cfg, Config::default());
    }

    #[test]
    fn locations_add_remove_and_replace() {
        let s = run(&["set location /a", "set location +/b 3", "set location +/c"]);
        assert_eq!(
            s.locations,
            [("/a".into(), 1), ("/b".into(), 3), ("/c".into(), 1)]
        );
        let s = run(&["set location +/b 3", "set location -/b"]);
        assert!(s.locations.is_empty());
        let mut s = Settings::default();
        assert!(dispatch(&mut s, "set location -/nope").is_err());
    }

    #[test]
    fn help_filters_by_prefix() {
        let mut s = Settings::default();
        let Action::Help(h) = dispatch(&mut s, "help set bias").unwrap() else {
            panic!("help")
        };
        assert_eq!(h.len(), 2);
        let Action::Help(h) = dispatch(&mut s, "help zzz").unwrap() else {
            panic!("help")
        };
        assert_eq!(h.len(), COMMANDS.len());
    }
}
