//! What `serve`'s IMAP thread carried into the spool, by mailbox, UIDVALIDITY and UID (schema 12): a mail remembered here is never fetched again, whatever flags the server forgets.

use std::collections::HashSet;

use rusqlite::params;

use super::Tx;

impl Tx<'_> {
    /// The UIDs carried from `mailbox` (the account as it prints itself) under this
    /// UIDVALIDITY. The UIDs of its other validities are forgotten here: no UID of theirs can
    /// name a mail of this one.
    pub fn imap_carried(&self, mailbox: &str, uid_validity: u32) -> anyhow::Result<HashSet<u32>> {
        self.exec(
            "DELETE FROM imap_carried WHERE mailbox = ?1 AND uid_validity <> ?2",
            params![mailbox, uid_validity],
        )?;
        let mut st = self.conn().prepare_cached(
            "SELECT uid FROM imap_carried WHERE mailbox = ?1 AND uid_validity = ?2",
        )?;
        let rows = st.query_map(params![mailbox, uid_validity], |r| r.get::<_, u32>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Remembers a mail carried into the spool.
    pub fn remember_imap_carried(
        &self,
        mailbox: &str,
        uid_validity: u32,
        uid: u32,
    ) -> anyhow::Result<()> {
        self.exec(
            "INSERT OR IGNORE INTO imap_carried (mailbox, uid_validity, uid) VALUES (?1, ?2, ?3)",
            params![mailbox, uid_validity, uid],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::store::Store;

    #[test]
    fn a_carried_uid_is_remembered_under_its_validity_only() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("db.sqlite"), true).unwrap();
        let m = "imaps://gm@example.org:993/INBOX";
        store
            .tx(|tx| {
                tx.remember_imap_carried(m, 7, 10)?;
                tx.remember_imap_carried(m, 7, 10)?;
                tx.remember_imap_carried(m, 7, 12)?;
                tx.remember_imap_carried("imaps://other@example.org:993/INBOX", 7, 11)
            })
            .unwrap();
        let carried = store.tx(|tx| tx.imap_carried(m, 7)).unwrap();
        assert_eq!(carried, [10, 12].into_iter().collect());
        // A new validity: the old UIDs name nothing any more, and are forgotten.
        assert!(store.tx(|tx| tx.imap_carried(m, 8)).unwrap().is_empty());
        assert!(store.tx(|tx| tx.imap_carried(m, 7)).unwrap().is_empty());
    }
}
