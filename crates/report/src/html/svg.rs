//! A small SVG writer for the report's charts: shapes and text appended to a string, every text
//! escaped (labels come from records and may be hostile), coordinates rounded to one decimal so
//! a report of many charts stays small. Hand-written rather than plotters because the charts need
//! log axes with chosen ticks, legends outside the data and labels measured to fit, and because
//! a hundred charts must render in milliseconds.

use std::fmt::Write;

/// Escapes text for SVG and HTML (`&`, `<`, `>`, `"`) and makes control characters visible.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

/// Makes control characters (other than newline and tab) visible as `\u{..}`, leaving the
/// rest of `s` as it is (already escaped markup).
pub fn esc_controls(s: &str) -> String {
    if !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

/// Approximate width in pixels of `s` drawn at `size` px in a sans-serif font (average glyph
/// width 0.58 em, wide glyphs counted wider), to size label areas so nothing is clipped.
pub fn text_width(s: &str, size: f64) -> f64 {
    let em: f64 =
        s.chars()
            .map(|c| match c {
                'i' | 'l' | 'j' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | ' ' | 'f' | 't'
                | 'r' => 0.32,
                'm' | 'w' | 'M' | 'W' | '%' | '@' => 0.9,
                c if c.is_ascii_uppercase() => 0.68,
                c if c.is_ascii_digit() => 0.56,
                _ => 0.56,
            })
            .sum();
    em * size
}

/// Cuts `s` to fit `max_px` at `size` px, ending it with `…` when cut.
pub fn fit(s: &str, size: f64, max_px: f64) -> String {
    if text_width(s, size) <= max_px {
        return s.to_string();
    }
    let mut out = String::new();
    for c in s.chars() {
        out.push(c);
        if text_width(&out, size) + 0.6 * size > max_px {
            out.pop();
            break;
        }
    }
    out.push('…');
    out
}

/// Text anchoring.
#[derive(Clone, Copy)]
pub enum Anchor {
    /// Left edge at x.
    Start,
    /// Centred on x.
    Middle,
    /// Right edge at x.
    End,
}

impl Anchor {
    fn name(self) -> &'static str {
        match self {
            Self::Start => "start",
            Self::Middle => "middle",
            Self::End => "end",
        }
    }
}

/// An SVG document being written.
pub struct Svg {
    out: String,
}

/// A number for an attribute: at most one decimal, no trailing `.0`.
fn n(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r.fract() == 0.0 {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

impl Svg {
    /// A chart `width` × `height` (viewBox units; the page scales it to its width).
    pub fn new(width: f64, height: f64, title: &str) -> Self {
        let mut out = String::with_capacity(4096);
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" font-family=\"system-ui,-apple-system,'Segoe UI',Roboto,sans-serif\" font-size=\"12\"><title>{}</title><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>",
            n(width),
            n(height),
            n(width),
            n(height),
            esc(title)
        );
        Self { out }
    }

    /// A straight line.
    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, width: f64) {
        let _ = write!(
            self.out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{stroke}\" stroke-width=\"{}\"/>",
            n(x1),
            n(y1),
            n(x2),
            n(y2),
            n(width)
        );
    }

    /// A dashed line.
    #[allow(clippy::too_many_arguments)]
    pub fn dashed(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, width: f64) {
        let _ = write!(
            self.out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{stroke}\" stroke-width=\"{}\" stroke-dasharray=\"5 4\"/>",
            n(x1),
            n(y1),
            n(x2),
            n(y2),
            n(width)
        );
    }

    /// A rectangle; `fill` may be `none`, `stroke` empty for none.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, stroke: &str) {
        let stroke = if stroke.is_empty() {
            String::new()
        } else {
            format!(" stroke=\"{stroke}\"")
        };
        let _ = write!(
            self.out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{fill}\"{stroke}/>",
            n(x),
            n(y),
            n(w.max(0.0)),
            n(h.max(0.0))
        );
    }

    /// A translucent band (a confidence interval behind its samples).
    pub fn band(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        let _ = write!(
            self.out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{fill}\" fill-opacity=\"0.3\"/>",
            n(x),
            n(y),
            n(w.max(1.0)),
            n(h.max(0.0))
        );
    }

    /// An outlined, dashed rectangle (a result that could not be judged).
    pub fn hollow_rect(&mut self, x: f64, y: f64, w: f64, h: f64, stroke: &str) {
        let _ = write!(
            self.out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fff\" stroke=\"{stroke}\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>",
            n(x),
            n(y),
            n(w.max(0.0)),
            n(h.max(0.0))
        );
    }

    /// A filled circle (`hollow`: outlined only).
    pub fn circle(&mut self, x: f64, y: f64, r: f64, color: &str, hollow: bool) {
        if hollow {
            let _ = write!(
                self.out,
                "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"#fff\" stroke=\"{color}\" stroke-width=\"1.5\"/>",
                n(x),
                n(y),
                n(r)
            );
        } else {
            let _ = write!(
                self.out,
                "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{color}\" fill-opacity=\"0.7\"/>",
                n(x),
                n(y),
                n(r)
            );
        }
    }

    /// A polyline through `points`; `dashed` draws it dashed.
    pub fn polyline(&mut self, points: &[(f64, f64)], stroke: &str, width: f64, dashed: bool) {
        if points.len() < 2 {
            return;
        }
        let pts: Vec<String> = points
            .iter()
            .map(|&(x, y)| format!("{},{}", n(x), n(y)))
            .collect();
        let dash = if dashed {
            " stroke-dasharray=\"6 4\""
        } else {
            ""
        };
        let _ = write!(
            self.out,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"{}\" stroke-linejoin=\"round\"{dash}/>",
            pts.join(" "),
            n(width)
        );
    }

    /// Text at (x, y) (y is the baseline), escaped; `weight` 400 or 600.
    pub fn text(&mut self, x: f64, y: f64, s: &str, anchor: Anchor, size: f64, fill: &str) {
        self.styled_text(x, y, s, anchor, size, fill, 400);
    }

    /// Bold text.
    pub fn bold(&mut self, x: f64, y: f64, s: &str, anchor: Anchor, size: f64, fill: &str) {
        self.styled_text(x, y, s, anchor, size, fill, 600);
    }

    /// A chart's title: bold, top left, cut to fit a chart `width` wide.
    pub fn title(&mut self, s: &str, width: f64) {
        let ink = super::palette::INK;
        self.bold(
            8.0,
            20.0,
            &fit(s, 14.0, width - 16.0),
            Anchor::Start,
            14.0,
            ink,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn styled_text(
        &mut self,
        x: f64,
        y: f64,
        s: &str,
        anchor: Anchor,
        size: f64,
        fill: &str,
        weight: u32,
    ) {
        let weight = if weight == 400 {
            String::new()
        } else {
            format!(" font-weight=\"{weight}\"")
        };
        let size = if size == 12.0 {
            String::new()
        } else {
            format!(" font-size=\"{}\"", n(size))
        };
        let anchor = match anchor {
            Anchor::Start => String::new(),
            a => format!(" text-anchor=\"{}\"", a.name()),
        };
        let _ = write!(
            self.out,
            "<text x=\"{}\" y=\"{}\"{anchor}{size}{weight} fill=\"{fill}\">{}</text>",
            n(x),
            n(y),
            esc(s)
        );
    }

    /// Opens a group with a tooltip (`<title>`): hovering anything inside shows `tip`.
    pub fn group_with_tip(&mut self, tip: &str) {
        let _ = write!(self.out, "<g><title>{}</title>", esc(tip));
    }

    /// Opens a group of class `class` with a tooltip: a marker a reader (or a test) can find.
    pub fn marked_group(&mut self, class: &str, tip: &str) {
        let _ = write!(
            self.out,
            "<g class=\"{}\"><title>{}</title>",
            esc(class),
            esc(tip)
        );
    }

    /// A translucent area between `upper` and `lower` (same x, left to right): an interval
    /// band along a line.
    pub fn area(&mut self, upper: &[(f64, f64)], lower: &[(f64, f64)], fill: &str) {
        if upper.len() < 2 {
            return;
        }
        let pts: Vec<String> = upper
            .iter()
            .chain(lower.iter().rev())
            .map(|&(x, y)| format!("{},{}", n(x), n(y)))
            .collect();
        let _ = write!(
            self.out,
            "<polygon points=\"{}\" fill=\"{fill}\" fill-opacity=\"0.25\" stroke=\"none\"/>",
            pts.join(" ")
        );
    }

    /// Closes a group.
    pub fn end_group(&mut self) {
        self.out.push_str("</g>");
    }

    /// The finished document.
    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>");
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_numbers_are_short() {
        let mut s = Svg::new(100.0, 50.0, "<t>");
        s.text(1.25, 2.0, "a<b>&\"c\u{1b}", Anchor::Start, 12.0, "#000");
        let out = s.finish();
        assert!(out.contains("a&lt;b&gt;&amp;&quot;c\\u{1b}"), "{out}");
        assert!(out.contains("x=\"1.3\" y=\"2\""), "{out}");
        assert!(out.contains("<title>&lt;t&gt;</title>"));
        assert!(!out.contains('\u{1b}'));
    }

    #[test]
    fn long_text_is_cut_to_fit() {
        let s = fit("a very long label indeed", 12.0, 60.0);
        assert!(s.ends_with('…') && text_width(&s, 12.0) <= 60.0, "{s}");
        assert_eq!(fit("short", 12.0, 100.0), "short");
    }
}
