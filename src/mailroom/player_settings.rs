//! A player's own settings by mail: VACATION, DIGEST and NAME, answered line by line.

use super::{auth::Auth, session::Session, Line};
use crate::compose::Ctx;
use crate::gm;
use crate::store::Tx;

/// Whether the sender proved who they are (their secret reply address or their PASSWORD),
/// as a setting of their own needs; the line is refused in words when not.
fn proven(s: &mut Session, text: &str, command: &str, auth: &Auth) -> bool {
    if matches!(auth, Auth::None) {
        s.lines.push(Line::no(
            text,
            format!("send {command} from your secret reply address or with your PASSWORD"),
        ));
        return false;
    }
    true
}

/// `VACATION n` / `VACATION OFF`: the sender's clocks pause or run again.
pub(super) fn cmd_vacation(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    days: &Option<u32>,
    from: &str,
    auth: &Auth,
) -> anyhow::Result<()> {
    if !proven(s, text, "VACATION", auth) {
        return Ok(());
    }
    let until = gm::set_vacation(tx, from, *days, ctx.now)?;
    s.lines.push(Line::ok(
        text,
        Some(match until {
            Some(u) => format!("your clocks are paused until {}", crate::template::date(u)),
            None => "vacation ended: your clocks run again".into(),
        }),
    ));
    Ok(())
}

/// `DIGEST ON|OFF`: the player's turn reports as one mail a day, or each at once.
pub(super) fn cmd_digest(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    on: bool,
    from: &str,
    auth: &Auth,
) -> anyhow::Result<()> {
    if !proven(s, text, "DIGEST", auth) {
        return Ok(());
    }
    if let Err(why) = gm::set_digest(tx, from, on, ctx.now)? {
        s.lines.push(Line::no(text, why.to_string()));
        return Ok(());
    }
    let said = if on {
        "from now on, news of your games comes as one mail a day, listing every game \
         where it is your turn; a deadline within the day is still mailed at once"
    } else {
        "digest off: you get a mail for each move again"
    };
    s.lines.push(Line::ok(text, Some(said.into())));
    Ok(())
}

/// `NAME Ann Smith`: the name the sender is shown by in records, statistics, ratings and
/// the other players' mails (`gm::names`); refused in words when it cannot be one.
pub(super) fn cmd_name(
    tx: &Tx,
    s: &mut Session,
    text: &str,
    name: &str,
    from: &str,
    auth: &Auth,
) -> anyhow::Result<()> {
    if !proven(s, text, "NAME", auth) {
        return Ok(());
    }
    s.lines
        .push(match gm::names::set_name(tx, from, Some(name))? {
            Ok(name) => Line::ok(
                text,
                Some(format!(
                    "you are called {} from now on",
                    name.unwrap_or_default()
                )),
            ),
            Err(why) => Line::no(text, why),
        });
    Ok(())
}
