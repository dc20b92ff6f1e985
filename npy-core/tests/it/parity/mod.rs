//! numpy parity (issue 13): every table and file of `fixtures/parity/`, which numpy 2.4.6 and
//! Python 3.11 wrote (`cargo xtask fixtures`, `xtask/fixtures_parity.py`). Expected values come
//! from those tables, never from this crate's output.

mod bools;
mod cases;
mod descr;
mod fstream;
mod literals;
mod longdouble;
mod padding;
mod support;
mod widen;
