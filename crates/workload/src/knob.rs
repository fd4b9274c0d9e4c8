//! One declaration per workload parameter: its key, default, help line and the parser to its
//! typed value, in the knob module that owns it (ripgrep's `Flag`, fio's option table). The
//! engines' parameter tables, `fsbench workloads`, the getters and the plan's checks all read
//! the declaration, so a key, default or help is written once, and a renamed key is a compile
//! error wherever it is read.
//!
//! A workload whose default differs from the shared one declares its own copy once
//! (`const BS: Knob<u64> = io::BS.default_to("4k");`) and uses it both in its table and in its
//! build function.

use crate::params::{ParamDoc, ParamError, ParamKind, Params, Scale};

/// How a knob's text becomes its typed value: the parameters, the key and the default to use.
pub type Read<T> = fn(&mut Params, &'static str, &str) -> Result<T, ParamError>;

/// One workload parameter, declared once.
pub struct Knob<T: 'static> {
    /// The key, as written in `key=value`.
    pub key: &'static str,
    /// The default value as text (empty when the parameter is optional or required).
    pub default: &'static str,
    /// One line on what it does and which values it takes.
    pub help: &'static str,
    /// What `--scale F` does to it.
    pub scale: Scale,
    /// What its value is, where the plan treats some values alike.
    pub kind: ParamKind,
    read: Read<T>,
}

impl<T> Clone for Knob<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Knob<T> {}

impl<T> std::fmt::Debug for Knob<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Knob").field("key", &self.key).finish()
    }
}

impl<T> Knob<T> {
    /// Declares a knob.
    pub const fn new(
        key: &'static str,
        default: &'static str,
        help: &'static str,
        read: Read<T>,
    ) -> Self {
        Self {
            key,
            default,
            help,
            scale: Scale::Kept,
            kind: ParamKind::Plain,
            read,
        }
    }

    /// The same knob, multiplied by `--scale` as `scale` says.
    pub const fn scaled(self, scale: Scale) -> Self {
        Self { scale, ..self }
    }

    /// The same knob, marked as a count of threads or processes (capped per CPU; `cores` in a
    /// suite file means the machine's CPUs).
    pub const fn counts_workers(self) -> Self {
        Self {
            kind: ParamKind::Workers,
            ..self
        }
    }

    /// The same knob, marked as a shell command (a bare comma in it is part of the command).
    pub const fn shell_command(self) -> Self {
        Self {
            kind: ParamKind::Command,
            ..self
        }
    }

    /// The same knob, marked as a file given with the experiment (relative in a suite file, it
    /// is found beside that file).
    pub const fn suite_file(self) -> Self {
        Self {
            kind: ParamKind::File,
            ..self
        }
    }

    /// The same knob with another default (a workload whose natural value differs).
    pub const fn default_to(self, default: &'static str) -> Self {
        Self { default, ..self }
    }

    /// The same knob with a help line saying what it means in one workload.
    pub const fn help_as(self, help: &'static str) -> Self {
        Self { help, ..self }
    }

    /// Its line in a workload's parameter table.
    pub const fn doc(&self) -> ParamDoc {
        ParamDoc {
            key: self.key,
            default: self.default,
            help: self.help,
            scale: self.scale,
            kind: self.kind,
        }
    }

    /// Reads its typed value (the default when not given), recording the value used.
    pub fn read(&self, p: &mut Params) -> Result<T, ParamError> {
        (self.read)(p, self.key, self.default)
    }

    /// Reads its typed value with a default computed from other knobs (the table's default
    /// says how, e.g. `size/bs`).
    pub fn read_or(&self, p: &mut Params, default: &str) -> Result<T, ParamError> {
        (self.read)(p, self.key, default)
    }

    /// Reads its value only when given (`None` otherwise, and nothing recorded): for knobs
    /// added after results were stored, so that older results stay comparable.
    pub fn read_if_given(&self, p: &mut Params) -> Result<Option<T>, ParamError> {
        match self.given(p) {
            true => self.read(p).map(Some),
            false => Ok(None),
        }
    }

    /// True when the user gave it (and it was not read yet).
    pub fn given(&self, p: &Params) -> bool {
        p.raw().contains_key(self.key)
    }

    /// Replaces its recorded value (a default lowered to fit, `auto` resolved).
    pub fn record(&self, p: &mut Params, value: impl Into<String>) {
        p.record(self.key, value);
    }

    /// An error about this knob saying `message` (what is wrong and how to fix it).
    pub fn error(&self, message: impl std::fmt::Display) -> ParamError {
        ParamError {
            key: self.key.to_string(),
            message: message.to_string(),
        }
    }
}

/// A free-form text knob.
pub const fn text(key: &'static str, default: &'static str, help: &'static str) -> Knob<String> {
    Knob::new(key, default, help, |p, k, d| Ok(p.string(k, d)))
}

/// A text knob read only when given (no default).
pub const fn optional(key: &'static str, help: &'static str) -> Knob<Option<String>> {
    Knob::new(key, "", help, |p, k, _| Ok(p.optional(k)))
}

/// A size in bytes above zero (`4k`, `1m`).
pub const fn size(key: &'static str, default: &'static str, help: &'static str) -> Knob<u64> {
    Knob::new(key, default, help, Params::positive_size)
}

/// A whole number.
pub const fn number(key: &'static str, default: &'static str, help: &'static str) -> Knob<u64> {
    Knob::new(key, default, help, Params::u64)
}

/// A count of at least 1.
pub const fn count(key: &'static str, default: &'static str, help: &'static str) -> Knob<u64> {
    Knob::new(key, default, help, Params::count)
}

/// A duration above zero, in nanoseconds.
pub const fn duration(key: &'static str, default: &'static str, help: &'static str) -> Knob<u64> {
    Knob::new(key, default, help, Params::positive_duration)
}

/// A boolean (`true|false|yes|no|on|off|1|0`).
pub const fn boolean(key: &'static str, default: &'static str, help: &'static str) -> Knob<bool> {
    Knob::new(key, default, help, Params::bool)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BS: Knob<u64> = size("bs", "1m", "block size");

    #[test]
    fn a_knob_reads_its_default_and_records_the_value() {
        let mut p = Params::parse("").unwrap();
        assert_eq!(BS.default_to("4k").read(&mut p).unwrap(), 4096);
        assert_eq!(p.finish(&[BS.doc()]).unwrap()["bs"], "4k");
    }

    #[test]
    fn a_knob_given_is_read_and_its_errors_name_it() {
        let mut p = Params::parse("bs=0").unwrap();
        assert!(BS.given(&p));
        assert_eq!(BS.read(&mut p).unwrap_err().key, "bs");
        assert_eq!(BS.error("no").to_string(), "parameter 'bs': no");
    }

    #[test]
    fn read_if_given_leaves_an_absent_knob_unrecorded() {
        let mut p = Params::parse("").unwrap();
        assert_eq!(BS.read_if_given(&mut p).unwrap(), None);
        assert!(p.finish(&[]).unwrap().is_empty());
    }

    #[test]
    fn a_workload_copy_keeps_the_key_and_changes_only_what_it_says() {
        let mine = BS.default_to("4k").help_as("block size of each read");
        assert_eq!((mine.key, mine.default), ("bs", "4k"));
        assert_eq!(mine.doc().help, "block size of each read");
        assert_eq!(BS.doc().default, "1m");
    }
}
