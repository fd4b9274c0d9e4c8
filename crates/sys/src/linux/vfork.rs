//! Starting a measured program as cheaply as `posix_spawn` (hyperfine's way), with every
//! guarantee of [`crate::child::spawn`]: its own process group, SIGKILL from the kernel when
//! fsbench dies (`PR_SET_PDEATHSIG`, even on SIGKILL of fsbench), the group killed on
//! cancellation, and the group registered with the cleanup registry and its watcher.
//!
//! Written by hand because it is inside the measurement: `std::process::Command` forks the
//! whole fsbench process as soon as a `pre_exec` hook is set (the death signal needs one), and
//! copying fsbench's page tables (its threads' stacks, histograms, the store's pages) cost the
//! program under test ~0.5 ms of system time a start. Here the child is a `clone(CLONE_VM |
//! CLONE_VFORK)` of the calling thread on a stack of its own, as glibc's `posix_spawn` makes it:
//! it shares fsbench's memory until its `execve`, copies nothing, and makes only raw system
//! calls on data prepared before the clone. The end is seen through a pidfd the moment it
//! happens, not at the next turn of a polling loop.
//!
//! Used for every child whose time or CPU a sample holds: the `command` workload's program (and
//! the traced program's untraced runs), walk workers, card jobs and `--cold-cmd`. Each of its
//! standard streams is `/dev/null`, a pipe, or a descriptor of fsbench's ([`Io`]).

use crate::cancel::CancelToken;
use crate::child::WaitError;
use crate::cleanup::{Cleanup, Registration, Stage};
use std::ffi::{CString, OsStr, OsString};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

/// The child's stack until its `execve`: it runs a few system calls only.
const STACK: usize = 64 * 1024;

/// One past the highest signal number (Linux's `_NSIG`).
const NSIG: libc::c_int = 65;

/// What to start: a program, its arguments and its working directory. Where its standard
/// streams go is given when it is made ready ([`Command::ready`], [`Command::ready_with`]).
#[derive(Debug, Clone)]
pub struct Command {
    program: OsString,
    args: Vec<OsString>,
    cwd: Option<PathBuf>,
}

impl Command {
    /// `program` (a path, or a name looked up on `$PATH` as a shell does), no arguments yet.
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        Self {
            program: program.as_ref().to_os_string(),
            args: Vec::new(),
            cwd: None,
        }
    }

    /// Adds an argument.
    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Self {
        self.args.push(arg.as_ref().to_os_string());
        self
    }

    /// Adds arguments.
    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(&mut self, args: I) -> &mut Self {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// Runs the program in `dir`.
    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.cwd = Some(dir.as_ref().to_path_buf());
        self
    }
}

/// Where one of the child's standard streams goes.
#[derive(Debug)]
pub enum Io<'a> {
    /// `/dev/null`.
    Null,
    /// A new pipe: fsbench keeps the other end ([`Child::take_stdin`], [`Child::take_stdout`],
    /// [`Child::take_stderr`]).
    Piped,
    /// A descriptor of fsbench's, borrowed for the start.
    Borrowed(std::os::fd::BorrowedFd<'a>),
    /// A descriptor given to the child: fsbench's copy is closed once the child has it.
    Owned(OwnedFd),
}

/// Everything the child needs, made before the clone: the child may not allocate.
struct Prepared {
    path: CString,
    /// Owners of what `argv_ptrs` and `envp_ptrs` point to.
    _argv: Vec<CString>,
    _envp: Vec<CString>,
    cwd: Option<CString>,
    /// Pointers into `argv` and `envp`, NULL-terminated.
    argv_ptrs: Vec<*const libc::c_char>,
    envp_ptrs: Vec<*const libc::c_char>,
    /// Descriptors for 0, 1 and 2.
    stdio: [RawFd; 3],
    /// fsbench's pid: the child checks that its parent is still it after asking for the death
    /// signal.
    parent: libc::pid_t,
    /// `errno` of a failed step, written by the child (shared memory until `execve`).
    error: libc::c_int,
}

fn c_string(s: &OsStr) -> std::io::Result<CString> {
    CString::new(s.as_bytes()).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("a NUL byte in '{}'", s.to_string_lossy()),
        )
    })
}

/// The program's path: as given when it names a directory, else the first executable of that
/// name on `$PATH`.
fn resolve(program: &OsStr) -> std::io::Result<PathBuf> {
    if program.as_bytes().contains(&b'/') {
        return Ok(PathBuf::from(program));
    }
    crate::process::find_program(&program.to_string_lossy()).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{} not found on PATH", program.to_string_lossy()),
        )
    })
}

/// The child, on its own stack, sharing the parent's memory until `execve`: only raw system
/// calls on `Prepared`, no allocation, no lock.
extern "C" fn child_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the `Prepared` the parent passed, alive and unchanged until this child
    // has exec'd or exited (CLONE_VFORK suspends the parent until then).
    #[allow(unsafe_code)]
    unsafe {
        let p = &mut *(arg as *mut Prepared);
        let fail = |p: &mut Prepared| -> libc::c_int {
            p.error = *libc::__errno_location();
            libc::_exit(127)
        };
        if libc::setpgid(0, 0) != 0 {
            return fail(p);
        }
        if libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        ) != 0
        {
            return fail(p);
        }
        // fsbench died before the death signal was asked for: do not run orphaned.
        if libc::getppid() != p.parent {
            libc::_exit(137);
        }
        // Handlers are fsbench's code: the program starts with every caught signal at its
        // default, SIGPIPE too (as std's spawn does), ignored ones still ignored.
        for sig in 1..NSIG {
            if sig == libc::SIGKILL || sig == libc::SIGSTOP {
                continue;
            }
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) != 0 {
                continue;
            }
            if (old.sa_sigaction != libc::SIG_IGN && old.sa_sigaction != libc::SIG_DFL)
                || sig == libc::SIGPIPE
            {
                let mut dfl: libc::sigaction = std::mem::zeroed();
                dfl.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(sig, &dfl, std::ptr::null_mut());
            }
        }
        for (target, &fd) in p.stdio.iter().enumerate() {
            let target = target as RawFd;
            if fd == target {
                // Already there: only let it survive the exec.
                let flags = libc::fcntl(fd, libc::F_GETFD);
                if flags < 0 || libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                    return fail(p);
                }
            } else if libc::dup2(fd, target) < 0 {
                return fail(p);
            }
        }
        if let Some(dir) = &p.cwd
            && libc::chdir(dir.as_ptr()) != 0
        {
            return fail(p);
        }
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::pthread_sigmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        libc::execve(p.path.as_ptr(), p.argv_ptrs.as_ptr(), p.envp_ptrs.as_ptr());
        fail(p)
    }
}

/// A program started by [`spawn`], leader of its own process group; the group is killed when
/// this is dropped before the program was reaped.
#[derive(Debug)]
pub struct Child {
    pid: libc::pid_t,
    pidfd: OwnedFd,
    /// When its exit was seen (its pidfd became readable).
    exited_at: Option<Instant>,
    reaped: bool,
    registration: Option<Registration>,
    cleanup: Cleanup,
    stdin: Option<std::fs::File>,
    stdout: Option<std::fs::File>,
    stderr: Option<std::fs::File>,
}

/// Starts `cmd` (standard input and output on `/dev/null`, standard error on `stderr`) in a
/// process group of its own that dies with fsbench; `cleanup` kills the group if fsbench must
/// stop before it is reaped.
pub fn spawn(cmd: &Command, stderr: &impl AsFd, cleanup: &Cleanup) -> std::io::Result<Child> {
    cmd.ready(stderr)?.spawn(cleanup)
}

/// A program ready to start: its path found, its arguments and environment made, its standard
/// streams opened and the child's stack allocated, so that [`Ready::spawn`] does only the
/// start (what a caller times begins there). Borrows the descriptors it was given.
pub struct Ready<'a> {
    prepared: Box<Prepared>,
    stack: Vec<u8>,
    /// The child's ends of its streams (pipes' ends, `/dev/null`, given descriptors), closed
    /// here once it has them.
    for_child: Vec<OwnedFd>,
    /// fsbench's ends of the pipes: standard input, output, error.
    kept: [Option<std::fs::File>; 3],
    _borrowed: std::marker::PhantomData<&'a ()>,
}

/// The descriptor the child gets as stream `target` for `io`, and fsbench's end of a pipe.
/// Every new descriptor is close-on-exec and above 2, so that setting up one stream in the
/// child never overwrites the source of another.
fn child_end(
    io: Io<'_>,
    target: RawFd,
    for_child: &mut Vec<OwnedFd>,
) -> std::io::Result<(RawFd, Option<std::fs::File>)> {
    let above_stdio = |fd: OwnedFd| -> std::io::Result<OwnedFd> {
        if fd.as_raw_fd() > 2 {
            return Ok(fd);
        }
        Ok(rustix::io::fcntl_dupfd_cloexec(&fd, 3)?)
    };
    let (fd, kept) = match io {
        Io::Null => {
            let null = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open("/dev/null")?;
            (above_stdio(null.into())?, None)
        }
        Io::Piped => {
            let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
            let (child, parent) = if target == 0 {
                (read, write)
            } else {
                (write, read)
            };
            (above_stdio(child)?, Some(std::fs::File::from(parent)))
        }
        // Already the stream it is to be: passed as it is (the child only clears close-on-exec).
        Io::Borrowed(fd) if fd.as_raw_fd() == target => return Ok((target, None)),
        Io::Borrowed(fd) => (above_stdio(fd.try_clone_to_owned()?)?, None),
        Io::Owned(fd) if fd.as_raw_fd() == target => {
            let raw = fd.as_raw_fd();
            for_child.push(fd);
            return Ok((raw, None));
        }
        Io::Owned(fd) => (above_stdio(fd)?, None),
    };
    let raw = fd.as_raw_fd();
    for_child.push(fd);
    Ok((raw, kept))
}

impl Command {
    /// Everything the start needs, made now (standard input and output on `/dev/null`,
    /// standard error on `stderr`).
    pub fn ready<'a>(&self, stderr: &'a impl AsFd) -> std::io::Result<Ready<'a>> {
        self.ready_with([Io::Null, Io::Null, Io::Borrowed(stderr.as_fd())])
    }

    /// Everything the start needs, made now, with standard input, output and error as `stdio`
    /// says.
    pub fn ready_with<'a>(&self, stdio: [Io<'a>; 3]) -> std::io::Result<Ready<'a>> {
        let cmd = self;
        let mut for_child = Vec::new();
        let mut kept = [None, None, None];
        let mut fds = [0; 3];
        for (target, io) in stdio.into_iter().enumerate() {
            let (fd, parent_end) = child_end(io, target as RawFd, &mut for_child)?;
            fds[target] = fd;
            kept[target] = parent_end;
        }
        let path = c_string(resolve(&cmd.program)?.as_os_str())?;
        let mut argv = vec![c_string(&cmd.program)?];
        for a in &cmd.args {
            argv.push(c_string(a)?);
        }
        let mut envp = Vec::new();
        for (k, v) in std::env::vars_os() {
            let mut kv = k;
            kv.push("=");
            kv.push(v);
            envp.push(c_string(&kv)?);
        }
        let cwd = cmd
            .cwd
            .as_ref()
            .map(|d| c_string(d.as_os_str()))
            .transpose()?;
        let null_then_ptrs = |v: &[CString]| -> Vec<*const libc::c_char> {
            v.iter()
                .map(|s| s.as_ptr())
                .chain(std::iter::once(std::ptr::null()))
                .collect()
        };
        let (argv_ptrs, envp_ptrs) = (null_then_ptrs(&argv), null_then_ptrs(&envp));
        let prepared = Box::new(Prepared {
            path,
            _argv: argv,
            _envp: envp,
            cwd,
            argv_ptrs,
            envp_ptrs,
            stdio: fds,
            parent: rustix::process::getpid().as_raw_nonzero().get(),
            error: 0,
        });
        Ok(Ready {
            prepared,
            stack: vec![0u8; STACK],
            for_child,
            kept,
            _borrowed: std::marker::PhantomData,
        })
    }
}

impl Ready<'_> {
    /// Starts the program in a process group of its own that dies with fsbench; `cleanup`
    /// kills the group if fsbench must stop before it is reaped.
    pub fn spawn(self, cleanup: &Cleanup) -> std::io::Result<Child> {
        let Ready {
            mut prepared,
            mut stack,
            for_child,
            kept,
            ..
        } = self;
        // SAFETY: the child runs `child_main` on `stack` (its top, 16-byte aligned, passed as the
        // stack pointer) with `prepared`, both alive until `clone` returns: CLONE_VFORK suspends
        // this thread until the child has exec'd or exited. Every signal is blocked around the
        // clone so that no handler of fsbench's runs on the child's stack in shared memory; the
        // child resets handlers and the mask before its `execve`.
        #[allow(unsafe_code)]
        let pid = unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
            let top = stack.as_mut_ptr().add(STACK);
            let top = top.sub(top as usize % 16);
            let pid = libc::clone(
                child_main,
                top.cast(),
                libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                (&mut *prepared as *mut Prepared).cast(),
            );
            let clone_error = std::io::Error::last_os_error();
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            if pid < 0 {
                return Err(clone_error);
            }
            pid
        };
        drop(stack);
        // The child has its ends (or failed): fsbench's copies are closed, so that a pipe's
        // reader sees its end when the child exits.
        drop(for_child);
        if prepared.error != 0 {
            // The child failed before its program ran: reap it and say why.
            let mut status = 0;
            // SAFETY: waits for our own child, writing into `status`.
            #[allow(unsafe_code)]
            unsafe {
                libc::waitpid(pid, &mut status, 0)
            };
            return Err(std::io::Error::from_raw_os_error(prepared.error));
        }
        let pidfd = match pidfd_of(pid) {
            Ok(fd) => fd,
            Err(e) => {
                kill_and_reap(pid);
                return Err(e);
            }
        };
        let registration = cleanup.register(Stage::Processes, move || {
            // SAFETY: a signal to a process group this process started.
            #[allow(unsafe_code)]
            unsafe {
                libc::kill(-pid, libc::SIGKILL)
            };
            Vec::new()
        });
        cleanup.group_started(pid);
        let [stdin, stdout, stderr] = kept;
        Ok(Child {
            pid,
            pidfd,
            exited_at: None,
            reaped: false,
            registration: Some(registration),
            cleanup: cleanup.clone(),
            stdin,
            stdout,
            stderr,
        })
    }
}

/// A pidfd of child `pid` (not yet reaped, so the pid is still its).
fn pidfd_of(pid: libc::pid_t) -> std::io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    #[allow(unsafe_code)]
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor, owned by no one else.
    #[allow(unsafe_code)]
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

fn kill_and_reap(pid: libc::pid_t) {
    let mut status = 0;
    // SAFETY: signals and reaps our own child.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, &mut status, 0);
    }
}

impl Child {
    /// The program's pid (also its process group's id).
    pub fn id(&self) -> u32 {
        self.pid as u32
    }

    /// fsbench's end of the program's standard input, when it was [`Io::Piped`] (once).
    pub fn take_stdin(&mut self) -> Option<std::fs::File> {
        self.stdin.take()
    }

    /// fsbench's end of the program's standard output, when it was [`Io::Piped`] (once).
    pub fn take_stdout(&mut self) -> Option<std::fs::File> {
        self.stdout.take()
    }

    /// fsbench's end of the program's standard error, when it was [`Io::Piped`] (once).
    pub fn take_stderr(&mut self) -> Option<std::fs::File> {
        self.stderr.take()
    }

    /// Waits until the program exits, `cancel` is set, or `timeout` passes (the last two kill
    /// the whole group), and reaps it.
    pub fn wait(
        &mut self,
        cancel: &CancelToken,
        timeout: Option<Duration>,
    ) -> Result<ExitStatus, WaitError> {
        self.wait_then(cancel, timeout, &mut || {})
    }

    /// When [`Child::wait_then`] saw the program exit, before anything else ran (`before_reap`,
    /// the reaping): the end of its wall time. `None` until then.
    pub fn exited_at(&self) -> Option<Instant> {
        self.exited_at
    }

    /// Waits until the program exits (seen at once, through its pidfd), `cancel` is set, or
    /// `timeout` passes; the last two kill the whole group. Once it has exited, `before_reap`
    /// runs while it is still a zombie (its `/proc` counters can still be read), then it is
    /// reaped.
    pub fn wait_then(
        &mut self,
        cancel: &CancelToken,
        timeout: Option<Duration>,
        before_reap: &mut dyn FnMut(),
    ) -> Result<ExitStatus, WaitError> {
        let start = Instant::now();
        loop {
            // The cancel token is looked at every 10 ms; an exit wakes the poll at once.
            let mut fds = [libc::pollfd {
                fd: self.pidfd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            }];
            // SAFETY: one pollfd, valid for the call.
            #[allow(unsafe_code)]
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), 1, 10) };
            if ready < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    self.kill();
                    return Err(WaitError::Io(e));
                }
            }
            if ready > 0 {
                self.exited_at = Some(Instant::now());
                crate::child::note_peak_memory_of(self.pid);
                before_reap();
                let mut status = 0;
                // SAFETY: reaps our own exited child, writing into `status`.
                #[allow(unsafe_code)]
                let got = unsafe { libc::waitpid(self.pid, &mut status, 0) };
                if got != self.pid {
                    let e = std::io::Error::last_os_error();
                    self.finish();
                    return Err(WaitError::Io(e));
                }
                self.finish();
                return Ok(ExitStatus::from_raw(status));
            }
            if let Some(why) = crate::child::stop_waiting(cancel, start, timeout) {
                self.kill();
                return Err(why);
            }
        }
    }

    /// Kills the group (TERM, 200 ms grace, KILL) and reaps the leader.
    pub fn kill(&mut self) {
        if self.reaped {
            return;
        }
        crate::child::kill_group(self.pid);
        let mut status = 0;
        // SAFETY: reaps our own child, writing into `status`.
        #[allow(unsafe_code)]
        unsafe {
            libc::waitpid(self.pid, &mut status, 0)
        };
        self.finish();
    }

    fn finish(&mut self) {
        self.reaped = true;
        // Members that outlived their leader are killed with it.
        // SAFETY: a signal to the process group this process started.
        #[allow(unsafe_code)]
        unsafe {
            libc::kill(-self.pid, libc::SIGKILL)
        };
        self.registration = None;
        self.cleanup.group_ended(self.pid);
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stderr_file() -> std::fs::File {
        std::fs::File::from(
            rustix::fs::memfd_create("test-stderr", rustix::fs::MemfdFlags::CLOEXEC).unwrap(),
        )
    }

    fn run(cmd: &Command) -> (ExitStatus, String) {
        use std::io::{Read, Seek};
        let mut err = stderr_file();
        let mut child = spawn(cmd, &err, &Cleanup::new()).unwrap();
        let status = child
            .wait_then(&CancelToken::new(), None, &mut || {})
            .unwrap();
        let mut text = String::new();
        err.rewind().unwrap();
        err.read_to_string(&mut text).unwrap();
        (status, text)
    }

    #[test]
    fn the_program_runs_with_its_arguments_directory_and_standard_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new("sh");
        cmd.args([
            "-c",
            "pwd >&2; echo \"$0 $1\" >&2; read x; exit 3",
            "a b",
            "c",
        ])
        .current_dir(dir.path());
        let (status, text) = run(&cmd);
        // `read` from /dev/null fails at once: standard input is not fsbench's.
        assert_eq!(status.code(), Some(3), "{text}");
        let want = format!("{}\na b c\n", dir.path().canonicalize().unwrap().display());
        assert_eq!(text, want);
    }

    #[test]
    fn piped_streams_reach_the_program_and_come_back_and_a_given_descriptor_is_its_input() {
        use std::io::{Read, Write};
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "read x; echo \"out:$x\"; echo \"err:$x\" >&2"]);
        let mut child = cmd
            .ready_with([Io::Piped, Io::Piped, Io::Piped])
            .unwrap()
            .spawn(&Cleanup::new())
            .unwrap();
        let mut input = child.take_stdin().expect("a pipe to its input");
        assert!(child.take_stdin().is_none(), "taken once");
        input.write_all(b"hello\n").unwrap();
        drop(input);
        let (mut out, mut err) = (String::new(), String::new());
        child
            .take_stdout()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        child
            .take_stderr()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait(&CancelToken::new(), None).unwrap();
        assert!(status.success());
        assert_eq!((out.as_str(), err.as_str()), ("out:hello\n", "err:hello\n"));

        // A file given as its input (owned: fsbench's copy is closed once the child has it),
        // its output on a borrowed memfd.
        let mut given = tempfile::tempfile().unwrap();
        given.write_all(b"from a file\n").unwrap();
        std::io::Seek::rewind(&mut given).unwrap();
        let mut sink = stderr_file();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "read x; echo \"[$x]\""]);
        let mut child = cmd
            .ready_with([
                Io::Owned(given.into()),
                Io::Borrowed(std::os::fd::AsFd::as_fd(&sink)),
                Io::Null,
            ])
            .unwrap()
            .spawn(&Cleanup::new())
            .unwrap();
        assert!(child.take_stdout().is_none(), "not piped");
        assert!(child.wait(&CancelToken::new(), None).unwrap().success());
        let mut text = String::new();
        std::io::Seek::rewind(&mut sink).unwrap();
        sink.read_to_string(&mut text).unwrap();
        assert_eq!(text, "[from a file]\n");
    }

    #[test]
    fn a_reader_of_its_output_sees_the_end_when_it_exits() {
        use std::io::Read;
        // fsbench's copies of the child's pipe ends are closed: the read ends with the child,
        // it does not hang on a writer fsbench itself still holds.
        let mut child = Command::new("true")
            .ready_with([Io::Piped, Io::Piped, Io::Piped])
            .unwrap()
            .spawn(&Cleanup::new())
            .unwrap();
        let mut out = Vec::new();
        child.take_stdout().unwrap().read_to_end(&mut out).unwrap();
        assert!(out.is_empty());
        assert!(child.wait(&CancelToken::new(), None).unwrap().success());
    }

    #[test]
    fn a_missing_program_or_directory_is_an_error_not_a_child() {
        let err = spawn(
            &Command::new("no-such-program-fsbench"),
            &stderr_file(),
            &Cleanup::new(),
        )
        .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
        let mut cmd = Command::new("true");
        cmd.current_dir("/no/such/dir/fsbench");
        let err = spawn(&cmd, &stderr_file(), &Cleanup::new()).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOENT), "{err}");
    }

    #[test]
    fn the_child_leads_its_own_group_asks_for_the_death_signal_and_is_killed_with_it() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 30 & sleep 30; wait"]);
        let mut child = spawn(&cmd, &stderr_file(), &Cleanup::new()).unwrap();
        let pid = child.id();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        assert_eq!(fields[2], pid.to_string(), "its own process group: {stat}");
        let r = child.wait_then(
            &CancelToken::new(),
            Some(Duration::from_millis(50)),
            &mut || {},
        );
        assert!(matches!(r, Err(WaitError::TimedOut(_))), "{r:?}");
        let members = crate::child::live_members_within(pid as i32, Duration::from_secs(10));
        assert!(members.is_empty(), "the group was killed: {members:?} live");
    }

    /// Minor page faults of the calling thread so far.
    fn thread_faults() -> i64 {
        // SAFETY: getrusage writes into the zeroed struct, which outlives the call.
        #[allow(unsafe_code)]
        unsafe {
            let mut ru: libc::rusage = std::mem::zeroed();
            libc::getrusage(libc::RUSAGE_THREAD, &mut ru);
            ru.ru_minflt
        }
    }

    /// The faults this thread takes rewriting `pages` pages of its own after `start` ran: each
    /// page written after a fork faults once (fork made the parent's pages copy-on-write).
    fn faults_after(start: impl FnOnce(), pages: usize) -> i64 {
        let page = 4096;
        // SAFETY: a private anonymous mapping, released below; no huge pages, so that a fork's
        // faults are one a page.
        #[allow(unsafe_code)]
        let buf = unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                pages * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(p, libc::MAP_FAILED);
            libc::madvise(p, pages * page, libc::MADV_NOHUGEPAGE);
            std::slice::from_raw_parts_mut(p.cast::<u8>(), pages * page)
        };
        let mut touch = |v: u8| {
            for i in 0..pages {
                // Volatile: each page is really written.
                #[allow(unsafe_code)]
                // SAFETY: within the mapping.
                unsafe {
                    std::ptr::write_volatile(&mut buf[i * page], v)
                };
            }
        };
        touch(1);
        start();
        let before = thread_faults();
        touch(2);
        let faults = thread_faults() - before;
        // SAFETY: the mapping made above, no longer used.
        #[allow(unsafe_code)]
        unsafe {
            libc::munmap(buf.as_mut_ptr().cast(), pages * page)
        };
        faults
    }

    #[test]
    fn a_start_does_not_copy_this_process_where_a_fork_does() {
        let pages = 16_384; // 64 MiB
        let quick = faults_after(
            || {
                let (status, _) = run(&Command::new("true"));
                assert!(status.success());
            },
            pages,
        );
        assert!(
            quick < 64,
            "{quick} faults rewriting {pages} pages after a start"
        );
        // The same measure sees a fork: std's spawn with a pre_exec hook (the death signal's).
        let forked = faults_after(
            || {
                let mut c = std::process::Command::new("true");
                let mut g = crate::child::spawn(&mut c, &Cleanup::new()).unwrap();
                assert!(g.wait(&CancelToken::new(), None).unwrap().success());
            },
            pages,
        );
        assert!(
            forked >= pages as i64 / 2,
            "{forked} faults rewriting {pages} pages after a fork"
        );
    }
}
