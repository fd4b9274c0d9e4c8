//! TAP devices and network namespaces, for a wire in user space between two simulated hosts
//! (the lab's delayed links where the kernel has no `sch_netem`).

use std::fs::File;
use std::os::fd::AsRawFd;

/// Moves the calling thread into the network namespace of process `pid`.
pub fn enter_net_namespace_of(pid: i32) -> std::io::Result<()> {
    let ns = File::open(format!("/proc/{pid}/ns/net"))?;
    rustix::thread::move_into_link_name_space(
        std::os::fd::AsFd::as_fd(&ns),
        Some(rustix::thread::LinkNameSpaceType::Network),
    )?;
    Ok(())
}

/// Attaches to TAP device `name` of the calling thread's network namespace (made persistent by
/// `ip tuntap add`, or created here), frames without the packet-information header: each read
/// returns one Ethernet frame, each write sends one.
pub fn open_tap(name: &str) -> std::io::Result<File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/net/tun")?;
    // SAFETY: `ifreq` is plain old data, for which all zeroes is a valid value.
    #[allow(unsafe_code)]
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    let bytes = name.as_bytes();
    if bytes.len() >= req.ifr_name.len() || bytes.contains(&0) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("not a device name: {name}"),
        ));
    }
    for (d, s) in req.ifr_name.iter_mut().zip(bytes) {
        *d = *s as libc::c_char;
    }
    req.ifr_ifru.ifru_flags = (libc::IFF_TAP | libc::IFF_NO_PI) as libc::c_short;
    // SAFETY: TUNSETIFF reads and writes the `ifreq` passed, which outlives the call.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), libc::TUNSETIFF, &mut req) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(file)
}

/// Points standard input, output and error at `/dev/null`: a process started by a command that
/// reads its output to the end (the lab's tool runner) lets that command end.
pub fn detach_stdio() -> std::io::Result<()> {
    let null = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")?;
    rustix::stdio::dup2_stdin(&null)?;
    rustix::stdio::dup2_stdout(&null)?;
    rustix::stdio::dup2_stderr(&null)?;
    Ok(())
}

/// Continues this process as a daemon, in a session of its own, with standard input, output
/// and error on `/dev/null`: forks; the child leaves its parent's session and process group,
/// then lets the parent go, which exits 0 (1 if the child died first). Returns in the child only.
///
/// The parent waits for the child's `setsid` because whoever started it may kill its process
/// group as soon as it exits (the lab's tool runner does): a child still in that group, as
/// `setsid -f`'s is between its fork and its `setsid`, would die with it — on a loaded machine
/// it did, and a delayed lab link lost its wire. Call it while the process has one thread.
pub fn continue_as_daemon() -> std::io::Result<()> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `pipe2` writes two descriptors into the array, which outlives the call.
    #[allow(unsafe_code)]
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let [read_end, write_end] = fds;
    // SAFETY: the caller has one thread, so the child is a whole copy of the process and may
    // run any code; the parent only reads, closes and exits.
    #[allow(unsafe_code)]
    let pid = unsafe { libc::fork() };
    match pid {
        -1 => Err(std::io::Error::last_os_error()),
        0 => {
            let in_session = rustix::process::setsid().map(drop).map_err(Into::into);
            let detached = in_session.and_then(|()| detach_stdio());
            let said: &[u8] = if detached.is_ok() { b"1" } else { b"0" };
            // SAFETY: plain descriptor calls on the pipe's ends, owned by this process alone.
            #[allow(unsafe_code)]
            unsafe {
                libc::close(read_end);
                libc::write(write_end, said.as_ptr().cast(), 1);
                libc::close(write_end);
            }
            detached
        }
        _ => {
            let mut byte = [0u8; 1];
            // SAFETY: reads at most one byte into `byte`, which outlives the call; then exits
            // without returning to the caller.
            #[allow(unsafe_code)]
            unsafe {
                libc::close(write_end);
                let n = loop {
                    let n = libc::read(read_end, byte.as_mut_ptr().cast(), 1);
                    if n >= 0
                        || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
                    {
                        break n;
                    }
                };
                libc::_exit(if n == 1 && byte[0] == b'1' { 0 } else { 1 });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_too_long_for_the_kernel_is_refused() {
        let err = open_tap("a-name-much-too-long-for-ifnamsiz");
        assert!(err.is_err());
    }
}
