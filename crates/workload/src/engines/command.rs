//! `command`: time any external command the way hyperfine does (`git status`, `ninja`, a build):
//! wall time around spawn-to-exit, user and sys CPU of the command and the descendants it
//! reaped (its rusage as wait4 reports it, read while it is a zombie; fsbench's own CPU is kept
//! apart as `fsbench_cpu_ns`), exit status checked, and the shell's own start-up (wall, user
//! and sys) measured in `prepare` and subtracted (`shell=none` runs the program directly). An optional `prepare`
//! command runs before every sample, unmeasured. What the command itself writes is up to it:
//! fsbench's own files stay in its scratch. While the measured command runs, its process tree's
//! read and write system calls and storage bytes are read from `/proc` at every interval's end
//! ([`fsbench_measure::TreeWatch`]): the sample's series, its operations and bytes.

use crate::info::WorkloadInfo;
use crate::knob::Knob;
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
use fsbench_measure::series::DEFAULT_INTERVAL_NS;
use fsbench_measure::{CpuTimes, TreeWatch};
use fsbench_sys::vfork::Command;
use std::path::PathBuf;
use std::time::Instant;

/// Registry entry.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "command",
    summary: "time an external command like hyperfine: wall, user, sys, %CPU, exit status",
    params: PARAMS,
    build,
    shared: false,
};

/// `run`: the command timed.
const RUN: Knob<String> =
    crate::knob::text("run", "", "the command, e.g. run='git status' (required)").shell_command();

/// `cwd`: where it runs.
const CWD: Knob<Option<PathBuf>> = Knob::new(
    "cwd",
    "scratch",
    "directory to run it in (default: the scratch directory)",
    |p, k, _| p.existing_path(k, crate::PathKind::Dir),
);

/// `prepare`: a command run before every sample, unmeasured.
const PREPARE: Knob<Option<String>> =
    crate::knob::optional("prepare", "command run before every sample, unmeasured").shell_command();

/// `shell`: through `sh -c` or directly.
const SHELL: Knob<bool> = Knob::new(
    "shell",
    "sh",
    "sh (run through sh -c, start-up subtracted) or none (split on spaces)",
    |p, k, d| Ok(p.choice(k, &["sh", "none"], d)? == "sh"),
);

/// `check`: a non-zero exit fails the sample.
const CHECK: Knob<bool> = crate::knob::boolean(
    "check",
    "true",
    "fail the sample when the command exits non-zero",
);

const PARAMS: &[ParamDoc] = &[
    RUN.doc(),
    CWD.doc(),
    PREPARE.doc(),
    SHELL.doc(),
    CHECK.doc(),
];

struct CommandWorkload {
    run: String,
    cwd: Option<PathBuf>,
    prepare: Option<String>,
    shell: bool,
    check: bool,
    shell_overhead_ns: u64,
    /// The median user and system time of the empty shell, taken out of every sample's.
    shell_cpu: CpuTimes,
}

/// The finest interval at which a command's process tree is read. Each reading walks the tree
/// in `/proc` (70 µs for `git status`'s threads here) on a CPU the command may want: at the
/// recorder's 2 ms floor fsbench's own CPU over an 18 ms `git status` was 1.0 ms against 0.33
/// ms for `/bin/true` (no reading), and the command's wall read 3–6% over hyperfine's.
const WATCH_INTERVAL_FLOOR_NS: u64 = DEFAULT_INTERVAL_NS;

/// What one run of a command took.
struct Ran {
    /// Spawn to exit, ns.
    wall_ns: u64,
    /// Its CPU and its reaped descendants' (its rusage, read while it was a zombie).
    cpu: Option<CpuTimes>,
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let run = RUN.read(p)?;
    if run.trim().is_empty() {
        return Err(RUN.error("missing: give the command, e.g. command:run='git status'"));
    }
    let cwd = CWD.read(p)?;
    let prepare = PREPARE.read(p)?.filter(|s| !s.trim().is_empty());
    let shell = SHELL.read(p)?;
    let check = CHECK.read(p)?;
    Ok(Box::new(CommandWorkload {
        run,
        cwd,
        prepare,
        shell,
        check,
        shell_overhead_ns: 0,
        shell_cpu: CpuTimes::default(),
    }))
}

impl CommandWorkload {
    fn cwd(&self, ctx: &Context) -> Option<PathBuf> {
        self.cwd
            .clone()
            .or_else(|| ctx.scratch().map(PathBuf::from))
    }

    fn command(&self, text: &str, ctx: &Context, shell: bool) -> Result<Command, WorkloadError> {
        let mut c = if shell {
            let mut c = Command::new("sh");
            c.arg("-c").arg(text);
            c
        } else {
            let mut words = text.split_whitespace();
            let prog = words
                .next()
                .ok_or_else(|| WorkloadError::Invalid("empty command".into()))?;
            let mut c = Command::new(prog);
            c.args(words);
            c
        };
        if let Some(d) = self.cwd(ctx) {
            c.current_dir(d);
        }
        Ok(c)
    }

    /// Runs `text` to completion (killing it on cancel); its wall and CPU time. With `watch`,
    /// its process tree is watched from its start until it exits.
    fn execute(
        &self,
        text: &str,
        ctx: &Context,
        shell: bool,
        check: bool,
        mut watch: Option<&mut TreeWatch>,
    ) -> Result<Ran, WorkloadError> {
        let cmd = self.command(text, ctx, shell)?;
        // stderr goes to an in-memory file, not a pipe: a chatty command cannot block on a full
        // pipe, and its last line is there for the error message.
        let err_file = std::fs::File::from(
            rustix::fs::memfd_create("fsbench-stderr", rustix::fs::MemfdFlags::CLOEXEC)
                .map_err(|e| WorkloadError::io("memfd_create", text, e.into()))?,
        );
        // Started without copying fsbench (`fsbench_sys::vfork`): a fork's page-table copy
        // was charged to the command, ~0.5 ms of its system time a start.
        // Everything but the start itself is made before the clock starts.
        let ready = cmd
            .ready(&err_file)
            .map_err(|e| WorkloadError::io("spawn", text, e))?;
        let start = Instant::now();
        let mut child = ready
            .spawn(&ctx.cleanup)
            .map_err(|e| WorkloadError::io("spawn", text, e))?;
        if let Some(w) = &watch {
            w.set_root(child.id());
        }
        // The last reading is taken while the command is a zombie, before it is reaped; its
        // CPU too, as wait4 would report it (hyperfine's measure): fsbench's own is not in it.
        let pid = child.id() as i32;
        let mut cpu = None;
        let mut last_reading = || {
            cpu = fsbench_sys::child::user_sys_ns_of_exited(pid)
                .map(|(user_ns, sys_ns)| CpuTimes { user_ns, sys_ns });
            if let Some(w) = watch.as_mut() {
                w.stop();
            }
        };
        let status = match child.wait_then(&ctx.cancel, None, &mut last_reading) {
            Ok(s) => s,
            Err(fsbench_sys::child::WaitError::Io(e)) => {
                return Err(WorkloadError::io("wait", text, e));
            }
            Err(_) => return Err(WorkloadError::Interrupted),
        };
        // The wall ends when the exit was seen, not after the last reading and the reaping.
        let end = child.exited_at().unwrap_or_else(Instant::now);
        let wall = end.duration_since(start).as_nanos() as u64;
        if check && !status.success() {
            let last = last_line(&err_file);
            return Err(WorkloadError::Invalid(format!(
                "command '{text}' exited with {status}: {last} (check=false to allow)"
            )));
        }
        Ok(Ran { wall_ns: wall, cpu })
    }
}

/// The last non-empty line (at most 64 KiB from the end) of what a command wrote to stderr.
fn last_line(file: &std::fs::File) -> String {
    use std::os::unix::fs::FileExt;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let start = len.saturating_sub(64 * 1024);
    let mut buf = vec![0u8; (len - start) as usize];
    let n = file.read_at(&mut buf, start).unwrap_or(0);
    let text = String::from_utf8_lossy(&buf[..n]);
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

impl Workload for CommandWorkload {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        if let Some(d) = self.cwd(ctx).filter(|d| !d.is_dir()) {
            return Err(WorkloadError::Invalid(format!(
                "cwd={} is not a directory",
                d.display()
            )));
        }
        if self.shell {
            let (mut walls, mut users, mut syss) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..15 {
                let ran = self.execute("", ctx, true, true, None)?;
                walls.push(ran.wall_ns);
                let cpu = ran.cpu.unwrap_or_default();
                users.push(cpu.user_ns);
                syss.push(cpu.sys_ns);
            }
            let median = |v: &mut Vec<u64>| {
                v.sort_unstable();
                v[v.len() / 2]
            };
            self.shell_overhead_ns = median(&mut walls);
            self.shell_cpu = CpuTimes {
                user_ns: median(&mut users),
                sys_ns: median(&mut syss),
            };
        }
        Ok(())
    }

    fn before_sample(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        match &self.prepare {
            Some(p) => self.execute(p, ctx, true, true, None).map(drop),
            None => Ok(()),
        }
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let interval = rec.interval_ns().unwrap_or(DEFAULT_INTERVAL_NS);
        let mut watch = TreeWatch::start(interval.max(WATCH_INTERVAL_FLOOR_NS));
        let ran = self.execute(&self.run, ctx, self.shell, self.check, watch.as_mut())?;
        let wall = ran.wall_ns;
        // The sample's user and system time are the command's, less the shell's start-up as
        // its wall time is; fsbench's own CPU is kept apart (`fsbench_cpu_ns`).
        if let Some(cpu) = ran.cpu {
            rec.program_cpu(cpu.since(self.shell_cpu));
        }
        match watch.map(TreeWatch::finish) {
            Some(series) if !series.intervals.is_empty() => {
                fsbench_measure::merge_ticked(rec, &series);
            }
            // No watching thread: the command counts as one operation, with no series.
            _ => rec.add_ops(1, 0),
        }
        rec.metric(
            "command_ns",
            wall.saturating_sub(self.shell_overhead_ns) as f64,
        );
        rec.metric(
            fsbench_model::metric::SHELL_OVERHEAD_NS,
            self.shell_overhead_ns as f64,
        );
        Ok(())
    }

    fn cache_files(&self, _ctx: &Context) -> Vec<PathBuf> {
        Vec::new()
    }

    fn caps(&self) -> Caps {
        Caps {
            writes: false,
            cold_needs_global: true,
            ..Caps::base(Headline::Metric {
                name: fsbench_model::metric::COMMAND_NS,
                unit: "ns",
                higher_is_better: false,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Harness;

    #[test]
    fn times_a_command_and_subtracts_the_shell() {
        let d = Harness::new(build, "run='sleep 0.05'").sample();
        let t = Harness::metric(&d, "command_ns");
        assert!((40e6..1e9).contains(&t), "{t}");
        assert!(Harness::metric(&d, "shell_overhead_ns") > 0.0);
    }

    #[test]
    fn the_samples_cpu_is_the_commands_and_fsbenchs_own_is_kept_apart() {
        let mut h = Harness::new(build, "run='read x < fifo',shell=sh");
        let fifo = h.dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.expect("mkfifo").success());
        // A thread of fsbench's burns 20 ms of CPU while the command waits on the FIFO, then
        // lets it end: the command itself uses next to none. The spinner starts once the FIFO
        // has its reader (opening it to write waits for the command's shell to open it), so all
        // its 20 ms fall inside the sample (spun before it, some were not the sample's).
        let spinner = std::thread::spawn(move || {
            use std::io::Write;
            let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            let start = fsbench_measure::CpuTimes::thread();
            loop {
                let used = fsbench_measure::CpuTimes::thread().since(start);
                if used.user_ns + used.sys_ns >= 20_000_000 {
                    break;
                }
                std::hint::black_box((0..1000u64).sum::<u64>());
            }
            w.write_all(b"go\n").unwrap();
        });
        let d = h.sample();
        spinner.join().unwrap();
        let own = Harness::metric(&d, fsbench_model::metric::FSBENCH_CPU_NS);
        assert!(own >= 20e6, "fsbench's own CPU, the spinner's in it: {own}");
        assert!(
            d.user_ns + d.sys_ns < 20_000_000,
            "the command's CPU only: user {} sys {}",
            d.user_ns,
            d.sys_ns
        );
        assert!(d.cpu_is_a_programs());
    }

    #[test]
    fn the_commands_io_over_time_is_its_series() {
        let d = Harness::new(
            build,
            "run='dd if=/dev/zero of=f bs=64k count=400 conv=fsync 2>/dev/null; sleep 0.05'",
        )
        .sample();
        let s = &d.series;
        assert!(s.intervals.len() >= 3, "{s:?}");
        assert_eq!(s.intervals.iter().map(|i| i.ops).sum::<u64>(), d.ops);
        assert_eq!(s.intervals.iter().map(|i| i.bytes).sum::<u64>(), d.bytes);
        assert!(d.ops >= 800, "dd's 400 reads and 400 writes: {}", d.ops);
    }

    #[test]
    fn failing_command_fails_unless_unchecked() {
        let mut h = Harness::new(build, "run='exit 3'");
        let mut rec = fsbench_measure::SampleRecorder::new();
        rec.start();
        let e = h.workload.run(&h.ctx, &mut rec).unwrap_err();
        assert!(e.to_string().contains("exited with"), "{e}");
        Harness::new(build, "run='exit 3',check=false").sample();
    }

    #[test]
    fn prepare_runs_before_each_sample_in_cwd() {
        let mut h = Harness::new(
            build,
            "run='test -f marker',prepare='touch marker',shell=sh",
        );
        h.workload.before_sample(&h.ctx).unwrap();
        h.sample();
        assert!(h.dir.path().join("marker").exists());
    }

    #[test]
    fn a_chatty_failing_command_does_not_block_and_its_last_line_is_kept() {
        let mut h = Harness::new(
            build,
            "run='head -c 1000000 /dev/zero | tr \\\\0 x >&2; echo; echo the-end >&2; exit 1'",
        );
        let mut rec = fsbench_measure::SampleRecorder::new();
        rec.start();
        let e = h.workload.run(&h.ctx, &mut rec).unwrap_err();
        assert!(e.to_string().contains("the-end"), "{e}");
    }

    #[test]
    fn missing_run_is_a_parameter_error() {
        let mut p = Params::parse("cwd=/tmp").unwrap();
        assert!(build(&mut p).is_err());
    }
}
