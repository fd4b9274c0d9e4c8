//! Text shown on terminals: user-given labels and paths with their control characters made
//! visible, so a label with an escape sequence in it cannot rewrite the user's terminal.

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
