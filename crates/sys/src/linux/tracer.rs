//! Following a program's system calls (every thread and descendant process) with ptrace,
//! stopping only on the calls asked for: a seccomp filter installed in the child before its
//! `execve` returns `SECCOMP_RET_TRACE` for them and lets every other call run at full speed,
//! as `strace --seccomp-bpf` does. Each traced call stops twice (its entry, to read its
//! arguments before it runs, and its exit, for the result), and an [`Observer`] sees both with
//! the instants that bound the call.
//!
//! Written by hand because it is the measurement (what a recorded call took, and the cost the
//! tracing adds) and because no kept crate offers seccomp-filtered ptrace; the kernel's
//! `PTRACE_GET_SYSCALL_INFO` keeps it free of per-architecture register layouts.

use crate::cancel::CancelToken;
use crate::cleanup::{Cleanup, Stage};
use std::collections::HashMap;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Instant;

/// A stopped task of the traced program: what an [`Observer`] may ask about it.
#[derive(Debug, Clone, Copy)]
pub struct Tracee {
    /// Its thread id.
    pub tid: i32,
    /// Its process (thread group) id.
    pub pid: i32,
}

impl Tracee {
    /// The NUL-terminated string at `addr` in the task's memory (at most 4 KiB), without the NUL.
    pub fn read_cstr(&self, addr: u64) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let mut at = addr;
        while out.len() < 4096 {
            // Never across a page: the next page may be unmapped.
            let chunk = (4096 - (at % 4096)) as usize;
            let mut buf = vec![0u8; chunk];
            let n = self.read_mem(at, &mut buf)?;
            if let Some(end) = buf[..n].iter().position(|&b| b == 0) {
                out.extend_from_slice(&buf[..end]);
                return Some(out);
            }
            out.extend_from_slice(&buf[..n]);
            at += n as u64;
        }
        None
    }

    /// Fills `buf` from the task's memory at `addr`; the bytes read, `None` when none could be.
    pub fn read_mem(&self, addr: u64, buf: &mut [u8]) -> Option<usize> {
        if addr == 0 || buf.is_empty() {
            return None;
        }
        let local = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        };
        let remote = libc::iovec {
            iov_base: addr as *mut libc::c_void,
            iov_len: buf.len(),
        };
        // SAFETY: `local` covers `buf`, which outlives the call; the remote side is only read.
        #[allow(unsafe_code)]
        let n = unsafe { libc::process_vm_readv(self.tid, &local, 1, &remote, 1, 0) };
        (n > 0).then_some(n as usize)
    }

    /// The task's current directory.
    pub fn cwd(&self) -> Option<PathBuf> {
        std::fs::read_link(format!("/proc/{}/cwd", self.tid)).ok()
    }

    /// What the task's descriptor `fd` names: a path, or `pipe:[…]`, `socket:[…]`, `anon_inode:…`.
    pub fn fd_path(&self, fd: i32) -> Option<PathBuf> {
        std::fs::read_link(format!("/proc/{}/fd/{fd}", self.tid)).ok()
    }

    /// The task's open descriptors.
    pub fn open_fds(&self) -> Vec<i32> {
        std::fs::read_dir(format!("/proc/{}/fd", self.tid))
            .map(|d| {
                d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// What the tracer tells as the program runs; called on the tracing thread while the task is
/// stopped.
pub trait Observer {
    /// `t` is about to make call `nr` with `args` (the call has not run yet).
    fn entry(&mut self, t: &Tracee, nr: i64, args: [u64; 6]);
    /// The call `t` entered last returned `ret` (a negative errno on failure); `times` says when
    /// it ran and where the task's time went before and during it.
    fn exit(&mut self, t: &Tracee, ret: i64, times: &CallTimes);
    /// `t` is a new task; `parent` is the process it was copied from (`None` for a thread,
    /// which shares its process's descriptors, and for the program itself).
    fn spawned(&mut self, t: &Tracee, parent: Option<i32>);
    /// `t` ran `execve`: its close-on-exec descriptors are gone.
    fn exec(&mut self, t: &Tracee);
    /// `t` ended (its call in progress, if any, is not reported).
    fn ended(&mut self, t: &Tracee);
}

/// Where a task's time went over a stretch, from its `/proc/TID/schedstat` read at the stops
/// that bound it: what the tracer's clock cannot tell apart (the tracer's own work is on another
/// thread, in the task's wall time but not in its CPU time).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spent {
    /// ns the task ran on a CPU (user and kernel, the stops' own cost in the kernel included).
    pub cpu_ns: u64,
    /// ns of the stretch's wall time the task neither ran nor waited for a CPU: blocked (I/O,
    /// a lock, another thread) or stopped by the tracer (each stop until the tracer saw it).
    pub off_ns: u64,
    /// Times the task got a CPU in the stretch: once after each stop, and once more after each
    /// time it blocked (a lock, another thread, I/O) or was preempted.
    pub arrivals: u64,
}

/// The times of one traced call.
#[derive(Debug, Clone, Copy)]
pub struct CallTimes {
    /// When the call was let run (after its entry stop).
    pub started: Instant,
    /// When its exit stop was seen.
    pub ended: Instant,
    /// The task's time from its previous traced call's resume (or from its start, or its
    /// program's `execve`) to this call's entry stop; `None` when the kernel did not say.
    pub before: Option<Spent>,
    /// The task's time from the call's resume to its exit stop.
    pub during: Option<Spent>,
}

/// A task's clock: its `/proc/TID/schedstat` (ns run, ns waited for a CPU, times it got a
/// CPU), kept open and read
/// again at each stop (a `pread` at 0 renders it anew).
struct TaskClock(std::fs::File);

/// A reading of a [`TaskClock`] and the tracer's instant it belongs to.
#[derive(Debug, Clone, Copy)]
struct Mark {
    at: Instant,
    clock: crate::proc::Schedstat,
}

impl TaskClock {
    fn open(tid: i32) -> Option<Self> {
        std::fs::File::open(format!("/proc/{tid}/schedstat"))
            .ok()
            .map(Self)
    }

    fn read(&self, at: Instant) -> Option<Mark> {
        let mut buf = [0u8; 96];
        let n = rustix::io::pread(&self.0, &mut buf, 0).ok()?;
        let clock = crate::proc::Schedstat::parse(std::str::from_utf8(&buf[..n]).ok()?)?;
        Some(Mark { at, clock })
    }
}

impl Mark {
    /// What the task spent from `self` to `later`.
    fn until(&self, later: &Mark) -> Spent {
        let (a, b) = (&self.clock, &later.clock);
        let cpu_ns = b.ran_ns.saturating_sub(a.ran_ns);
        let waited = b.waited_ns.saturating_sub(a.waited_ns);
        let wall = later.at.saturating_duration_since(self.at).as_nanos() as u64;
        Spent {
            cpu_ns,
            off_ns: wall.saturating_sub(cpu_ns).saturating_sub(waited),
            arrivals: b.arrivals.saturating_sub(a.arrivals),
        }
    }
}

/// How the traced program ended.
#[derive(Debug)]
pub struct Traced {
    /// The program's own exit status.
    pub status: ExitStatus,
    /// From the program's `execve` to the end of the last traced task.
    pub wall_ns: u64,
    /// The program's `execve` (the tracer's clock).
    pub started: Instant,
}

/// One past the highest system call number a filter checks on this architecture's native ABI.
#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

/// The seccomp filter: `SECCOMP_RET_TRACE` for each of `calls` on the native ABI, allow the rest.
fn filter(calls: &[i64]) -> Vec<libc::sock_filter> {
    let op = |code: u32, k: u32, jt: u8, jf: u8| libc::sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    };
    let n = calls.len();
    assert!(n < 250, "a filter's jumps are one byte");
    let mut f = vec![
        // seccomp_data.arch
        op(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 4, 0, 0),
        op(
            libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
            AUDIT_ARCH,
            1,
            0,
        ),
        op(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ALLOW, 0, 0),
        // seccomp_data.nr
        op(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0, 0, 0),
    ];
    for (i, &nr) in calls.iter().enumerate() {
        f.push(op(
            libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
            nr as u32,
            (n - i) as u8,
            0,
        ));
    }
    f.push(op(
        libc::BPF_RET | libc::BPF_K,
        libc::SECCOMP_RET_ALLOW,
        0,
        0,
    ));
    f.push(op(
        libc::BPF_RET | libc::BPF_K,
        libc::SECCOMP_RET_TRACE,
        0,
        0,
    ));
    f
}

/// `struct ptrace_syscall_info`, its union as raw words: entry and seccomp stops hold the
/// number then six arguments, an exit stop the return value then whether it is an error.
#[repr(C)]
#[derive(Default)]
struct SyscallInfo {
    op: u8,
    _reserved: u8,
    _flags: u16,
    _arch: u32,
    _ip: u64,
    _sp: u64,
    data: [u64; 8],
}

const OP_EXIT: u8 = 2;
const OP_SECCOMP: u8 = 3;

fn syscall_info(tid: i32) -> Option<SyscallInfo> {
    let mut info = SyscallInfo::default();
    // SAFETY: the kernel writes at most `size_of::<SyscallInfo>()` bytes into `info`.
    #[allow(unsafe_code)]
    let r = unsafe {
        libc::ptrace(
            libc::PTRACE_GET_SYSCALL_INFO,
            tid,
            std::mem::size_of::<SyscallInfo>(),
            &mut info as *mut SyscallInfo,
        )
    };
    (r > 0).then_some(info)
}

/// A ptrace request with no data pointer (`PTRACE_CONT`, `PTRACE_SYSCALL`, `PTRACE_SETOPTIONS`).
fn request(req: libc::c_uint, tid: i32, data: usize) -> bool {
    // SAFETY: these requests read no memory of this process.
    #[allow(unsafe_code)]
    let r = unsafe { libc::ptrace(req, tid, 0usize, data) };
    r == 0
}

fn event_message(tid: i32) -> Option<u64> {
    let mut msg: libc::c_ulong = 0;
    // SAFETY: the kernel writes one `unsigned long` into `msg`.
    #[allow(unsafe_code)]
    let r = unsafe { libc::ptrace(libc::PTRACE_GETEVENTMSG, tid, 0usize, &mut msg) };
    (r == 0).then_some(msg)
}

/// Whether a stop with a signal is a group stop (no signal to deliver) rather than a signal
/// about to be delivered.
fn is_group_stop(tid: i32) -> bool {
    let mut info: libc::siginfo_t = unsafe_zeroed_siginfo();
    // SAFETY: the kernel writes one `siginfo_t` into `info`.
    #[allow(unsafe_code)]
    let r = unsafe { libc::ptrace(libc::PTRACE_GETSIGINFO, tid, 0usize, &mut info) };
    r != 0
}

fn unsafe_zeroed_siginfo() -> libc::siginfo_t {
    // SAFETY: `siginfo_t` is plain data; all zeroes is a valid value.
    #[allow(unsafe_code)]
    unsafe {
        std::mem::zeroed()
    }
}

/// The process (thread group) of `tid`, from `/proc`.
fn tgid_of(tid: i32) -> Option<i32> {
    let status = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Tgid:"))?
        .trim()
        .parse()
        .ok()
}

/// The parent process of `pid`, from `/proc`.
fn ppid_of(pid: i32) -> Option<i32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("PPid:"))?
        .trim()
        .parse()
        .ok()
}

/// Installs the filter that stops this process (and what it starts) at each of `calls` for its
/// tracer: the trampoline's step between the tracer's attach and the program's `execve`.
/// Without CAP_SYS_ADMIN a filter needs `no_new_privs` (setuid programs then do not gain
/// privileges while recorded).
pub fn install_filter(calls: &[i64]) -> std::io::Result<()> {
    let program = filter(calls);
    let prog = libc::sock_fprog {
        len: program.len() as u16,
        filter: program.as_ptr().cast_mut(),
    };
    // SAFETY: `prog` points at `program`, alive for the call; the kernel copies the filter.
    #[allow(unsafe_code)]
    let set = || unsafe { libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &prog) };
    if set() != 0 {
        // SAFETY: a plain prctl.
        #[allow(unsafe_code)]
        let nnp = unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) };
        if nnp != 0 || set() != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// One task being traced.
struct Task {
    pid: i32,
    /// When its current traced call was let run.
    in_call: Option<Instant>,
    clock: Option<TaskClock>,
    /// Where the current stretch (a gap before a call, or a call) began.
    mark: Option<Mark>,
    /// The gap before the current call.
    before: Option<Spent>,
}

impl Task {
    fn new(tid: i32, pid: i32) -> Self {
        let clock = TaskClock::open(tid);
        let mark = clock.as_ref().and_then(|c| c.read(Instant::now()));
        Task {
            pid,
            in_call: None,
            clock,
            mark,
            before: None,
        }
    }

    /// Ends the current stretch at `at` (the task is stopped) and starts the next: what the
    /// task spent in the one ended.
    fn lap(&mut self, at: Instant) -> Option<Spent> {
        let now = self.clock.as_ref()?.read(at)?;
        let spent = self.mark.map(|m| m.until(&now));
        self.mark = Some(now);
        spent
    }

    /// Starts the next stretch at `at`, the task's time so far being the last reading's.
    fn resumed(&mut self, at: Instant) {
        if let Some(m) = &mut self.mark {
            m.at = at;
        }
    }
}

/// Runs `cmd` traced, telling `observer` of every call the filter stops (`cmd` is a trampoline
/// that installs it with [`install_filter`], then executes the program), until the program and
/// every task it started have ended; the time counts from the program's `execve`. The program is the
/// leader of a new process group, dies with fsbench (`PR_SET_PDEATHSIG`, and
/// `PTRACE_O_EXITKILL` for every task), and the group is killed on `cancel` or by `cleanup`.
/// Must be called from the one thread that will make every ptrace request (the tracer is a
/// thread); nothing else in this process may wait for children meanwhile.
pub fn trace(
    cmd: &mut std::process::Command,
    cleanup: &Cleanup,
    cancel: &CancelToken,
    observer: &mut dyn Observer,
) -> std::io::Result<Traced> {
    let parent = rustix::process::getpid();
    cmd.process_group(0);
    // SAFETY: the closure runs in the forked child before exec and makes only raw system calls
    // (prctl, ptrace, getppid) and `_exit`; it allocates nothing. The seccomp filter is not
    // installed here: a failed exec reports through a pipe with `write`, which the filter would
    // stop while this thread still waits in `spawn` (a deadlock); `cmd` is a trampoline that
    // installs it ([`install_filter`]) and then runs the program.
    #[allow(unsafe_code)]
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0
                || libc::ptrace(libc::PTRACE_TRACEME, 0, 0usize, 0usize) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            if rustix::process::getppid() != Some(parent) {
                libc::_exit(137);
            }
            Ok(())
        });
    }
    let started = Instant::now();
    // The child stops with SIGTRAP after its execve (PTRACE_TRACEME), by which time `spawn`
    // has seen the exec succeed.
    let child = cmd.spawn()?;
    let leader = child.id() as i32;
    let registration = cleanup.register(Stage::Processes, move || {
        if let Some(pid) = rustix::process::Pid::from_raw(leader) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        Vec::new()
    });
    cleanup.group_started(leader);
    // The tracer blocks in waitpid: a watcher kills the group when the run is cancelled (the
    // program is in a group of its own, so a terminal's Ctrl-C reaches only fsbench).
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let (done, cancel) = (done.clone(), cancel.clone());
        std::thread::spawn(move || {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                if cancel.is_cancelled() {
                    if let Some(pid) = rustix::process::Pid::from_raw(leader) {
                        let _ =
                            rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
                    }
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        })
    };
    let result = follow(leader, started, cancel, observer);
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = watcher.join();
    if result.is_err() || cancel.is_cancelled() {
        if let Some(pid) = rustix::process::Pid::from_raw(leader) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        // Reap what is left of the group (not fsbench's other children).
        loop {
            let mut status = 0;
            // SAFETY: writes one int.
            #[allow(unsafe_code)]
            let pid = unsafe { libc::waitpid(-leader, &mut status, libc::__WALL) };
            if pid <= 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                break;
            }
        }
    }
    cleanup.group_ended(leader);
    drop(registration);
    // `child` was reaped by `follow`; dropping it does not wait.
    drop(child);
    result
}

/// How long the tracer polls for the next stop before it sleeps in `waitpid`. A sleeping
/// tracer must be woken for every stop: here that doubled what tracing cost (`fsbench record
/// -- fsbench __trace-calibrate 3000`: 317 against 146 ms), and the cross-CPU wake-ups it
/// takes landed in the traced thread's own CPU time at 3 to 18 µs a stop instead of a steady
/// 3 µs, which a paced replay must take out.
const SPIN: std::time::Duration = std::time::Duration::from_micros(200);

fn wait_any() -> Option<(i32, i32)> {
    let spin_until = Instant::now() + SPIN;
    loop {
        let mut status = 0;
        let flags = if Instant::now() < spin_until {
            libc::__WALL | libc::WNOHANG
        } else {
            libc::__WALL
        };
        // SAFETY: writes one int.
        #[allow(unsafe_code)]
        let pid = unsafe { libc::waitpid(-1, &mut status, flags) };
        if pid == 0 {
            std::hint::spin_loop();
            continue;
        }
        if pid > 0 {
            return Some((pid, status));
        }
        if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return None;
        }
    }
}

const OPTIONS: libc::c_int = libc::PTRACE_O_EXITKILL
    | libc::PTRACE_O_TRACESECCOMP
    | libc::PTRACE_O_TRACESYSGOOD
    | libc::PTRACE_O_TRACEFORK
    | libc::PTRACE_O_TRACEVFORK
    | libc::PTRACE_O_TRACECLONE
    | libc::PTRACE_O_TRACEEXEC;

/// The tracing loop's state: the tasks followed and what is known of the program's run.
struct Follower<'a> {
    leader: i32,
    tasks: HashMap<i32, Task>,
    status_of_leader: Option<ExitStatus>,
    leader_started: bool,
    last_end: Instant,
    /// The program's own start: the trampoline's execve of it.
    program_started: Option<Instant>,
    observer: &'a mut dyn Observer,
}

/// The tracing loop: every stop of every task until none is left.
fn follow(
    leader: i32,
    started: Instant,
    cancel: &CancelToken,
    observer: &mut dyn Observer,
) -> std::io::Result<Traced> {
    let mut f = Follower {
        leader,
        tasks: HashMap::new(),
        status_of_leader: None,
        leader_started: false,
        last_end: started,
        program_started: None,
        observer,
    };
    // Not "until waitpid has no child": fsbench has children of its own (the scratch guard).
    while f.status_of_leader.is_none() || !f.tasks.is_empty() {
        let Some((tid, status)) = wait_any() else {
            break;
        };
        if libc::WIFEXITED(status) || libc::WIFSIGNALED(status) {
            f.ended(tid, status);
        } else if libc::WIFSTOPPED(status) {
            f.stopped(tid, libc::WSTOPSIG(status), status >> 16, Instant::now())?;
        }
    }
    if cancel.is_cancelled() {
        return Err(std::io::Error::from(std::io::ErrorKind::Interrupted));
    }
    let status = f
        .status_of_leader
        .ok_or_else(|| std::io::Error::other("the traced program's end was not seen"))?;
    let started = f.program_started.unwrap_or(started);
    Ok(Traced {
        status,
        wall_ns: f.last_end.saturating_duration_since(started).as_nanos() as u64,
        started,
    })
}

impl Follower<'_> {
    fn ended(&mut self, tid: i32, status: i32) {
        if let Some(task) = self.tasks.remove(&tid) {
            self.observer.ended(&Tracee { tid, pid: task.pid });
        }
        self.last_end = Instant::now();
        if tid == self.leader {
            self.status_of_leader = Some(ExitStatus::from_raw(status));
        }
    }

    /// Follows `tid` from now on, once; `parent` is the process it was copied from.
    fn adopt(&mut self, tid: i32, pid: i32, parent: Option<i32>) {
        if let std::collections::hash_map::Entry::Vacant(e) = self.tasks.entry(tid) {
            e.insert(Task::new(tid, pid));
            self.observer.spawned(&Tracee { tid, pid }, parent);
        }
    }

    /// One stop of `tid` with signal `sig` and ptrace event `event`, seen at `seen`; the task
    /// is let go on.
    fn stopped(&mut self, tid: i32, sig: i32, event: i32, seen: Instant) -> std::io::Result<()> {
        if !self.leader_started && tid == self.leader {
            // The SIGTRAP after the trampoline's execve: from here every task is followed.
            self.leader_started = true;
            if !request(libc::PTRACE_SETOPTIONS, tid, OPTIONS as usize) {
                return Err(std::io::Error::last_os_error());
            }
            self.adopt(tid, tid, None);
            request(libc::PTRACE_CONT, tid, 0);
            return Ok(());
        }
        if !self.tasks.contains_key(&tid) {
            // A new task's first stop, maybe before its creator's event: its creator is still
            // stopped at that event, so its descriptors are as they were at the copy.
            let pid = tgid_of(tid).unwrap_or(tid);
            let parent = (pid == tid).then(|| ppid_of(tid)).flatten();
            self.adopt(tid, pid, parent);
            if sig == libc::SIGSTOP {
                request(libc::PTRACE_CONT, tid, 0);
                return Ok(());
            }
        }
        let pid = self.tasks[&tid].pid;
        let t = Tracee { tid, pid };
        let mut resume = 0;
        let mut how = libc::PTRACE_CONT;
        match (sig, event) {
            (libc::SIGTRAP, libc::PTRACE_EVENT_SECCOMP) => {
                if let Some(info) = syscall_info(tid).filter(|i| i.op == OP_SECCOMP) {
                    let mut args = [0u64; 6];
                    args.copy_from_slice(&info.data[1..7]);
                    let task = self.tasks.get_mut(&tid).expect("known");
                    task.before = task.lap(seen);
                    self.observer.entry(&t, info.data[0] as i64, args);
                    let task = self.tasks.get_mut(&tid).expect("known");
                    let now = Instant::now();
                    task.in_call = Some(now);
                    task.resumed(now);
                    how = libc::PTRACE_SYSCALL;
                }
            }
            (s, 0) if s == libc::SIGTRAP | 0x80 => {
                let task = self.tasks.get_mut(&tid).expect("known");
                let begun = task.in_call.take();
                let during = task.lap(seen);
                let before = task.before.take();
                if let Some(begun) = begun {
                    if let Some(info) = syscall_info(tid).filter(|i| i.op == OP_EXIT) {
                        let times = CallTimes {
                            started: begun,
                            ended: seen,
                            before,
                            during,
                        };
                        self.observer.exit(&t, info.data[0] as i64, &times);
                    }
                }
                if let Some(task) = self.tasks.get_mut(&tid) {
                    task.resumed(Instant::now());
                }
            }
            (libc::SIGTRAP, libc::PTRACE_EVENT_FORK)
            | (libc::SIGTRAP, libc::PTRACE_EVENT_VFORK)
            | (libc::SIGTRAP, libc::PTRACE_EVENT_CLONE) => {
                if let Some(new) = event_message(tid).map(|m| m as i32) {
                    let npid = tgid_of(new).unwrap_or(new);
                    self.adopt(new, npid, (npid != pid).then_some(pid));
                }
            }
            (libc::SIGTRAP, libc::PTRACE_EVENT_EXEC) => self.exec(tid),
            (_, 0) if is_group_stop(tid) => {}
            // A signal on its way to the task: deliver it.
            (s, 0) => resume = s as usize,
            _ => {}
        }
        request(how, tid, resume);
        Ok(())
    }

    fn exec(&mut self, tid: i32) {
        // A thread that is not the leader ran execve: it now has the leader's id, and the tid
        // it had is gone without an exit of its own.
        if let Some(former) = event_message(tid).map(|m| m as i32) {
            if former != tid && self.tasks.remove(&former).is_some() {
                self.observer.ended(&Tracee {
                    tid: former,
                    pid: tid,
                });
            }
        }
        if let Some(task) = self.tasks.get_mut(&tid) {
            task.in_call = None;
            task.pid = tid;
            // The program's own time starts here (not the trampoline's before it); a thread
            // that ran execve took the leader's id, and its clock with it.
            task.clock = TaskClock::open(tid);
            task.mark = None;
            task.lap(Instant::now());
        }
        if tid == self.leader && self.program_started.is_none() {
            self.program_started = Some(Instant::now());
        }
        self.observer.exec(&Tracee { tid, pid: tid });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_jumps_to_trace_for_each_call_and_allows_the_rest() {
        let f = filter(&[0, 2, 257]);
        assert_eq!(f.len(), 4 + 3 + 2);
        let trace_at = f.len() - 1;
        for (i, ins) in f[4..7].iter().enumerate() {
            assert_eq!(4 + i + 1 + ins.jt as usize, trace_at);
            assert_eq!(ins.jf, 0);
        }
        assert_eq!(f[trace_at].k, libc::SECCOMP_RET_TRACE);
        assert_eq!(f[trace_at - 1].k, libc::SECCOMP_RET_ALLOW);
    }
}
