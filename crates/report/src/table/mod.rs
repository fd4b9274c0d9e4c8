//! The typed table every report draws: a title, columns (head, alignment, whether it may be
//! left out when the terminal is narrow) and rows of text cells with a tone. The builders in
//! [`crate::tables`] make one from a record; [`terminal`], [`markdown`] and [`html`] draw it, so
//! `fsbench run`, `show`, `--export-markdown` and the HTML report show the same tables.

pub mod html;
pub mod markdown;
pub mod terminal;

mod tone;

pub use tone::Tone;

/// How a column's cells are aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
}

/// One column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// Header text.
    pub head: String,
    /// Alignment of its cells.
    pub align: Align,
    /// `None`: always shown; `Some(n)`: may be left out of a narrow terminal, lowest `n` first.
    pub optional: Option<u8>,
}

impl Column {
    /// A text column that is always shown.
    pub fn text(head: &str) -> Self {
        Self {
            head: head.into(),
            align: Align::Left,
            optional: None,
        }
    }

    /// A number column that is always shown.
    pub fn number(head: &str) -> Self {
        Self {
            head: head.into(),
            align: Align::Right,
            optional: None,
        }
    }

    /// This column, left out first (lowest `rank` first) when the terminal is too narrow.
    pub fn optional(mut self, rank: u8) -> Self {
        self.optional = Some(rank);
        self
    }
}

/// One cell: its text and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// The text (without markup; renderers escape it).
    pub text: String,
    /// Better, worse, same or not comparable, for colour where a format has it.
    pub tone: Option<Tone>,
}

impl From<String> for Cell {
    fn from(text: String) -> Self {
        Self { text, tone: None }
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Self {
        Self {
            text: text.to_string(),
            tone: None,
        }
    }
}

/// How the terminal draws a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// With borders.
    #[default]
    Grid,
    /// Columns only, as the seed studies printed them.
    Plain,
}

/// A table.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Table {
    /// What it shows (`Times and CPU (means)`).
    pub title: String,
    /// A sentence printed after it (how to read it), or empty.
    pub note: String,
    /// The columns.
    pub columns: Vec<Column>,
    /// The rows, each as long as `columns`.
    pub rows: Vec<Vec<Cell>>,
    /// How the terminal draws it.
    pub layout: Layout,
}

impl Table {
    /// An empty table with these columns.
    pub fn new(title: &str, columns: Vec<Column>) -> Self {
        Self {
            title: title.into(),
            columns,
            ..Self::default()
        }
    }

    /// Adds a row (padded with `-` or cut to the number of columns).
    pub fn push(&mut self, cells: Vec<Cell>) {
        let mut cells = cells;
        cells.resize(self.columns.len(), Cell::from("-"));
        self.rows.push(cells);
    }

    /// Leaves out the columns whose every cell is `-` (nothing measured).
    pub fn drop_empty_columns(&mut self, from: usize) {
        let keep: Vec<bool> = (0..self.columns.len())
            .map(|c| c < from || self.rows.iter().any(|r| r[c].text != "-"))
            .collect();
        self.retain_columns(&keep);
    }

    /// Keeps the columns marked `true`.
    pub fn retain_columns(&mut self, keep: &[bool]) {
        let mut k = keep.iter();
        self.columns.retain(|_| *k.next().unwrap_or(&true));
        for row in &mut self.rows {
            let mut k = keep.iter();
            row.retain(|_| *k.next().unwrap_or(&true));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_padded_and_empty_columns_dropped() {
        let mut t = Table::new("t", vec![Column::text("a"), Column::number("b")]);
        t.push(vec!["x".into()]);
        assert_eq!(t.rows[0][1].text, "-");
        t.drop_empty_columns(1);
        assert_eq!(t.columns.len(), 1);
        assert_eq!(t.rows[0].len(), 1);
    }
}
