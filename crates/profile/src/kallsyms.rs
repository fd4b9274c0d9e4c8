//! Kernel symbols from `/proc/kallsyms`: a table sorted by address, searched by binary search.
//! Loaded once per process (about 200,000 lines; a few tens of milliseconds), outside any timed
//! region.

use std::sync::OnceLock;

/// The kernel's function symbols, sorted by address.
#[derive(Debug, Default)]
pub struct Kallsyms {
    syms: Vec<(u64, String)>,
}

impl Kallsyms {
    /// The table of this machine's kernel, read once.
    pub fn get() -> &'static Kallsyms {
        static TABLE: OnceLock<Kallsyms> = OnceLock::new();
        TABLE.get_or_init(|| {
            let text = std::fs::read_to_string("/proc/kallsyms").unwrap_or_default();
            Kallsyms::parse(&text)
        })
    }

    /// Reads `ADDRESS TYPE NAME [MODULE]` lines, keeping text symbols with an address.
    pub fn parse(text: &str) -> Self {
        let mut syms: Vec<(u64, String)> = text
            .lines()
            .filter_map(|l| {
                let mut it = l.split_whitespace();
                let addr = u64::from_str_radix(it.next()?, 16).ok()?;
                let kind = it.next()?;
                let name = it.next()?;
                (addr != 0 && matches!(kind, "t" | "T" | "w" | "W"))
                    .then(|| (addr, name.to_string()))
            })
            .collect();
        syms.sort_unstable_by_key(|s| s.0);
        Self { syms }
    }

    /// True when no symbol with an address could be read (kptr_restrict, no /proc).
    pub fn is_empty(&self) -> bool {
        self.syms.is_empty()
    }

    /// The function containing `addr`: the last symbol at or below it.
    pub fn name(&self, addr: u64) -> Option<&str> {
        let i = self.syms.partition_point(|s| s.0 <= addr);
        i.checked_sub(1).map(|i| self.syms[i].1.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_resolves_to_the_function_at_or_below_it() {
        let k = Kallsyms::parse(
            "ffffffff81000300 T schedule\nffffffff81000000 T _stext\n\
             ffffffff81000200 d some_data\n0000000000000000 T hidden\n\
             ffffffffc0000000 t aesni_xts_dec\t[aesni_intel]\n",
        );
        assert_eq!(k.name(0xffff_ffff_8100_0310), Some("schedule"));
        assert_eq!(k.name(0xffff_ffff_8100_0250), Some("_stext"));
        assert_eq!(k.name(0xffff_ffff_c000_0010), Some("aesni_xts_dec"));
        assert_eq!(k.name(0x10), None);
    }
}
