//! STUB until the bounce reader lands (branch i30-bounce): the report's shape only.

/// What a delivery report says about the mail it returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bounce {
    pub failures: Vec<Failure>,
    pub original_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub recipient: String,
    pub status: Option<String>,
    pub severity: Severity,
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Permanent,
    Transient,
    Delayed,
}

pub fn read(_message: &mail_parser::Message<'_>) -> Bounce {
    Bounce::default()
}
