//! ministat's ASCII distribution plot, including its quirks: stacked points OR their dataset
//! numbers together, the plot height is that of the last dataset drawn, and growing the buffer
//! clears rows an earlier dataset may have drawn into.

use super::Dataset;

const SYMBOLS: [u8; 8] = *b" x+*%#@O";

/// The plot being built.
pub struct Plot {
    width: usize,
    span: f64,
    x0: f64,
    dx: f64,
    height: usize,
    rows: Vec<Vec<u8>>,
    bars: Vec<Option<Vec<u8>>>,
    separate: bool,
}

impl Plot {
    /// A plot `width` columns wide spanning every dataset's min, max and mean ± stddev.
    pub fn new(width: usize, separate: bool, sets: &[&Dataset], modern: bool) -> Self {
        let (mut min, mut max) = (999e99_f64, -999e99_f64);
        for d in sets {
            let (a, s) = (d.avg(), d.stddev(modern));
            for v in [d.min(), d.max(), a - s, a + s] {
                // Comparisons with NaN are false in C too: NaN never moves the range.
                if v < min {
                    min = v;
                }
                if v > max {
                    max = v;
                }
            }
        }
        let span = max - min;
        let dx = span / (width as f64 - 1.0);
        Plot {
            width,
            span,
            x0: min - 0.5 * dx,
            dx,
            height: 0,
            rows: Vec::new(),
            bars: vec![None; sets.len()],
            separate,
        }
    }

    /// Column of `v`, truncated toward zero as C's (int) cast does, kept inside the plot.
    fn col(&self, v: f64) -> usize {
        let x = ((v - self.x0) / self.dx) as i64;
        x.clamp(0, self.width.saturating_sub(1) as i64) as usize
    }

    /// Draws dataset number `val` (1-based).
    pub fn add(&mut self, d: &Dataset, val: u8, modern: bool) {
        if self.span == 0.0 {
            return;
        }
        let bar = if self.separate { val as usize - 1 } else { 0 };
        let cols: Vec<usize> = d.points.iter().map(|&p| self.col(p)).collect();
        let mut m = 1;
        let (mut prev, mut j) = (usize::MAX, 0);
        for &x in &cols {
            if x == prev {
                j += 1;
                m = m.max(j);
            } else {
                j = 1;
                prev = x;
            }
        }
        m += 1;
        if m > self.height {
            self.rows
                .resize(m.max(self.rows.len()), vec![0; self.width]);
            for row in &mut self.rows[self.height..m] {
                row.fill(0);
            }
        }
        self.height = m;
        let (mut prev, mut j) = (usize::MAX, 0);
        for &x in &cols {
            if x == prev {
                j += 1;
            } else {
                j = 1;
                prev = x;
            }
            // `-w 0`: ministat draws an empty frame whose height still counts the points.
            if let Some(cell) = self.rows[j].get_mut(x) {
                *cell |= val;
            }
        }
        self.draw_bar(d, bar, modern);
    }

    fn draw_bar(&mut self, d: &Dataset, bar: usize, modern: bool) {
        let (avg, sd, median) = (d.avg(), d.stddev(modern), d.median(modern));
        let (lo, hi) = (self.col(avg - sd), self.col(avg + sd));
        let (mcol, acol) = (self.col(median), self.col(avg));
        let line = self.bars[bar].get_or_insert_with(|| vec![0; self.width]);
        if line.is_empty() {
            return;
        }
        if !sd.is_nan() {
            line[hi] = b'|';
            line[lo] = b'|';
            for c in line.iter_mut().take(hi).skip(lo + 1) {
                if *c == 0 {
                    *c = b'_';
                }
            }
        }
        line[mcol] = b'M';
        line[acol] = b'A';
    }

    /// The finished plot as text.
    pub fn render(&self, out: &mut String) {
        if self.span == 0.0 {
            out.push_str("[no plot, span is zero width]\n");
            return;
        }
        let border = format!("+{}+\n", "-".repeat(self.width));
        out.push_str(&border);
        for i in 1..self.height {
            out.push('|');
            for &k in &self.rows[self.height - i] {
                match SYMBOLS.get(k as usize) {
                    Some(&s) => out.push(s as char),
                    None => out.push_str(&format!("[{k:02x}]")),
                }
            }
            out.push_str("|\n");
        }
        for line in self.bars.iter().flatten() {
            out.push('|');
            out.extend(line.iter().map(|&c| if c == 0 { ' ' } else { c as char }));
            out.push_str("|\n");
        }
        out.push_str(&border);
    }
}
