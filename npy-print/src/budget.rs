//! The budget of the text one print makes of Python objects ([`PrintOptions::object_budget`]):
//! every object's text (its `repr`, or `str` in a 0-d array) is built into a string that
//! charges each byte to what is left of the print's budget, and stops where it runs out. A
//! nested array's text is charged again when its item is built around it, as the pickle reader
//! charges each copy of a value: the strings held at once, at every depth, stay within the
//! budget.
//!
//! The budget lives for the outermost print on the thread (an array's `Display`, a
//! `PyObject`'s, [`write_str`](super::write_str)); prints nested in it (the arrays inside
//! object items) spend the same one.

use std::cell::Cell;
use std::fmt;

thread_local! {
    /// What is left of the outermost print's budget (`None`: no print under way).
    static LEFT: Cell<Option<u64>> = const { Cell::new(None) };
    /// Whether some object's text was cut in the outermost print.
    static CUT: Cell<bool> = const { Cell::new(false) };
}

/// A print's hold on the budget: the outermost one sets it up and ends it when dropped.
pub(crate) struct Scope {
    outermost: bool,
    /// The budget it entered with (the outermost's).
    budget: u64,
}

impl Scope {
    /// Enters a print with `budget` bytes, unless one is under way (whose budget it spends).
    pub(crate) fn enter(budget: u64) -> Scope {
        let outermost = LEFT.with(|l| {
            if l.get().is_some() {
                return false;
            }
            l.set(Some(budget));
            true
        });
        if outermost {
            CUT.with(|c| c.set(false));
        }
        Scope { outermost, budget }
    }

    /// Bytes of the budget spent so far (0 for a print nested in another, which spends the
    /// outer one's).
    pub(crate) fn spent(&self) -> u64 {
        if !self.outermost {
            return 0;
        }
        self.budget
            .saturating_sub(LEFT.with(Cell::get).unwrap_or(self.budget))
    }

    /// Whether some object's text was cut so far in this print.
    pub(crate) fn cut(&self) -> bool {
        CUT.with(Cell::get)
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        if self.outermost {
            LEFT.with(|l| l.set(None));
            CUT.with(|c| c.set(false));
        }
    }
}

/// Charges `bytes` of work that makes no text (an int's conversion to decimal,
/// `npy_pickle::int_decimal_work`) to the print under way: `false`, the
/// budget spent and the print cut, when they are not left; `true` outside a print.
pub fn spend(bytes: u64) -> bool {
    LEFT.with(|l| match l.get() {
        None => true,
        Some(left) if bytes <= left => {
            l.set(Some(left - bytes));
            true
        }
        Some(_) => {
            l.set(Some(0));
            CUT.with(|c| c.set(true));
            false
        }
    })
}

/// What marks an object's text cut at the budget.
pub(crate) const CUT_MARK: &str = "...";

/// The text `write` makes, charged to the print's budget (a print of `budget` bytes when none
/// is under way): cut where the budget runs out, and then ended with [`CUT_MARK`].
pub(crate) fn capped(
    budget: u64,
    write: impl FnOnce(&mut dyn fmt::Write) -> fmt::Result,
) -> String {
    let _scope = Scope::enter(budget);
    let mut out = Capped {
        text: String::new(),
        cut: false,
    };
    if write(&mut out).is_err() || out.cut {
        CUT.with(|c| c.set(true));
        out.text.push_str(CUT_MARK);
    }
    out.text
}

/// A string whose writes are charged to [`LEFT`].
struct Capped {
    text: String,
    cut: bool,
}

impl Capped {
    /// Room for `extra` more bytes, growing as a `String` does (doubling) but never past what
    /// the text can still become, `left` bytes of budget and the cut mark: a text cut at a
    /// budget of 64 MiB reserves 64 MiB, not the 128 MiB of the next doubling.
    fn reserve(&mut self, extra: usize, left: u64) {
        let len = self.text.len();
        let need = len.saturating_add(extra);
        if need <= self.text.capacity() {
            return;
        }
        let most = usize::try_from(left)
            .unwrap_or(usize::MAX)
            .saturating_add(len)
            .saturating_add(CUT_MARK.len());
        let target = self.text.capacity().saturating_mul(2).min(most).max(need);
        self.text.reserve_exact(target - len);
    }
}

impl fmt::Write for Capped {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let left = LEFT.with(Cell::get).unwrap_or(0);
        let len = s.len() as u64;
        if len <= left {
            LEFT.with(|l| l.set(Some(left - len)));
            self.reserve(s.len(), left);
            self.text.push_str(s);
            return Ok(());
        }
        // What fits, to a character's boundary; then nothing more.
        let mut end = usize::try_from(left).unwrap_or(usize::MAX).min(s.len());
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        self.reserve(end, left);
        self.text.push_str(&s[..end]);
        LEFT.with(|l| l.set(Some(0)));
        self.cut = true;
        Err(fmt::Error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_stops_at_the_budget_and_nested_prints_share_it() {
        assert_eq!(capped(5, |w| w.write_str("abc")), "abc");
        assert_eq!(capped(5, |w| w.write_str("abcdefgh")), "abcde...");
        // A character is not split.
        assert_eq!(capped(2, |w| w.write_str("aé")), "a...");
        let outer = Scope::enter(10);
        assert_eq!(capped(100, |w| w.write_str("0123456")), "0123456");
        assert!(!outer.cut());
        assert_eq!(capped(100, |w| write!(w, "{}", "x".repeat(10))), "xxx...");
        assert!(outer.cut());
        assert_eq!(capped(100, |w| w.write_str("y")), "...");
        drop(outer);
        assert_eq!(capped(3, |w| w.write_str("abc")), "abc");
    }
}
