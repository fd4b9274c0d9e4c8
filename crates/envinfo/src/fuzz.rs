//! Property tests: the parsers of `/proc` and `/sys` text never panic on arbitrary input.

use proptest::prelude::*;

proptest! {
    #[test]
    fn proc_and_sys_text_never_panics(text in "\\PC{0,300}", bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = crate::mountinfo::parse_mountinfo(&text);
        let _ = crate::dmcrypt::parse_crypt_table(&text);
        let _ = crate::fscrypt::parse_policy(&bytes);
    }
}
