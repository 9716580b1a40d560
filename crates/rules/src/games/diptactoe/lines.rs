//! The 76 winning lines of 4x4x4 tic-tac-toe: four spaces in a row in any direction.

use super::space::Space;

/// Every line of four spaces in a straight row: 48 rows/columns/pillars, 24 diagonals of a
/// plane (8 in the levels, 16 in vertical planes) and the 4 space diagonals.
pub fn all_lines() -> Vec<[Space; 4]> {
    let mut lines = Vec::new();
    // Each direction once: the first non-zero component of (level, file, row) is positive.
    let mut directions = Vec::new();
    for dl in -1i8..=1 {
        for df in -1i8..=1 {
            for dr in -1i8..=1 {
                let first = [dl, df, dr].into_iter().find(|c| *c != 0);
                if first == Some(1) {
                    directions.push((dl, df, dr));
                }
            }
        }
    }
    let inside = |v: i8| (0..4).contains(&v);
    for (dl, df, dr) in directions {
        for start in Space::all() {
            let (l, f, r) = (start.level as i8, start.file as i8, start.row as i8);
            // A line starts where one step back leaves the board and three steps on stay on it.
            let before_off = !inside(l - dl) || !inside(f - df) || !inside(r - dr);
            let end_on = inside(l + 3 * dl) && inside(f + 3 * df) && inside(r + 3 * dr);
            if before_off && end_on {
                let at =
                    |k: i8| Space::new((l + k * dl) as u8, (f + k * df) as u8, (r + k * dr) as u8);
                lines.push([at(0), at(1), at(2), at(3)]);
            }
        }
    }
    lines
}

/// The first complete line whose four spaces all satisfy `owned`, if any.
pub fn find_line(owned: impl Fn(Space) -> bool) -> Option<[Space; 4]> {
    all_lines()
        .into_iter()
        .find(|line| line.iter().all(|s| owned(*s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_76_distinct_lines() {
        let lines = all_lines();
        assert_eq!(lines.len(), 76);
        let mut keys: Vec<Vec<Space>> = lines
            .iter()
            .map(|l| {
                let mut v = l.to_vec();
                v.sort();
                v
            })
            .collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), 76);
    }

    #[test]
    fn a_space_diagonal_is_a_line() {
        let diagonal = ["I.A.1", "II.F.2", "III.L.3", "IV.R.4"].map(|s| Space::parse(s).unwrap());
        assert!(find_line(|s| diagonal.contains(&s)).is_some());
        let broken = ["I.A.1", "II.F.2", "III.L.3", "IV.R.3"].map(|s| Space::parse(s).unwrap());
        assert!(find_line(|s| broken.contains(&s)).is_none());
    }
}
