//! Test builds only: the kinds that show what adding one takes (a toy controller and a toy
//! queue discipline, each its file and one line in its list, `controllers!` and
//! `disciplines!`), and the tests, above the modules they test, that scenarios can name them.

mod kinds;
pub mod toy_controller;
pub mod toy_discipline;
