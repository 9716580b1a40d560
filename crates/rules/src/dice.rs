//! Auditable dice: a committed secret seed, per-roll SHA-256 derivation, and a verifier.
//!
//! The scheme (documented byte for byte, with a Python re-implementation, in
//! `notation/dice.md`):
//!
//! ```text
//! message(k, attempt) = "pbem-dice-v1"                 12 ASCII bytes, no length, no NUL
//!                     || seed                          32 bytes
//!                     || u32be(number of salts)
//!                     || for each salt: u32be(byte length) || UTF-8 bytes
//!                     || u32be(byte length of game id) || UTF-8 bytes of game id
//!                     || u64be(k)                       roll index, 0-based, over the whole game
//!                     || u32be(sides)
//!                     || u32be(attempt)                 0, 1, 2, ... (rejection sampling)
//! x     = first 8 bytes of SHA-256(message) as a big-endian u64
//! limit = 2^64 - (2^64 mod sides)                      largest multiple of sides <= 2^64
//! if x < limit: value = (x mod sides) + 1   else: try attempt + 1
//! ```
//!
//! Only [`Seed::generate`] touches the operating system; everything else is pure, so the rules
//! core and the turn logic take a [`DiceSource`] and stay deterministic in tests.

use std::fmt;
use std::str::FromStr;

use sha2::{Digest, Sha256};

use crate::games::Seat;

/// The fixed domain tag that starts every hashed message. Changing it changes every roll ever
/// made, so it never changes: a new scheme gets a new tag.
pub const DOMAIN_TAG: &[u8] = b"pbem-dice-v1";

/// The smallest die the scheme rolls.
pub const MIN_SIDES: u32 = 2;
/// The largest die the scheme rolls (its unbiasedness holds far beyond, but this is the
/// documented, tested contract).
pub const MAX_SIDES: u32 = 1000;

/// The longest salt a player may send, in characters.
pub const MAX_SALT_CHARS: usize = 100;

/// Why a dice value could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DiceError {
    #[error("a seed is 64 hexadecimal digits (32 bytes); {0}")]
    BadSeed(String),
}

/// A game's secret 256-bit seed. It stays secret until the game ends; only its
/// [`commitment`](Seed::commitment) is published at creation.
#[derive(Clone, PartialEq, Eq)]
pub struct Seed([u8; 32]);

impl Seed {
    pub fn from_bytes(bytes: [u8; 32]) -> Seed {
        Seed(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Reads 64 hex digits (either case; surrounding white space ignored).
    pub fn from_hex(text: &str) -> Result<Seed, DiceError> {
        let text = text.trim();
        let bytes = hex::decode(text).map_err(|e| DiceError::BadSeed(e.to_string()))?;
        let bytes: [u8; 32] = bytes
            .try_into()
            .map_err(|b: Vec<u8>| DiceError::BadSeed(format!("got {} bytes", b.len())))?;
        Ok(Seed(bytes))
    }

    /// The seed as 64 lower-case hex digits (reveal it only when the game is over).
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// The public commitment: lower-case hex SHA-256 of the 32 seed bytes.
    pub fn commitment(&self) -> String {
        hex::encode(Sha256::digest(self.0))
    }
}

impl FromStr for Seed {
    type Err = DiceError;
    fn from_str(s: &str) -> Result<Seed, DiceError> {
        Seed::from_hex(s)
    }
}

/// Redacted on purpose: a seed printed by `{:?}` into a log would leak every future roll.
impl fmt::Debug for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Seed(commitment {})", self.commitment())
    }
}

/// Checks one `SALT <text>` argument: surrounding white space is dropped and inner runs of
/// white space become one space (mail clients re-wrap and re-space text; the salt must be the
/// same bytes for everyone who recomputes it). Empty, over-long or control-character salts are
/// refused with the reason.
pub fn normalize_salt(text: &str) -> Result<String, String> {
    // Bidi controls and zero-width characters would show other players a salt that is not
    // the one in the rolls: taken out (crate::invisible).
    let salt: String = text
        .chars()
        .filter(|&c| !crate::invisible::is_invisible(c))
        .collect();
    let salt = salt.split_whitespace().collect::<Vec<_>>().join(" ");
    if salt.is_empty() {
        return Err("SALT needs some text after it".into());
    }
    if salt.chars().count() > MAX_SALT_CHARS {
        return Err(format!("a salt is at most {MAX_SALT_CHARS} characters"));
    }
    if salt.chars().any(char::is_control) {
        return Err("a salt may not contain control characters".into());
    }
    Ok(salt)
}

/// The salts of a game in the one documented order that goes into every roll: sorted by seat
/// index (the seat order of `Rules::seat_names`), then by the salt's UTF-8 bytes; a seat's
/// exact duplicate salt counts once. Called once, when play starts; the result is shown to all.
pub fn salts_in_order(salts: &[(Seat, String)]) -> Vec<String> {
    let mut ordered: Vec<(Seat, String)> = salts.to_vec();
    ordered.sort();
    ordered.dedup();
    ordered.into_iter().map(|(_, salt)| salt).collect()
}

/// The hash state after the per-game part of the message (tag, seed, salts, game id), so a
/// run of rolls hashes that part once.
#[derive(Clone)]
struct GameHasher(Sha256);

impl GameHasher {
    fn new(seed: &Seed, salts: &[String], game_id: &str) -> GameHasher {
        let mut h = Sha256::new();
        h.update(DOMAIN_TAG);
        h.update(seed.as_bytes());
        h.update(len_u32(salts.len()).to_be_bytes());
        for salt in salts {
            h.update(len_u32(salt.len()).to_be_bytes());
            h.update(salt.as_bytes());
        }
        h.update(len_u32(game_id.len()).to_be_bytes());
        h.update(game_id.as_bytes());
        GameHasher(h)
    }

    /// Roll `k` with `sides` sides: draws from attempts 0, 1, 2, ... until one is accepted.
    fn roll(&self, k: u64, sides: u32) -> u32 {
        assert!(
            (MIN_SIDES..=MAX_SIDES).contains(&sides),
            "cannot roll a die with {sides} sides: the dice scheme covers {MIN_SIDES}..={MAX_SIDES}"
        );
        sample_face(sides, |attempt| {
            let mut h = self.0.clone();
            h.update(k.to_be_bytes());
            h.update(sides.to_be_bytes());
            h.update(attempt.to_be_bytes());
            let digest = h.finalize();
            let mut first8 = [0u8; 8];
            first8.copy_from_slice(&digest[..8]);
            u64::from_be_bytes(first8)
        })
    }
}

/// Exact rejection sampling: `draw(attempt)` gives uniform 64-bit values; a draw at or above
/// the largest multiple of `sides` not above 2^64 is rejected, so every face keeps exactly
/// the same number of accepted draws. Separate from hashing so the rejection path, which real
/// hashes hit with probability below 1000 / 2^64, is tested directly.
fn sample_face(sides: u32, mut draw: impl FnMut(u32) -> u64) -> u32 {
    let sides64 = u64::from(sides);
    // 2^64 mod sides without 128-bit arithmetic: (2^64 - sides) mod sides.
    let rejected_tail = (u64::MAX - sides64 + 1) % sides64;
    // Accept x < 2^64 - tail, i.e. x <= u64::MAX - tail.
    let last_accepted = u64::MAX - rejected_tail;
    let mut attempt: u32 = 0;
    loop {
        let x = draw(attempt);
        if x <= last_accepted {
            return (x % sides64) as u32 + 1;
        }
        attempt += 1;
    }
}

/// Salt and game-id lengths are u32 on the wire; nothing in a game comes near 4 GiB.
fn len_u32(len: usize) -> u32 {
    u32::try_from(len).expect("dice input longer than 4 GiB")
}

/// Roll number `k` (0-based, counting every die the game ever rolled) of the game with this
/// seed, salts (in [`salts_in_order`] order) and id: a value in `1..=sides`. The GM's game id
/// is the game's number in decimal (`"42"` for game #42), as the record's `[GameId]` shows.
///
/// Panics if `sides` is outside `MIN_SIDES..=MAX_SIDES`: the games only ask for real dice.
pub fn roll(seed: &Seed, salts: &[String], game_id: &str, k: u64, sides: u32) -> u32 {
    GameHasher::new(seed, salts, game_id).roll(k, sides)
}

/// Where a game's dice come from: the seeded scheme in play, a script in tests.
pub trait DiceSource {
    /// The next die, a value in `1..=sides`.
    fn roll(&mut self, sides: u32) -> u32;

    /// One die for each entry of `sides`, in order: the values for a `ToAct::Chance(sides)`.
    fn roll_all(&mut self, sides: &[u32]) -> Vec<u32> {
        sides.iter().map(|&s| self.roll(s)).collect()
    }
}

/// Lets a function that takes `impl DiceSource` borrow the caller's dice.
impl<D: DiceSource + ?Sized> DiceSource for &mut D {
    fn roll(&mut self, sides: u32) -> u32 {
        (**self).roll(sides)
    }
}

/// The real dice of one game: roll `next_k`, then `next_k + 1`, ...
#[derive(Clone)]
pub struct SeededDice {
    hasher: GameHasher,
    next_k: u64,
}

impl SeededDice {
    /// Dice for a game whose first `next_k` dice were already rolled (0 for a new game; the
    /// number of dice in the move log when a game is rebuilt).
    pub fn new(seed: &Seed, salts: &[String], game_id: &str, next_k: u64) -> SeededDice {
        SeededDice {
            hasher: GameHasher::new(seed, salts, game_id),
            next_k,
        }
    }

    /// The index the next roll will have.
    pub fn next_k(&self) -> u64 {
        self.next_k
    }
}

impl DiceSource for SeededDice {
    fn roll(&mut self, sides: u32) -> u32 {
        let value = self.hasher.roll(self.next_k, sides);
        self.next_k += 1;
        value
    }
}

/// Fixed values for tests, handed out in order. Panics, naming the roll, when the script is
/// exhausted or a value does not fit the die asked for: either is a broken test.
#[derive(Debug, Clone)]
pub struct ScriptedDice {
    values: Vec<u32>,
    used: usize,
}

impl ScriptedDice {
    pub fn new(values: impl Into<Vec<u32>>) -> ScriptedDice {
        ScriptedDice {
            values: values.into(),
            used: 0,
        }
    }

    /// How many scripted values have not been rolled yet.
    pub fn remaining(&self) -> usize {
        self.values.len() - self.used
    }
}

impl DiceSource for ScriptedDice {
    fn roll(&mut self, sides: u32) -> u32 {
        let Some(&value) = self.values.get(self.used) else {
            panic!(
                "ScriptedDice exhausted: roll {} (a d{sides}) asked for, only {} values scripted",
                self.used + 1,
                self.values.len()
            );
        };
        assert!(
            (1..=sides).contains(&value),
            "ScriptedDice: scripted value {value} for roll {} does not fit a d{sides}",
            self.used + 1
        );
        self.used += 1;
        value
    }
}

/// One recorded roll that the revealed seed does not give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RollMismatch {
    /// The roll's index k (0-based).
    pub index: u64,
    pub sides: u32,
    /// What the seed gives; `None` when `sides` is not a die the scheme rolls.
    pub expected: Option<u32>,
    pub recorded: u32,
}

/// The result of checking a finished game's dice against its revealed seed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    /// Why the revealed seed could not be read; then no roll was checked.
    pub seed_error: Option<String>,
    /// SHA-256 of the revealed seed equals the commitment published at creation.
    pub commitment_matches: bool,
    /// How many recorded rolls were recomputed.
    pub rolls_checked: usize,
    /// The recorded rolls, `(sides, value)` in order: shown one by one, so that a reader sees
    /// which die each roll was.
    pub rolls: Vec<(u32, u32)>,
    pub mismatches: Vec<RollMismatch>,
}

impl Verification {
    /// Everything checks: the seed is the committed one and gives every recorded roll.
    pub fn is_ok(&self) -> bool {
        self.seed_error.is_none() && self.commitment_matches && self.mismatches.is_empty()
    }
}

impl fmt::Display for Verification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(err) = &self.seed_error {
            return writeln!(f, "seed: unreadable ({err}); no roll checked");
        }
        if self.commitment_matches {
            writeln!(f, "commitment: ok (SHA-256 of the seed matches)")?;
        } else {
            writeln!(
                f,
                "commitment: MISMATCH (this is not the seed committed to)"
            )?;
        }
        let mut mismatches = self.mismatches.iter().peekable();
        for (&(sides, value), index) in self.rolls.iter().zip(0u64..) {
            let Some(m) = mismatches.next_if(|m| m.index == index) else {
                writeln!(f, "roll {index}: d{sides} = {value} ok")?;
                continue;
            };
            match m.expected {
                Some(expected) => writeln!(
                    f,
                    "roll {}: d{} recorded {}, the seed gives {}",
                    m.index, m.sides, m.recorded, expected
                )?,
                None => writeln!(
                    f,
                    "roll {}: d{} recorded {}, but a d{} is not a die of the scheme",
                    m.index, m.sides, m.recorded, m.sides
                )?,
            }
        }
        let good = self.rolls_checked - self.mismatches.len();
        writeln!(f, "rolls: {good} of {} match", self.rolls_checked)
    }
}

/// Checks a game's record: the revealed seed against the commitment, then every recorded
/// `(sides, value)` roll, in order (roll k is the k-th pair), against what the seed gives.
pub fn verify(
    seed_hex: &str,
    commitment_hex: &str,
    salts: &[String],
    game_id: &str,
    rolls: &[(u32, u32)],
) -> Verification {
    let seed = match Seed::from_hex(seed_hex) {
        Ok(seed) => seed,
        Err(e) => {
            return Verification {
                seed_error: Some(e.to_string()),
                commitment_matches: false,
                rolls_checked: 0,
                rolls: rolls.to_vec(),
                mismatches: Vec::new(),
            }
        }
    };
    let commitment_matches = seed
        .commitment()
        .eq_ignore_ascii_case(commitment_hex.trim());
    let hasher = GameHasher::new(&seed, salts, game_id);
    let mismatches = rolls
        .iter()
        .zip(0u64..)
        .filter_map(|(&(sides, recorded), index)| {
            let expected = (MIN_SIDES..=MAX_SIDES)
                .contains(&sides)
                .then(|| hasher.roll(index, sides));
            (expected != Some(recorded)).then_some(RollMismatch {
                index,
                sides,
                expected,
                recorded,
            })
        })
        .collect();
    Verification {
        seed_error: None,
        commitment_matches,
        rolls_checked: rolls.len(),
        rolls: rolls.to_vec(),
        mismatches,
    }
}

/// The shell command that re-checks a record's dice with `notation/dice_verify.py`, run from
/// the top of the source tree: the same seed, commitment, salts, game id and `dS=V` rolls that
/// [`verify`] was given, so a player need not trust `pbem verify` itself. Long commands are
/// continued on further lines with `\`; `None` when there is no roll (the script needs one).
pub fn script_command(
    seed_hex: &str,
    commitment_hex: &str,
    salts: &[String],
    game_id: &str,
    rolls: &[(u32, u32)],
) -> Option<String> {
    if rolls.is_empty() {
        return None;
    }
    let mut words = vec![
        format!("--seed {}", shell_quote(seed_hex)),
        format!("--commitment {}", shell_quote(commitment_hex)),
        format!("--game-id {}", shell_quote(game_id)),
    ];
    for salt in salts {
        // argparse would read a salt starting with '-' as an option: glue it to its flag.
        words.push(if salt.starts_with('-') {
            shell_quote(&format!("--salt={salt}"))
        } else {
            format!("--salt {}", shell_quote(salt))
        });
    }
    words.extend(
        rolls
            .iter()
            .map(|(sides, value)| format!("d{sides}={value}")),
    );
    let mut out = String::from("python3 notation/dice_verify.py");
    let mut line_len = out.len();
    for word in words {
        if line_len + 1 + word.len() > 90 {
            out.push_str(" \\\n   ");
            line_len = 3;
        }
        out.push(' ');
        out.push_str(&word);
        line_len += 1 + word.len();
    }
    Some(out)
}

/// One argument for a POSIX shell: as is when it is plainly safe, else in single quotes (a
/// quote inside is closed, escaped and reopened), so that salts with spaces, quotes, `$` or
/// non-ASCII text reach the script byte for byte.
fn shell_quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed() -> Seed {
        Seed::from_bytes(std::array::from_fn(|i| i as u8))
    }

    #[test]
    fn hex_round_trip_and_errors() {
        let s = seed();
        assert_eq!(
            s.to_hex(),
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
        );
        assert_eq!(Seed::from_hex(&s.to_hex().to_uppercase()).unwrap(), s);
        assert_eq!(format!(" {} \n", s.to_hex()).parse::<Seed>().unwrap(), s);
        assert!(Seed::from_hex("00ff").is_err());
        assert!(Seed::from_hex(&"zz".repeat(32)).is_err());
        assert!(Seed::from_hex(&"00".repeat(33)).is_err());
    }

    #[test]
    fn commitment_is_sha256_of_the_seed_bytes() {
        // SHA-256 of the 32 bytes 00..1f (a published test value of SHA-256).
        assert_eq!(
            seed().commitment(),
            "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
        );
    }

    #[test]
    fn debug_does_not_reveal_the_seed() {
        let shown = format!("{:?}", seed());
        assert!(!shown.contains(&seed().to_hex()), "{shown}");
        assert!(shown.contains(&seed().commitment()));
    }

    #[test]
    fn rolls_are_faces_of_the_die() {
        for sides in [2, 3, 4, 6, 7, 10, 20, 100, 999, 1000] {
            for k in 0..200 {
                let v = roll(&seed(), &[], "g", k, sides);
                assert!((1..=sides).contains(&v), "d{sides} gave {v}");
            }
        }
    }

    #[test]
    fn draws_in_the_incomplete_top_block_are_rejected() {
        // 2^64 mod 6 = 4: the 4 largest u64 values are rejected; the 6 below them,
        // u64::MAX - 9 ..= u64::MAX - 4, give faces 1..=6.
        let mut attempts = Vec::new();
        let value = sample_face(6, |attempt| {
            attempts.push(attempt);
            [u64::MAX, u64::MAX - 3, 7][attempt as usize]
        });
        assert_eq!(attempts, [0, 1, 2]);
        assert_eq!(value, 7 % 6 + 1);
        let top_block: Vec<u32> = (4..=9)
            .rev()
            .map(|below| sample_face(6, |_| u64::MAX - below))
            .collect();
        assert_eq!(top_block, [1, 2, 3, 4, 5, 6]);
        // A power of two divides 2^64: nothing is rejected.
        assert_eq!(sample_face(4, |_| u64::MAX), 4);
        // 2^64 mod 1000 = 616.
        let mut tries = 0;
        sample_face(1000, |attempt| {
            tries += 1;
            if attempt == 0 {
                u64::MAX - 615
            } else {
                0
            }
        });
        assert_eq!(tries, 2);
        assert_eq!(sample_face(1000, |_| u64::MAX - 616), 1000);
    }

    #[test]
    fn seeded_dice_follow_the_free_function() {
        let salts = vec!["x".to_string()];
        let mut dice = SeededDice::new(&seed(), &salts, "game-7", 5);
        for k in 5..50 {
            let sides = if k % 2 == 0 { 6 } else { 4 };
            assert_eq!(dice.roll(sides), roll(&seed(), &salts, "game-7", k, sides));
        }
        assert_eq!(dice.next_k(), 50);
    }

    #[test]
    #[should_panic(expected = "cannot roll a die with 1 sides")]
    fn a_one_sided_die_is_refused() {
        roll(&seed(), &[], "g", 0, 1);
    }

    #[test]
    #[should_panic(expected = "cannot roll a die with 1001 sides")]
    fn an_oversized_die_is_refused() {
        roll(&seed(), &[], "g", 0, 1001);
    }

    #[test]
    fn scripted_dice_hand_out_their_values() {
        let mut dice = ScriptedDice::new([3, 1, 6]);
        assert_eq!(dice.roll(6), 3);
        assert_eq!(dice.roll(4), 1);
        assert_eq!(dice.remaining(), 1);
        assert_eq!(dice.roll(6), 6);
        assert_eq!(dice.remaining(), 0);
    }

    #[test]
    fn roll_all_rolls_one_die_per_entry_through_a_borrow() {
        fn chance(mut dice: impl DiceSource, sides: &[u32]) -> Vec<u32> {
            dice.roll_all(sides)
        }
        let mut dice = ScriptedDice::new([4, 2, 6]);
        assert_eq!(chance(&mut dice, &[4, 6]), [4, 2]);
        assert_eq!(dice.remaining(), 1);

        let mut seeded = SeededDice::new(&seed(), &[], "g", 0);
        let values = chance(&mut seeded, &[6, 4, 6]);
        assert_eq!(seeded.next_k(), 3);
        let expected: Vec<u32> = [6, 4, 6]
            .iter()
            .zip(0u64..)
            .map(|(&sides, k)| roll(&seed(), &[], "g", k, sides))
            .collect();
        assert_eq!(values, expected);
    }

    #[test]
    #[should_panic(expected = "ScriptedDice exhausted: roll 2")]
    fn scripted_dice_panic_when_exhausted() {
        let mut dice = ScriptedDice::new(vec![2]);
        dice.roll(6);
        dice.roll(6);
    }

    #[test]
    #[should_panic(expected = "does not fit a d4")]
    fn scripted_dice_refuse_a_value_too_big_for_the_die() {
        ScriptedDice::new(vec![5]).roll(4);
    }

    #[test]
    fn salts_are_normalized() {
        assert_eq!(
            normalize_salt("  my   lucky\tsalt \n").unwrap(),
            "my lucky salt"
        );
        assert_eq!(normalize_salt("naïve ☃").unwrap(), "naïve ☃");
        assert_eq!(
            normalize_salt("\u{202E}kcul\u{200B} y\u{FEFF}m").unwrap(),
            "kcul ym"
        );
        assert!(normalize_salt("   ").is_err());
        assert!(normalize_salt(&"a".repeat(MAX_SALT_CHARS + 1)).is_err());
        assert!(normalize_salt(&"a".repeat(MAX_SALT_CHARS)).is_ok());
        assert!(normalize_salt("a\u{7}b").is_err());
    }

    #[test]
    fn salts_are_ordered_by_seat_then_text() {
        let salts = vec![
            (1, "zebra".to_string()),
            (0, "pear".to_string()),
            (1, "apple".to_string()),
            (0, "Pear".to_string()),
            (1, "apple".to_string()),
        ];
        assert_eq!(salts_in_order(&salts), ["Pear", "pear", "apple", "zebra"]);
    }

    #[test]
    fn salt_boundaries_are_length_prefixed() {
        // ["ab", "c"] and ["a", "bc"] concatenate alike; the length prefixes keep them apart.
        let one: Vec<String> = vec!["ab".into(), "c".into()];
        let two: Vec<String> = vec!["a".into(), "bc".into()];
        let a: Vec<u32> = (0..32).map(|k| roll(&seed(), &one, "g", k, 1000)).collect();
        let b: Vec<u32> = (0..32).map(|k| roll(&seed(), &two, "g", k, 1000)).collect();
        assert_ne!(a, b);
    }

    #[test]
    fn verification_of_an_honest_record_is_ok() {
        let salts = vec!["s".to_string()];
        let rolls: Vec<(u32, u32)> = (0..20)
            .map(|k| (6, roll(&seed(), &salts, "g1", k, 6)))
            .collect();
        let v = verify(&seed().to_hex(), &seed().commitment(), &salts, "g1", &rolls);
        assert!(v.is_ok(), "{v}");
        assert_eq!(v.rolls_checked, 20);
        assert!(v.to_string().contains("rolls: 20 of 20 match"), "{v}");
        let first = format!("roll 0: d6 = {} ok\n", rolls[0].1);
        assert!(v.to_string().contains(&first), "{v}");
    }

    #[test]
    fn each_roll_is_shown_with_its_die_mismatches_in_place() {
        let rolls = [(6, roll(&seed(), &[], "g", 0, 6)), (4, 0), (4, 0)];
        let v = verify(&seed().to_hex(), &seed().commitment(), &[], "g", &rolls);
        let shown = v.to_string();
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines[1], format!("roll 0: d6 = {} ok", rolls[0].1));
        assert!(lines[2].starts_with("roll 1: d4 recorded 0, the seed gives "));
        assert!(lines[3].starts_with("roll 2: d4 recorded 0, the seed gives "));
        assert_eq!(lines[4], "rolls: 1 of 3 match");
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_quote("Pear"), "Pear");
        assert_eq!(shell_quote("42"), "42");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("white's $HOME"), r"'white'\''s $HOME'");
        assert_eq!(shell_quote("naïve ☃"), "'naïve ☃'");
    }

    #[test]
    fn the_script_command_names_every_input_and_die() {
        assert_eq!(script_command("ab", "cd", &[], "1", &[]), None);
        let salts = vec!["Pear".to_string(), "-x y".to_string()];
        let rolls: Vec<(u32, u32)> = (0..30).map(|k| (4 + 2 * (k % 2), 1)).collect();
        let command = script_command("ab", "cd", &salts, "42", &rolls).unwrap();
        let joined = command.replace(" \\\n    ", " ");
        assert!(
            joined.starts_with(
                "python3 notation/dice_verify.py --seed ab --commitment cd --game-id 42 \
                 --salt Pear '--salt=-x y' d4=1 d6=1"
            ),
            "{command}"
        );
        assert!(command.lines().count() > 1, "{command}");
        assert!(command.lines().all(|l| l.len() <= 92), "{command}");
        let words: Vec<&str> = command.split_whitespace().filter(|w| *w != "\\").collect();
        // The program, 3 flags with their values, the salts (the quoted one splits here in
        // two), and one word per die.
        assert_eq!(words.len(), 2 + 6 + 4 + 30);
    }

    #[test]
    fn verification_reports_an_unreadable_seed_and_an_impossible_die() {
        let v = verify("nope", &seed().commitment(), &[], "g", &[(6, 1)]);
        assert!(!v.is_ok());
        assert!(v.seed_error.is_some());
        assert_eq!(v.rolls_checked, 0);

        let v = verify(&seed().to_hex(), &seed().commitment(), &[], "g", &[(1, 1)]);
        assert_eq!(
            v.mismatches,
            [RollMismatch {
                index: 0,
                sides: 1,
                expected: None,
                recorded: 1
            }]
        );
        assert!(v.to_string().contains("not a die of the scheme"), "{v}");
    }
}
