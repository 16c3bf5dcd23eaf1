// The `unit` slot of `general/units.wgsl`: units of 4 bytes.
alias Unit = u32;
const UNIT_BYTES: u32 = 4u;
