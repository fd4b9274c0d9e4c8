//! ministat, exactly: the statistics, ASCII plot and Student's t comparison of Debian's
//! `ministat` 20150715 (FreeBSD's old version), byte for byte, plus the current FreeBSD formulas
//! behind `modern`. Pure but for [`input`], which reads the files, standard input and the
//! terminal's width as ministat does; the caller prints.

pub mod args;
mod data;
pub mod input;
mod plot;
mod table;
mod ttable;

pub use data::{Dataset, ParseError, parse_dataset, strtod};
pub use table::{Options, render};
pub use ttable::{CONFIDENCE_LEVELS, confidence_index, student_t};

/// Property-based fuzzing: no input text, column, delimiter or option set panics.
#[cfg(test)]
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn numbers_text() -> impl Strategy<Value = Vec<u8>> {
        let line = prop_oneof![
            any::<f64>().prop_map(|v| format!("{v}")),
            (-1e6f64..1e6).prop_map(|v| format!("{v:.3}")),
            "#[ -~\t]{0,20}",
            Just("nan".to_string()),
            Just("-inf".to_string()),
            Just("0x1p3".to_string()),
        ];
        prop::collection::vec(line, 3..40).prop_map(|l| l.join("\n").into_bytes())
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 300,
            max_global_rejects: 100_000,
            ..ProptestConfig::default()
        })]

        #[test]
        fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600),
                                       column in 0usize..4) {
            let _ = parse_dataset("x", &bytes, column.max(1), b" \t");
        }

        #[test]
        fn arbitrary_datasets_render_at_any_width(
            a in numbers_text(),
            b in numbers_text(),
            width in prop_oneof![Just(0usize), 2usize..200],
            level in 0usize..6,
            flags in any::<(bool, bool, bool, bool, bool)>(),
        ) {
            let sets: Vec<Dataset> = [("a", &a), ("b", &b)]
                .into_iter()
                .filter_map(|(n, t)| parse_dataset(n, t, 1, b" \t").ok())
                .collect();
            prop_assume!(!sets.is_empty());
            let o = Options {
                width,
                confidence_index: level,
                no_plot: flags.0,
                stats_only: flags.1,
                separate_bars: flags.2,
                quiet: flags.3,
                modern: flags.4,
            };
            let text = render(&sets, &o);
            prop_assert!(text.ends_with('\n'));
        }
    }
}
