//! `fsbench postmark [CONFIG]`: a drop-in for Debian's `postmark` (1.53, "PostMark v1.51").
//! It reads postmark's command language from CONFIG, else from `./.pmrc` if present, then
//! interactively at the `pm>` prompt, and prints postmark's messages and report with the same
//! counts (the engine replays postmark's generator exactly), followed by a separate block of
//! nanosecond timings. Differences from postmark, all deliberate:
//! - files live in a fresh scratch directory under each location (`.fsbench-postmark-…`,
//!   removed afterwards, also on error and Ctrl-C), never loose in it;
//! - in a configuration file (CONFIG, `.pmrc`, `load`), a refused command, an unknown command or
//!   a missing file is an error naming FILE:LINE (exit 2) instead of a message and carrying on
//!   with defaults; blank lines and `#` comments are skipped; interactively postmark's
//!   `Error: …` / `Eh?` behaviour is kept;
//! - an I/O error ends the run (exit 3) instead of being printed and ignored;
//! - fewer than 10 transactions print a dot per transaction (postmark divides by zero);
//! - line endings: a trailing `\r\n` or `\n` is removed (postmark drops the last character).

use crate::error::{CliError, CliResult};
use fsbench_postmark::exec::{self, RunError};
use fsbench_postmark::{lang, report};
use fsbench_workload::CancelToken;
use lang::{Action, LangError, Settings};
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

/// Postmark's banner, with fsbench's name so the two cannot be confused.
const BANNER: &str = "PostMark v1.51 : 8/14/01";
/// Postmark's prompt.
const PROMPT: &str = "pm>";
/// Nesting limit of `load` (postmark recurses until its stack overflows).
const MAX_LOAD_DEPTH: u32 = 16;

/// Where the line being executed came from.
#[derive(Clone, Copy)]
enum Origin<'a> {
    /// Typed at the prompt: postmark's forgiving behaviour.
    Interactive,
    /// Line `1`-based of a configuration file: errors are fatal.
    File(&'a Path, usize),
}

/// Whether to keep reading.
#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

struct Session {
    settings: Settings,
    runs: u32,
    cancel: CancelToken,
    depth: u32,
    /// A `run FILE`/`show FILE` could not open FILE (postmark goes on; the exit code says so).
    output_failed: bool,
}

/// Runs the drop-in; returns the exit code.
pub fn run(config: Option<PathBuf>) -> CliResult<i32> {
    let cancel = CancelToken::new();
    crate::signals::install(cancel.clone())
        .map_err(|e| CliError::run(format!("cannot install signal handlers: {e}")))?;
    let mut s = Session {
        settings: Settings::default(),
        runs: 0,
        cancel,
        depth: 0,
        output_failed: false,
    };
    crate::outln!("{BANNER} (fsbench {} drop-in)", env!("CARGO_PKG_VERSION"))?;
    let flow = match &config {
        Some(path) => s.source(path)?,
        None if Path::new(".pmrc").is_file() => s.source(Path::new(".pmrc"))?,
        None => Flow::Continue,
    };
    if flow == Flow::Continue {
        s.interactive()?;
    }
    if s.output_failed {
        return Err(CliError::usage(
            "postmark could not write its report to a file named by 'run FILE' or 'show FILE' (the report went to standard output) — check the path",
        ));
    }
    Ok(0)
}

fn fatal(origin: Origin<'_>, what: &str, hint: &str) -> CliError {
    match origin {
        Origin::File(path, line) => {
            CliError::usage(format!("{what} ({}:{line}) — {hint}", path.display()))
        }
        Origin::Interactive => CliError::usage(format!("{what} — {hint}")),
    }
}

impl Session {
    /// Executes a configuration file; `Quit` when it contained `quit`.
    fn source(&mut self, path: &Path) -> CliResult<Flow> {
        let text = read_config(path)?;
        crate::outln!("Reading configuration from file '{}'", path.display())?;
        let text = String::from_utf8_lossy(&text);
        for (i, line) in text.lines().enumerate() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            if self.line(line, Origin::File(path, i + 1))? == Flow::Quit {
                return Ok(Flow::Quit);
            }
        }
        Ok(Flow::Continue)
    }

    /// The `pm>` loop on standard input, until `quit` or end of input.
    fn interactive(&mut self) -> CliResult<()> {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut buf = String::new();
        loop {
            crate::out::stdout(PROMPT)?;
            buf.clear();
            match (&mut input).take(MAX_LINE as u64 + 1).read_line(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) if n > MAX_LINE => {
                    return Err(CliError::usage(
                        "a line of standard input is longer than 64 KiB — postmark commands are short lines",
                    ));
                }
                Ok(_) => {}
                Err(e) => return Err(CliError::usage(format!("cannot read standard input: {e}"))),
            }
            let line = buf.strip_suffix('\n').unwrap_or(&buf);
            let line = match line.strip_suffix('\r').unwrap_or(line) {
                "?" => "help",
                "exit" => "quit",
                l => l,
            };
            if self.line(line, Origin::Interactive)? == Flow::Quit {
                return Ok(());
            }
        }
    }

    /// Executes one line.
    fn line(&mut self, line: &str, origin: Origin<'_>) -> CliResult<Flow> {
        match lang::dispatch(&mut self.settings, line) {
            Ok(action) => self.act(action, line, origin),
            Err(LangError { message, hint }) => match origin {
                Origin::Interactive => {
                    crate::errln!("Error: {message}");
                    Ok(Flow::Continue)
                }
                Origin::File(..) => Err(fatal(origin, &message, &hint)),
            },
        }
    }

    fn act(&mut self, action: Action, line: &str, origin: Origin<'_>) -> CliResult<Flow> {
        match action {
            Action::Done => {}
            Action::Quit => return Ok(Flow::Quit),
            Action::Unknown => match origin {
                Origin::Interactive => crate::outln!("Eh?")?,
                Origin::File(..) => {
                    let what = format!("unknown command '{line}'");
                    return Err(fatal(origin, &what, &known_commands()));
                }
            },
            Action::Help(cmds) => {
                for c in cmds {
                    crate::outln!("{} - {}", c.name, c.help)?;
                }
            }
            Action::Shell(cmd) => shell(cmd),
            Action::Show(file) => self.show(file.as_deref())?,
            Action::Load(file) => self.load(&file, origin)?,
            Action::Run(file) => self.run(file.as_deref(), origin)?,
        }
        Ok(Flow::Continue)
    }

    fn load(&mut self, file: &str, origin: Origin<'_>) -> CliResult<()> {
        if self.depth >= MAX_LOAD_DEPTH {
            let what = format!("'load {file}' nested more than {MAX_LOAD_DEPTH} deep");
            return Err(fatal(origin, &what, "a file must not load itself"));
        }
        if matches!(origin, Origin::Interactive) && !Path::new(file).is_file() {
            crate::errln!("Error: cannot read configuration file '{file}'");
            return Ok(());
        }
        self.depth += 1;
        // `quit` in a loaded file ends that file only (postmark's cli_load ignores it).
        let r = self.source(Path::new(file)).map_err(|e| match origin {
            Origin::File(p, l) => CliError {
                kind: e.kind,
                message: format!("{} (loaded from {}:{l})", e.message, p.display()),
            },
            Origin::Interactive => e,
        });
        self.depth -= 1;
        r.map(drop)
    }

    fn show(&mut self, file: Option<&str>) -> CliResult<()> {
        let s = &self.settings;
        let workdir = if s.locations.is_empty() {
            std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_default()
        } else {
            String::new()
        };
        let (head, tail) = report::show(&s.cfg, s.terse, &workdir, s.locations.len() > 1);
        let mut dest = Output::open(file, &mut self.output_failed);
        dest.write(&head)?;
        for (name, weight) in &self.settings.locations {
            crate::outln!("\t{name} (weight={weight})")?;
        }
        dest.write(&tail)
    }

    fn run(&mut self, file: Option<&str>, origin: Origin<'_>) -> CliResult<()> {
        self.runs += 1;
        let stdout = std::io::stdout();
        let mut progress = stdout.lock();
        let result = exec::run(
            &self.settings,
            self.runs,
            &self.cancel,
            &mut progress,
            crate::signals::cleanup(),
        );
        drop(progress);
        match result {
            Ok(out) => {
                let mut dest = Output::open(file, &mut self.output_failed);
                if let Some(r) = &out.report {
                    dest.write(r)?;
                }
                dest.write(&out.precise)
            }
            Err(RunError::Config { what, hint }) => match origin {
                Origin::Interactive => {
                    crate::errln!("Error: {what}");
                    Ok(())
                }
                Origin::File(..) => Err(fatal(origin, &format!("cannot run: {what}"), &hint)),
            },
            Err(RunError::Failed(e)) => Err(e.into()),
        }
    }
}

/// Longest command line read (postmark's own buffer is a few hundred bytes).
const MAX_LINE: usize = 64 * 1024;
/// Largest configuration file read.
const MAX_CONFIG: u64 = 1 << 20;

/// Reads a configuration file of at most [`MAX_CONFIG`] bytes (`/dev/zero` is refused quickly).
fn read_config(path: &Path) -> CliResult<Vec<u8>> {
    let cannot = |e: std::io::Error| {
        CliError::usage(format!(
            "cannot read configuration file '{}': {e} — check the path",
            path.display()
        ))
    };
    match fsbench_sys::infile::read_regular(path, MAX_CONFIG) {
        Ok(text) => Ok(text),
        Err(fsbench_sys::infile::InputError::TooLarge(_)) => Err(CliError::usage(format!(
            "configuration file '{}' is larger than 1 MiB — is it a postmark configuration?",
            path.display()
        ))),
        Err(fsbench_sys::infile::InputError::Io(e)) => Err(cannot(e)),
        Err(e) => Err(CliError::usage(format!(
            "cannot read configuration file '{}': {e} — give a postmark configuration file",
            path.display()
        ))),
    }
}

fn known_commands() -> String {
    let names: Vec<&str> = lang::COMMANDS.iter().map(|c| c.name).collect();
    format!("postmark's commands are: {}", names.join(", "))
}

/// `!CMD` runs CMD with `sh -c`; a bare `!` starts `$SHELL` (postmark's `system()`).
fn shell(cmd: Option<String>) {
    let _ = std::io::stdout().flush();
    let status = match cmd {
        Some(c) => std::process::Command::new("sh").arg("-c").arg(c).status(),
        None => match std::env::var_os("SHELL") {
            Some(sh) => std::process::Command::new(sh).status(),
            None => return,
        },
    };
    if let Err(e) = status {
        crate::errln!("Error: cannot run shell command: {e}");
    }
}

/// Standard output, or a file the text is appended to (`run FILE`, `show FILE`).
enum Output {
    Stdout,
    File(std::fs::File),
}

impl Output {
    fn open(file: Option<&str>, failed: &mut bool) -> Self {
        let Some(name) = file else {
            return Self::Stdout;
        };
        match std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(name)
        {
            Ok(f) => Self::File(f),
            Err(_) => {
                crate::errln!("Error: Cannot direct output to file '{name}'");
                *failed = true;
                Self::Stdout
            }
        }
    }

    fn write(&mut self, text: &str) -> CliResult<()> {
        match self {
            Self::Stdout => crate::out::stdout(text),
            Self::File(f) => f.write_all(text.as_bytes()).map_err(|e| {
                CliError::run(format!(
                    "cannot write the postmark report: {e} — check the disk"
                ))
            }),
        }
    }
}
