//! MPI runs (`mpirun -n 4 fsbench run ...`): ranks add up into one table and one stored run,
//! in both layouts; a failing rank ends the sample everywhere; Ctrl-C on mpirun leaves no
//! scratch and no process. They need an fsbench built with `--features mpi`, which is built
//! here (into `target/mpi`); without `mpirun` and `mpicc` they are reported as ignored.

use crate::util;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The fsbench binary with MPI support, built once per test process (the tests that call it
/// are ignored where `mpirun` and `mpicc` are missing).
pub(crate) fn mpi_fsbench() -> &'static Path {
    // Its ranks and its build (a cargo build writes hundreds of MiB) wait for a test that has
    // the machine alone (`util::alone`).
    util::share_the_machine();
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if cfg!(feature = "mpi") {
            return assert_cmd::cargo::cargo_bin("fsbench");
        }
        // Built once by .ci/run in the tests' own target directory, before their build: the
        // dependencies are shared, where a target directory of its own builds them all again.
        if let Some(bin) = std::env::var_os("FSBENCH_TEST_MPI_BIN") {
            let bin = PathBuf::from(bin);
            assert!(bin.is_file(), "FSBENCH_TEST_MPI_BIN={bin:?} is not a file");
            return bin;
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let target = root.join("target/mpi");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let out = Command::new(cargo)
            .args(["build", "--locked", "--features", "mpi", "--bin", "fsbench"])
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(root)
            .output()
            .expect("run cargo build --features mpi");
        assert!(
            out.status.success(),
            "cargo build --features mpi failed (libopenmpi-dev and libclang-dev installed?):\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        target.join("debug/fsbench")
    })
}

/// `mpirun -n N BIN args...` as root on this machine (loopback only).
fn mpirun(bin: &Path, n: usize) -> Command {
    let mut c = Command::new("mpirun");
    c.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "-n",
        &n.to_string(),
    ])
    .arg(bin)
    .env("NO_COLOR", "1")
    .env("XDG_DATA_HOME", util::data_home());
    c
}

pub(crate) fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

pub(crate) fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("json written")).expect("json")
}

fn stored_runs() -> usize {
    let out = util::fsbench()
        .args(["history", "--export-json", "-"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    v.as_array().map_or(0, Vec::len)
}

#[test]
#[cfg_attr(
    feature = "mpi",
    ignore = "tests a build without MPI; this build has it"
)]
fn mpirun_ranks_without_mpi_support_are_refused() {
    let t = util::temp_dir();
    let out = util::fsbench()
        .env("OMPI_COMM_WORLD_SIZE", "4")
        .env("OMPI_COMM_WORLD_RANK", "0")
        .args(["run", "--no-store", "-w", "null", "-t"])
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--features mpi"), "{err}");
    assert!(util::entries(t.path()).is_empty());
}

#[test]
#[cfg_attr(
    not(all(fsbench_tool_mpirun, fsbench_tool_mpicc)),
    ignore = "needs mpirun and mpicc (apt-get install openmpi-bin libopenmpi-dev libclang-dev)"
)]
fn four_ranks_add_up_data_and_metadata_in_both_layouts() {
    let bin = mpi_fsbench();
    for layout in ["per-rank", "shared"] {
        let t = util::temp_dir();
        let j = util::temp_dir();
        let file = j.path().join("run.json");
        let before = stored_runs();
        let out = mpirun(bin, 4)
            .args(["run", "--runs", "2", "--cache", "warm", "--layout", layout])
            .args([
                "-w",
                "seq-write:size=4m,bs=1m",
                "-w",
                "seq-read:size=2m,bs=64k",
            ])
            .args(["-w", "tree-create:scale=0.05,stat=true", "-t"])
            .arg(t.path())
            .arg("--json")
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{layout}: {}", text(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(stdout.matches("fsbench 0.1.0 · run").count(), 1, "{stdout}");
        assert!(stdout.contains("per rank MiB/s"), "{stdout}");
        assert_eq!(stored_runs(), before + 1, "{layout}: one stored run");
        assert!(util::entries(t.path()).is_empty(), "{layout}: scratch left");
        let v = json(&file);
        let results = v["results"].as_array().unwrap();
        assert_eq!(results.len(), 3, "{layout}: one result per cell");
        for r in results {
            assert_eq!(r["params"]["ranks"], "4");
            assert_eq!(r["params"]["layout"], layout);
            for s in r["samples"].as_array().unwrap() {
                let m = &s["metrics"];
                assert_eq!(m["ranks"], 4.0, "{layout} {r}");
                let (lo, hi) = (
                    m["rank_iops_min"].as_f64().unwrap(),
                    m["rank_iops_max"].as_f64().unwrap(),
                );
                assert!(lo > 0.0 && lo <= hi, "{layout}: rank spread {lo} {hi}");
                let bytes = s["bytes"].as_u64().unwrap();
                match r["workload"].as_str().unwrap() {
                    "seq-write" => assert_eq!(bytes, 4 * (4 << 20), "{layout}"),
                    "seq-read" => {
                        assert_eq!(bytes, 4 * (2 << 20), "{layout}");
                        assert_eq!(s["latency"]["count"], 4 * 32, "{layout}: merged histogram");
                    }
                    "tree-create" => {
                        assert_eq!(m["files"], 400.0, "{layout}");
                        assert!(m["stat_files_per_s"].as_f64().unwrap() > 0.0, "{layout}");
                        assert!(s["phases"]["stat"].as_u64().unwrap() > 0, "{layout}");
                    }
                    w => panic!("unexpected workload {w}"),
                }
            }
        }
    }
}

#[test]
#[cfg_attr(
    not(all(fsbench_tool_mpirun, fsbench_tool_mpicc)),
    ignore = "needs mpirun and mpicc (apt-get install openmpi-bin libopenmpi-dev libclang-dev)"
)]
fn shared_layout_refuses_a_workload_that_cannot_split() {
    let bin = mpi_fsbench();
    let t = util::temp_dir();
    let out = mpirun(bin, 2)
        .args([
            "run",
            "--no-store",
            "--layout",
            "shared",
            // Warm: cold `walk` needs root (drop_caches), which is not what this test is about.
            "--cache",
            "warm",
            "-w",
            "walk",
            "-t",
        ])
        .arg(t.path())
        .output()
        .unwrap();
    assert!(!out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot run with --layout shared"),
        "{}",
        text(&out)
    );
    assert_eq!(
        err.matches("fsbench: error:").count(),
        1,
        "only rank 0 speaks: {err}"
    );
    assert!(util::entries(t.path()).is_empty());
}

#[test]
#[cfg_attr(
    not(all(fsbench_tool_mpirun, fsbench_tool_mpicc)),
    ignore = "needs mpirun and mpicc (apt-get install openmpi-bin libopenmpi-dev libclang-dev)"
)]
fn a_failing_rank_ends_the_sample_on_every_rank() {
    let bin = mpi_fsbench();
    let t = util::temp_dir();
    // The other ranks' command would sleep, then leave a mark: a mark means it was not ended.
    let marks = util::temp_dir();
    let command = format!(
        r#"command:run=if [ "$OMPI_COMM_WORLD_RANK" = 2 ]; then exit 7; fi; sleep 60; touch {}/r$OMPI_COMM_WORLD_RANK"#,
        marks.path().display()
    );
    let out = mpirun(bin, 4)
        .args(["run", "--no-store", "--runs", "1", "--cache", "warm", "-w"])
        .arg(command)
        .arg("-t")
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(
        util::entries(marks.path()),
        Vec::<String>::new(),
        "not aborted"
    );
    assert!(!out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("rank 2 of 4") && err.contains("exit status: 7"),
        "{}",
        text(&out)
    );
    assert!(util::entries(t.path()).is_empty(), "scratch left");
}

/// A long 4-rank run in `layout` on `target`, once `want` scratch entries show that every rank
/// works there.
fn long_mpi_run(bin: &Path, layout: &str, target: &Path, want: usize) -> std::process::Child {
    let child = mpirun(bin, 4)
        .args(["run", "--no-store", "--runs", "100000", "--cache", "warm"])
        .args(["--layout", layout, "-w", "seq-write:size=8m", "-t"])
        .arg(target)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while util::entries(target).len() < want && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        util::entries(target).len(),
        want,
        "{layout}: ranks never started"
    );
    child
}

/// Waits for mpirun to fail, then up to 30 s for every rank and every scratch to be gone.
fn assert_nothing_left(mut mpirun: std::process::Child, target: &Path, what: &str) {
    let status = mpirun.wait().unwrap();
    assert!(!status.success(), "{what}: {status:?}");
    let needle = target.to_string_lossy().into_owned();
    let deadline = Instant::now() + Duration::from_secs(30);
    while (!util::entries(target).is_empty() || !util::processes_mentioning(&needle).is_empty())
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        util::processes_mentioning(&needle),
        Vec::<u32>::new(),
        "{what}: ranks left"
    );
    assert!(
        util::entries(target).is_empty(),
        "{what}: scratch left: {:?}",
        util::entries(target)
    );
}

pub(crate) fn signal(pid: u32, sig: rustix::process::Signal) {
    rustix::process::kill_process(rustix::process::Pid::from_raw(pid as i32).unwrap(), sig)
        .unwrap();
}

#[test]
#[cfg_attr(
    not(all(fsbench_tool_mpirun, fsbench_tool_mpicc)),
    ignore = "needs mpirun and mpicc (apt-get install openmpi-bin libopenmpi-dev libclang-dev)"
)]
fn sigkill_of_one_rank_leaves_no_scratch_on_any_rank() {
    let bin = mpi_fsbench();
    let t = util::temp_dir();
    let child = long_mpi_run(bin, "per-rank", t.path(), 4);
    let ranks: Vec<u32> = util::processes_mentioning(&t.path().to_string_lossy())
        .into_iter()
        .filter(|&p| p != child.id())
        .collect();
    assert_eq!(ranks.len(), 4, "four ranks: {ranks:?}");
    // The rank dies without a chance to clean (its guard does); mpirun then ends the others.
    signal(ranks[1], rustix::process::Signal::KILL);
    assert_nothing_left(child, t.path(), "SIGKILL of rank 1");
}

#[test]
#[cfg_attr(
    not(all(fsbench_tool_mpirun, fsbench_tool_mpicc)),
    ignore = "needs mpirun and mpicc (apt-get install openmpi-bin libopenmpi-dev libclang-dev)"
)]
fn ctrl_c_on_mpirun_leaves_no_scratch_and_no_rank() {
    let bin = mpi_fsbench();
    for layout in ["per-rank", "shared"] {
        let t = util::temp_dir();
        // Every rank works in the target: 4 scratches, or rank 0's shared one.
        let child = long_mpi_run(
            bin,
            layout,
            t.path(),
            if layout == "shared" { 1 } else { 4 },
        );
        // As a terminal's Ctrl-C would.
        signal(child.id(), rustix::process::Signal::INT);
        assert_nothing_left(child, t.path(), layout);
    }
}
