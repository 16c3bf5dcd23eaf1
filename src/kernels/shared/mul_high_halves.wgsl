// The high word of `a * b` where WGSL may have no 64-bit integers: summed from
// 16-bit partial products (`divide` in `shared/params.wgsl`).
fn mul_high(a: u32, b: u32) -> u32 {
    let al = a & 0xFFFFu;
    let ah = a >> 16u;
    let bl = b & 0xFFFFu;
    let bh = b >> 16u;
    let low = al * bl;
    let mid_a = ah * bl;
    let cross = (low >> 16u) + (mid_a & 0xFFFFu) + al * bh;
    return ah * bh + (mid_a >> 16u) + (cross >> 16u);
}
