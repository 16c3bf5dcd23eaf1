// `general` in place across windows (`general/across.wgsl`), units of 4 bytes or
// more: elements of 4, 8 or 16 bytes, or 16-byte vectors of runs of one length.
// Each unit is loaded and stored whole (`units`), and no other invocation touches
// it.
#import general/across
#import general/units

// Swaps unit `front` of the output binding with unit `back` of the back group's
// window (the input binding where the groups lie apart).
fn swap(front: u32, back: u32) {
    let a = load_unit(false, front);
    let b = load_unit(true, back);
    store_unit(false, front, b);
    store_unit(true, back, a);
}
