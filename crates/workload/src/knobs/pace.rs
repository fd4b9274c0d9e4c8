//! `rate`, `arrivals` and `think`: how a workload's requests are spaced in time.

use crate::knob::{self, Knob};
use crate::params::{ParamError, Params};
use fsbench_io::pace::{Pace, Rate, parse_rate};

/// `rate`: an open loop's request rate, or `curve`.
pub const RATE: Knob<Option<String>> = knob::optional(
    "rate",
    "open loop: N requests/s (2000, 2000iops) or bytes/s (50m), the run's total over jobs and ranks; latency counts from each request's scheduled start; or curve: probe the maximum, then 10%..100% of it",
);

/// `arrivals`: how an open loop's requests are spaced.
pub const ARRIVALS: Knob<bool> = Knob::new(
    "arrivals",
    "fixed",
    "with rate=: fixed (evenly spaced) or poisson (exponential gaps, seeded) request times",
    |p, k, d| Ok(p.choice(k, &["fixed", "poisson"], d)? == "poisson"),
);

/// `think`: a closed loop's pause after each request.
pub const THINK: Knob<u64> = Knob::new(
    "think",
    "0",
    "closed loop: pause this long after each request before the next (fio thinktime)",
    Params::duration,
);

/// Reads `rate`, `arrivals` and `think`; a byte rate becomes requests of `bs`.
pub fn pace_param(p: &mut Params, bs: u64) -> Result<Pace, ParamError> {
    let rate = match RATE.read(p)? {
        None => Rate::Unlimited,
        Some(text) => parse_rate(&text, bs).map_err(|message| RATE.error(message))?,
    };
    // `arrivals` and `think` are recorded only when given, so results from before they existed
    // stay comparable.
    let poisson = ARRIVALS.read_if_given(p)?.unwrap_or(false);
    if poisson && !matches!(rate, Rate::PerSecond(_)) {
        return Err(
            ARRIVALS.error("spaces requests of a rate — add rate=N (requests/s), or drop arrivals")
        );
    }
    let think_ns = THINK.read_if_given(p)?.unwrap_or(0);
    if think_ns > 0 && rate != Rate::Unlimited {
        return Err(THINK.error(
            "pauses a closed loop; with rate= the schedule sets the pace — drop one of them",
        ));
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
    let knob = if pace.think_ns > 0 {
        THINK.key
    } else {
        RATE.key
    };
    Err(ParamError {
        key: knob.into(),
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
        return Err(RATE.error(
            "curve runs for a time per step; a sequential pass has a size — use rate=curve with rand-read or rand-write",
        ));
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
