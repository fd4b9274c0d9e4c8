//! `fsbench ministat`: a drop-in for Debian's `ministat` (20150715): the same getopt-style flags
//! (permuted, so flags may follow files), the same messages and exit codes, and byte-identical
//! output from `fsbench_stats::ministat`. Extensions: `-q` (no legend or header, as current
//! FreeBSD) and `--modern` (current FreeBSD formulas).

use fsbench_stats::ministat;
use fsbench_stats::ministat::args as cli;
use fsbench_stats::ministat::input;
use std::ffi::OsString;
use std::io::Write;

/// Runs ministat on `args` (everything after `fsbench ministat`); returns the exit code.
pub fn run(args: Vec<OsString>) -> i32 {
    let args: Vec<String> = args
        .into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let result = cli::parse(&args, input::default_width()).and_then(|a| {
        let sets = input::read_sets(&a)?;
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
