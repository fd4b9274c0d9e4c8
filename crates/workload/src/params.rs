//! Workload parameters: `key=value` strings in, typed values out, every resolved value (defaults
//! included) kept as a canonical map for the result, and unknown keys refused with a suggestion.

use fsbench_model::units::{format_size, parse_duration, parse_size};
use std::collections::BTreeMap;

/// Documentation of one parameter of a workload (for `--help`, suggestions and docs), as its
/// [`crate::Knob`] declares it.
#[derive(Debug, Clone, Copy)]
pub struct ParamDoc {
    /// The key, as written in `key=value`.
    pub key: &'static str,
    /// Default value as text (empty when the parameter is required).
    pub default: &'static str,
    /// One line on what it does and which values it takes.
    pub help: &'static str,
    /// What `--scale F` does to it.
    pub scale: Scale,
    /// What its value is, where the plan treats some values alike.
    pub kind: ParamKind,
}

/// What a parameter's value is, where the plan treats some alike whatever the workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// Anything else.
    Plain,
    /// A count of threads or processes the workload starts (capped per CPU; `cores` in a suite
    /// file means the machine's CPUs).
    Workers,
    /// A shell command: a bare comma in it is part of the command, not a list.
    Command,
    /// A file given with the experiment (a replay's trace): relative in a suite file, it is
    /// found beside that file.
    File,
}

/// What `--scale F` (a suite's `scale = F`) does to a parameter: the rules are in
/// `fsbench_spec`'s `suite::scale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Kept as it is (block sizes, worker counts, seeds, modes).
    Kept,
    /// Bytes × F, rounded down to whole blocks (`Nx-ram` becomes `(N×F)x-ram`).
    Bytes,
    /// A real factor × F (a generated tree's `scale`).
    Factor,
    /// A count × F, rounded, at least 1.
    Count,
    /// A duration × F, at least 10 ms.
    Duration,
}

/// A parameter that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamError {
    /// The offending key.
    pub key: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl std::fmt::Display for ParamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "parameter '{}': {}", self.key, self.message)
    }
}

impl std::error::Error for ParamError {}

/// Raw parameters of one workload, consumed by typed getters.
#[derive(Debug, Clone, Default)]
pub struct Params {
    raw: BTreeMap<String, String>,
    resolved: BTreeMap<String, String>,
    /// The inputs read so far: parameters naming a file or directory the workload only reads.
    inputs: Vec<Input>,
}

/// A parameter naming a file or directory the workload only reads (`file=`, `archive=`,
/// `tree=`, `cwd=`): no output may replace it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The parameter's key.
    pub key: String,
    /// The path it names.
    pub path: std::path::PathBuf,
}

impl Params {
    /// Parameters from a raw `key → value` map.
    pub fn new(raw: BTreeMap<String, String>) -> Self {
        Self {
            raw,
            resolved: BTreeMap::new(),
            inputs: Vec::new(),
        }
    }

    /// Parses `key=value,key=value` (an empty string gives no parameters). A key given twice
    /// and an unterminated quote are errors.
    pub fn parse(text: &str) -> Result<Self, ParamError> {
        check_quotes(text)?;
        let mut raw = BTreeMap::new();
        for part in split_top_level(text)
            .iter()
            .filter(|p| !p.trim().is_empty())
        {
            let (k, v) = part.split_once('=').ok_or_else(|| ParamError {
                key: part.trim().to_string(),
                message: "expected key=value".into(),
            })?;
            let key = k.trim().to_string();
            if raw.insert(key.clone(), unquote(v.trim())).is_some() {
                return Err(ParamError {
                    message: "given twice; give each parameter once (a list is key=a,b,c)".into(),
                    key,
                });
            }
        }
        Ok(Self::new(raw))
    }

    /// The raw `key → value` pairs not yet consumed (all of them before any getter ran).
    pub fn raw(&self) -> &BTreeMap<String, String> {
        &self.raw
    }

    fn take(&mut self, key: &str, default: &str) -> String {
        let v = self.raw.remove(key).unwrap_or_else(|| default.to_string());
        self.resolved.insert(key.to_string(), v.clone());
        v
    }

    fn err(key: &str, message: impl Into<String>) -> ParamError {
        ParamError {
            key: key.to_string(),
            message: message.into(),
        }
    }

    /// A size in bytes (`4k`, `1m`).
    pub fn size(&mut self, key: &str, default: &str) -> Result<u64, ParamError> {
        let v = self.take(key, default);
        let n = parse_size(&v).map_err(|m| Self::err(key, m.to_string()))?;
        self.resolved.insert(key.to_string(), format_size(n));
        Ok(n)
    }

    /// A positive size in bytes.
    pub fn positive_size(&mut self, key: &str, default: &str) -> Result<u64, ParamError> {
        match self.size(key, default)? {
            0 => Err(Self::err(key, "must be greater than 0")),
            n => Ok(n),
        }
    }

    /// An unsigned integer.
    pub fn u64(&mut self, key: &str, default: &str) -> Result<u64, ParamError> {
        let v = self.take(key, default);
        v.parse()
            .map_err(|_| Self::err(key, format!("invalid number '{v}': use a whole number")))
    }

    /// An unsigned integer of at least 1 (a count that measures nothing at 0).
    pub fn count(&mut self, key: &str, default: &str) -> Result<u64, ParamError> {
        match self.u64(key, default)? {
            0 => Err(Self::err(
                key,
                "must be at least 1 (0 would measure nothing)",
            )),
            n => Ok(n),
        }
    }

    /// A duration above zero, in nanoseconds.
    pub fn positive_duration(&mut self, key: &str, default: &str) -> Result<u64, ParamError> {
        match self.duration(key, default)? {
            0 => Err(Self::err(
                key,
                "must be longer than 0 (0 would measure nothing)",
            )),
            n => Ok(n),
        }
    }

    /// A path that must exist (an input the workload only reads); `None` when not given.
    pub fn existing_path(
        &mut self,
        key: &str,
        kind: PathKind,
    ) -> Result<Option<std::path::PathBuf>, ParamError> {
        let Some(v) = self.optional(key) else {
            return Ok(None);
        };
        let path = std::path::PathBuf::from(&v);
        let meta = std::fs::metadata(&path)
            .map_err(|e| Self::err(key, format!("cannot use '{v}': {e} — check the path")))?;
        let ok = match kind {
            PathKind::File => meta.is_file(),
            PathKind::Dir => meta.is_dir(),
        };
        if !ok {
            let want = match kind {
                PathKind::File => "a regular file",
                PathKind::Dir => "a directory",
            };
            return Err(Self::err(key, format!("'{v}' is not {want}")));
        }
        self.input(key, &path);
        Ok(Some(path))
    }

    /// Records that `key` names `path`, a file or directory the workload only reads.
    pub fn input(&mut self, key: &str, path: &std::path::Path) {
        self.inputs.push(Input {
            key: key.to_string(),
            path: path.to_path_buf(),
        });
    }

    /// The inputs recorded so far ([`Params::existing_path`], [`Params::input`]).
    pub fn inputs(&self) -> &[Input] {
        &self.inputs
    }

    /// A duration in nanoseconds (`500ms`, `5s`).
    pub fn duration(&mut self, key: &str, default: &str) -> Result<u64, ParamError> {
        let v = self.take(key, default);
        parse_duration(&v).map_err(|m| Self::err(key, m.to_string()))
    }

    /// A boolean: `true|false|yes|no|on|off|1|0`.
    pub fn bool(&mut self, key: &str, default: &str) -> Result<bool, ParamError> {
        let v = self.take(key, default);
        match v.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Ok(true),
            "false" | "no" | "off" | "0" => Ok(false),
            _ => Err(Self::err(
                key,
                format!("invalid value '{v}': use true or false"),
            )),
        }
    }

    /// One of `choices`.
    pub fn choice(
        &mut self,
        key: &str,
        choices: &[&'static str],
        default: &str,
    ) -> Result<&'static str, ParamError> {
        let v = self.take(key, default);
        choices.iter().copied().find(|c| *c == v).ok_or_else(|| {
            Self::err(
                key,
                format!("invalid value '{v}': use one of {}", choices.join(", ")),
            )
        })
    }

    /// A free-form string.
    pub fn string(&mut self, key: &str, default: &str) -> String {
        self.take(key, default)
    }

    /// A raw value if present, without a default (recorded only when present).
    pub fn optional(&mut self, key: &str) -> Option<String> {
        let v = self.raw.remove(key)?;
        self.resolved.insert(key.to_string(), v.clone());
        Some(v)
    }

    /// Replaces the recorded value of `key` (e.g. `size=2x-ram` resolved to bytes).
    pub fn record(&mut self, key: &str, value: impl Into<String>) {
        self.resolved.insert(key.to_string(), value.into());
    }

    /// Checks that every given key was used; an unknown key gets a "did you mean".
    pub fn finish(self, docs: &[ParamDoc]) -> Result<BTreeMap<String, String>, ParamError> {
        if let Some(key) = self.raw.keys().next() {
            let names: Vec<&str> = docs.iter().map(|d| d.key).collect();
            let hint = match closest(key, &names) {
                Some(s) => format!("did you mean '{s}'?"),
                None => format!("known parameters: {}", names.join(", ")),
            };
            return Err(Self::err(key, format!("unknown parameter; {hint}")));
        }
        Ok(self.resolved)
    }
}

/// What an input path parameter must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathKind {
    /// A regular file (not a FIFO, device or directory: they cannot be re-read per sample).
    File,
    /// A directory.
    Dir,
}

/// Checks that every quote in a parameter string is closed.
pub fn check_quotes(text: &str) -> Result<(), ParamError> {
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (c, quote) {
            ('\'' | '"', None) => quote = Some(c),
            (q, Some(open)) if q == open => quote = None,
            _ => {}
        }
    }
    match quote {
        None => Ok(()),
        Some(q) => Err(ParamError {
            key: text.split('=').next().unwrap_or("").trim().to_string(),
            message: format!("unterminated quote {q}: close it, e.g. run='git status'"),
        }),
    }
}

/// Splits `a=1,b='x, y',c=2` at the commas that are not inside single or double quotes.
pub fn split_top_level(text: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (c, quote) {
            ('\'' | '"', None) => quote = Some(c),
            (q, Some(open)) if q == open => quote = None,
            (',', None) => {
                parts.push(String::new());
                continue;
            }
            _ => {}
        }
        parts.last_mut().expect("invariant: never empty").push(c);
    }
    parts
}

/// Removes one pair of surrounding quotes from a value, and quotes inside `key='...'`.
fn unquote(v: &str) -> String {
    let b = v.as_bytes();
    if b.len() >= 2 && (b[0] == b'\'' || b[0] == b'"') && b[b.len() - 1] == b[0] {
        v[1..v.len() - 1].to_string()
    } else {
        v.to_string()
    }
}

/// The candidate closest to `word` by edit distance, when it is close enough to be a likely typo.
pub(crate) fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (strsim::damerau_levenshtein(word, c), *c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOCS: &[ParamDoc] = &[
        ParamDoc {
            key: "bs",
            default: "4k",
            help: "",
            scale: Scale::Kept,
            kind: ParamKind::Plain,
        },
        ParamDoc {
            key: "size",
            default: "1m",
            help: "",
            scale: Scale::Bytes,
            kind: ParamKind::Plain,
        },
    ];

    #[test]
    fn typed_values_and_defaults_are_recorded() {
        let mut p = Params::parse("bs=1024").unwrap();
        assert_eq!(p.size("bs", "4k").unwrap(), 1024);
        assert_eq!(p.size("size", "1m").unwrap(), 1 << 20);
        let canon = p.finish(DOCS).unwrap();
        assert_eq!(canon["bs"], "1k");
        assert_eq!(canon["size"], "1m");
    }

    #[test]
    fn quoted_values_keep_their_commas() {
        let mut p = Params::parse("run='git status, -s',cwd=/tmp").unwrap();
        assert_eq!(p.string("run", ""), "git status, -s");
        assert_eq!(p.string("cwd", ""), "/tmp");
        assert_eq!(
            split_top_level("a=1,2,b=\"x,y\""),
            ["a=1", "2", "b=\"x,y\""]
        );
    }

    #[test]
    fn repeated_keys_unclosed_quotes_and_zero_counts_are_errors() {
        let e = Params::parse("size=16m,size=32m").unwrap_err();
        assert!(e.message.contains("twice"), "{e}");
        assert!(Params::parse("run='git status").is_err());
        assert!(Params::parse("run=\"a").is_err());
        let mut p = Params::parse("count=0,duration=0s").unwrap();
        assert!(p.count("count", "1").is_err());
        assert!(p.positive_duration("duration", "1s").is_err());
    }

    #[test]
    fn input_paths_must_exist_and_have_the_right_kind() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("f");
        std::fs::write(&f, b"x").unwrap();
        let text = format!(
            "a={},b={},c={}",
            f.display(),
            d.path().display(),
            d.path().join("nope").display()
        );
        let mut p = Params::parse(&text).unwrap();
        assert_eq!(p.existing_path("a", PathKind::File).unwrap(), Some(f));
        assert!(
            p.existing_path("b", PathKind::File)
                .unwrap_err()
                .message
                .contains("not a regular file")
        );
        assert!(
            p.existing_path("c", PathKind::Dir)
                .unwrap_err()
                .message
                .contains("No such file")
        );
        assert_eq!(p.existing_path("d", PathKind::Dir).unwrap(), None);
    }

    #[test]
    fn unknown_key_suggests_the_closest() {
        let mut p = Params::parse("bz=4k").unwrap();
        p.size("bs", "4k").unwrap();
        let e = p.finish(DOCS).unwrap_err();
        assert!(e.to_string().contains("did you mean 'bs'"), "{e}");
    }

    #[test]
    fn malformed_pairs_and_values_are_errors() {
        assert!(Params::parse("bs").is_err());
        let mut p = Params::parse("bs=4q").unwrap();
        assert!(
            p.size("bs", "4k")
                .unwrap_err()
                .message
                .contains("4k = 4096")
        );
        let mut p = Params::parse("x=maybe").unwrap();
        assert!(p.bool("x", "true").is_err());
        let mut p = Params::parse("m=c").unwrap();
        assert!(
            p.choice("m", &["a", "b"], "a")
                .unwrap_err()
                .message
                .contains("a, b")
        );
    }
}
