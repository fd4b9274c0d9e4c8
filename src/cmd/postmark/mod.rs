//! `fsbench postmark [CONFIG]`: a drop-in for the postmark program. Reads postmark's command
//! language from CONFIG (then stops at `quit`, or continues at the `pm>` prompt) or from standard
//! input, prints its messages, `show` and reports in its layout with the same counts, then
//! fsbench's precise timings. Files live in a fsbench scratch directory under `location`.

mod report;

use crate::error::{CliError, CliResult};
use fsbench_measure::{CpuTimes, SampleRecorder};
use fsbench_workload::CancelToken;
use fsbench_workload::engines::postmark::{self, PmConfig};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

const HELP: &str = "set size - Sets low and high bounds of files
set number - Sets number of simultaneous files
set seed - Sets seed for random number generator
set transactions - Sets number of transactions
set location - Sets location of working files
set subdirectories - Sets number of subdirectories
set read - Sets read block size
set write - Sets write block size
set buffering - Sets usage of buffered I/O
set bias read - Sets the chance of choosing read over append
set bias create - Sets the chance of choosing create over delete
set report - Choose verbose or terse report format
run - Runs one iteration of benchmark
load - Read configuration file
show - Displays current configuration
help - Prints out available commands
quit - Exit program
";

/// Commands in postmark's dispatch order (the first whose name prefixes the line wins).
const COMMANDS: &[&str] = &[
    "set size",
    "set number",
    "set seed",
    "set transactions",
    "set location",
    "set subdirectories",
    "set read",
    "set write",
    "set buffering",
    "set bias read",
    "set bias create",
    "set report",
    "run",
    "load",
    "show",
    "help",
    "quit",
    "exit",
    "?",
];

/// Interpreter state: the configuration and report style.
struct Session {
    cfg: PmConfig,
    terse: bool,
    location: Option<PathBuf>,
    cancel: CancelToken,
}

/// What a line asks the interpreter to do next.
enum Flow {
    Continue,
    Quit,
}

/// Runs postmark: the config file (if any), then the prompt unless the file quit.
pub fn run(config: Option<&Path>) -> CliResult<i32> {
    let cancel = CancelToken::new();
    crate::signals::install(cancel.clone())
        .map_err(|e| CliError::run(format!("cannot install signal handlers: {e}")))?;
    let mut s = Session {
        cfg: PmConfig::default(),
        terse: false,
        location: None,
        cancel,
    };
    println!("PostMark v1.51 : 8/14/01");
    let file = config
        .map(Path::to_path_buf)
        .or_else(|| Some(PathBuf::from(".pmrc")).filter(|p| p.is_file()));
    if let Some(f) = file {
        println!("Reading configuration from file '{}'", f.display());
        if let Flow::Quit = s.load(&f)? {
            return Ok(0);
        }
    }
    let stdin = std::io::stdin();
    let mut line = String::new();
    loop {
        print!("pm>");
        let _ = std::io::stdout().flush();
        line.clear();
        if stdin.lock().read_line(&mut line).unwrap_or(0) == 0 {
            return Ok(0);
        }
        if let Flow::Quit = s.dispatch(line.trim_end_matches(['\n', '\r']), None)? {
            return Ok(0);
        }
    }
}

impl Session {
    fn load(&mut self, file: &Path) -> CliResult<Flow> {
        let text = std::fs::read_to_string(file).map_err(|e| {
            CliError::usage(format!(
                "cannot read postmark configuration ({}): {e} — check the path",
                file.display()
            ))
        })?;
        for (i, line) in text.lines().enumerate() {
            if let Flow::Quit = self.dispatch(line, Some((file, i + 1)))? {
                return Ok(Flow::Quit);
            }
        }
        Ok(Flow::Continue)
    }

    /// Executes one command line; `at` names the file and line for errors of a config file.
    fn dispatch(&mut self, line: &str, at: Option<(&Path, usize)>) -> CliResult<Flow> {
        if line.trim().is_empty() {
            return Ok(Flow::Continue);
        }
        if let Some(cmd) = line.strip_prefix('!') {
            let _ = std::process::Command::new("sh").arg("-c").arg(cmd).status();
            return Ok(Flow::Continue);
        }
        let Some(name) = COMMANDS.iter().find(|c| line.starts_with(**c)) else {
            println!("Eh?");
            return Ok(Flow::Continue);
        };
        let param = line.get(name.len() + 1..).unwrap_or("").trim();
        match *name {
            "quit" | "exit" => return Ok(Flow::Quit),
            "help" | "?" => print!("{HELP}"),
            "show" => print!("{}", self.show()),
            "load" => return self.load(Path::new(param)),
            "run" => self.run_once(at)?,
            setter => {
                if let Err(msg) = self.set(setter, param) {
                    println!("Error: {msg}");
                }
            }
        }
        Ok(Flow::Continue)
    }

    fn set(&mut self, name: &str, param: &str) -> Result<(), &'static str> {
        let positive = |err| match atoi(param) {
            n if n > 0 => Ok(n as u64),
            _ => Err(err),
        };
        let c = &mut self.cfg;
        match name {
            "set size" => {
                let mut it = param.split_whitespace();
                let low = it
                    .next()
                    .map(atoi)
                    .filter(|&l| l > 0)
                    .ok_or("no file size low or high bounds specified")?
                    as u64;
                let high = it.next().map(atoi).unwrap_or(0).max(0) as u64;
                c.size_low = low;
                c.size_high = high.max(low);
            }
            "set number" => c.number = positive("invalid number of files")?,
            "set seed" => c.seed = positive("invalid seed for random numbers")? as u32,
            "set transactions" => c.transactions = positive("no transactions specified")?,
            "set subdirectories" => {
                c.subdirectories = positive("invalid number of subdirectories")?
            }
            "set read" => c.read_bs = positive("invalid read block size")?,
            "set write" => c.write_bs = positive("invalid write block size")?,
            "set buffering" => {
                c.buffered = match param {
                    "true" => true,
                    "false" => false,
                    _ => return Err("no buffering mode (true/false) specified"),
                }
            }
            "set bias read" | "set bias create" => {
                let b = Some(atoi(param)).filter(|b| !param.is_empty() && (-1..=10).contains(b));
                let b = b.ok_or("no bias specified (0-10 for greater chance,-1 to disable)")?;
                if name == "set bias read" {
                    c.bias_read = b
                } else {
                    c.bias_create = b
                }
            }
            "set report" => {
                self.terse = match param {
                    "terse" => true,
                    "verbose" => false,
                    _ => return Err("either 'verbose' or 'terse' required"),
                }
            }
            "set location" => {
                if param.is_empty() {
                    return Err("no directory name specified");
                }
                self.location = Some(PathBuf::from(
                    param
                        .trim_start_matches('+')
                        .split_whitespace()
                        .next()
                        .unwrap_or(param),
                ));
            }
            _ => return Err("unknown setting"),
        }
        Ok(())
    }

    fn show(&self) -> String {
        let c = &self.cfg;
        let mut s = format!(
            "Current configuration is:\nThe base number of files is {}\nTransactions: {}\n",
            c.number, c.transactions
        );
        if c.size_low == c.size_high {
            s += &format!("Files are {} in size\n", size_text(c.size_low));
        } else {
            s += &format!(
                "Files range between {} and {} in size\n",
                size_text(c.size_low),
                size_text(c.size_high)
            );
        }
        match &self.location {
            Some(l) => s += &format!("Working directory: \n\t{} (weight=1)\n", l.display()),
            None => {
                s += &format!(
                    "Working directory: {}\n",
                    std::env::current_dir()
                        .map(|d| d.display().to_string())
                        .unwrap_or_default()
                )
            }
        }
        if c.subdirectories > 1 {
            s += &format!("{} subdirectories will be used\n", c.subdirectories);
        }
        s += &format!(
            "Block sizes are: read={}, write={}\n",
            size_text(c.read_bs),
            size_text(c.write_bs)
        );
        s += &format!(
            "Biases are: read/append={}, create/delete={}\n",
            c.bias_read, c.bias_create
        );
        s += if c.buffered {
            "Using Unix buffered file I/O\n"
        } else {
            "Not using Unix buffered file I/O\n"
        };
        s += &format!(
            "Random number generator seed is {}\nReport format is {}.\n",
            c.seed,
            if self.terse { "terse" } else { "verbose" }
        );
        s
    }

    fn run_once(&mut self, at: Option<(&Path, usize)>) -> CliResult<()> {
        let location = self.location.clone().unwrap_or_else(|| PathBuf::from("."));
        let where_ = at
            .map(|(f, l)| format!("{}:{l}", f.display()))
            .unwrap_or_else(|| "run".into());
        let run_id = format!(
            "postmark-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        );
        let scratch = crate::scratch::Scratch::create(&location, &run_id)
            .map_err(|e| CliError::usage(format!("{} ({where_})", e.message)))?;
        if self.cfg.subdirectories > 1 {
            println!("Creating subdirectories...Done");
        }
        let mut rec = SampleRecorder::new();
        rec.start();
        let cpu0 = CpuTimes::process();
        let result = postmark::run(&self.cfg, scratch.path(), &mut rec, &self.cancel);
        let cpu = CpuTimes::process().since(cpu0);
        let (c, t, ops) = match result {
            Ok(r) => r,
            Err(fsbench_workload::WorkloadError::Interrupted) => {
                return Err(CliError::interrupted());
            }
            Err(e) => {
                return Err(CliError::run(format!(
                    "postmark run failed: {e} ({where_}) — check the location"
                )));
            }
        };
        scratch.remove().map_err(|e| CliError::run(e.message))?;
        println!("Creating files...Done");
        let step = self.cfg.transactions / 10;
        let dots = if step == 0 {
            0
        } else {
            c.transactions_done.div_ceil(step)
        };
        print!("Performing transactions{}", ".".repeat(dots as usize));
        if c.out_of_files {
            println!(
                "out of files!\nFor this workload, either increase the number of files or\ndecrease the number of transactions."
            );
            println!("Deleting files...Done");
            if self.cfg.subdirectories > 1 {
                println!("Deleting subdirectories...Done");
            }
            return Ok(());
        }
        println!("Done\nDeleting files...Done");
        if self.cfg.subdirectories > 1 {
            println!("Deleting subdirectories...Done");
        }
        print!("{}", report::postmark_report(&self.cfg, &c, &t, self.terse));
        print!("{}", report::precise(&c, &t, &ops, cpu.user_ns, cpu.sys_ns));
        Ok(())
    }
}

/// C's atoi.
fn atoi(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, rest) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let v = digits.parse::<i64>().unwrap_or(0);
    if neg { -v } else { v }
}

/// postmark's size wording in `show`: bytes below 1 KiB, else kilobytes or megabytes.
fn size_text(n: u64) -> String {
    let v = n as f32;
    if v / 1_048_576.0 > 1.0 {
        format!("{:.2} megabytes", v / 1_048_576.0)
    } else if v / 1024.0 > 1.0 {
        format!("{:.2} kilobytes", v / 1024.0)
    } else {
        format!("{n} bytes")
    }
}
