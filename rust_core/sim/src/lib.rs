//! lanopoly-sim: bots and fast parallel simulation on the rules engine. Pure Rust, no Python.
//!
//! Bots implement [`Policy`] and play through the engine's legal-action API like people do.

#![forbid(unsafe_code)]

pub mod action_space;
pub mod bots;
pub mod observation;
pub mod play;
pub mod policy;
pub mod simulate;
pub mod vecgame;

pub use policy::Policy;
