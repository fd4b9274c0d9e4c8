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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_too_long_for_the_kernel_is_refused() {
        let err = open_tap("a-name-much-too-long-for-ifnamsiz");
        assert!(err.is_err());
    }
}
