//! What a comparison says, as a tone: better, worse, no difference proven, not comparable. Tables
//! mark their cells with it; the HTML gives each tone its colour.

use fsbench_model::{Better, Comparison};

/// What a comparison says, as a tone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Proven better than the baseline.
    Better,
    /// Proven worse than the baseline.
    Worse,
    /// No difference proven.
    Same,
    /// The cells ran under unlike conditions.
    NotComparable,
}

impl Tone {
    /// The tone of `c`: better or worse by the metric's direction when proven.
    pub fn of(c: &Comparison) -> Self {
        if !c.comparable {
            return Self::NotComparable;
        }
        if !c.proven {
            return Self::Same;
        }
        let higher = fsbench_model::unit_of(&c.metric).1 == Better::Higher;
        if (c.difference > 0.0) == higher {
            Self::Better
        } else {
            Self::Worse
        }
    }

    /// Its word.
    pub fn word(self) -> &'static str {
        match self {
            Self::Better => "better",
            Self::Worse => "worse",
            Self::Same => "no difference proven",
            Self::NotComparable => "not comparable",
        }
    }

    /// The CSS class of table cells in this tone.
    pub fn class(self) -> &'static str {
        match self {
            Self::Better => "better",
            Self::Worse => "worse",
            Self::Same => "same",
            Self::NotComparable => "nc",
        }
    }
}
