//! `rate`, `arrivals` and `think`: how a workload's requests are spaced in time.

use crate::params::{ParamDoc, ParamError, Params};
use fsbench_io::pace::{Pace, Rate, parse_rate};

/// Documentation of `rate`.
pub const RATE_DOC: ParamDoc = ParamDoc {
    key: "rate",
    default: "",
    help: "open loop: N requests/s (2000, 2000iops) or bytes/s (50m), the run's total over jobs and ranks; latency counts from each request's scheduled start; or curve: probe the maximum, then 10%..100% of it",
};

/// Documentation of `arrivals`.
pub const ARRIVALS_DOC: ParamDoc = ParamDoc {
    key: "arrivals",
    default: "fixed",
    help: "with rate=: fixed (evenly spaced) or poisson (exponential gaps, seeded) request times",
};

/// Documentation of `think`.
pub const THINK_DOC: ParamDoc = ParamDoc {
    key: "think",
    default: "0",
    help: "closed loop: pause this long after each request before the next (fio thinktime)",
};

/// Reads `rate`, `arrivals` and `think`; a byte rate becomes requests of `bs`.
pub fn pace_param(p: &mut Params, bs: u64) -> Result<Pace, ParamError> {
    let rate = match p.optional("rate") {
        None => Rate::Unlimited,
        Some(text) => {
            let rate = parse_rate(&text, bs).map_err(|message| ParamError {
                key: "rate".into(),
                message,
            })?;
            p.record("rate", text);
            rate
        }
    };
    // `arrivals` and `think` are recorded only when given, so results from before they existed
    // stay comparable.
    let poisson = p.raw().contains_key("arrivals")
        && p.choice("arrivals", &["fixed", "poisson"], "fixed")? == "poisson";
    if poisson && !matches!(rate, Rate::PerSecond(_)) {
        return Err(ParamError {
            key: "arrivals".into(),
            message: "spaces requests of a rate — add rate=N (requests/s), or drop arrivals".into(),
        });
    }
    let think_ns = match p.raw().contains_key("think") {
        true => p.duration("think", "0")?,
        false => 0,
    };
    if think_ns > 0 && rate != Rate::Unlimited {
        return Err(ParamError {
            key: "think".into(),
            message:
                "pauses a closed loop; with rate= the schedule sets the pace — drop one of them"
                    .into(),
        });
    }
    Ok(Pace {
        rate,
        poisson,
        think_ns,
    })
}

/// Refuses pacing with an engine that keeps several requests in flight (the schedule paces one
/// request at a time).
pub fn check_engine(pace: &Pace, queue: fsbench_io::queue::Queue) -> Result<(), ParamError> {
    if pace.full_speed() || queue.engine != fsbench_io::queue::Engine::IoUring {
        return Ok(());
    }
    let key = if pace.think_ns > 0 { "think" } else { "rate" };
    Err(ParamError {
        key: key.into(),
        message: "paces one request at a time (engine=psync); for concurrency under a rate, add jobs=N (each takes its share of the rate)".into(),
    })
}

/// The pace of a sequential workload's jobs (`rate=` is the run's total, shared by its jobs):
/// paced requests go one at a time, so not with io_uring at depth.
pub fn sequential(
    p: &mut Params,
    bs: u64,
    queue: fsbench_io::queue::Queue,
    jobs: fsbench_io::queue::Jobs,
) -> Result<Pace, ParamError> {
    let pace = pace_param(p, bs)?;
    check_engine(&pace, queue)?;
    if matches!(pace.rate, Rate::Curve(_)) {
        return Err(ParamError {
            key: "rate".into(),
            message: "curve runs for a time per step; a sequential pass has a size — use rate=curve with rand-read or rand-write".into(),
        });
    }
    Ok(pace.share(jobs.count as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_and_poisson_need_the_right_partner() {
        let mut p = Params::parse("arrivals=poisson").unwrap();
        assert_eq!(pace_param(&mut p, 4096).unwrap_err().key, "arrivals");
        let mut p = Params::parse("rate=100,think=1ms").unwrap();
        assert_eq!(pace_param(&mut p, 4096).unwrap_err().key, "think");
        let mut p = Params::parse("rate=100,arrivals=poisson").unwrap();
        let pace = pace_param(&mut p, 4096).unwrap();
        assert!(pace.poisson);
        assert_eq!(pace.share(4).rate, Rate::PerSecond(25.0));
    }
}
