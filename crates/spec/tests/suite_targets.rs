//! Suites go straight into the run specification: a `[[target]]` keeps its directory and label
//! exactly as written (no `LABEL=DIR` text to parse again), and a value given on the command
//! line wins over the suite's even when it equals the default.

use fsbench_spec::plan::{self, Runs};
use fsbench_spec::suite;
use fsbench_spec::{RunSpec, WorkloadRequest};
use std::path::Path;

fn suite_file(dir: &Path, body: &str) -> String {
    let path = dir.join("s.toml");
    let text = format!(
        "name = \"t\"\nruns = 5\ncache = \"warm\"\n\n[[workload]]\nname = \"null\"\n\n{body}"
    );
    std::fs::write(&path, text).expect("write suite");
    path.to_str().expect("utf-8 temp path").to_string()
}

fn resolved(file: String, spec: RunSpec) -> (RunSpec, plan::Plan) {
    let mut spec = RunSpec {
        suite: Some(file),
        ..spec
    };
    suite::resolve(&mut spec).expect("suite resolves");
    let plan = plan::build(&spec).expect("plan builds");
    (spec, plan)
}

#[test]
fn a_target_with_an_absolute_dir_and_no_label_is_labelled_by_its_dir() {
    let t = tempfile::tempdir().unwrap();
    let target = t.path().join("data");
    std::fs::create_dir(&target).unwrap();
    let body = format!("[[target]]\ndir = \"{}\"\n", target.display());
    let (_, plan) = resolved(suite_file(t.path(), &body), RunSpec::default());
    assert_eq!(plan.targets.len(), 1);
    assert_eq!(plan.targets[0].label, target.display().to_string());
    assert_eq!(plan.targets[0].path, target.canonicalize().unwrap());
}

#[test]
fn a_label_with_an_equals_sign_is_kept_whole() {
    let t = tempfile::tempdir().unwrap();
    let body = format!(
        "[[target]]\nlabel = \"ext4=noatime\"\ndir = \"{}\"\n",
        t.path().display()
    );
    let (_, plan) = resolved(suite_file(t.path(), &body), RunSpec::default());
    assert_eq!(plan.targets[0].label, "ext4=noatime");
    assert_eq!(plan.targets[0].path, t.path().canonicalize().unwrap());
}

#[test]
fn an_explicit_value_equal_to_the_default_wins_over_the_suite() {
    let t = tempfile::tempdir().unwrap();
    let body = format!("[[target]]\ndir = \"{}\"\n", t.path().display());
    let file = suite_file(t.path(), &body);
    let (_, plan) = resolved(file.clone(), RunSpec::default());
    assert_eq!(
        plan.runs,
        Runs::Fixed(5),
        "the suite's runs apply when none is given"
    );
    let explicit = RunSpec {
        runs: Some("3".into()),
        ..RunSpec::default()
    };
    let (spec, plan) = resolved(file, explicit);
    assert_eq!(spec.runs.as_deref(), Some("3"));
    assert_eq!(
        plan.runs,
        Runs::Fixed(3),
        "--runs 3 is not mistaken for the default"
    );
}

#[test]
fn suite_workloads_keep_values_with_commas_and_quotes_as_written() {
    let req = WorkloadRequest {
        name: "command".into(),
        params: vec![("run".into(), vec!["printf 'a,b=c'".into()])],
        origin: "workload in a test".into(),
    };
    let ws = plan::expand(&req).expect("one command with a comma and a quote");
    assert_eq!(ws.len(), 1);
    assert_eq!(ws[0].raw["run"], "printf 'a,b=c'");
}
