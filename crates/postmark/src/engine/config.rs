//! PostMark's settings with its defaults and limits, shared by the `postmark` workload and the
//! `fsbench postmark` drop-in. Values use postmark's own C `int` domain so that any valid
//! configuration can be replayed by the real program.

/// Largest `size_high`: postmark allocates `2 × size_high` bytes of source text in an `int`.
pub const MAX_SIZE: u32 = (1 << 30) - 1;
/// Largest `number`: the file table has `2 × number` slots, counted in an `int`.
pub const MAX_NUMBER: u32 = (1 << 30) - 1;
/// Largest value postmark's `atoi(...) > 0` setters accept.
pub const MAX_INT: u32 = i32::MAX as u32;

/// One PostMark configuration (`set ...` commands or workload parameters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Base pool of files created before the transactions (`set number`, default 500).
    pub number: u32,
    /// Smallest file size in bytes (`set size L H`, default 500).
    pub size_low: u32,
    /// Upper bound of file sizes in bytes: created files are in `[low, high)`, appends never
    /// grow a file past `high` (default 10000).
    pub size_high: u32,
    /// Seed of the generator, re-applied at every run (default 42).
    pub seed: u32,
    /// Transactions: each is one read-or-append plus one create-or-delete (default 500).
    pub transactions: u32,
    /// Subdirectories `s0..` per location; used only when greater than 1 (default 0).
    pub subdirectories: u32,
    /// Read block size in bytes (default 512).
    pub read_block: u32,
    /// Write block size in bytes (default 512).
    pub write_block: u32,
    /// stdio-style buffered I/O (true, default) or plain `read`/`write` of the block size.
    pub buffering: bool,
    /// Chance out of 10 of a read rather than an append; -1 disables both (default 5).
    pub bias_read: i32,
    /// Chance out of 10 of a create rather than a delete; -1 disables both (default 5).
    pub bias_create: i32,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            number: 500,
            size_low: 500,
            size_high: 10000,
            seed: 42,
            transactions: 500,
            subdirectories: 0,
            read_block: 512,
            write_block: 512,
            buffering: true,
            bias_read: 5,
            bias_create: 5,
        }
    }
}

/// A setting outside the limits postmark lives within; the message says how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// A count or size outside `1..=max`.
    OutOfRange {
        /// The setting, as postmark names it.
        what: &'static str,
        /// Its value.
        value: u32,
        /// Its largest value.
        max: u32,
    },
    /// More subdirectories than postmark counts.
    Subdirectories,
    /// `size high` below `size low`.
    Sizes {
        /// The low bound.
        low: u32,
        /// The high bound.
        high: u32,
    },
    /// A bias outside -1..10.
    Bias {
        /// `bias read` or `bias create`.
        what: &'static str,
        /// Its value.
        value: i32,
    },
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::OutOfRange { what, value, max } => {
                write!(f, "{what} must be between 1 and {max} (got {value})")
            }
            Self::Subdirectories => write!(f, "subdirectories must be at most {MAX_INT}"),
            Self::Sizes { low, high } => {
                write!(
                    f,
                    "size high ({high}) is below size low ({low}): give high >= low"
                )
            }
            Self::Bias { what, value } => {
                write!(f, "{what} must be -1 (off) or 0..10 (got {value})")
            }
        }
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Checks the limits postmark itself lives within; the message says how to fix.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let positive = [
            ("number", self.number, MAX_NUMBER),
            ("size low", self.size_low, MAX_SIZE),
            ("size high", self.size_high, MAX_SIZE),
            ("seed", self.seed, MAX_INT),
            ("transactions", self.transactions, MAX_INT),
            ("read block size", self.read_block, MAX_INT),
            ("write block size", self.write_block, MAX_INT),
        ];
        for (what, v, max) in positive {
            if v == 0 || v > max {
                return Err(ConfigError::OutOfRange {
                    what,
                    value: v,
                    max,
                });
            }
        }
        if self.subdirectories > MAX_INT {
            return Err(ConfigError::Subdirectories);
        }
        if self.size_high < self.size_low {
            return Err(ConfigError::Sizes {
                low: self.size_low,
                high: self.size_high,
            });
        }
        for (what, b) in [
            ("bias read", self.bias_read),
            ("bias create", self.bias_create),
        ] {
            if !(-1..=10).contains(&b) {
                return Err(ConfigError::Bias { what, value: b });
            }
        }
        Ok(())
    }

    /// Subdirectories actually used (postmark ignores a count of 1).
    pub fn used_subdirectories(&self) -> u32 {
        if self.subdirectories > 1 {
            self.subdirectories
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_postmarks_and_valid() {
        let c = Config::default();
        assert_eq!((c.number, c.transactions, c.seed), (500, 500, 42));
        assert!(c.validate().is_ok());
    }

    #[test]
    fn out_of_range_values_are_explained() {
        let c = Config {
            bias_read: 11,
            ..Config::default()
        };
        assert!(c.validate().unwrap_err().to_string().contains("bias read"));
        let c = Config {
            size_low: 20,
            size_high: 10,
            ..Config::default()
        };
        assert!(
            c.validate()
                .unwrap_err()
                .to_string()
                .contains("high >= low")
        );
        let c = Config {
            number: 0,
            ..Config::default()
        };
        assert!(c.validate().unwrap_err().to_string().contains("number"));
    }
}
