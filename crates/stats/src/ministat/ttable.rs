//! ministat's own Student's t table (two-sided critical values for 80, 90, 95, 98, 99 and the
//! column labelled 99.5, which holds ~99.8% values), df 1-100 plus the df=inf row. Output that
//! must match ministat uses this table; everything else uses exact values from statrs.

/// The confidence levels ministat accepts, in table column order.
pub const CONFIDENCE_LEVELS: [f64; 6] = [80.0, 90.0, 95.0, 98.0, 99.0, 99.5];

const TSV: &str = include_str!("ministat-student-t.tsv");

/// Column of `level` in the table, when it is one ministat accepts (compared exactly, as C does).
pub fn confidence_index(level: f64) -> Option<usize> {
    CONFIDENCE_LEVELS.iter().position(|&l| l == level)
}

/// Critical t for `df` degrees of freedom at column `level_index`; df > 100 uses the inf row.
pub fn student_t(df: usize, level_index: usize) -> Option<f64> {
    let row = if df > 100 {
        "inf".to_string()
    } else {
        df.to_string()
    };
    TSV.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|cols| cols.first() == Some(&row.as_str()))
        .and_then(|cols| cols.get(level_index + 1)?.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_lookups() {
        assert_eq!(student_t(1, 2), Some(12.706));
        assert_eq!(student_t(6, 2), Some(2.447));
        assert_eq!(student_t(100, 0), Some(1.290));
        assert_eq!(student_t(101, 2), Some(1.960));
        assert_eq!(student_t(1, 5), Some(318.313));
        assert_eq!(student_t(0, 2), None);
        assert_eq!(confidence_index(95.0), Some(2));
        assert_eq!(confidence_index(97.0), None);
    }
}
