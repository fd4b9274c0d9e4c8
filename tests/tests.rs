//! The one integration-test binary: topic modules that run the real `fsbench` on temp dirs.

mod util;

mod cli;
mod run;
mod safety;
mod tree;
