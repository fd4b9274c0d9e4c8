//! Text shown on terminals: the one place where text from result files, the store and the
//! environment (labels, paths, hostnames, notes, run ids) has its control characters made
//! visible, so that an escape sequence in it cannot rewrite the user's terminal. Every printer
//! passes what it prints through [`terminal_safe`] (whole documents: tables, reports, stderr
//! lines) or [`escape_controls`] (one value kept on one line).

/// Replaces control characters (newlines included) with visible escapes; newlines and carriage
/// returns become spaces, so the text stays on one line.
pub fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// Text for a terminal: every control character but the newline made visible (`\u{1b}`), so
/// that text from a result file or the environment (a hostname, a label, a note) cannot move
/// the cursor, set the title or rewrite the screen. Tables and reports pass through this last.
pub fn terminal_safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push(c),
            c if c.is_control() => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

/// A JSON document with the control characters JSON allows raw (DEL and the C1 range, which a
/// terminal may act on: 0x9b is an 8-bit CSI) written as `\u` escapes: the same document, safe
/// on a terminal. The C0 range is escaped by every JSON writer already. Cheap when there is
/// nothing to do: one scan of the bytes.
pub fn json_safe(json: String) -> String {
    let b = json.as_bytes();
    let raw = b.iter().enumerate().any(|(i, &c)| {
        c == 0x7f || (c == 0xc2 && b.get(i + 1).is_some_and(|n| (0x80..0xa0).contains(n)))
    });
    if !raw {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        match c {
            '\u{7f}' | '\u{80}'..='\u{9f}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_keeps_its_meaning_and_loses_raw_controls() {
        let doc = serde_json::json!({ "id": "a\u{7f}b\u{9b}[2Jc\u{1b}" }).to_string();
        let safe = json_safe(doc.clone());
        assert!(!safe.chars().any(|c| c.is_control()), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(
            back,
            serde_json::from_str::<serde_json::Value>(&doc).unwrap()
        );
        assert_eq!(json_safe("{\"a\":\"é\"}".into()), "{\"a\":\"é\"}");
    }

    #[test]
    fn terminal_text_keeps_newlines_and_shows_every_other_control() {
        assert_eq!(terminal_safe("a\u{1b}[2J\nb\u{7}"), "a\\u{1b}[2J\nb\\u{7}");
        assert_eq!(escape_controls("a\nb\u{9b}"), "a b\\u{9b}");
    }
}
