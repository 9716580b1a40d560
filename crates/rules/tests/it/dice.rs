//! The auditable dice from outside: determinism, sensitivity, verification, uniformity,
//! pinned known answers, and agreement with the Python script of notation/dice.md.

use std::path::PathBuf;
use std::process::Command;

use pbem_rules::dice::{roll, verify, DiceSource, RollMismatch, Seed, SeededDice};

/// The seed whose bytes are 00, 01, ..., 1f.
fn counting_seed() -> Seed {
    Seed::from_bytes(std::array::from_fn(|i| i as u8))
}

fn salts(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// `n` rolls of a d1000 from roll 0: a fingerprint of the (seed, salts, game id) triple.
fn fingerprint(seed: &Seed, salt_list: &[String], game_id: &str, n: usize) -> Vec<u32> {
    let mut dice = SeededDice::new(seed, salt_list, game_id, 0);
    (0..n).map(|_| dice.roll(1000)).collect()
}

#[test]
fn same_seed_salts_and_game_give_the_same_rolls() {
    let seed = Seed::from_hex(&"5a".repeat(32)).unwrap();
    let s = salts(&["lucky", "seven"]);
    let mut first = SeededDice::new(&seed, &s, "d4d6-3", 0);
    let mut second = SeededDice::new(&seed.clone(), &s.clone(), "d4d6-3", 0);
    let sides = [4, 6, 6, 4, 10, 1000, 2, 6];
    let a: Vec<u32> = (0..400)
        .map(|i| first.roll(sides[i % sides.len()]))
        .collect();
    let b: Vec<u32> = (0..400)
        .map(|i| second.roll(sides[i % sides.len()]))
        .collect();
    assert_eq!(a, b);
    // A game rebuilt mid-way (dice resumed at the next index) continues the same sequence.
    let mut resumed = SeededDice::new(&seed, &s, "d4d6-3", 200);
    let c: Vec<u32> = (200..400)
        .map(|i| resumed.roll(sides[i % sides.len()]))
        .collect();
    assert_eq!(c, a[200..]);
}

#[test]
fn any_change_of_input_changes_the_rolls() {
    let seed = counting_seed();
    let s = salts(&["alpha", "beta"]);
    let base = fingerprint(&seed, &s, "rink-1", 64);

    let mut other_bytes = *seed.as_bytes();
    other_bytes[31] ^= 1;
    let other_seed = Seed::from_bytes(other_bytes);
    assert_ne!(fingerprint(&other_seed, &s, "rink-1", 64), base, "seed");
    assert_ne!(
        fingerprint(&seed, &salts(&["alpha", "betb"]), "rink-1", 64),
        base,
        "salt text"
    );
    assert_ne!(
        fingerprint(&seed, &salts(&["beta", "alpha"]), "rink-1", 64),
        base,
        "salt order"
    );
    assert_ne!(
        fingerprint(&seed, &salts(&["alpha"]), "rink-1", 64),
        base,
        "salt missing"
    );
    assert_ne!(fingerprint(&seed, &s, "rink-2", 64), base, "game id");
    // The number of sides is part of the message: a d6 is not a folded d1000.
    let d6: Vec<u32> = (0..64).map(|k| roll(&seed, &s, "rink-1", k, 6)).collect();
    let folded: Vec<u32> = base.iter().map(|v| (v - 1) % 6 + 1).collect();
    assert_ne!(d6, folded);
}

#[test]
fn verifier_accepts_an_honest_record() {
    let seed = Seed::from_hex(&"c3".repeat(32)).unwrap();
    let s = salts(&["a"]);
    let mut dice = SeededDice::new(&seed, &s, "sib-9", 0);
    let record: Vec<(u32, u32)> = [6, 6, 4, 6, 4, 4]
        .iter()
        .map(|&sides| (sides, dice.roll(sides)))
        .collect();
    let v = verify(&seed.to_hex(), &seed.commitment(), &s, "sib-9", &record);
    assert!(v.is_ok(), "{v}");
    assert_eq!(v.rolls_checked, 6);
}

#[test]
fn verifier_detects_a_seed_that_was_not_committed() {
    let seed = Seed::from_hex(&"c3".repeat(32)).unwrap();
    let swapped = Seed::from_hex(&"c4".repeat(32)).unwrap();
    let s = salts(&[]);
    let mut dice = SeededDice::new(&swapped, &s, "sib-9", 0);
    let record: Vec<(u32, u32)> = (0..10).map(|_| (6, dice.roll(6))).collect();
    // The GM reveals the seed that really made the rolls, but committed to another one.
    let v = verify(&swapped.to_hex(), &seed.commitment(), &s, "sib-9", &record);
    assert!(!v.commitment_matches);
    assert!(v.mismatches.is_empty());
    assert!(!v.is_ok());
    assert!(v.to_string().contains("commitment: MISMATCH"), "{v}");
}

#[test]
fn verifier_names_each_tampered_roll() {
    let seed = counting_seed();
    let s = salts(&["x", "y"]);
    let mut dice = SeededDice::new(&seed, &s, "dicess-5", 0);
    let mut record: Vec<(u32, u32)> = (0..30)
        .map(|i| {
            let sides = if i % 3 == 0 { 4 } else { 6 };
            (sides, dice.roll(sides))
        })
        .collect();
    let honest = record.clone();
    record[7].1 = record[7].1 % 6 + 1;
    record[21].1 = record[21].1 % 4 + 1;
    let v = verify(&seed.to_hex(), &seed.commitment(), &s, "dicess-5", &record);
    assert!(v.commitment_matches);
    assert_eq!(
        v.mismatches,
        [
            RollMismatch {
                index: 7,
                sides: 6,
                expected: Some(honest[7].1),
                recorded: record[7].1
            },
            RollMismatch {
                index: 21,
                sides: 4,
                expected: Some(honest[21].1),
                recorded: record[21].1
            },
        ]
    );
    assert!(v.to_string().contains("rolls: 28 of 30 match"), "{v}");

    // Rolls in the right multiset but the wrong order are tampering too.
    let mut swapped = honest.clone();
    let (first, second) = (swapped[1], swapped[2]);
    if first != second {
        swapped.swap(1, 2);
        let v = verify(&seed.to_hex(), &seed.commitment(), &s, "dicess-5", &swapped);
        assert_eq!(v.mismatches.len(), 2);
    }
}

/// Pearson's chi-square statistic of observed face counts against a uniform die.
fn chi_square(counts: &[u64]) -> f64 {
    let total: u64 = counts.iter().sum();
    let expected = total as f64 / counts.len() as f64;
    counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum()
}

/// Face counts of `n` rolls of a d`sides` from a fixed seed (so the test is not flaky).
fn face_counts(sides: u32, n: usize) -> Vec<u64> {
    let seed = Seed::from_hex(&"17".repeat(32)).unwrap();
    let mut dice = SeededDice::new(&seed, &salts(&["chi"]), "uniformity", 0);
    let mut counts = vec![0u64; sides as usize];
    for _ in 0..n {
        counts[dice.roll(sides) as usize - 1] += 1;
    }
    counts
}

#[test]
fn chi_square_rejects_a_loaded_die() {
    // The statistic used below must be able to fail: a d6 landing on 6 one time in five
    // instead of one in six, over 60,000 rolls.
    let loaded = [9_600, 9_600, 9_600, 9_600, 9_600, 12_000];
    assert!(chi_square(&loaded) > 20.515);
}

/// Critical values at significance 0.001 (degrees of freedom = sides - 1; for the d1000 by
/// the Wilson-Hilferty approximation, 1142.87, rounded down).
#[test]
fn faces_are_uniform_chi_square() {
    for (sides, critical) in [(4, 16.266), (6, 20.515), (10, 27.877), (1000, 1142.8)] {
        let counts = face_counts(sides, 60_000);
        assert_eq!(counts.iter().sum::<u64>(), 60_000);
        assert!(
            counts.iter().all(|&c| c > 0),
            "d{sides}: a face never came up"
        );
        let stat = chi_square(&counts);
        assert!(
            stat < critical,
            "d{sides}: chi-square {stat:.2} >= {critical} (counts {counts:?})"
        );
    }
}

#[test]
fn consecutive_rolls_are_independent_chi_square() {
    // Pairs of consecutive d6 rolls over the 36 cells (35 degrees of freedom, 0.001: 66.619).
    let seed = Seed::from_hex(&"29".repeat(32)).unwrap();
    let mut dice = SeededDice::new(&seed, &[], "pairs", 0);
    let mut cells = vec![0u64; 36];
    for _ in 0..36_000 {
        let (a, b) = (dice.roll(6), dice.roll(6));
        cells[((a - 1) * 6 + (b - 1)) as usize] += 1;
    }
    let stat = chi_square(&cells);
    assert!(stat < 66.619, "pairs: chi-square {stat:.2}");
}

/// Known answers, computed by notation/dice_verify.py and pinned here: a change in any of them
/// means the scheme changed, which would make every finished game unverifiable.
#[test]
fn known_answer_vectors_never_change() {
    let counting = counting_seed();
    assert_eq!(
        counting.commitment(),
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    );
    let plain: Vec<u32> = [2, 4, 6, 6, 10, 20, 100, 1000]
        .iter()
        .zip(0u64..)
        .map(|(&sides, k)| roll(&counting, &[], "rink-1", k, sides))
        .collect();
    assert_eq!(plain, [1, 4, 4, 6, 3, 7, 64, 561]);

    // The GM's game ids are numbers (`42`); any UTF-8 text hashes alike, and this pin, made
    // with a non-numeric one, stays as it was.
    let s = salts(&["Pear", "pear", "apple", "naïve ☃"]);
    let salted: Vec<u32> = [6, 4, 6, 4, 1000, 7]
        .iter()
        .zip(0u64..)
        .map(|(&sides, k)| roll(&counting, &s, "chess-42", k, sides))
        .collect();
    assert_eq!(salted, [1, 2, 3, 2, 775, 2]);

    // The worked example of notation/dice.md, section 4: game #42, whose id is `42`.
    let example = salts(&["Pear", "apple"]);
    let worked: Vec<u32> = [6, 4, 1000, 6]
        .iter()
        .zip(0u64..)
        .map(|(&sides, k)| roll(&counting, &example, "42", k, sides))
        .collect();
    assert_eq!(worked, [6, 2, 741, 6]);

    let ones = Seed::from_hex(&"ff".repeat(32)).unwrap();
    assert_eq!(
        ones.commitment(),
        "af9613760f72635fbdb44a5a0a63c39f12af30f950a6ee5c971be188e89c4051"
    );
    let start = u64::MAX - 5;
    let far: Vec<u32> = [6, 6, 6, 1000, 3, 999]
        .iter()
        .zip(start..=u64::MAX)
        .map(|(&sides, k)| roll(&ones, &[], "", k, sides))
        .collect();
    assert_eq!(far, [1, 2, 2, 699, 3, 472]);
}

fn notation_dir() -> PathBuf {
    crate::workspace_root().join("notation")
}

#[test]
fn the_documented_script_is_the_shipped_script() {
    let doc = std::fs::read_to_string(notation_dir().join("dice.md")).unwrap();
    let script = std::fs::read_to_string(notation_dir().join("dice_verify.py")).unwrap();
    let start = doc
        .find("```python\n")
        .expect("dice.md has a ```python block")
        + 10;
    let len = doc[start..].find("```\n").expect("the python block ends");
    assert_eq!(
        &doc[start..start + len],
        script,
        "the script in notation/dice.md differs from notation/dice_verify.py"
    );
}

/// Runs notation/dice_verify.py; `None` when there is no python3 to run it.
fn run_python(args: &[&str]) -> Option<(bool, String)> {
    if Command::new("python3").arg("--version").output().is_err() {
        println!("SKIPPED: python3 is not installed, the Python cross-check did not run");
        return None;
    }
    let out = Command::new("python3")
        .arg(notation_dir().join("dice_verify.py"))
        .args(args)
        .output()
        .expect("python3 runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "python3 wrote to stderr: {stderr}");
    Some((out.status.success(), String::from_utf8(out.stdout).unwrap()))
}

/// The worked example of notation/dice.md, section 4, is what the code gives: the message's
/// SHA-256, and the script's printed output, line for line.
#[test]
fn the_worked_example_of_the_doc_is_what_the_code_gives() {
    use sha2::{Digest, Sha256};
    let doc = std::fs::read_to_string(notation_dir().join("dice.md")).unwrap();
    let mut message = b"pbem-dice-v1".to_vec();
    message.extend(counting_seed().as_bytes());
    message.extend(2u32.to_be_bytes());
    for salt in ["Pear", "apple"] {
        message.extend((salt.len() as u32).to_be_bytes());
        message.extend(salt.as_bytes());
    }
    message.extend(2u32.to_be_bytes());
    message.extend(b"42");
    message.extend(0u64.to_be_bytes());
    message.extend(6u32.to_be_bytes());
    message.extend(0u32.to_be_bytes());
    assert!(doc.contains(&format!("its message ({} bytes)", message.len())));
    let digest = hex::encode(Sha256::digest(&message));
    assert!(doc.contains(&format!("SHA-256 = {digest}\n")), "{digest}");
    assert_eq!(
        roll(&counting_seed(), &salts(&["Pear", "apple"]), "42", 0, 6),
        6
    );

    let seed = counting_seed().to_hex();
    let commitment = counting_seed().commitment();
    let args = [
        "--seed",
        &seed,
        "--commitment",
        &commitment,
        "--game-id",
        "42",
        "--salt",
        "Pear",
        "--salt",
        "apple",
        "d6",
        "d4",
        "d1000",
        "d6=2",
    ];
    let shown = format!(
        "    $ python3 notation/dice_verify.py \\\n        --seed {seed} \\\n        \
         --commitment {commitment} \\\n        --game-id 42 --salt Pear --salt apple \
         d6 d4 d1000 d6=2\n"
    );
    assert!(doc.contains(&shown), "the doc's command is not\n{shown}");
    let Some((ok, stdout)) = run_python(&args) else {
        return;
    };
    assert!(!ok, "the fourth roll is a mismatch");
    let indented: String = stdout.lines().map(|l| format!("    {l}\n")).collect();
    assert!(
        doc.contains(&format!("{shown}{indented}")),
        "the doc does not show the script's output:\n{indented}"
    );
}

#[test]
fn python_script_recomputes_the_rust_rolls() {
    let seed = Seed::from_hex(&"3c".repeat(32)).unwrap();
    let s = salts(&["BLUE's salt", "naïve ☃", "x y"]);
    let game_id = "dicess-17";
    let sides: Vec<u32> = (0..120).map(|i| [6, 4, 10, 1000, 2, 7][i % 6]).collect();
    let start = 40u64;
    let mut dice = SeededDice::new(&seed, &s, game_id, start);
    let rust: Vec<u32> = sides.iter().map(|&d| dice.roll(d)).collect();

    let seed_hex = seed.to_hex();
    let commitment = seed.commitment();
    let start_text = start.to_string();
    let mut args = vec![
        "--seed",
        &seed_hex,
        "--game-id",
        game_id,
        "--commitment",
        &commitment,
        "--start",
        &start_text,
    ];
    for salt in &s {
        args.extend(["--salt", salt.as_str()]);
    }
    let dice_args: Vec<String> = sides
        .iter()
        .zip(&rust)
        .map(|(d, v)| format!("d{d}={v}"))
        .collect();
    args.extend(dice_args.iter().map(String::as_str));
    let Some((ok, stdout)) = run_python(&args) else {
        return;
    };
    assert!(ok, "the script rejected the Rust rolls:\n{stdout}");
    assert!(stdout.contains(&format!("commitment of seed: {commitment}\n")));
    assert!(stdout.contains("commitment: ok\n"));
    let python: Vec<(u64, u32)> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("roll "))
        .map(|rest| {
            let (k, rest) = rest.split_once(": d").unwrap();
            let value = rest.split(" = ").nth(1).unwrap().split(' ').next().unwrap();
            (k.parse().unwrap(), value.parse().unwrap())
        })
        .collect();
    let expected: Vec<(u64, u32)> = (start..).zip(rust.iter().copied()).collect();
    assert_eq!(python, expected);
}

#[test]
fn python_script_flags_a_tampered_roll_and_a_wrong_commitment() {
    let seed = counting_seed();
    let truth = roll(&seed, &[], "rink-1", 0, 6);
    let tampered = format!("d6={}", truth % 6 + 1);
    let seed_hex = seed.to_hex();
    let Some((ok, stdout)) = run_python(&["--seed", &seed_hex, "--game-id", "rink-1", &tampered])
    else {
        return;
    };
    assert!(!ok, "{stdout}");
    assert!(stdout.contains("MISMATCH"), "{stdout}");

    let wrong = "00".repeat(32);
    let (ok, stdout) = run_python(&[
        "--seed",
        &seed_hex,
        "--game-id",
        "rink-1",
        "--commitment",
        &wrong,
        &format!("d6={truth}"),
    ])
    .unwrap();
    assert!(!ok, "{stdout}");
    assert!(stdout.contains("commitment: MISMATCH"), "{stdout}");
}
