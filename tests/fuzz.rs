//! Property-based fuzzing of every parser the binary feeds with user input: workload specs (with
//! sweeps and quotes), sizes and durations, postmark's command language, ministat's arguments,
//! and the `/proc` and dm-table text the environment reads. Each must return a value or an error
//! for any input, never panic. Bounded (a few hundred cases each) so CI stays fast; an input that
//! once panicked becomes a fixed regression test next to its parser.

use proptest::prelude::*;

/// Text that looks like a workload spec: names, keys, values, separators and quotes.
fn spec_like() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        Just("seq-read".to_string()),
        Just("walk".to_string()),
        Just("command".to_string()),
        Just("null".to_string()),
        Just(":".to_string()),
        Just(",".to_string()),
        Just("=".to_string()),
        Just("'".to_string()),
        Just("\"".to_string()),
        Just("bs".to_string()),
        Just("size".to_string()),
        Just("ops".to_string()),
        Just("workers".to_string()),
        Just("run".to_string()),
        "[0-9]{1,12}[kmgt]?".prop_map(|s| s),
        "[ -~]{0,6}".prop_map(|s| s),
    ];
    prop::collection::vec(atom, 0..14).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn workload_specs_never_panic(spec in spec_like()) {
        let _ = fsbench_spec::plan::expand_sweep(&spec);
    }

    #[test]
    fn arbitrary_workload_text_never_panics(spec in "\\PC{0,40}") {
        let _ = fsbench_spec::plan::expand_sweep(&spec);
    }

    #[test]
    fn sizes_and_durations_never_panic(text in "\\PC{0,24}") {
        let _ = fsbench_model::units::parse_size(&text);
        let _ = fsbench_model::units::parse_duration(&text);
    }

    #[test]
    fn postmark_lines_never_panic(line in "\\PC{0,60}", words in prop::collection::vec(
        prop_oneof![
            Just("set "), Just("location "), Just("size "), Just("number "), Just("read "),
            Just("write "), Just("buffering "), Just("bias "), Just("seed "), Just("run"),
            Just("show"), Just("load "), Just("transactions "), Just("subdirectories "),
            Just("-1 "), Just("99999999999999999999 "), Just("+"), Just("report "), Just("terse"),
        ], 0..6)) {
        let mut s = fsbench_postmark::lang::Settings::default();
        let _ = fsbench_postmark::lang::dispatch(&mut s, &line);
        let _ = fsbench_postmark::lang::dispatch(&mut s, &words.concat());
    }

    #[test]
    fn ministat_arguments_never_panic(args in prop::collection::vec(
        prop_oneof![
            Just("-w".to_string()), Just("-c".to_string()), Just("-C".to_string()),
            Just("-d".to_string()), Just("-s".to_string()), Just("-A".to_string()),
            Just("-n".to_string()), Just("--".to_string()), "-?[0-9]{0,22}".prop_map(|s| s),
            "\\PC{0,8}".prop_map(|s| s),
        ], 0..8)) {
        let _ = fsbench_stats::ministat::args::parse(&args, 74).is_ok();
    }
}
