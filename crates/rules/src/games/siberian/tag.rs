//! The `[Position]` tag (contract 3.4): `BLUE:b2=3,e3=4 RED:f2=2 move=BLUE`, with the variant's `indicators=`, `sequences=` or `purity=`, and this project's `retired=` for seats that left.

use std::collections::VecDeque;

use super::board::{Die, SEATS};
use super::hex::Hex;
use super::perfection;
use super::position::Position;
use super::variant::{Config, Variant, MAX_LENGTH};
use crate::games::Seat;

/// Writes the position between moves. Before the opening roll the variant's field is left
/// out (the tag then reads back as the start, its opening roll still to come); a PURITY
/// sequence used up is `purity=-`, which only a finished game shows.
pub fn write(cfg: &Config, pos: &Position) -> String {
    let mut fields: Vec<String> = (0..cfg.players)
        .map(|seat| {
            let dice: Vec<String> = pos
                .board
                .dice_of(seat)
                .map(|(h, d)| format!("{h}={}", d.pips))
                .collect();
            let list = if dice.is_empty() {
                "-".to_string()
            } else {
                dice.join(",")
            };
            format!("{}:{list}", SEATS[seat])
        })
        .collect();
    fields.push(format!("move={}", SEATS[pos.to_move]));
    if let Some(ind) = &pos.indicators {
        let v: Vec<String> = ind.iter().map(u8::to_string).collect();
        fields.push(format!("indicators={}", v.join(",")));
    }
    if let Some(seqs) = &pos.sequences {
        let v: Vec<String> = seqs.iter().map(digits).collect();
        fields.push(format!("sequences={}", v.join(",")));
    }
    if let Some(p) = &pos.purity {
        fields.push(format!("purity={}", digits(p)));
    }
    let retired: Vec<&str> = (0..cfg.players)
        .filter(|&s| pos.retired[s])
        .map(|s| SEATS[s])
        .collect();
    if !retired.is_empty() {
        fields.push(format!("retired={}", retired.join(",")));
    }
    fields.join(" ")
}

/// Numbers 1-6 as digits, `-` for none.
fn digits(values: &VecDeque<u8>) -> String {
    if values.is_empty() {
        return "-".into();
    }
    values.iter().map(u8::to_string).collect()
}

/// The fields of a tag as read, before they are checked against each other.
#[derive(Default)]
struct Fields {
    dice: Vec<Option<Vec<(Hex, u8)>>>,
    to_move: Option<Seat>,
    indicators: Option<Vec<u8>>,
    sequences: Option<Vec<VecDeque<u8>>>,
    purity: Option<VecDeque<u8>>,
    retired: Vec<Seat>,
}

/// Reads a tag for a game of these options, refusing what does not fit them.
pub fn read(cfg: &Config, tag: &str) -> Result<Position, String> {
    let mut f = Fields {
        dice: vec![None; cfg.players],
        ..Fields::default()
    };
    for field in tag.split_whitespace() {
        read_field(cfg, &mut f, field)?;
    }
    for (seat, dice) in f.dice.iter().enumerate() {
        if dice.is_none() {
            return Err(format!(
                "no field for {} (write {}:- for none)",
                SEATS[seat], SEATS[seat]
            ));
        }
    }
    let to_move = f.to_move.ok_or("move= is missing: name the seat to move")?;
    let mut pos = Position::start(cfg.players);
    pos.to_move = to_move;
    for &s in &f.retired {
        pos.retired[s] = true;
    }
    if pos.retired[to_move] {
        return Err(format!(
            "{} has left the game and cannot move",
            SEATS[to_move]
        ));
    }
    for (seat, dice) in f.dice.iter().enumerate() {
        for &(hex, pips) in dice.iter().flatten() {
            if let Some(other) = pos.board.at(hex) {
                return Err(format!(
                    "{hex} is named twice ({} and {})",
                    other.described(),
                    Die { seat, pips }.described()
                ));
            }
            pos.board.put(hex, Die { seat, pips });
        }
    }
    pos.indicators = f.indicators;
    pos.sequences = f.sequences;
    pos.purity = f.purity;
    check_variant_fields(cfg, &pos)?;
    check_counts(cfg, &pos)?;
    check_not_over(cfg, &pos)?;
    Ok(pos)
}

fn seat_named(cfg: &Config, name: &str) -> Result<Seat, String> {
    SEATS[..cfg.players]
        .iter()
        .position(|s| s.eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            format!(
                "'{name}' is not a seat of this game ({})",
                SEATS[..cfg.players].join(", ")
            )
        })
}

/// One field: `SEAT:dice`, `move=`, `indicators=`, `sequences=`, `purity=` or `retired=`.
fn read_field(cfg: &Config, f: &mut Fields, field: &str) -> Result<(), String> {
    if let Some((name, list)) = field.split_once(':') {
        let seat = seat_named(cfg, name)?;
        if f.dice[seat].is_some() {
            return Err(format!("{} is given twice", SEATS[seat]));
        }
        f.dice[seat] = Some(read_dice(list)?);
        return Ok(());
    }
    let (name, value) = field
        .split_once('=')
        .ok_or_else(|| format!("cannot read '{field}': fields are SEAT:dice or name=value"))?;
    match name.to_ascii_lowercase().as_str() {
        "move" => f.to_move = Some(seat_named(cfg, value)?),
        "indicators" => {
            let v: Vec<u8> = value
                .split(',')
                .map(|p| pips(p.trim()))
                .collect::<Result<_, _>>()?;
            f.indicators = Some(v);
        }
        "sequences" => {
            let v = value.split(',').map(sequence).collect::<Result<_, _>>()?;
            f.sequences = Some(v);
        }
        "purity" => f.purity = Some(sequence(value)?),
        "retired" => {
            for name in value.split(',').filter(|n| !n.is_empty()) {
                f.retired.push(seat_named(cfg, name)?);
            }
        }
        other => return Err(format!("unknown field '{other}='")),
    }
    Ok(())
}

/// `b2=3,e3=4` or `-`.
fn read_dice(list: &str) -> Result<Vec<(Hex, u8)>, String> {
    if list == "-" {
        return Ok(Vec::new());
    }
    list.split(',')
        .map(|item| {
            let (h, p) = item
                .split_once('=')
                .ok_or_else(|| format!("cannot read '{item}': a die is hex=pips, like d4=3"))?;
            let hex = Hex::parse(h).ok_or_else(|| format!("'{h}' is not a hex (a1 to g4)"))?;
            Ok((hex, pips(p)?))
        })
        .collect()
}

fn pips(text: &str) -> Result<u8, String> {
    text.parse::<u8>()
        .ok()
        .filter(|p| (1..=6).contains(p))
        .ok_or_else(|| format!("'{text}' is not a die's face (1 to 6)"))
}

/// Digits 1-6, head first, or `-` for none.
fn sequence(text: &str) -> Result<VecDeque<u8>, String> {
    if text == "-" {
        return Ok(VecDeque::new());
    }
    text.chars().map(|c| pips(&c.to_string())).collect()
}

/// Each variant's own field, with a value per seat; none of another variant's. Without its
/// field a STRATEGIC, GROSSMEISTER or PURITY tag is the start: an empty board, the opening
/// roll to come.
fn check_variant_fields(cfg: &Config, pos: &Position) -> Result<(), String> {
    let own = match cfg.variant {
        Variant::Strategic => "indicators",
        Variant::Grossmeister => "sequences",
        Variant::Purity => "purity",
        Variant::Basic | Variant::Primes => "",
    };
    let given = [
        ("indicators", pos.indicators.as_ref().map(Vec::len)),
        ("sequences", pos.sequences.as_ref().map(Vec::len)),
        ("purity", pos.purity.as_ref().map(|_| cfg.players)),
    ];
    for (name, len) in given {
        match len {
            Some(_) if name != own => {
                return Err(format!(
                    "{name}= belongs to another variant, not {}",
                    cfg.variant.name()
                ))
            }
            Some(n) if n != cfg.players => {
                return Err(format!(
                    "{name}= needs one value for each of the {} seats",
                    cfg.players
                ))
            }
            None if name == own && pos.board.dice().next().is_some() => {
                return Err(format!("variant={} needs {name}=", cfg.variant.name()))
            }
            _ => {}
        }
    }
    if pos.purity.as_ref().is_some_and(VecDeque::is_empty) {
        return Err("purity= is never empty: the game would be over".into());
    }
    // No longer than a game may publish (`length`): a tag is outside input, and every ply
    // clones what it holds.
    let longest = pos
        .purity
        .iter()
        .chain(pos.sequences.iter().flatten())
        .map(VecDeque::len)
        .max()
        .unwrap_or(0);
    if longest > MAX_LENGTH {
        return Err(format!(
            "a sequence in the tag is longer than {MAX_LENGTH} numbers"
        ));
    }
    Ok(())
}

/// A seat's hand is what the tag leaves of its dice; it cannot be less than none, and in
/// GROSSMEISTER it is the sequence.
fn check_counts(cfg: &Config, pos: &Position) -> Result<(), String> {
    for seat in 0..cfg.players {
        let on_board = pos.board.dice_of(seat).count();
        let off = usize::from(pos.indicators.is_some());
        if on_board + off > cfg.dice {
            return Err(format!(
                "{} has {on_board} dice on the board{}, but owns {} in all",
                SEATS[seat],
                if off > 0 { " and an indicator" } else { "" },
                cfg.dice
            ));
        }
        if let Some(seqs) = &pos.sequences {
            let hand = cfg.dice - on_board;
            if seqs[seat].len() != hand {
                return Err(format!(
                    "{}'s sequence has {} dice, but {hand} are off the board",
                    SEATS[seat],
                    seqs[seat].len()
                ));
            }
        }
    }
    Ok(())
}

/// A seat already at the target: that game is over, not a position to play from.
fn check_not_over(cfg: &Config, pos: &Position) -> Result<(), String> {
    let counts = perfection::counts(&pos.board, cfg.players);
    for seat in pos.playing() {
        if counts[seat] >= cfg.target {
            return Err(format!(
                "{} already has {} perfect dice (the target is {}): that game is over",
                SEATS[seat], counts[seat], cfg.target
            ));
        }
    }
    Ok(())
}
