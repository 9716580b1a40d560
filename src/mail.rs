//! Mail in and out: parsing received mail and sending replies.

pub mod inbound;
pub mod intake;
pub mod outbound;
