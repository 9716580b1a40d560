//! `pbem game show ID`: everything the GM needs to know about a game at a glance: who plays, who has ordered or planned, the salts, the options in words, and what the next timer will do.

use super::Exit;
use crate::compose::Ctx;
use crate::duration;
use crate::gamelog::{self, Loaded};
use crate::games::ToAct;
use crate::gm;
use crate::gm::options::{TimeoutAction, COMMON_OPTIONS};
use crate::store::{GameStatus, PlannedOutcome, Store};
use crate::template::date as when;

/// Prints the game's sheet.
pub(super) fn show(store: &mut Store, ctx: &Ctx, id: i64) -> anyhow::Result<Exit> {
    let (g, plans) = store.tx(|tx| Ok((gamelog::load(tx, id)?, tx.plans(id)?)))?;
    let ordered = g.ordered.clone();
    println!(
        "Game #{id}: {} ({}), {}",
        g.kind().title(),
        g.row.status,
        gm::to_act_text(&g)
    );
    if let Some(why) = &g.row.quarantined {
        println!("  QUARANTINED (timers stopped): {why}");
        println!("  clear it once fixed: pbem game unquarantine {id}");
    }
    if let (Some(at), GameStatus::Paused) = (g.row.paused_at, g.row.status) {
        println!(
            "  paused since {}; `pbem game resume {id}` restarts its clocks",
            when(at)
        );
    }
    seats(&g, &ordered, &plans);
    salts(&g);
    println!("  next timer: {}", next_timer(&g, ctx));
    options(&g)?;
    println!();
    print!("{}", g.game.board());
    Ok(0)
}

/// Each seat: its player, missed turns, and what it has done this turn.
fn seats(g: &Loaded, ordered: &[usize], plans: &[(usize, Vec<PlannedOutcome>)]) {
    let owing = match g.game.to_act() {
        ToAct::Orders(seats) => Some(seats),
        _ => None,
    };
    for s in &g.seats {
        // The player's own: turns the seat missed before they took it were their predecessor's.
        let missed = g
            .game
            .missed(s.seat)
            .map_or(0, |m| m.turns.saturating_sub(s.missed_before));
        let mut notes = vec![format!("missed turns: {missed}")];
        if let Some(owing) = &owing {
            if ordered.contains(&s.seat) {
                notes.push("has ordered this turn".into());
            } else if owing.contains(&s.seat) {
                notes.push("orders still awaited".into());
            }
        }
        if let Some((_, plan)) = plans.iter().find(|(seat, _)| *seat == s.seat) {
            let lines: Vec<String> = plan
                .iter()
                .map(|o| format!("{}: {}", rolls_in_words(&o.rolls), o.ply))
                .collect();
            notes.push(format!("plan waiting for the roll: {}", lines.join("; ")));
        }
        if s.draw_offer {
            notes.push("offers a draw".into());
        }
        if g.kind().rolls_dice() && !g.row.salts_fixed {
            notes.push(
                if s.ready {
                    "sent START"
                } else {
                    "no START yet"
                }
                .into(),
            );
        }
        if let Some(v) = s.vacation_until {
            notes.push(format!("on vacation until {}", when(v)));
        }
        println!(
            "  {:<7} {:<28} {}",
            g.game.seat_name(s.seat),
            gm::robots::seat_holder(s),
            notes.join(", ")
        );
    }
}

fn salts(g: &Loaded) {
    if !g.kind().rolls_dice() {
        return;
    }
    let salts = gm::salts(&g.row).unwrap_or_default();
    let state = if g.row.salts_fixed {
        "fixed".to_string()
    } else {
        match g.row.salts_until {
            Some(u) => format!("open until {} (or every START)", when(u)),
            None => "open until the first roll".to_string(),
        }
    };
    println!(
        "  dice salts: {state}; {} sent{}",
        salts.len(),
        if g.row.seed_revealed {
            "; the seed is revealed"
        } else {
            ""
        }
    );
}

/// What the timers will do next, and when: the clock's deadline (a vacation moves it), the
/// reminder as the timers send it (none to a player on vacation).
fn next_timer(g: &Loaded, ctx: &Ctx) -> String {
    let Some(deadline) = gm::clock::deadline(g) else {
        return "none (no deadline runs)".into();
    };
    if g.row.status == GameStatus::Paused {
        return format!("stopped while paused (the deadline was {})", when(deadline));
    }
    let at_deadline = match g.game.to_act() {
        ToAct::Orders(_) => "the turn is adjudicated with the orders in hand".to_string(),
        ToAct::Seat(s) => {
            let name = g.game.seat_name(s);
            match gm::options::of(g).timeout {
                TimeoutAction::Forfeit => format!("{name} forfeits"),
                TimeoutAction::Notify => format!("the GM is told {name} did not move"),
                TimeoutAction::Robot => format!("the robot plays this move for {name}"),
            }
        }
        ToAct::Chance(_) => "the salt window closes and the dice roll".into(),
        ToAct::Nobody => "nothing".into(),
    };
    let grace = if gm::options::of(g).grace_secs > 0 && !g.row.graced {
        format!(
            " (first a grace of {} for late players)",
            duration::format_secs(gm::options::of(g).grace_secs)
        )
    } else {
        String::new()
    };
    let moved = match g.row.deadline.filter(|stored| *stored != deadline) {
        Some(_) => " (moved past the vacation of the player to move)",
        None => "",
    };
    // A moved deadline gets a reminder of its own.
    let reminded = g.row.reminded && moved.is_empty();
    let remind = gm::clock::remind_at(deadline, g.row.move_secs, ctx.cfg.remind_before_secs);
    if !reminded && remind > ctx.now {
        format!(
            "a reminder at {}, then at {}{moved}: {at_deadline}{grace}",
            when(remind),
            when(deadline)
        )
    } else {
        format!("at {}{moved}: {at_deadline}{grace}", when(deadline))
    }
}

/// Every option the game has, its value and what it means.
fn options(g: &Loaded) -> anyhow::Result<()> {
    let given = gamelog::options_of(&g.row)?;
    println!(
        "  options (set mid-game with `pbem game set {} NAME=VALUE`: {}):",
        g.row.id,
        gm::life::CHANGEABLE.join(", ")
    );
    let move_time = g
        .row
        .move_secs
        .map(duration::format_secs)
        .unwrap_or_else(|| "none".into());
    println!("    move_time = {move_time}\n        each move's time limit");
    let specs = COMMON_OPTIONS.iter().chain(g.kind().facts().options);
    for spec in specs {
        let value = given.get(spec.name).map_or(spec.default, String::as_str);
        let default = if given.contains_key(spec.name) {
            ""
        } else {
            " (default)"
        };
        let help = textwrap::Options::new(76)
            .initial_indent("        ")
            .subsequent_indent("        ");
        println!("    {} = {value}{default}", spec.name);
        println!("{}", textwrap::fill(spec.help, help));
    }
    Ok(())
}

/// A planned outcome's roll values as a player writes them (`1-3,5`), not as a Rust list
/// (`[1, 2, 3, 5]`); no value at all is any roll (`*`).
fn rolls_in_words(rolls: &[u32]) -> String {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &r in rolls {
        match runs.last_mut() {
            Some((_, hi)) if *hi + 1 == r => *hi = r,
            _ => runs.push((r, r)),
        }
    }
    if runs.is_empty() {
        return "*".into();
    }
    let words: Vec<String> = runs
        .iter()
        .map(|&(lo, hi)| match lo == hi {
            true => lo.to_string(),
            false => format!("{lo}-{hi}"),
        })
        .collect();
    words.join(",")
}

#[cfg(test)]
mod tests {
    #[test]
    fn planned_rolls_read_as_a_player_writes_them() {
        assert_eq!(super::rolls_in_words(&[1, 2, 3, 4, 5, 6]), "1-6");
        assert_eq!(super::rolls_in_words(&[1, 3, 4]), "1,3-4");
        assert_eq!(super::rolls_in_words(&[2]), "2");
        assert_eq!(super::rolls_in_words(&[]), "*");
    }
}
