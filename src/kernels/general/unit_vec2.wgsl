// The `unit` slot of `general/units.wgsl`: units of 8 bytes.
alias Unit = vec2<u32>;
const UNIT_BYTES: u32 = 8u;
