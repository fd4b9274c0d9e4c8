//! `fsbench postmark`: a drop-in for Jeffrey Katcher's postmark. Its command language
//! ([`lang`]), a run of the configured transactions on fsbench's postmark engine inside
//! scratch directories ([`exec`]), and the report in postmark's own words and layout
//! ([`report`]). The interactive prompt and printing are the binary's.
#![warn(missing_docs)]

pub mod engine;
pub mod exec;
pub mod lang;
pub mod report;
pub mod session;
