//! `fsbench record` and `fsbench trace show`: a program's filesystem calls, its threads and
//! processes, and the start state of what it touched, recorded; bad traces refused.

use crate::util::{command, fsbench, processes_mentioning, temp_dir};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

/// Records `cmd` in `root` (its working directory and the recording's root) into
/// `root/../t.fsbtrace`; returns the trace's path and fsbench's standard error.
pub(crate) fn record(root: &Path, untraced: &str, cmd: &[&str]) -> (std::path::PathBuf, String) {
    let trace = root.parent().unwrap().join("t.fsbtrace");
    let out = fsbench()
        .current_dir(root)
        .args(["record", "--untraced", untraced, "-o"])
        .arg(&trace)
        .arg("--")
        .args(cmd)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    (trace, err)
}

/// `trace show --export-json -` of `trace`, and `--calls`'s lines.
fn show(trace: &Path) -> (Value, Vec<String>) {
    let out = fsbench()
        .args(["trace", "show", "--export-json", "-"])
        .arg(trace)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let out = fsbench()
        .args(["trace", "show", "--calls"])
        .arg(trace)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let calls = text
        .lines()
        .skip_while(|l| !l.contains("calls (thread"))
        .skip(1)
        .map(|l| l.trim().to_string())
        .collect();
    (v, calls)
}

#[test]
fn a_program_making_three_stats_under_the_root_records_exactly_those() {
    // fsbench's own calibration program stats its directory N times: under the root those are
    // its only calls (the loader's and the runtime's are outside it).
    let d = temp_dir();
    let root = d.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let exe = assert_cmd::cargo::cargo_bin("fsbench");
    let (trace, err) = record(
        &root,
        "0",
        &[exe.to_str().unwrap(), "__trace-calibrate", "3"],
    );
    let (v, calls) = show(&trace);
    assert_eq!(v["calls"], serde_json::json!({"stat": 3}), "{v}");
    assert_eq!(
        (v["threads"].as_u64(), v["processes"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(v["files"], 0, "the root itself is no start-state entry");
    assert!(
        v["outside_root"].as_u64().unwrap() > 0,
        "the loader opened libraries: {v}"
    );
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert!(
        calls
            .iter()
            .all(|c| c.contains("stat \".\"") && c.contains("µs on CPU")),
        "{calls:?}"
    );
    // With no untraced run, the overhead line gives the calibrated cost.
    assert!(err.contains("no untraced run to compare"), "{err}");
    assert!(err.contains("added to each"), "{err}");
}

#[test]
fn files_outside_the_root_are_identified_as_found_and_what_changes_them_is_counted_apart() {
    // A cold run pays for its start-up outside the root (the binary's libraries, its
    // configuration): the recording keeps what it found there, for a replay to read the same
    // files, and sorts the calls that only read from those on the kernel's files and those
    // that change something.
    let d = temp_dir();
    let root = d.path().join("root");
    let elsewhere = d.path().join("elsewhere");
    std::fs::create_dir(&root).unwrap();
    std::fs::create_dir(&elsewhere).unwrap();
    let conf = elsewhere.join("conf");
    std::fs::write(&conf, b"0123456789").unwrap();
    let missing = elsewhere.join("missing");
    let out = elsewhere.join("out");
    let script = format!(
        "cat {} {} >/dev/null 2>&1; cat /proc/self/stat >/dev/null; echo x > {}",
        conf.display(),
        missing.display(),
        out.display()
    );
    let (trace, _) = record(&root, "0", &["sh", "-c", &script]);
    let (v, _) = show(&trace);
    let files = v["outside_files"].as_array().expect("outside_files");
    let find = |p: &Path| {
        files
            .iter()
            .find(|f| f["path"] == p.to_str().unwrap())
            .unwrap_or_else(|| panic!("{} not among {files:?}", p.display()))
    };
    assert_eq!(find(&conf)["kind"], "file");
    assert_eq!(find(&conf)["size"], 10);
    assert!(find(&missing)["kind"].is_null(), "absent when recorded");
    // The binaries the kernel loaded at each execve (sh's, cat's) are kept too: a cold replay
    // loads them as the program did.
    for bin in ["/bin/sh", "/bin/cat"] {
        let real = std::fs::canonicalize(bin).unwrap();
        assert_eq!(find(&real)["kind"], "file", "{}", real.display());
    }
    assert!(
        find(&out)["kind"].is_null(),
        "made by the program: absent first"
    );
    assert!(
        files
            .iter()
            .all(|f| !f["path"].as_str().unwrap().starts_with("/proc")),
        "the kernel's files are not identified: {files:?}"
    );
    let o = &v["outside"];
    assert!(o["kernels"].as_u64().unwrap() >= 1, "{o}");
    // The redirection's open (write, create, truncate) and echo's write.
    assert!(o["changing"].as_u64().unwrap() >= 2, "{o}");
    assert!(o["read_only"].as_u64().unwrap() >= 3, "{o}");
    let n = |k: &str| o[k].as_u64().unwrap();
    assert_eq!(n("calls"), v["outside_root"].as_u64().unwrap());
    assert_eq!(
        n("read_only") + n("kernels") + n("changing"),
        n("calls"),
        "{o}"
    );
    let text = fsbench()
        .args(["trace", "show"])
        .arg(&trace)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("only read") && text.contains("change something"),
        "{text}"
    );
    // Recording read them and nothing else: the file outside is as it was.
    assert_eq!(std::fs::read(&conf).unwrap(), b"0123456789");
}

#[test]
fn a_shell_script_records_each_process_its_files_and_the_start_state() {
    let d = temp_dir();
    let root = d.path().join("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("a"), b"hello").unwrap();
    std::fs::write(root.join("sub/x"), b"12345678").unwrap();
    std::fs::write(root.join("sub/y"), b"").unwrap();
    std::os::unix::fs::symlink("x", root.join("sub/l")).unwrap();
    let (trace, err) = record(
        &root,
        "1",
        &[
            "sh",
            "-c",
            "cat a > /dev/null; ls sub > /dev/null; mkdir d; echo hi > d/f; mv d e; rm a",
        ],
    );
    let (v, calls) = show(&trace);
    // sh, cat, ls, mkdir, mv, rm: each its own process, one thread each.
    assert_eq!(v["processes"], 6, "{v}");
    assert_eq!(v["threads"], 6, "{v}");
    let has = |needle: &str| calls.iter().any(|c| c.contains(needle));
    for needle in [
        "open \"a\"",
        "read #",
        "getdents #",
        "mkdir \"d\"",
        "open \"d/f\"",
        "write #",
        "rename \"d\" \"e\"",
        "unlink \"a\"",
    ] {
        assert!(has(needle), "no `{needle}` among\n{}", calls.join("\n"));
    }
    // What was there before: a (5 bytes), sub, and sub's entries (it was listed), nothing the
    // script made (d, d/f, e).
    assert_eq!(v["files"], 5, "a, sub, sub/x, sub/y, sub/l: {v}");
    assert_eq!(v["dirs"], 1, "{v}");
    assert_eq!(v["start_bytes"], 13, "a's 5 bytes and sub/x's 8: {v}");
    assert_eq!(v["bytes_written"], 3, "hi\\n: {v}");
    assert!(v["bytes_read"].as_u64().unwrap() >= 5, "{v}");
    // The overhead line, from the untraced run after the traced one.
    assert!(err.contains("× the untraced ("), "{err}");
    assert_eq!(v["untraced_wall_ns"].as_array().unwrap().len(), 1);
}

#[test]
fn the_threads_clocks_and_the_untraced_cpu_are_kept_and_a_sleep_is_paced_as_time() {
    // The shell reads f, waits for a child that sleeps 0.3 s, reads f again: the wait is the
    // program's (its child idled), so a paced replay keeps it before the second read.
    let d = temp_dir();
    let root = d.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("f"), "x\n").unwrap();
    let (trace, err) = record(
        &root,
        "1",
        &["sh", "-c", "read a < f; sleep 0.3; read b < f"],
    );
    assert!(err.contains("traced run took"), "{err}");
    let t = fsbench_trace::decode(&std::fs::read(&trace).unwrap()).unwrap();
    assert!(t.stop_cost.is_some(), "the stops' cost is calibrated");
    assert_eq!(t.untraced_cpu_ns.len(), 1, "one untraced run's CPU time");
    assert!(t.reran_cpu_ns.is_some(), "the reads made again");
    assert!(
        t.calls
            .iter()
            .all(|c| c.before.is_some() && c.during.is_some()),
        "every call has its thread's clocks"
    );
    let opens: Vec<usize> = t
        .calls
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.outside && matches!(c.op, fsbench_trace::model::Op::Open { .. }))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(opens.len(), 2, "{:?}", t.calls);
    let plan = fsbench_trace::plan::plan(&t, fsbench_trace::plan::Order::Resource, 0);
    let kept: u64 = t
        .calls
        .iter()
        .enumerate()
        .filter(|(i, c)| !c.outside && *i > opens[0] && *i <= opens[1])
        .map(|(i, _)| plan.gap_ns[i])
        .sum();
    assert!(
        kept >= 250_000_000,
        "the 0.3 s sleep is kept before the second read: {kept} ns"
    );
    let (v, _) = show(&trace);
    assert!(v["paced_gaps_ns"].as_u64().unwrap() >= kept, "{v}");
}

#[test]
fn threads_of_one_process_are_told_apart() {
    // Debian's python3 itself (a shim on PATH, pyenv's, would run as a shell script).
    let python = ["/usr/bin/python3", "/usr/local/bin/python3"]
        .into_iter()
        .map(std::path::PathBuf::from)
        .find(|p| p.is_file())
        .expect("python3 is installed by .ci/run");
    let d = temp_dir();
    let root = d.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("t1"), b"1").unwrap();
    std::fs::write(root.join("t2"), b"2").unwrap();
    let script = "import os, threading\n\
        def work(name):\n    os.stat(name)\n\
        ts = [threading.Thread(target=work, args=(n,)) for n in ('t1', 't2')]\n\
        [t.start() for t in ts]\n[t.join() for t in ts]\n";
    let (trace, _) = record(&root, "0", &[python.to_str().unwrap(), "-S", "-c", script]);
    let (v, calls) = show(&trace);
    assert_eq!(v["processes"], 1, "{v}");
    let thread_of = |name: &str| -> String {
        let c = calls
            .iter()
            .find(|c| c.contains(&format!("stat \"{name}\"")))
            .unwrap_or_else(|| panic!("no stat of {name}:\n{}", calls.join("\n")));
        c.split_whitespace().next().unwrap().to_string()
    };
    assert_ne!(thread_of("t1"), thread_of("t2"), "{}", calls.join("\n"));
    assert!(v["threads"].as_u64().unwrap() >= 2, "{v}");
}

#[test]
fn bad_traces_are_refused_in_one_line_with_exit_2() {
    use fsbench_trace::model::{Call, Op, Thread, Trace};
    let d = temp_dir();
    let write = |name: &str, bytes: &[u8]| {
        let p = d.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let good = Trace {
        threads: vec![Thread {
            tid: 1,
            pid: 1,
            begun_ns: 0,
        }],
        paths: vec![b"a".to_vec()],
        calls: vec![Call {
            thread: 0,
            start_ns: 0,
            dur_ns: 1,
            op: Op::Mkdir {
                path: 0,
                mode: 0o755,
            },
            result: 0,
            outside: false,
            before: None,
            during: None,
            hidden: 0,
        }],
        ..Trace::default()
    };
    let bytes = fsbench_trace::encode(&good);
    let mut newer = bytes.clone();
    newer[8] = 9;
    let mut escaping = good.clone();
    escaping.paths[0] = b"../../etc/x".to_vec();
    let cases = [
        (write("random", &[0x5a; 300]), "is not an fsbench trace"),
        (
            write("truncated", &bytes[..bytes.len() - 4]),
            "is truncated or damaged",
        ),
        (write("newer", &newer), "newer than this fsbench reads"),
        (
            write("escaping", &fsbench_trace::encode(&escaping)),
            "climbs out of the root",
        ),
        (d.path().join("missing"), "cannot read the trace"),
    ];
    for (path, says) in cases {
        let out = fsbench()
            .args(["trace", "show"])
            .arg(&path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", path.display());
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(says), "{}: {err}", path.display());
    }
    let ok = write("good", &bytes);
    fsbench().args(["trace", "show"]).arg(ok).assert().success();
}

#[test]
fn a_missing_program_or_root_is_refused_before_anything_runs() {
    let d = temp_dir();
    let out = fsbench()
        .current_dir(d.path())
        .args(["record", "--", "/no/such/program"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot run '/no/such/program'"), "{err}");
    assert!(!d.path().join("program.fsbtrace").exists());
    let out = fsbench()
        .args(["record", "--root", "/no/such/dir", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot use --root /no/such/dir"));
    // An output that is a directory is refused before the program runs.
    let out = fsbench()
        .current_dir(d.path())
        .args(["record", "-o", "/", "--", "touch", "ran"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!d.path().join("ran").exists(), "the program did not run");
}

#[test]
fn ctrl_c_during_a_recording_leaves_no_traced_process_behind() {
    let d = temp_dir();
    // A unique argument of sleep's (GNU sleep takes fractions); `; true` keeps the shell.
    let marker = format!("1000.{}", std::process::id());
    let mut child = command()
        .current_dir(d.path())
        .args(["record", "--untraced", "0", "--", "sh", "-c"])
        .arg(format!("sleep {marker}; true"))
        .spawn()
        .unwrap();
    let ours = child.id();
    let left = || -> Vec<u32> {
        processes_mentioning(&marker)
            .into_iter()
            .filter(|&p| p != ours)
            .collect()
    };
    let start = Instant::now();
    while left().len() < 2 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the program never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(child.id() as i32).unwrap(),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let start = Instant::now();
    while !left().is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "left behind: {:?}",
            left()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !d.path().join("sh.fsbtrace").exists(),
        "no trace of an interrupted run"
    );
}
