//! postmark's settings with its defaults (postmark 1.51/1.53).

/// One postmark configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct PmConfig {
    /// Base number of files (`set number`); the file table has twice as many slots.
    pub number: u64,
    /// Smallest file size (`set size L H`).
    pub size_low: u64,
    /// Largest file size; creation draws sizes in [low, high - 1].
    pub size_high: u64,
    /// Random seed (`set seed`).
    pub seed: u32,
    /// Transactions (`set transactions`).
    pub transactions: u64,
    /// Subdirectories `s0..s(N-1)`, used only when N > 1.
    pub subdirectories: u64,
    /// Read block size.
    pub read_bs: u64,
    /// Write block size.
    pub write_bs: u64,
    /// stdio (buffered) I/O rather than plain read/write.
    pub buffered: bool,
    /// Read versus append bias, 0..10, or -1 to disable that half of a transaction.
    pub bias_read: i64,
    /// Create versus delete bias, 0..10, or -1.
    pub bias_create: i64,
}

impl Default for PmConfig {
    fn default() -> Self {
        Self {
            number: 500,
            size_low: 500,
            size_high: 10000,
            seed: 42,
            transactions: 500,
            subdirectories: 0,
            read_bs: 512,
            write_bs: 512,
            buffered: true,
            bias_read: 5,
            bias_create: 5,
        }
    }
}
