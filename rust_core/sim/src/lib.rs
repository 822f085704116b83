//! lanopoly-sim: bots and fast parallel simulation on the rules engine. Pure Rust, no Python.
//!
//! Bots implement [`Policy`] and play through the engine's legal-action API like people do.

// One audited `unsafe` in `pool` (a scoped task for persistent threads); none elsewhere.
#![deny(unsafe_code)]

pub mod action_space;
pub mod bots;
pub mod interrupt;
pub mod observation;
pub mod play;
pub mod policy;
mod pool;
pub mod simulate;
pub mod vecgame;
pub mod workload;

pub use policy::Policy;
