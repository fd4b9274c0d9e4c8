//! A table as HTML: an `<h3>` title, escaped cells, numbers right-aligned in tabular figures,
//! and cells with a tone coloured by it (green better, red worse, grey same, amber not
//! comparable).

use super::{Align, Table};
use crate::html::svg::esc;
use std::fmt::Write;

/// Appends the table to `out`.
pub fn render(t: &Table, out: &mut String) {
    if !t.title.is_empty() {
        let _ = write!(out, "<h3>{}</h3>", esc(&t.title));
    }
    out.push_str("<table><tr>");
    for c in &t.columns {
        let _ = write!(out, "<th>{}</th>", esc(&c.head));
    }
    out.push_str("</tr>\n");
    for row in &t.rows {
        out.push_str("<tr>");
        for (cell, col) in row.iter().zip(&t.columns) {
            let mut classes: Vec<&str> = Vec::new();
            if col.align == Align::Right {
                classes.push("n");
            }
            if let Some(tone) = cell.tone {
                classes.push(tone.class());
            }
            if classes.is_empty() {
                let _ = write!(out, "<td>{}</td>", esc(&cell.text));
            } else {
                let _ = write!(
                    out,
                    "<td class=\"{}\">{}</td>",
                    classes.join(" "),
                    esc(&cell.text)
                );
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    if !t.note.is_empty() {
        let _ = writeln!(out, "<p class=\"meta\">{}</p>", esc(&t.note));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Cell, Column, Tone};
    use super::*;

    #[test]
    fn cells_are_escaped_and_toned() {
        let mut t = Table::new("<T>", vec![Column::text("a"), Column::number("n")]);
        t.push(vec![
            "<script>".into(),
            Cell {
                text: "+5%".into(),
                tone: Some(Tone::Better),
            },
        ]);
        let mut out = String::new();
        render(&t, &mut out);
        assert!(out.contains("<h3>&lt;T&gt;</h3>"));
        assert!(out.contains("<td>&lt;script&gt;</td>"));
        assert!(out.contains("<td class=\"n better\">+5%</td>"));
    }
}
