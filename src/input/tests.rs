//! The framer's tests: `unit` (hand-written streams) and `properties`
//! (generated ones).

mod properties;
mod unit;
