// In place (`general/swap.wgsl`, `general/swap_subwords.wgsl`): which pair of
// which lane an invocation swaps. The invocation index is a row-major position in
// the canonical layout whose axis counts half its positions (`params.sizes`; the
// whole axis is `params.axis_size`): position `t` of a lane pairs with `L - 1 - t`
// where `t < L / 2`, so each pair has one invocation, and the middle of an odd lane
// and every position at or past `L` none.
#import shared/params
#import shared/lengths

// The two elements of a pair, from the start of the tensor's binding; `swaps` is
// false where the lane's length leaves position `t` alone.
struct LanePair {
    front: u32,
    back: u32,
    swaps: bool,
}

fn lane_pair(id: u32) -> LanePair {
    var rem = id;
    var offset = params.out_shift;
    var len_offset = params.len_shift;
    var t = 0u;
    for (var k = 0u; k < RANK; k++) {
        let d = RANK - 1u - k;
        let split = divmod(rem, params.size_divisors[d]);
        rem = split.quotient;
        if (d == AXIS) {
            t = split.remainder;
        } else {
            offset += split.remainder * out_stride_at(d);
            len_offset += split.remainder * len_stride_at(d);
        }
    }
    let len = lane_length(len_offset, params.axis_size);
    let axis = out_stride_at(AXIS);
    // t < L / 2, rounded down (len - 1 - t wraps where it does not swap).
    return LanePair(offset + t * axis, offset + (len - 1u - t) * axis, 2u * t + 1u < len);
}
