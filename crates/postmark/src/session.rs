//! The session of `fsbench postmark [CONFIG]`, a drop-in for Debian's `postmark` (1.53, "PostMark v1.51").
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

use crate::exec::{self, RunError};
use crate::lang::{self, Action, LangError, Settings};
use crate::report;
use fsbench_io::CancelToken;
use fsbench_model::Failure;
use fsbench_sys::cleanup::Cleanup;
use std::io::Write;
use std::path::Path;

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

/// What the session talks to: the terminal, the shell, the directory it runs in. The binary's
/// implementation writes standard output and error; a test's records them.
pub trait Console {
    /// The console's own error (a closed standard output), carried through unchanged.
    type Error;
    /// Writes `text` to standard output.
    fn out(&mut self, text: &str) -> Result<(), Self::Error>;
    /// Writes one line to standard error (never fails).
    fn err_line(&mut self, line: &str);
    /// Reads one line of at most `limit` bytes from standard input (0: end of input).
    fn read_line(&mut self, buf: &mut String, limit: u64) -> std::io::Result<usize>;
    /// Where a run's progress dots go.
    fn progress(&mut self) -> Box<dyn Write + '_>;
    /// `!CMD`: runs CMD with `sh -c`; a bare `!` starts the user's shell.
    fn shell(&mut self, cmd: Option<String>);
    /// The directory the session runs in, as `show` prints it.
    fn current_dir(&self) -> String;
}

/// Why a session stopped early.
#[derive(Debug)]
pub enum Stop<E> {
    /// An input error (a refused line of a configuration file), an I/O error or an interruption.
    Failed(Failure),
    /// The console failed.
    Console(E),
}

impl<E> From<Failure> for Stop<E> {
    fn from(f: Failure) -> Self {
        Self::Failed(f)
    }
}

/// What a session's steps return.
type Step<T, E> = Result<T, Stop<E>>;

/// One postmark session: settings, runs so far, and the console.
pub struct Session<'c, C: Console> {
    console: &'c mut C,
    settings: Settings,
    runs: u32,
    cancel: CancelToken,
    cleanup: Cleanup,
    depth: u32,
    /// A `run FILE`/`show FILE` could not open FILE (postmark goes on; the exit code says so).
    output_failed: bool,
}

/// Runs the drop-in on `console`: CONFIG (`config`), else `./.pmrc` if present, then the
/// `pm>` prompt; `version` is fsbench's, for the banner. `cancel` stops a run, `cleanup` is
/// where its scratch directories are registered.
pub fn run<C: Console>(
    console: &mut C,
    config: Option<&Path>,
    version: &str,
    cancel: CancelToken,
    cleanup: Cleanup,
) -> Result<(), Stop<C::Error>> {
    let mut s = Session {
        console,
        settings: Settings::default(),
        runs: 0,
        cancel,
        cleanup,
        depth: 0,
        output_failed: false,
    };
    s.say(&format!("{BANNER} (fsbench {version} drop-in)\n"))?;
    let flow = match config {
        Some(path) => s.source(path)?,
        None if Path::new(".pmrc").is_file() => s.source(Path::new(".pmrc"))?,
        None => Flow::Continue,
    };
    if flow == Flow::Continue {
        s.interactive()?;
    }
    if s.output_failed {
        return Err(Stop::Failed(Failure::input(
            "postmark could not write its report to a file named by 'run FILE' or 'show FILE' (the report went to standard output) — check the path",
        )));
    }
    Ok(())
}

fn fatal(origin: Origin<'_>, what: &str, hint: &str) -> Failure {
    match origin {
        Origin::File(path, line) => {
            Failure::input(format!("{what} ({}:{line}) — {hint}", path.display()))
        }
        Origin::Interactive => Failure::input(format!("{what} — {hint}")),
    }
}

impl<C: Console> Session<'_, C> {
    /// Writes `text` to the console's standard output.
    fn say(&mut self, text: &str) -> Step<(), C::Error> {
        self.console.out(text).map_err(Stop::Console)
    }

    /// Executes a configuration file; `Quit` when it contained `quit`.
    fn source(&mut self, path: &Path) -> Step<Flow, C::Error> {
        let text = read_config(path)?;
        self.say(&format!(
            "Reading configuration from file '{}'\n",
            path.display()
        ))?;
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
    fn interactive(&mut self) -> Step<(), C::Error> {
        let mut buf = String::new();
        loop {
            self.say(PROMPT)?;
            buf.clear();
            match self.console.read_line(&mut buf, MAX_LINE as u64 + 1) {
                Ok(0) => return Ok(()),
                Ok(n) if n > MAX_LINE => {
                    return Err(Stop::Failed(Failure::input(
                        "a line of standard input is longer than 64 KiB — postmark commands are short lines",
                    )));
                }
                Ok(_) => {}
                Err(e) => {
                    let what = format!("cannot read standard input: {e}");
                    return Err(Stop::Failed(Failure::input(what)));
                }
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
    fn line(&mut self, line: &str, origin: Origin<'_>) -> Step<Flow, C::Error> {
        match lang::dispatch(&mut self.settings, line) {
            Ok(action) => self.act(action, line, origin),
            Err(LangError { message, hint }) => match origin {
                Origin::Interactive => {
                    self.console.err_line(&format!("Error: {message}"));
                    Ok(Flow::Continue)
                }
                Origin::File(..) => Err(fatal(origin, &message, &hint).into()),
            },
        }
    }

    fn act(&mut self, action: Action, line: &str, origin: Origin<'_>) -> Step<Flow, C::Error> {
        match action {
            Action::Done => {}
            Action::Quit => return Ok(Flow::Quit),
            Action::Unknown => match origin {
                Origin::Interactive => self.say("Eh?\n")?,
                Origin::File(..) => {
                    let what = format!("unknown command '{line}'");
                    return Err(fatal(origin, &what, &known_commands()).into());
                }
            },
            Action::Help(cmds) => {
                for c in cmds {
                    self.say(&format!("{} - {}\n", c.name, c.help))?;
                }
            }
            Action::Shell(cmd) => self.console.shell(cmd),
            Action::Show(file) => self.show(file.as_deref())?,
            Action::Load(file) => self.load(&file, origin)?,
            Action::Run(file) => self.run(file.as_deref(), origin)?,
        }
        Ok(Flow::Continue)
    }

    fn load(&mut self, file: &str, origin: Origin<'_>) -> Step<(), C::Error> {
        if self.depth >= MAX_LOAD_DEPTH {
            let what = format!("'load {file}' nested more than {MAX_LOAD_DEPTH} deep");
            return Err(fatal(origin, &what, "a file must not load itself").into());
        }
        if matches!(origin, Origin::Interactive) && !Path::new(file).is_file() {
            let line = format!("Error: cannot read configuration file '{file}'");
            self.console.err_line(&line);
            return Ok(());
        }
        self.depth += 1;
        // `quit` in a loaded file ends that file only (postmark's cli_load ignores it).
        let r = self.source(Path::new(file)).map_err(|e| match (origin, e) {
            (Origin::File(p, l), Stop::Failed(mut f)) => {
                f.message = format!("{} (loaded from {}:{l})", f.message, p.display());
                Stop::Failed(f)
            }
            (_, e) => e,
        });
        self.depth -= 1;
        r.map(drop)
    }

    fn show(&mut self, file: Option<&str>) -> Step<(), C::Error> {
        let s = &self.settings;
        let workdir = if s.locations.is_empty() {
            self.console.current_dir()
        } else {
            String::new()
        };
        let (head, tail) = report::show(&s.cfg, s.terse, &workdir, s.locations.len() > 1);
        let mut dest = self.open(file);
        self.write(&mut dest, &head)?;
        let lines: Vec<String> = (self.settings.locations.iter())
            .map(|(name, weight)| format!("\t{name} (weight={weight})\n"))
            .collect();
        for line in lines {
            self.say(&line)?;
        }
        self.write(&mut dest, &tail)
    }

    fn run(&mut self, file: Option<&str>, origin: Origin<'_>) -> Step<(), C::Error> {
        self.runs += 1;
        let result = {
            let mut progress = self.console.progress();
            exec::run(
                &self.settings,
                self.runs,
                &self.cancel,
                &mut progress,
                &self.cleanup,
            )
        };
        match result {
            Ok(out) => {
                let mut dest = self.open(file);
                if let Some(r) = &out.report {
                    self.write(&mut dest, r)?;
                }
                self.write(&mut dest, &out.precise)
            }
            Err(RunError::Config { what, hint }) => match origin {
                Origin::Interactive => {
                    self.console.err_line(&format!("Error: {what}"));
                    Ok(())
                }
                Origin::File(..) => {
                    Err(fatal(origin, &format!("cannot run: {what}"), &hint).into())
                }
            },
            Err(RunError::Failed(e)) => Err(Stop::Failed(e)),
        }
    }

    /// Standard output, or the file `run FILE`/`show FILE` appends to (postmark goes on with
    /// standard output when it cannot open FILE; the exit code says so at the end).
    fn open(&mut self, file: Option<&str>) -> Output {
        let Some(name) = file else {
            return Output::Stdout;
        };
        match std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(name)
        {
            Ok(f) => Output::File(f),
            Err(_) => {
                let line = format!("Error: Cannot direct output to file '{name}'");
                self.console.err_line(&line);
                self.output_failed = true;
                Output::Stdout
            }
        }
    }

    /// Writes `text` where `dest` says.
    fn write(&mut self, dest: &mut Output, text: &str) -> Step<(), C::Error> {
        match dest {
            Output::Stdout => self.say(text),
            Output::File(f) => f.write_all(text.as_bytes()).map_err(|e| {
                Stop::Failed(Failure::run(format!(
                    "cannot write the postmark report: {e} — check the disk"
                )))
            }),
        }
    }
}

/// Longest command line read (postmark's own buffer is a few hundred bytes).
const MAX_LINE: usize = 64 * 1024;
/// Largest configuration file read.
const MAX_CONFIG: u64 = 1 << 20;

/// Reads a configuration file of at most [`MAX_CONFIG`] bytes (`/dev/zero` is refused quickly).
fn read_config(path: &Path) -> Result<Vec<u8>, Failure> {
    let cannot = |e: std::io::Error| {
        Failure::input(format!(
            "cannot read configuration file '{}': {e} — check the path",
            path.display()
        ))
    };
    match fsbench_sys::infile::read_regular(path, MAX_CONFIG) {
        Ok(text) => Ok(text),
        Err(fsbench_sys::infile::InputError::TooLarge(_)) => Err(Failure::input(format!(
            "configuration file '{}' is larger than 1 MiB — is it a postmark configuration?",
            path.display()
        ))),
        Err(fsbench_sys::infile::InputError::Io(e)) => Err(cannot(e)),
        Err(e) => Err(Failure::input(format!(
            "cannot read configuration file '{}': {e} — give a postmark configuration file",
            path.display()
        ))),
    }
}

fn known_commands() -> String {
    let names: Vec<&str> = lang::COMMANDS.iter().map(|c| c.name).collect();
    format!("postmark's commands are: {}", names.join(", "))
}

/// Standard output, or a file the text is appended to (`run FILE`, `show FILE`).
enum Output {
    /// The console's standard output.
    Stdout,
    /// A file opened for appending.
    File(std::fs::File),
}
