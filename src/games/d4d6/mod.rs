//! Placeholder for the d4d6 rules engine (being written; replaced wholesale).

pub mod board;
pub mod movegen;
pub mod pieces;
pub mod position;
pub mod tablebase;

use crate::games::{Actor, GameKind, OptionSpec, Options, Outcome, PlyError, Rules, ToAct};

#[derive(Debug, Clone)]
pub struct D4d6;

impl Rules for D4d6 {
    const KIND: GameKind = GameKind::D4D6;
    fn option_specs() -> &'static [OptionSpec] {
        &[]
    }
    fn new(_: &Options) -> Result<Self, String> {
        Err("not built yet".into())
    }
    fn from_position(_: &Options, _: &str) -> Result<Self, String> {
        Err("not built yet".into())
    }
    fn position_tag(&self) -> String {
        String::new()
    }
    fn seat_names(&self) -> &'static [&'static str] {
        &[]
    }
    fn to_act(&self) -> ToAct {
        ToAct::Nobody
    }
    fn play(&mut self, _: Actor, _: &str) -> Result<String, PlyError> {
        Err(PlyError::Illegal("not built yet".into()))
    }
    fn outcome(&self) -> Option<Outcome> {
        None
    }
    fn legal_plies(&self) -> Vec<String> {
        Vec::new()
    }
    fn board(&self) -> String {
        String::new()
    }
    fn position_json(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
    fn move_number(&self) -> Option<(u32, bool)> {
        None
    }
}
