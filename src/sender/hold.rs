//! Mail to an address that bounces for good is held: of its due mails one goes a day (the probe), the rest wait for the next probe or for the player to write again.

use chrono::{DateTime, Utc};

use crate::gm::reachability::PROBE_EVERY;
use crate::store::{OutboxRow, Store};

/// Takes out of `due` the mails to held addresses, but for one probe per address whose probe
/// is due; those taken wait until the address's next probe (no try counted).
pub(super) fn hold(
    store: &mut Store,
    due: &mut Vec<OutboxRow>,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    let mut held = store.read(|tx| tx.held_addresses())?;
    if held.is_empty() {
        return Ok(());
    }
    let mut waits = Vec::new();
    let mut probed = Vec::new();
    due.retain(|row| {
        let Some(u) = held
            .iter_mut()
            .find(|u| u.addr.eq_ignore_ascii_case(&row.to_addr))
        else {
            return true;
        };
        let next = u.probe_at.unwrap_or(now);
        if next <= now {
            // This mail is the day's probe: the next one waits a day.
            u.probe_at = Some(now + PROBE_EVERY);
            probed.push(u.clone());
            return true;
        }
        waits.push((row.id, next));
        false
    });
    store.tx_lazy(|tx| {
        for (id, until) in &waits {
            tx.postpone_outbox(*id, *until)?;
        }
        for u in &probed {
            tracing::info!(to = %u.addr, "mail to an address that bounces: one goes as the day's probe");
            tx.set_unreachable(u)?;
        }
        Ok(())
    })
}
