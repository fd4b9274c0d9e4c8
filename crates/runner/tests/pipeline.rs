//! The whole pipeline in-process on a fake clock (hyperfine's mock executor): a plan of two
//! targets, cold and warm, interleaved, `--runs auto`, then the comparisons and the store. Every
//! sample's wall time comes from the fake clock, so the samples, the order of events and the
//! verdicts are exact.

use fsbench_model::{CacheState, RunStatus, SCHEMA_VERSION};
use fsbench_runner::record::Invocation;
use fsbench_runner::{ClockChoice, Event, Sink, Team};
use fsbench_spec::cold::ColdMethod;
use fsbench_spec::plan::Runs;
use fsbench_spec::{RunSpec, TargetSpec, WorkloadRequest};
use fsbench_workload::CancelToken;

/// Records every event as one line.
#[derive(Default)]
struct Log(Vec<String>);

impl Sink for Log {
    fn event(&mut self, e: Event<'_>) {
        let line = match e {
            Event::Leftover { .. } => "leftover".to_string(),
            Event::Preparing { workload, target } => format!("preparing {workload} on {target}"),
            Event::Prepared { workload, target } => format!("prepared {workload} on {target}"),
            Event::Sample { entry, n, of } => format!(
                "sample {} {} #{n}{} wall={}",
                entry.target,
                entry.cache.state,
                of.map(|o| format!("/{o}")).unwrap_or_default(),
                entry.samples.last().map_or(0, |s| s.wall_ns)
            ),
            Event::Results(r) => format!("results {}", r.len()),
        };
        self.0.push(line);
    }
}

fn plan(a: &std::path::Path, b: &std::path::Path) -> fsbench_spec::plan::Plan {
    let spec = RunSpec {
        targets: vec![
            TargetSpec {
                label: Some("fast".into()),
                dir: a.to_path_buf(),
            },
            TargetSpec {
                label: Some("slow".into()),
                dir: b.to_path_buf(),
            },
        ],
        workloads: vec![WorkloadRequest::parse("null:ops=100").unwrap()],
        runs: Some("auto".into()),
        min_runs: Some(3),
        max_runs: Some(4),
        precision: Some(50.0),
        ..RunSpec::default()
    };
    let mut plan = fsbench_spec::plan::build(&spec).expect("plan");
    // Deterministic whatever the user: `null` has no files, so fadvise has nothing to do.
    plan.cold = Some(ColdMethod::Fadvise);
    plan
}

#[test]
fn two_targets_cold_and_warm_interleaved_auto_runs_are_exact() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let plan = plan(a.path(), b.path());
    assert_eq!(plan.caches, vec![CacheState::Cold, CacheState::Warm]);
    assert!(matches!(plan.runs, Runs::Auto { min: 3, max: 4, .. }));
    let team = Team {
        cluster: fsbench_cluster::Cluster::solo(),
        shared: false,
        // `slow` takes 3x as long per clock reading as `fast`.
        clock: ClockChoice::Fake {
            step_ns: vec![100, 300],
        },
        cleanup: fsbench_sys::cleanup::Cleanup::new(),
        live: Default::default(),
    };
    let mut log = Log::default();
    let out = fsbench_runner::execute(&plan, "pipeline", &CancelToken::new(), &mut log, &team)
        .expect("runs");
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    assert!(!out.interrupted);

    // One `null` sample spans 102 clock steps: the recorder's start, the workload's own first
    // reading, one per op, and the finish. Each target's step is its base plus the sample number modulo 3.
    let walls = |target: &str, cache: CacheState| -> Vec<u64> {
        let e = out
            .results
            .iter()
            .find(|r| r.target == target && r.cache.state == cache)
            .expect("cell");
        e.samples.iter().map(|s| s.wall_ns).collect()
    };
    let steps =
        |base: u64, n: usize| -> Vec<u64> { (0..n).map(|i| (base + i as u64 % 3) * 102).collect() };
    // Precision 50%: three samples that differ by ~1% are enough (min 3).
    assert_eq!(walls("fast", CacheState::Cold), steps(100, 3));
    assert_eq!(walls("slow", CacheState::Cold), steps(300, 3));
    assert_eq!(walls("fast", CacheState::Warm), steps(100, 3));
    assert_eq!(walls("slow", CacheState::Warm), steps(300, 3));
    assert!(
        out.results
            .iter()
            .all(|r| r.samples.iter().all(|s| s.ops == 100))
    );

    // Interleaved: round by round across targets, cold cells before warm ones.
    let samples: Vec<&str> = log
        .0
        .iter()
        .filter(|l| l.starts_with("sample"))
        .map(|l| l.split(" wall=").next().unwrap_or(""))
        .collect();
    assert_eq!(
        samples,
        [
            "sample fast cold #1",
            "sample slow cold #1",
            "sample fast cold #2",
            "sample slow cold #2",
            "sample fast cold #3",
            "sample slow cold #3",
            "sample fast warm #1",
            "sample slow warm #1",
            "sample fast warm #2",
            "sample slow warm #2",
            "sample fast warm #3",
            "sample slow warm #3",
        ]
    );
    assert_eq!(log.0[0], "preparing null on fast");
    assert_eq!(log.0.last().map(String::as_str), Some("results 4"));

    // The comparisons: `slow` against `fast` per cache state, proven at 95%; warm vs cold on
    // one target is not compared when there are several targets.
    // The record as the binary builds and finishes it.
    let invocation = Invocation {
        version: "test".into(),
        ..Invocation::default()
    };
    let mut record = fsbench_runner::record::begin(&plan, invocation, false);
    record.run.id = "pipeline".into();
    let mut out = out;
    fsbench_runner::record::finish(&mut record, &mut out, false, &[], 95.0);
    assert_eq!(record.run.status, RunStatus::Ok);
    assert_eq!(record.schema_version, SCHEMA_VERSION);
    assert_eq!(record.environment.targets.len(), 2);
    assert_eq!(record.comparisons.len(), 2, "{:#?}", record.comparisons);
    for c in &record.comparisons {
        assert!(c.proven && c.comparable, "{c:?}");
        assert!(
            c.baseline.contains("fast") && c.other.contains("slow"),
            "{c:?}"
        );
        assert_eq!(c.metric, fsbench_model::metric::IOPS);
        // Steps of 300-302 ns against 100-102 ns: a third of the IOPS, -66.4%.
        assert!((c.difference_pct + 66.45).abs() < 0.05, "{c:?}");
    }

    // The store keeps exactly what was measured.
    let db = tempfile::tempdir().unwrap();
    let mut store = fsbench_store::Store::open(&db.path().join("r.db")).expect("store");
    store.import(&record).expect("save");
    let back = store.load("pipeline").expect("load");
    assert_eq!(back.results.len(), 4);
    for (x, y) in back.results.iter().zip(&record.results) {
        assert_eq!(x.cache, y.cache);
        let wx: Vec<u64> = x.samples.iter().map(|s| s.wall_ns).collect();
        let wy: Vec<u64> = y.samples.iter().map(|s| s.wall_ns).collect();
        assert_eq!(wx, wy);
    }
}
