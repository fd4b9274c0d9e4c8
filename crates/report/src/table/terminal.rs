//! A table on a terminal, fitted to its width: columns marked optional are left out first (the
//! least needed first, and said so under the table), then the widest columns are wrapped at
//! spaces, never inside a word. Borders are Unicode box lines on a terminal and plain ASCII
//! elsewhere (a file, a pipe, a CI log), unless asked otherwise.

use super::{Align, Layout, Table};
use comfy_table::{CellAlignment, ContentArrangement, presets};

/// ASCII borders: comfy-table's `ASCII_FULL_CONDENSED` with `+` where the header rule meets
/// a column line.
const ASCII: &str = "||--+=++|    ++++++";

/// How to draw tables on this output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    /// Columns available (`None`: no limit).
    pub width: Option<usize>,
    /// Unicode box-drawing borders (else ASCII `+-|`).
    pub unicode: bool,
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// The pieces a line may break between: words, and within a word the parts after each `/` or
/// inner `-` (`ext4/rand-read/cold` breaks as `ext4/` `rand-` `read/` `cold`), as a typesetter
/// breaks at a hyphen; each with whether a space preceded it.
fn pieces(s: &str) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    for word in s.split_whitespace() {
        let mut first = true;
        let mut rest = word;
        while let Some(i) = rest
            .char_indices()
            .skip(1)
            .find(|&(_, c)| c == '/' || c == '-')
            .map(|(i, _)| i)
            .filter(|&i| i + 1 < rest.len())
        {
            out.push((first, &rest[..=i]));
            rest = &rest[i + 1..];
            first = false;
        }
        out.push((first, rest));
    }
    out
}

/// The longest piece of `s` (it cannot be wrapped).
fn longest_word(s: &str) -> usize {
    pieces(s).into_iter().map(|p| chars(p.1)).max().unwrap_or(0)
}

/// Width taken by borders and padding around `n` columns.
fn frame(layout: Layout, n: usize) -> usize {
    match layout {
        Layout::Grid => 3 * n + 1,
        Layout::Plain => 2 * n,
    }
}

/// `s` wrapped to lines of at most `width` characters, at spaces or after a `/`, never inside
/// a word.
pub fn wrap(s: &str, width: usize) -> String {
    if chars(s) <= width {
        return s.to_string();
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for (spaced, piece) in pieces(s) {
        let gap = usize::from(spaced && !line.is_empty());
        if !line.is_empty() && chars(&line) + gap + chars(piece) > width {
            lines.push(std::mem::take(&mut line));
        } else if gap == 1 {
            line.push(' ');
        }
        line.push_str(piece);
    }
    lines.push(line);
    lines.join("\n")
}

/// Column widths that fit `limit`, and the columns kept (optional ones left out if needed).
fn fit(t: &Table, limit: Option<usize>) -> (Vec<bool>, Vec<usize>) {
    let n = t.columns.len();
    let natural: Vec<usize> = (0..n)
        .map(|c| {
            t.rows
                .iter()
                .map(|r| chars(&r[c].text))
                .chain([chars(&t.columns[c].head)])
                .max()
                .unwrap_or(0)
        })
        .collect();
    // Numbers (right-aligned columns) are never wrapped: `7.64 ms ± 629.5 µs` split over four
    // lines reads as four numbers. Text wraps at spaces.
    let least: Vec<usize> = (0..n)
        .map(|c| {
            if t.columns[c].align == Align::Right {
                return natural[c];
            }
            t.rows
                .iter()
                .map(|r| longest_word(&r[c].text))
                .chain([longest_word(&t.columns[c].head)])
                .max()
                .unwrap_or(0)
                .max(1)
        })
        .collect();
    let mut keep = vec![true; n];
    let Some(limit) = limit else {
        return (keep, natural);
    };
    let total = |w: &[usize], keep: &[bool]| -> usize {
        let kept = keep.iter().filter(|k| **k).count();
        w.iter()
            .zip(keep)
            .filter(|(_, k)| **k)
            .map(|(w, _)| w)
            .sum::<usize>()
            + frame(t.layout, kept)
    };
    if total(&natural, &keep) <= limit {
        return (keep, natural);
    }
    let mut optional: Vec<(u8, usize)> = t
        .columns
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.optional.map(|r| (r, i)))
        .collect();
    optional.sort();
    for (_, i) in optional {
        if total(&least, &keep) <= limit {
            break;
        }
        keep[i] = false;
    }
    let mut w = natural;
    while total(&w, &keep) > limit {
        let widest = (0..n)
            .filter(|&c| keep[c] && w[c] > least[c])
            .max_by_key(|&c| (w[c] - least[c], w[c]));
        match widest {
            Some(c) => w[c] -= 1,
            None => break,
        }
    }
    (keep, w)
}

/// The table as terminal text: its title, the grid, then what was left out and its note.
pub fn render(t: &Table, style: Style) -> String {
    let (keep, widths) = fit(t, style.width);
    let mut ct = comfy_table::Table::new();
    ct.load_preset(match (t.layout, style.unicode) {
        (Layout::Plain, _) => presets::NOTHING,
        (Layout::Grid, true) => presets::UTF8_FULL_CONDENSED,
        (Layout::Grid, false) => ASCII,
    });
    ct.set_content_arrangement(ContentArrangement::Disabled);
    let kept: Vec<usize> = (0..t.columns.len()).filter(|&c| keep[c]).collect();
    ct.set_header(
        kept.iter()
            .map(|&c| comfy_table::Cell::new(wrap(&t.columns[c].head, widths[c]))),
    );
    for row in &t.rows {
        ct.add_row(kept.iter().map(|&c| {
            let cell = comfy_table::Cell::new(wrap(&row[c].text, widths[c]));
            match t.columns[c].align {
                Align::Right => cell.set_alignment(CellAlignment::Right),
                Align::Left => cell,
            }
        }));
    }
    let mut out = String::new();
    if !t.title.is_empty() {
        out.push_str(&t.title);
        out.push('\n');
    }
    out.push_str(&ct.to_string());
    out.push('\n');
    let left_out: Vec<&str> = (0..t.columns.len())
        .filter(|&c| !keep[c])
        .map(|c| t.columns[c].head.as_str())
        .collect();
    if !left_out.is_empty() {
        out.push_str(&format!(
            "(left out to fit {} columns: {}; a wider terminal, or COLUMNS=200, shows them)\n",
            style.width.unwrap_or(0),
            left_out.join(", ")
        ));
    }
    if !t.note.is_empty() {
        out.push_str(&t.note);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::Column;
    use super::*;

    fn wide() -> Table {
        let mut t = Table::new(
            "Wide",
            vec![
                Column::text("target"),
                Column::text("evidence"),
                Column::number("p99").optional(1),
                Column::number("max").optional(2),
            ],
        );
        t.push(vec![
            "ext4-fscrypt".into(),
            "the device had I/O in flight 89% of the time (it moved 1801.4 MiB/s); fsbench used 17% of a CPU".into(),
            "12.3 ms".into(),
            "45.6 ms".into(),
        ]);
        t
    }

    #[test]
    fn a_wide_table_fits_80_columns_wrapping_at_spaces() {
        let text = render(
            &wide(),
            Style {
                width: Some(80),
                unicode: false,
            },
        );
        for line in text.lines() {
            assert!(chars(line) <= 80, "{} columns: {line}\n{text}", chars(line));
        }
        assert!(text.contains("| the device had I/O"), "{text}");
        assert!(text.contains("1801.4"), "a number was cut: {text}");
        assert!(!text.contains('│'), "ASCII expected: {text}");
    }

    #[test]
    fn optional_columns_go_first_when_words_cannot_fit() {
        let text = render(
            &wide(),
            Style {
                width: Some(40),
                unicode: true,
            },
        );
        assert!(text.contains("left out to fit 40 columns: p99;"), "{text}");
        assert!(text.contains('│'));
        for line in text.lines().filter(|l| l.starts_with('│')) {
            assert!(chars(line) <= 40, "{line}");
        }
        let none = render(&wide(), Style::default());
        assert_eq!(
            none.lines().nth(3).map(chars),
            none.lines().nth(1).map(chars)
        );
        assert!(none.contains("45.6 ms") && !none.contains("left out"));
    }

    #[test]
    fn wrapping_never_splits_a_word() {
        assert_eq!(wrap("a bb ccc dddd", 6), "a bb\nccc\ndddd");
        assert_eq!(wrap("unbreakable", 4), "unbreakable");
        assert_eq!(
            wrap("a-long-label/latency/warm", 14),
            "a-long-label/\nlatency/warm"
        );
        assert_eq!(
            wrap("a-long-label/latency/warm", 8),
            "a-long-\nlabel/\nlatency/\nwarm"
        );
        assert_eq!(wrap("-5 x", 2), "-5\nx");
    }
}
