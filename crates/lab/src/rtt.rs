//! Round-trip times between simulated hosts, timed by fsbench itself rather than by `ping`
//! (which a machine may lack, and which needs a raw or ICMP socket): from a thread moved into the
//! client host's network namespace, TCP connects to a port on the server. A connect returns when
//! the server's SYN-ACK arrives — one round trip — and a refused one when its RST does, so the
//! port's state does not matter; only a connect that times out or fails otherwise is no answer.
//! The first connect is not counted (it waits for the neighbour's address to be resolved).

use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// Connects timed (after one not counted).
pub(crate) const CONNECTS: usize = 10;
/// Longest a connect may wait for its answer.
const ANSWER: Duration = Duration::from_secs(2);

/// Why a round trip could not be timed, in a few words.
#[derive(Debug)]
pub(crate) enum NoRtt {
    /// The client host's network namespace could not be entered.
    Namespace(std::io::Error),
    /// The timing thread could not start, or panicked.
    Thread(String),
    /// A connect got no answer.
    Connect(SocketAddr, std::io::Error),
}

impl std::fmt::Display for NoRtt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Namespace(e) => {
                write!(f, "cannot enter the client host's network namespace: {e}")
            }
            Self::Thread(why) => write!(f, "its thread {why}"),
            Self::Connect(server, e) => write!(f, "TCP connect to {server}: {e}"),
        }
    }
}

/// The median round trip from the network namespace of process `client` to `server`, ms, and
/// how it was measured; or why it could not be.
pub(crate) fn measure(client: i32, server: SocketAddr) -> Result<(f64, String), NoRtt> {
    let thread = std::thread::Builder::new()
        .name("fsbench-rtt".into())
        .spawn(move || {
            fsbench_sys::tap::enter_net_namespace_of(client).map_err(NoRtt::Namespace)?;
            times(server)
        })
        .map_err(|e| NoRtt::Thread(format!("could not start: {e}")))?;
    let mut times = thread
        .join()
        .map_err(|_| NoRtt::Thread("panicked".into()))??;
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let how = format!("TCP connect to {server}, median of {}", times.len());
    Ok((median, how))
}

/// [`CONNECTS`] round trips to `server` from this thread's network namespace, ms.
fn times(server: SocketAddr) -> Result<Vec<f64>, NoRtt> {
    once(server)?;
    (0..CONNECTS).map(|_| once(server)).collect()
}

/// One connect's round trip, ms: an accepted or a refused connection both answered.
fn once(server: SocketAddr) -> Result<f64, NoRtt> {
    let t = Instant::now();
    let answered = match TcpStream::connect_timeout(&server, ANSWER) {
        Ok(stream) => {
            let took = t.elapsed();
            drop(stream);
            took
        }
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => t.elapsed(),
        Err(e) => return Err(NoRtt::Connect(server, e)),
    };
    Ok(answered.as_secs_f64() * 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_trip_is_timed_to_a_listening_and_to_a_closed_port() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let open = listener.local_addr().unwrap();
        // A port nobody listens on: bound, then closed.
        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        for addr in [open, closed] {
            let t = times(addr).unwrap();
            assert_eq!(t.len(), CONNECTS, "{addr}");
            assert!(t.iter().all(|ms| *ms > 0.0), "{t:?}");
        }
    }

    #[test]
    fn an_unreachable_namespace_says_why() {
        let e = measure(i32::MAX, "127.0.0.1:9".parse().unwrap()).unwrap_err();
        assert!(e.to_string().contains("network namespace"), "{e}");
    }
}
