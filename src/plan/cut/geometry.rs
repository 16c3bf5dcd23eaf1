//! The geometry pieces are cut by: how many positions fit a window, how far a
//! piece's offsets reach, where to cut a layout, and the pieces' indices.

use crate::descriptor::layout::{Dim, Layout};

/// How many positions `stride` apart fit `room` elements beside the `rest` that
/// each position's inner dimensions span (all of them where `stride` is 0).
pub(super) fn fits(room: u64, rest: u64, stride: u64) -> u64 {
    if rest + 1 > room {
        0
    } else {
        (room - 1 - rest)
            .checked_div(stride)
            .map_or(u64::MAX, |more| more + 1)
    }
}

/// The furthest offset from a piece's origin that its elements reach.
pub(super) fn extent(dims: &[Dim], stride: impl Fn(&Dim) -> u64) -> u64 {
    dims.iter()
        .map(|d| u64::from(d.size.saturating_sub(1)) * stride(d))
        .sum()
}

/// Where to cut: the outermost dimension `cut` whose positions are grouped `group`
/// at a time, with every dimension inside it whole, such that output and lengths
/// spans fit `out_room` and `len_room` elements and input offsets stay within a
/// u32 (over the whole axis, or over positions of which `in_room` holds one). `None` when not even one element does.
pub(super) fn cut(
    layout: &Layout,
    out_room: u64,
    len_room: u64,
    in_room: u64,
) -> Option<(usize, u32)> {
    let dims = &layout.dims;
    let axis = layout.axis;
    let n = dims[axis].size;
    (0..dims.len()).find_map(|cut| {
        let inner = &dims[cut + 1..];
        let out = fits(out_room, extent(inner, |d| d.output), dims[cut].output);
        let len = fits(len_room, extent(inner, |d| d.lengths), dims[cut].lengths);
        // Input offsets relative to a piece fit a u32 over the whole axis, or over
        // each position when a window holds whole positions.
        let in_axis = dims[axis].input;
        let position_rest: u64 = inner
            .iter()
            .enumerate()
            .filter(|&(d, _)| cut + 1 + d != axis)
            .map(|(_, d)| u64::from(d.size.saturating_sub(1)) * d.input)
            .sum();
        let in_stride = if axis == cut { 0 } else { dims[cut].input };
        let whole_axis = fits(
            u64::from(u32::MAX),
            position_rest + u64::from(n.saturating_sub(1)) * in_axis,
            in_stride,
        );
        let by_position = if in_axis <= in_room {
            fits(in_axis, position_rest, in_stride)
        } else {
            0
        };
        let input = whole_axis.max(by_position);
        let group = out.min(len).min(input).min(u64::from(dims[cut].size));
        (group >= 1).then_some((cut, group as u32))
    })
}

/// Every index of dimensions of `sizes`, the last fastest; one empty index where
/// there are none.
pub(super) fn indices(sizes: Vec<u32>) -> impl Iterator<Item = Vec<u32>> {
    let mut next = Some(vec![0u32; sizes.len()]);
    std::iter::from_fn(move || {
        let current = next.take()?;
        let mut following = current.clone();
        for d in (0..sizes.len()).rev() {
            following[d] += 1;
            if following[d] < sizes[d] {
                next = Some(following);
                break;
            }
            following[d] = 0;
        }
        Some(current)
    })
}
