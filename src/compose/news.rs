//! The GM's news as mails: the one place where what an operation did becomes the players' letters (`gm::Herald`).

use super::gather::Gathered;
use super::{
    announce, draw_line, draw_news, press, tell_seats, to_gm, to_seat, welcome, welcome_all, Ctx,
    DiceRevealed, Reminder, TurnReport,
};
use crate::gm::{Herald, News};
use crate::store::Tx;

impl Herald for Ctx<'_> {
    fn tell(&self, tx: &Tx, news: News<'_>) -> anyhow::Result<()> {
        let news = match self.gathered().borrow_mut().as_mut() {
            Some(gathered) => match gather(gathered, news) {
                None => return Ok(()),
                Some(news) => news,
            },
            None => news,
        };
        match news {
            News::Played { g, played, except } => {
                announce(tx, self, g, played, except, &mut |_| vec![])
            }
            News::Began { g } => welcome_all(tx, self, g),
            News::Welcome { g, seats } => welcome(tx, self, g, seats.iter().copied()),
            News::Said { g, seats, text } => tell_seats(tx, self, g, seats.iter().copied(), text),
            News::DrawOffered { g, seat, waiting } => draw_news(tx, self, g, seat, Some(waiting)),
            News::DrawDeclined { g, seat } => draw_news(tx, self, g, seat, None),
            News::Remind { g, seats, orders } => {
                for &s in seats {
                    to_seat(tx, self, g, s, &Reminder { orders }, None)?;
                }
                Ok(())
            }
            News::ToGm { g, text } => to_gm(tx, self, g, text),
            News::Press {
                g,
                from,
                to,
                to_all,
                text,
            } => press(tx, self, g, from, to, to_all, text),
            News::TakenOut { g, seat, text } => {
                let notice = TurnReport {
                    plies: vec![],
                    reports: vec![text.to_string()],
                    your_turn: false,
                    orders: false,
                    headline: Some("Nothing to do: you no longer play in this game.".into()),
                    urgent: false,
                };
                to_seat(tx, self, g, seat, &notice, None)
            }
            News::SeedRevealed { g } => {
                for s in &g.seats {
                    to_seat(tx, self, g, s.seat, &DiceRevealed {}, None)?;
                }
                Ok(())
            }
        }
    }
}

/// Keeps the news an action gathers (plies, and the lines told beside them); other news is
/// told as it comes.
fn gather<'n>(gathered: &mut Gathered, news: News<'n>) -> Option<News<'n>> {
    match news {
        News::Played { g, played, except } => gathered.played(g, played, except),
        News::Said { g, seats, text } => gathered.said(g, seats.iter().copied(), text),
        News::DrawOffered { g, seat, waiting } => {
            let (seats, line) = draw_line(g, seat, Some(waiting));
            gathered.said(g, seats, &line)
        }
        News::DrawDeclined { g, seat } => {
            let (seats, line) = draw_line(g, seat, None);
            gathered.said(g, seats, &line)
        }
        news => return Some(news),
    }
    None
}

impl Ctx<'_> {
    /// The GM at work in this transaction, its news told as this context's mails.
    pub fn gm<'g>(&'g self, tx: &'g Tx<'g>) -> crate::gm::Gm<'g> {
        crate::gm::Gm::new(tx, self.now, self)
    }
}
