//! The states a stored row can be in, as enums stored as their lowercase names (`ToSql`/`FromSql`), so no status travels as a free string.

use std::fmt;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

/// Declares a status enum with its stored names; `PartialEq<&str>` lets a test compare it with
/// the name it is stored as.
macro_rules! status {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
        #[serde(rename_all = "lowercase")]
        pub enum $name {
            $($(#[$vdoc])* $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The name it is stored and shown as.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The value stored as `text`.
            pub fn parse(text: &str) -> Option<$name> {
                match text {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::from(self.as_str()))
            }
        }

        impl FromSql for $name {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
                let text = value.as_str()?;
                $name::parse(text).ok_or_else(|| {
                    FromSqlError::Other(format!("'{text}' is not a {}", stringify!($name)).into())
                })
            }
        }
    };
}

status!(
    /// Where a game is in its life.
    GameStatus {
        /// Seats wait for players (`JOIN`).
        Open = "open",
        Active = "active",
        /// The GM paused it: no clock runs and no move is played until it resumes.
        Paused = "paused",
        Finished = "finished",
    }
);

status!(
    /// What became of an inbound mail.
    MessageStatus {
        /// Stored, not yet processed.
        New = "new",
        /// Processed and answered (or deliberately not answered).
        Done = "done",
        /// Recorded, not acted on: junk, a loop, a forgery, a limit.
        Refused = "refused",
        /// Processing failed or panicked; final, for the GM to look at.
        Failed = "failed",
    }
);

status!(
    /// Where an outgoing mail is.
    OutboxStatus {
        Pending = "pending",
        Sent = "sent",
        /// Given up after permanent errors or too many attempts.
        Failed = "failed",
    }
);

status!(
    /// What a seat's pending lines are, kept outside the move log until they are played.
    PendingKind {
        /// A simultaneous turn's orders.
        Orders = "orders",
        /// A declaration's outcomes planned per roll.
        Plan = "plan",
    }
);

/// A mail is queued pending (the outbox row's default).
#[allow(clippy::derivable_impls)]
impl Default for OutboxStatus {
    fn default() -> Self {
        OutboxStatus::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_round_trips_through_its_stored_name() {
        for s in GameStatus::ALL {
            assert_eq!(GameStatus::parse(s.as_str()), Some(*s));
        }
        for s in MessageStatus::ALL {
            assert_eq!(MessageStatus::parse(s.as_str()), Some(*s));
        }
        assert_eq!(MessageStatus::Done, "done");
        assert_eq!(OutboxStatus::parse("nonsense"), None);
        assert_eq!(PendingKind::Plan.to_string(), "plan");
    }
}
