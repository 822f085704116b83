//! The one error of the engine: an input that the rules do not allow now, and why.
//!
//! A refusal is made from a fixed template with named fields, `"you do not own {square}"` with
//! `square = "Boardwalk"`: the English `reason` is the template filled in, and the template itself
//! (`code`) with the fields (`args`) lets a user interface say the same in another language. A
//! refusal that wraps another (an offer that no longer holds, and why) keeps it as `cause`.
//!
//! Bots and legality masks ask "is this legal?" thousands of times per game and never read the
//! reason, and formatting one (allocating the fields and the text) cost ten times the check
//! itself. So every check is written once, generic over how it reports a refusal ([`Refusal`]):
//! in full as an [`IllegalAction`], or as the bare [`Refused`], which builds nothing (the
//! fields of `deny!` are computed in a closure that is then never called).

use std::fmt;

/// An input the rules do not allow in the current state. The state is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalAction {
    /// The reason in English, as shown to a player.
    pub reason: String,
    /// The template the reason was made from (a stable key for translations); empty for a free
    /// text (a malformed state or invalid rules, which no move produces).
    pub code: &'static str,
    /// The values of the template's `{fields}`, in the order they appear.
    pub args: Vec<(&'static str, String)>,
    /// The refusal this one wraps, if any (its reason fills the field `cause`).
    pub cause: Option<Box<IllegalAction>>,
}

impl IllegalAction {
    /// A refusal in free text, with no template.
    pub fn new(reason: impl Into<String>) -> Self {
        IllegalAction { reason: reason.into(), code: "", args: Vec::new(), cause: None }
    }

    /// A refusal from a template: each `{name}` is replaced by the value of that field. Every
    /// field of the template must be given (checked in debug builds).
    pub fn refusal(code: &'static str, args: Vec<(&'static str, String)>) -> Self {
        let mut reason = code.to_string();
        for (name, value) in &args {
            reason = reason.replace(&format!("{{{name}}}"), value);
        }
        debug_assert!(!reason.contains('{') || args.iter().any(|(_, v)| v.contains('{')), "unfilled field in {code:?}");
        IllegalAction { reason, code, args, cause: None }
    }

    /// This refusal wrapped in another whose template has a `{cause}` field: "the offer no
    /// longer holds: {cause}".
    pub fn within(self, code: &'static str) -> Self {
        let mut outer = IllegalAction::refusal(code, vec![("cause", self.reason.clone())]);
        outer.cause = Some(Box::new(self));
        outer
    }
}

/// How a check reports a refusal: [`IllegalAction`] (the reason in full) or [`Refused`] (only
/// that the answer is no). The two always agree: they come from the same check.
pub trait Refusal: Sized {
    /// The refusal made from `code`; `args` gives its fields, called only if they are needed.
    fn refuse(code: &'static str, args: impl FnOnce() -> Vec<(&'static str, String)>) -> Self;

    /// This refusal wrapped in one whose template has a `{cause}` field.
    fn wrap(self, code: &'static str) -> Self;
}

impl Refusal for IllegalAction {
    fn refuse(code: &'static str, args: impl FnOnce() -> Vec<(&'static str, String)>) -> Self {
        IllegalAction::refusal(code, args())
    }

    fn wrap(self, code: &'static str) -> Self {
        self.within(code)
    }
}

/// A refusal without its reason: what [`crate::Game::is_legal`] and the legal-action lists use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused;

impl Refusal for Refused {
    #[inline]
    fn refuse(_code: &'static str, _args: impl FnOnce() -> Vec<(&'static str, String)>) -> Self {
        Refused
    }

    #[inline]
    fn wrap(self, _code: &'static str) -> Self {
        Refused
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

/// The result of a check that reports its refusal as `R` (see [`Refusal`]).
pub type Checked<T, R> = Result<T, R>;

/// Fail with a refusal made from a template and its named fields:
/// `deny!("you do not own {square}", square = self.square_name(s))`. Every `{field}` of the
/// template is given as `name = value` (any `Display` value); inline captures are not used, so
/// that the fields reach the error and its translations. The function's error type may be any
/// [`Refusal`]: with [`Refused`] the fields are never computed.
#[macro_export]
macro_rules! deny {
    ($code:literal $(, $name:ident = $value:expr)* $(,)?) => {
        return Err($crate::error::Refusal::refuse($code, || vec![$((stringify!($name), ($value).to_string())),*]))
    };
}

/// Fail unless a condition holds: `ensure!(cash >= price, "the price is {price}", price = price)`.
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $code:literal $(, $name:ident = $value:expr)* $(,)?) => {
        if !$cond {
            $crate::deny!($code $(, $name = $value)*);
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_fills_its_template() {
        let e = IllegalAction::refusal("{who} owes {amount}", vec![("who", "seat 1".into()), ("amount", "20".into())]);
        assert_eq!(e.reason, "seat 1 owes 20");
        assert_eq!(e.code, "{who} owes {amount}");
        let outer = e.clone().within("the offer no longer holds: {cause}");
        assert_eq!(outer.reason, "the offer no longer holds: seat 1 owes 20");
        assert_eq!(outer.cause.as_deref(), Some(&e));
    }
}
