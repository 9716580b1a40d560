//! What `serve`'s IMAP thread carried into the spool, by mailbox, UIDVALIDITY and UID (schema 12): a mail remembered here is never fetched again, whatever flags the server forgets.

use std::collections::HashSet;

use rusqlite::params;

use super::Tx;

impl Tx<'_> {
    /// The UIDs among `waiting` carried from `mailbox` (the account as it prints itself)
    /// under this UIDVALIDITY. The others are forgotten here: those of other validities name
    /// no mail of this one, and a mail that waits no more (marked, moved, expunged) needs no
    /// memory (should a server forget its mark later, it is read once more and the store
    /// finds it a duplicate). So the table holds what waits, never every mail ever read.
    pub fn imap_carried(
        &self,
        mailbox: &str,
        uid_validity: u32,
        waiting: &[u32],
    ) -> anyhow::Result<HashSet<u32>> {
        self.exec(
            "DELETE FROM imap_carried WHERE mailbox = ?1 AND uid_validity <> ?2",
            params![mailbox, uid_validity],
        )?;
        let mut st = self.conn().prepare_cached(
            "SELECT uid FROM imap_carried WHERE mailbox = ?1 AND uid_validity = ?2",
        )?;
        let rows = st.query_map(params![mailbox, uid_validity], |r| r.get::<_, u32>(0))?;
        let remembered: HashSet<u32> = rows.collect::<Result<_, _>>()?;
        let waiting: HashSet<u32> = waiting.iter().copied().collect();
        let mut forget = self.conn().prepare_cached(
            "DELETE FROM imap_carried WHERE mailbox = ?1 AND uid_validity = ?2 AND uid = ?3",
        )?;
        for uid in remembered.difference(&waiting) {
            forget.execute(params![mailbox, uid_validity, uid])?;
        }
        Ok(remembered.intersection(&waiting).copied().collect())
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
        let carried = store.tx(|tx| tx.imap_carried(m, 7, &[10, 12, 13])).unwrap();
        assert_eq!(carried, [10, 12].into_iter().collect());
        // 10 waits no more (marked): forgotten, so the memory holds only what waits.
        let carried = store.tx(|tx| tx.imap_carried(m, 7, &[12, 13])).unwrap();
        assert_eq!(carried, [12].into_iter().collect());
        let carried = store.tx(|tx| tx.imap_carried(m, 7, &[10, 12])).unwrap();
        assert_eq!(carried, [12].into_iter().collect());
        // A new validity: the old UIDs name nothing any more, and are forgotten.
        assert!(store
            .tx(|tx| tx.imap_carried(m, 8, &[12]))
            .unwrap()
            .is_empty());
        assert!(store
            .tx(|tx| tx.imap_carried(m, 7, &[12]))
            .unwrap()
            .is_empty());
    }
}
