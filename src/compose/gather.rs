//! One mail per seat per action: the news one inbound mail (or one clock event) causes is gathered and told together, a draw offer or decline inside the turn report of the move that came with it.

use std::cell::RefCell;

use super::{announce, Ctx, TurnReport};
use crate::gamelog::Loaded;
use crate::gm::Played;
use crate::store::Tx;

/// News held between the transactions of one action (`Ctx::gathering_held`).
#[derive(Default)]
pub struct HeldNews(Gathered);

impl HeldNews {
    /// Nothing is held.
    pub fn is_empty(&self) -> bool {
        self.0.games.is_empty() && self.0.played.is_empty() && self.0.lines.is_empty()
    }
}

/// What the herald holds back while an action runs (`Ctx::gathering`).
#[derive(Default, Clone)]
pub(super) struct Gathered {
    /// Each game the news is about, as it stood at its latest news.
    games: Vec<Loaded>,
    /// The plies played per game (one action may play several in one game: merged).
    played: Vec<(i64, Played, Option<usize>)>,
    /// Lines of news for a seat: (game, seat, line), in the order they happened.
    lines: Vec<(i64, usize, String)>,
}

impl Gathered {
    fn keep_game(&mut self, g: &Loaded) {
        match self.games.iter_mut().find(|x| x.row.id == g.row.id) {
            Some(old) => *old = g.clone(),
            None => self.games.push(g.clone()),
        }
    }

    /// The game's plies so far in this action, with `played` after them.
    pub(super) fn played(&mut self, g: &Loaded, played: &Played, except: Option<usize>) {
        self.keep_game(g);
        match self.played.iter_mut().find(|(id, ..)| *id == g.row.id) {
            Some((_, old, old_except)) => {
                old.plies.extend(played.plies.iter().cloned());
                old.reports.extend(played.reports.iter().cloned());
                old.private.extend(played.private.iter().cloned());
                old.finished |= played.finished;
                // The sender's own reply says it; another action's sender would not be here.
                *old_except = old_except.or(except);
            }
            None => self.played.push((g.row.id, played.clone(), except)),
        }
    }

    /// A line of news for each of `seats`.
    pub(super) fn said(&mut self, g: &Loaded, seats: impl IntoIterator<Item = usize>, line: &str) {
        self.keep_game(g);
        for seat in seats {
            self.lines.push((g.row.id, seat, line.to_string()));
        }
    }

    /// Takes the lines for this seat of this game out of the gathered news.
    fn take_lines(&mut self, game: i64, seat: usize) -> Vec<String> {
        let (mine, rest) = std::mem::take(&mut self.lines)
            .into_iter()
            .partition(|(g, s, _)| *g == game && *s == seat);
        self.lines = rest;
        mine.into_iter().map(|(_, _, line)| line).collect()
    }
}

impl Ctx<'_> {
    /// Runs `action` with the news it causes gathered, then tells it: each seat gets one mail,
    /// its turn report with the other news of the action in it (a draw offer beside the move
    /// that came with it), or one mail of news when no ply was played. Nothing is told when
    /// `action` fails (its transaction or savepoint is rolled back).
    pub fn gathering<T>(
        &self,
        tx: &Tx,
        action: impl FnOnce() -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        // An action of one transaction: nothing held before it, and over when it is.
        self.gathering_held(tx, &mut HeldNews::default(), || Ok((action()?, true)))
    }

    /// As `gathering`, for an action spread over several transactions (a robot's turn: its
    /// declaration, the GM's roll, then its choice, each played in a short transaction of its
    /// own so that no search holds the store): the news is kept in `held` across them, and
    /// told, in this transaction, once `action` says the action is over (its `bool`).
    /// Whatever is held when the transactions stop coming is told by `tell_held`.
    pub fn gathering_held<T>(
        &self,
        tx: &Tx,
        held: &mut HeldNews,
        action: impl FnOnce() -> anyhow::Result<(T, bool)>,
    ) -> anyhow::Result<T> {
        let outer = self.gathered.replace(Some(held.0.clone()));
        let result = action();
        let gathered = self.gathered.replace(outer);
        // On failure the transaction rolls back, and with it this one's news: `held` keeps
        // only what earlier, committed transactions gathered.
        let (out, over) = result?;
        let gathered = gathered.unwrap_or_default();
        if over {
            tell_gathered(tx, self, gathered)?;
            // Told: held no more (had the telling failed, `held` would still have it).
            held.0 = Gathered::default();
        } else {
            held.0 = gathered;
        }
        Ok(out)
    }

    /// Tells what `held` still holds (the action's last transaction failed, or stopped
    /// before the action was over).
    pub fn tell_held(&self, tx: &Tx, held: &mut HeldNews) -> anyhow::Result<()> {
        tell_gathered(tx, self, std::mem::take(&mut held.0))
    }

    /// The gathered news, when an action is gathering it (the herald keeps its news there).
    pub(super) fn gathered(&self) -> &RefCell<Option<Gathered>> {
        &self.gathered
    }
}

/// The turn reports with each seat's lines in them, then the lines left as mails of their own.
fn tell_gathered(tx: &Tx, ctx: &Ctx, mut gathered: Gathered) -> anyhow::Result<()> {
    let games = std::mem::take(&mut gathered.games);
    let game = |id: i64| games.iter().find(|g| g.row.id == id);
    for (id, played, except) in std::mem::take(&mut gathered.played) {
        let Some(g) = game(id) else { continue };
        let mut news_for = |seat: usize| gathered.take_lines(id, seat);
        announce(tx, ctx, g, &played, except, &mut news_for)?;
    }
    // News with no ply beside it: one mail a seat, every line of it.
    while let Some((id, seat, _)) = gathered.lines.first().cloned() {
        let lines = gathered.take_lines(id, seat);
        let Some(g) = game(id) else { continue };
        let report = TurnReport {
            plies: vec![],
            reports: lines,
            your_turn: false,
            orders: false,
            headline: None,
            urgent: false,
        };
        super::to_seat(tx, ctx, g, seat, &report, None)?;
    }
    Ok(())
}
