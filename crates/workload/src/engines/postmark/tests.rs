//! Invariants of the `postmark` workload on a temp directory (never timings), plus the counts
//! Debian's postmark 1.53 printed for the same configurations.

use super::*;
use crate::testutil::Harness;

fn metric(d: &fsbench_measure::SampleData, name: &str) -> f64 {
    Harness::metric(d, name)
}

fn work_entries(h: &Harness) -> usize {
    std::fs::read_dir(h.dir.path().join(WORK_DIR))
        .expect("work dir exists")
        .count()
}

#[test]
fn default_configuration_matches_debian_postmark_counts() {
    // `postmark` with no settings: 764 created, 243 read, 257 appended, 528 deleted alone.
    let mut h = Harness::new(build, "");
    let d = h.sample();
    assert_eq!(metric(&d, "files_created"), 764.0);
    assert_eq!(metric(&d, "files_read"), 243.0);
    assert_eq!(metric(&d, "files_appended"), 257.0);
    assert_eq!(metric(&d, "files_deleted"), 764.0);
    assert_eq!(metric(&d, "deleted_alone"), 528.0);
    assert_eq!(work_entries(&h), 0, "directory left empty");
}

#[test]
fn unbuffered_subdirectories_match_debian_postmark_counts() {
    let mut h = Harness::new(
        build,
        "number=20,transactions=100,subdirectories=3,buffering=false",
    );
    let d = h.sample();
    assert_eq!(metric(&d, "files_created"), 77.0);
    assert_eq!(metric(&d, "files_read"), 65.0);
    assert_eq!(metric(&d, "files_appended"), 35.0);
    assert_eq!(metric(&d, "deleted_alone"), 34.0);
    assert_eq!(work_entries(&h), 0, "files and s0..s2 removed");
}

#[test]
fn every_operation_is_recorded_and_samples_repeat_exactly() {
    let mut h = Harness::new(build, "number=30,transactions=60,size_low=1,size_high=3k");
    let a = h.sample();
    let b = h.sample();
    let ops = ["create_ops", "read_ops", "append_ops", "delete_ops"]
        .iter()
        .map(|k| metric(&a, k))
        .sum::<f64>();
    assert_eq!(a.ops as f64, ops);
    assert_eq!(metric(&a, "create_ops"), metric(&a, "files_created"));
    assert_eq!(metric(&a, "delete_ops"), metric(&a, "files_deleted"));
    assert_eq!(metric(&a, "files_created"), metric(&a, "files_deleted"));
    assert_eq!(
        a.bytes as f64,
        metric(&a, "bytes_read") + metric(&a, "bytes_written")
    );
    for k in ["files_created", "files_read", "bytes_written", "bytes_read"] {
        assert_eq!(metric(&a, k), metric(&b, k), "{k} differs between samples");
    }
    let phases: Vec<&str> = a.phases.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(phases, ["create", "transactions", "delete"]);
    assert_eq!(work_entries(&h), 0);
}

#[test]
fn running_out_of_files_is_reported_and_cleaned_up() {
    let mut h = Harness::new(build, "number=5,transactions=200,bias_create=0");
    let d = h.sample();
    assert_eq!(metric(&d, "out_of_files"), 1.0);
    assert_eq!(metric(&d, "files_created"), 5.0);
    assert_eq!(work_entries(&h), 0);
}

#[test]
fn disabled_biases_do_no_transaction_io() {
    let mut h = Harness::new(
        build,
        "number=10,transactions=50,bias_read=-1,bias_create=-1",
    );
    let d = h.sample();
    assert_eq!(metric(&d, "files_created"), 10.0);
    assert_eq!(metric(&d, "files_read") + metric(&d, "files_appended"), 0.0);
    assert_eq!(metric(&d, "deleted_alone"), 10.0);
}

#[test]
fn cancellation_stops_and_removes_everything() {
    let mut h = Harness::new(build, "number=50,subdirectories=4");
    h.ctx.cancel.cancel();
    let mut rec = fsbench_measure::SampleRecorder::new();
    rec.start();
    let e = h.workload.run(&h.ctx, &mut rec).unwrap_err();
    assert!(matches!(e, WorkloadError::Interrupted), "{e}");
    assert_eq!(work_entries(&h), 0);
}

#[test]
fn bad_parameters_are_refused_with_the_key() {
    for (params, key) in [
        ("bias_read=11", "bias_read"),
        ("number=0", "number"),
        ("size_low=2k,size_high=1k", "size_high"),
        ("size_high=2g", "size_high"),
    ] {
        let mut p = Params::parse(params).unwrap();
        let e = build(&mut p).err().expect(params);
        assert_eq!(e.key, key, "{params}: {e}");
    }
}

#[test]
fn sizes_accept_units_and_the_headline_is_wall() {
    let mut p = Params::parse("size_low=500,size_high=1m").unwrap();
    let w = build(&mut p).unwrap();
    assert_eq!(w.caps().headline, Headline::Wall);
    assert!(w.caps().writes);
}

#[test]
fn skewed_transactions_touch_the_hot_files_and_leave_nothing() {
    let mut uniform = Harness::new(build, "number=200,transactions=2000");
    let u = uniform.sample();
    let mut h = Harness::new(build, "number=200,transactions=2000,dist=zipf:1.2");
    let d = h.sample();
    // As many transactions, each a read-or-append (an append to a file already at size_high
    // is skipped, and hot files get there first) and a create-or-delete.
    let done =
        |d: &fsbench_measure::SampleData| metric(d, "files_read") + metric(d, "files_appended");
    assert!(
        done(&d) <= done(&u) && done(&d) > 0.95 * done(&u),
        "{} {}",
        done(&d),
        done(&u)
    );
    assert_eq!(metric(&d, "files_deleted"), metric(&d, "files_created"));
    assert_eq!(work_entries(&h), 0, "directory left empty");
    assert!(
        h.workload.notes()[0].contains("zipf:1.2 over 400 file slots"),
        "{:?}",
        h.workload.notes()
    );
}
