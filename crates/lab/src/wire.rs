//! The simulated link's delay where the kernel cannot add one (no `sch_netem`): a wire in user
//! space (`fsbench __lab-wire`). Each link is a pair of TAP devices instead of a veth pair — one
//! in the client host (a port of its bridge), one in the server host (its `eth0`) — and this
//! process, started inside the client host, carries every Ethernet frame from one to the other
//! after the one-way delay (half the RTT asked for), in both directions. It opens the server's
//! TAP device by entering the server host's network namespace, then returns to the client's.
//!
//! Written by hand because it is the measurement's wire: four threads (a reader and a writer per
//! direction) and a FIFO per direction, each frame due at its arrival plus the delay. The delay
//! is a floor (a sleeping thread wakes a few tens of µs late); the RTT the lab records is the one
//! fsbench measures between the hosts (`crate::rtt`), so what the wire really added is what is
//! reported. The process lives in the client host's PID namespace and dies with it.

use std::fs::File;
use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The hidden command that runs a wire.
pub const COMMAND: &str = "__lab-wire";

/// Largest frame carried: an MTU of 1500 plus the Ethernet header (no offloads are asked for,
/// so the kernel hands over no larger frames); the buffer is generous anyway.
const FRAME_BUFFER: usize = 65_536;

/// The wire's main: `CLIENT_INIT CLIENT_TAP SERVER_INIT SERVER_TAP ONE_WAY_US`. Runs until
/// either device goes (its host ended). Returns the exit code.
pub fn main(args: &[String]) -> i32 {
    match run(args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("fsbench lab wire: {e}");
            1
        }
    }
}

/// Why the wire could not start.
#[derive(Debug)]
enum WireError {
    /// Not the five arguments.
    Usage,
    /// The delay is not a number of microseconds.
    Delay(String),
    /// A host's init is not a process id.
    NotAProcess(String),
    /// `what` failed with `source`.
    Os {
        /// What was being done.
        what: String,
        /// The OS error.
        source: std::io::Error,
    },
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Usage => f.write_str(
                "usage: __lab-wire CLIENT_INIT CLIENT_TAP SERVER_INIT SERVER_TAP ONE_WAY_US",
            ),
            Self::Delay(d) => write!(f, "bad delay '{d}' (microseconds)"),
            Self::NotAProcess(p) => write!(f, "not a process: {p}"),
            Self::Os { what, source } => write!(f, "{what}: {source}"),
        }
    }
}

fn os(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> WireError {
    let what = what.into();
    move |source| WireError::Os { what, source }
}

fn run(args: &[String]) -> Result<(), WireError> {
    let [client, client_tap, server, server_tap, one_way_us] = args else {
        return Err(WireError::Usage);
    };
    let us = one_way_us
        .parse()
        .map_err(|_| WireError::Delay(one_way_us.clone()))?;
    let delay = Duration::from_micros(us);
    let a = open_in(client, client_tap)?;
    let b = open_in(server, server_tap)?;
    // Both ends attached: what could go wrong was said. The wire goes on as a daemon in a
    // session of its own (its starter's process group may be killed once the starter ends), its
    // standard streams on /dev/null (the caller's pipes are let go).
    fsbench_sys::tap::continue_as_daemon().map_err(os("become a daemon"))?;
    let (a2, b2) = (
        a.try_clone().map_err(os("dup"))?,
        b.try_clone().map_err(os("dup"))?,
    );
    let forward = std::thread::spawn(move || carry(a, b, delay));
    carry(b2, a2, delay);
    let _ = forward.join();
    Ok(())
}

/// Opens TAP device `name` in the network namespace of process `init`.
fn open_in(init: &str, name: &str) -> Result<File, WireError> {
    let pid: i32 = init
        .parse()
        .map_err(|_| WireError::NotAProcess(init.to_string()))?;
    fsbench_sys::tap::enter_net_namespace_of(pid)
        .map_err(os(format!("enter host {init}'s network")))?;
    fsbench_sys::tap::open_tap(name).map_err(os(format!("attach to {name}")))
}

/// Carries frames from `from` to `to`, each `delay` after it was read, in order.
fn carry(mut from: File, mut to: File, delay: Duration) {
    let (send, due) = mpsc::channel::<(Instant, Vec<u8>)>();
    let writer = std::thread::spawn(move || {
        for (at, frame) in due {
            let wait = at.saturating_duration_since(Instant::now());
            if !wait.is_zero() {
                std::thread::sleep(wait);
            }
            // A frame the device refuses (its host going down) is dropped, as a wire would.
            let _ = to.write(&frame);
        }
    });
    let mut buf = vec![0u8; FRAME_BUFFER];
    loop {
        match from.read(&mut buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if send
                    .send((Instant::now() + delay, buf[..n].to_vec()))
                    .is_err()
                {
                    break;
                }
            }
        }
    }
    drop(send);
    let _ = writer.join();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_arguments_are_refused_without_touching_a_device() {
        assert_eq!(main(&["1".into()]), 1);
        let args: Vec<String> = ["1", "a", "2", "b", "x"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(main(&args), 1);
    }
}
