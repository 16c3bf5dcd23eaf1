// The `unit` slot of `general/units.wgsl`: units of 16 bytes.
alias Unit = vec4<u32>;
const UNIT_BYTES: u32 = 16u;
