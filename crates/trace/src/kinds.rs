//! The kinds under which a replay counts its calls (`fsbench_model::calls`, issue 58): the call
//! the replay made, named as the system calls are.

use crate::model::{Call, Op, Target};
use fsbench_model::calls::OUTSIDE_KIND;

/// The kind a replayed call counts under: the call the replay made (`lstat`, `fstat`, `pread`…
/// where the trace's kind has several), or [`OUTSIDE_KIND`] for a call outside the root.
pub fn kind(call: &Call) -> &'static str {
    if call.outside {
        return OUTSIDE_KIND;
    }
    match &call.op {
        Op::Stat {
            target: Target::File(_),
            ..
        } => "fstat",
        Op::Stat { nofollow: true, .. } => "lstat",
        Op::Read {
            offset: Some(_), ..
        } => "pread",
        Op::Write {
            offset: Some(_), ..
        } => "pwrite",
        op => op.kind(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(op: Op, outside: bool) -> Call {
        Call {
            thread: 0,
            start_ns: 0,
            dur_ns: 0,
            op,
            result: 0,
            outside,
            before: None,
            during: None,
            hidden: 0,
        }
    }

    #[test]
    fn a_kind_is_the_call_the_replay_makes() {
        let stat = |target, nofollow| Op::Stat { target, nofollow };
        assert_eq!(kind(&call(stat(Target::Path(0), true), false)), "lstat");
        assert_eq!(kind(&call(stat(Target::Path(0), false), false)), "stat");
        assert_eq!(kind(&call(stat(Target::File(0), false), false)), "fstat");
        let pread = Op::Read {
            file: 0,
            offset: Some(0),
            size: 1,
        };
        assert_eq!(kind(&call(pread.clone(), false)), "pread");
        assert_eq!(kind(&call(pread, true)), OUTSIDE_KIND);
    }
}
