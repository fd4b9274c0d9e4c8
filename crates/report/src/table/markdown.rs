//! A table as GitHub-flavoured Markdown: a `###` heading, pipes escaped, numbers right-aligned.

use super::{Align, Table};

/// Escapes what would break a table cell.
pub fn cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('\n', " ")
}

/// The table as Markdown, with a blank line after it.
pub fn render(t: &Table) -> String {
    let mut out = String::new();
    if !t.title.is_empty() {
        out.push_str(&format!("### {}\n\n", cell(&t.title)));
    }
    let heads: Vec<String> = t.columns.iter().map(|c| cell(&c.head)).collect();
    out.push_str(&format!("| {} |\n", heads.join(" | ")));
    let rules: Vec<&str> = t
        .columns
        .iter()
        .map(|c| match c.align {
            Align::Left => "---",
            Align::Right => "---:",
        })
        .collect();
    out.push_str(&format!("|{}|\n", rules.join("|")));
    for row in &t.rows {
        let cells: Vec<String> = row.iter().map(|c| cell(&c.text)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    if !t.note.is_empty() {
        out.push_str(&format!("\n{}\n", cell(&t.note)));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::super::Column;
    use super::*;

    #[test]
    fn pipes_are_escaped_and_numbers_right_aligned() {
        let mut t = Table::new("T", vec![Column::text("a|b"), Column::number("n")]);
        t.push(vec!["x|y".into(), "1".into()]);
        let md = render(&t);
        assert_eq!(md, "### T\n\n| a\\|b | n |\n|---|---:|\n| x\\|y | 1 |\n\n");
    }
}
