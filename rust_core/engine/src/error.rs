//! The one error of the engine: an input that the rules do not allow now, and why.

use std::fmt;

/// An input the rules do not allow in the current state. The state is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalAction {
    pub reason: String,
}

impl IllegalAction {
    pub fn new(reason: impl Into<String>) -> Self {
        IllegalAction { reason: reason.into() }
    }
}

impl fmt::Display for IllegalAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for IllegalAction {}

/// Shorthand for the result of checking or applying an input.
pub type Legal<T = ()> = Result<T, IllegalAction>;

/// Fail with a formatted reason: `deny!("not your turn")`.
#[macro_export]
macro_rules! deny {
    ($($arg:tt)*) => {
        return Err($crate::error::IllegalAction::new(format!($($arg)*)))
    };
}

/// Fail unless a condition holds: `ensure!(cash >= price, "not enough cash")`.
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $($arg:tt)*) => {
        if !$cond {
            $crate::deny!($($arg)*);
        }
    };
}
