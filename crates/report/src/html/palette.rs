//! Colours with a meaning: one colour per target, the same in every chart of a report (chosen in
//! order of first appearance, without greens and reds), and tones for verdicts: green for
//! better, red for worse, grey for no difference proven, amber for not comparable.

pub use crate::table::Tone;

/// Target colours: blue, orange, purple, teal-blue, brown, pink, slate, olive, navy, gold.
const TARGETS: [&str; 10] = [
    "#2f6bd0", "#e8890c", "#8a4fc2", "#1b98b8", "#8c5a3c", "#d05aa0", "#5b6b7c", "#9a9a1a",
    "#22427a", "#c9a227",
];

/// Better: green.
pub const BETTER: &str = "#1e9e4a";
/// Worse: red.
pub const WORSE: &str = "#d1342b";
/// No difference proven: grey.
pub const SAME: &str = "#8b939c";
/// Not comparable: amber.
pub const NOT_COMPARABLE: &str = "#c98a00";
/// Text and axes.
pub const INK: &str = "#1d1d1f";
/// Secondary text.
pub const MUTED: &str = "#5f6670";
/// Grid lines.
pub const GRID: &str = "#e6e8eb";

/// The colour of each target label, stable across the charts of one report.
#[derive(Debug, Clone, Default)]
pub struct Palette {
    labels: Vec<String>,
}

/// A cell's target label without the `A:`/`B:` run prefix of a cross-run record.
pub fn bare_target(label: &str) -> &str {
    label
        .strip_prefix("A:")
        .or_else(|| label.strip_prefix("B:"))
        .unwrap_or(label)
}

impl Palette {
    /// Gives `label` a colour if it has none yet.
    pub fn add(&mut self, label: &str) {
        let l = bare_target(label);
        if !self.labels.iter().any(|x| x == l) {
            self.labels.push(l.to_string());
        }
    }

    /// The colour of `label` (grey for a label never added).
    pub fn of(&self, label: &str) -> &'static str {
        let l = bare_target(label);
        self.labels
            .iter()
            .position(|x| x == l)
            .map_or(SAME, |i| TARGETS[i % TARGETS.len()])
    }
}

impl Tone {
    /// Its colour.
    pub fn color(self) -> &'static str {
        match self {
            Self::Better => BETTER,
            Self::Worse => WORSE,
            Self::Same => SAME,
            Self::NotComparable => NOT_COMPARABLE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_keeps_its_colour_across_runs_and_colours_do_not_repeat() {
        let mut p = Palette::default();
        for l in ["ext4", "A:xfs", "B:ext4", "tmpfs"] {
            p.add(l);
        }
        assert_eq!(p.of("ext4"), p.of("A:ext4"));
        assert_ne!(p.of("ext4"), p.of("xfs"));
        assert_ne!(p.of("xfs"), p.of("tmpfs"));
        for c in TARGETS {
            assert!(c != BETTER && c != WORSE);
        }
    }
}
