//! The cutting on the host: every output element written once from its source,
//! and in place every pair swapped once, in host simulations of the kernels'
//! windowed dispatches.

use super::geometry::extent;
use super::*;
use crate::descriptor::layout::Dim;
use crate::{DataType, ReverseSubsequences, TensorDesc};

fn layout(sizes: &[u32], axis: u32) -> Layout {
    let mut len_sizes = sizes.to_vec();
    len_sizes[axis as usize] = 1;
    let desc = ReverseSubsequences::new(
        TensorDesc::new(DataType::Uint8, sizes),
        TensorDesc::new(DataType::Uint32, &len_sizes),
        TensorDesc::new(DataType::Uint8, sizes),
        axis,
    );
    desc.validate().unwrap();
    Layout::canonical(&desc)
}

#[test]
fn a_tensor_that_fits_is_one_dispatch() {
    let d = split(
        &layout(&[4, 100], 1),
        [1, 4, 1],
        [400, 16, 400],
        1024,
        256,
        false,
    )
    .unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0].windows[2],
        Window {
            offset: 0,
            size: 400
        }
    );
    assert!(d[0].whole);
}

#[test]
fn rows_are_grouped_into_windows_that_hold_every_source() {
    // Rows of 300 bytes, windows of 1024 bytes: room for 2 rows a piece.
    let d = split(
        &layout(&[10, 300], 1),
        [1, 4, 1],
        [3000, 40, 3000],
        1024,
        256,
        false,
    )
    .unwrap();
    assert!(d
        .iter()
        .all(|d| d.whole && d.windows.iter().all(|w| w.size <= 1024)));
    assert_eq!(d.len(), 5);
    assert_eq!(d[1].windows[2].offset + u64::from(d[1].shifts[2]), 600);
}

#[test]
fn an_axis_longer_than_a_window_runs_in_pairs_of_windows() {
    let d = split(
        &layout(&[5000], 0),
        [1, 4, 1],
        [5000, 4, 5000],
        1024,
        256,
        false,
    )
    .unwrap();
    assert!(d.iter().all(|d| !d.whole && d.by_position));
    // Each piece of output positions pairs with the input windows that can hold
    // its sources: its own positions, and those its reversal reaches (fewer for
    // later pieces).
    let pieces = 5000u64.div_ceil(1024 - 256 - 4);
    assert!(
        (d.len() as u64) > pieces && (d.len() as u64) < pieces * pieces,
        "{}",
        d.len()
    );
}

/// Simulates every dispatch on the host: each output element must be written
/// exactly once, from the source the operator names, with every access inside
/// the dispatch's windows.
fn simulate(layout: &Layout, widths: [u64; 3], binding: u64, lengths: &dyn Fn(u64) -> u32) {
    for walk in [false, true] {
        simulate_split(layout, widths, binding, lengths, walk);
    }
}

/// [`simulate`] with `split`'s choice for a kernel that walks positions or not.
/// Returns the elements each dispatch writes.
fn simulate_split(
    layout: &Layout,
    widths: [u64; 3],
    binding: u64,
    lengths: &dyn Fn(u64) -> u32,
    walk: bool,
) -> Vec<u64> {
    let dims = &layout.dims;
    let count = layout.element_count();
    let bytes = [0, 1, 2].map(|t| {
        let stride = |d: &Dim| [d.input, d.lengths, d.output][t];
        (extent(dims, stride) + 1) * widths[t]
    });
    let dispatches = split(layout, widths, bytes, binding, 256, walk).unwrap();
    let mut written = std::collections::HashMap::new();
    let mut writes = vec![0; dispatches.len()];
    for (d, writes) in dispatches.iter().zip(&mut writes) {
        for (t, w) in d.windows.iter().enumerate() {
            assert!(
                w.size <= binding.min(MAX_WINDOW_BYTES)
                    && w.offset + w.size <= bytes[t].next_multiple_of(4)
            );
            assert_eq!(w.offset % 256, 0);
        }
        if let Some(staging) = &d.staging {
            check_batches(staging, bytes, binding);
        }
        let out_origin = (d.windows[2].offset / widths[2]) as i64 + i64::from(d.shifts[2]);
        let len_origin = (d.windows[1].offset / widths[1]) as i64 + i64::from(d.shifts[1]);
        let piece = &d.layout;
        let n = dims[layout.axis].size;
        for e in 0..piece.element_count() {
            let (mut rem, mut out, mut inp, mut len, mut t) = (e, 0u64, 0u64, 0u64, 0u32);
            for dim in piece.dims.iter().rev() {
                let i = rem % u64::from(dim.size);
                rem /= u64::from(dim.size);
                out += i * dim.output;
                len += i * dim.lengths;
                if std::ptr::eq(dim, &piece.dims[piece.axis]) {
                    t = i as u32;
                } else {
                    inp += i * dim.input;
                }
            }
            let l = lengths((len_origin + len as i64) as u64).min(n);
            let t = d.axis_start + t;
            let s = if t < l { l - 1 - t } else { t };
            if s < d.positions[0] || s >= d.positions[1] {
                continue;
            }
            let source = inp + u64::from(s - d.positions[0]) * piece.dims[piece.axis].input;
            if source < u64::from(d.sources[0]) || source >= u64::from(d.sources[1]) {
                continue;
            }
            let at_out = out + u64::from(d.shifts[2]);
            assert!((at_out + 1) * widths[2] <= d.windows[2].size);
            let at_in = (source as u32).wrapping_add(d.shifts[0]);
            assert!(
                (u64::from(at_in) + 1) * widths[0] <= d.windows[0].size,
                "input read outside its window"
            );
            let mut global = d.windows[0].offset / widths[0] + u64::from(at_in);
            let mut at = out_origin as u64 + out;
            if let Some(staging) = &d.staging {
                // Scratch holds the positions' segments one after another.
                let scratch = |element: u64, segments: &Segments, width: u64| {
                    let byte = element * width;
                    let (p, within) = (byte / segments.pitch, byte % segments.pitch);
                    assert!(p < u64::from(staging.positions));
                    (within < segments.bytes)
                        .then(|| (segments.origin + p * segments.stride + within) / width)
                };
                let (Some(source), Some(target)) = (
                    scratch(global, &staging.input, widths[0]),
                    scratch(at, &staging.output, widths[2]),
                ) else {
                    // Padding: read and written in scratch, never copied back.
                    continue;
                };
                global = source;
                at = target;
            }
            let previous = written.insert(at, global);
            assert!(previous.is_none(), "output element written twice");
            *writes += 1;
        }
    }
    assert_eq!(written.len() as u64, count);
    // The sources the operator names, from the whole layout.
    for e in 0..count {
        let (mut rem, mut out, mut inp, mut len, mut t) = (e, 0u64, 0u64, 0u64, 0u32);
        for (d, dim) in dims.iter().enumerate().rev() {
            let i = rem % u64::from(dim.size);
            rem /= u64::from(dim.size);
            out += i * dim.output;
            len += i * dim.lengths;
            if d == layout.axis {
                t = i as u32
            } else {
                inp += i * dim.input
            }
        }
        let n = dims[layout.axis].size;
        let l = lengths(len).min(n);
        let s = if t < l { l - 1 - t } else { t };
        assert_eq!(written[&out], inp + u64::from(s) * dims[layout.axis].input);
    }
    writes
}

#[test]
fn every_output_element_is_written_once_from_its_source() {
    let lengths = |lane: u64| (lane * 7 % 23) as u32;
    for (sizes, axis) in [
        (&[10u32, 300][..], 1),
        (&[5000][..], 0),
        (&[40, 30, 16][..], 1),
        (&[64, 8, 30][..], 0),
        (&[3, 700, 5][..], 1),
        (&[70, 16, 33][..], 0),
    ] {
        for width in [1, 2, 4, 16] {
            for binding in [4096, 16384] {
                simulate(&layout(sizes, axis), [width, 4, width], binding, &lengths);
            }
        }
    }
}

/// The time-major layout: `[time, batch, inner]`, a length per batch entry.
fn time_major(time: u32, batch: u32, inner: u32, width: u64) -> Layout {
    let data_type = match width {
        1 => DataType::Uint8,
        2 => DataType::Uint16,
        _ => DataType::Uint32,
    };
    let sizes = [time, batch, inner];
    let desc = ReverseSubsequences::new(
        TensorDesc::new(data_type, &sizes),
        TensorDesc::new(DataType::Uint32, &[1, batch, inner]).with_strides(&[0, 1, 0]),
        TensorDesc::new(data_type, &sizes),
        0,
    );
    desc.validate().unwrap();
    Layout::canonical(&desc)
}

/// A staged piece's copy batches: each segment of each tensor in exactly one
/// batch, in order, inside the batch's window, which starts on the alignment,
/// fits a binding and lies in the tensor's binding.
fn check_batches(staging: &Staging, bytes: [u64; 3], binding: u64) {
    for (segments, batches, bytes) in [
        (&staging.input, &staging.batches[0], bytes[0]),
        (&staging.output, &staging.batches[1], bytes[2]),
    ] {
        let mut next = 0;
        for batch in batches {
            assert_eq!(batch.first, next);
            assert!(batch.count > 0);
            let w = batch.window;
            assert_eq!(w.offset % 256, 0);
            assert!(
                w.size <= binding.min(MAX_WINDOW_BYTES)
                    && w.offset + w.size <= bytes.next_multiple_of(4)
            );
            for p in batch.first..batch.first + batch.count {
                let start = segments.origin + u64::from(p) * segments.stride;
                assert!(w.offset <= start && start + segments.bytes <= w.offset + w.size);
            }
            next += batch.count;
        }
        assert_eq!(next, staging.positions);
    }
}

fn dispatch_count(layout: &Layout, widths: [u64; 3], binding: u64) -> (usize, bool) {
    let bytes = [0, 1, 2].map(|t| {
        let stride = |d: &Dim| [d.input, d.lengths, d.output][t];
        (extent(&layout.dims, stride) + 1) * widths[t]
    });
    let d = split(layout, widths, bytes, binding, 256, false).unwrap();
    (d.len(), d.iter().all(|d| d.staging.is_some()))
}

#[test]
fn lanes_spanning_windows_are_staged_and_written_once() {
    let lengths = |lane: u64| (lane * 7 % 45) as u32;
    for width in [1, 2, 4] {
        // Odd inner sizes: pieces padded to whole vectors in scratch.
        for (time, batch, inner) in [(40, 6, 37), (40, 5, 64), (12, 3, 301)] {
            let layout = time_major(time, batch, inner, width);
            simulate(&layout, [width, 4, width], 4096, &lengths);
        }
        simulate(&layout(&[24, 1000], 0), [width, 4, width], 4096, &lengths);
    }
}

#[test]
fn staged_dispatches_grow_linearly_with_the_tensor() {
    // Each layout family whose lanes span the windows: the tensor doubled and
    // quadrupled, through the batch, the inner size or the columns.
    for width in [1, 2, 4] {
        let widths = [width, 4, width];
        for grow in [
            &(|k: u32| time_major(64, 8 * k, 1000, width)) as &dyn Fn(u32) -> Layout,
            &|k| time_major(64, 8, 1000 * k, width),
            &|k| time_major(3000, 2, 1000 * k, width),
            &|k| layout(&[64, 100_000 * k], 0),
            &|k| layout(&[16, 64, 10_000 * k], 1),
        ] {
            let counts = [1, 2, 4].map(|k| dispatch_count(&grow(k), widths, 128 << 10));
            assert!(counts.iter().all(|c| c.1), "not staged: {:?}", grow(1).dims);
            let [a, b, c] = counts.map(|c| c.0);
            assert!(
                b <= 2 * a + 1 && c <= 4 * a + 3,
                "{a}, {b}, {c} dispatches for {:?}",
                grow(1).dims
            );
        }
    }
}

#[test]
fn every_walked_pair_is_one_that_some_length_needs() {
    // An axis of 64 positions over 16 windows of 4 positions, in pieces of 4.
    // Position t may read any source up to 63 - t, and its own: the pairs of a
    // piece and an input window that some length needs form a triangle of
    // W(W+1)/2 (plus a piece's own window past the diagonal), and one dispatch
    // binds one of each. Walked pairs dispatch exactly those: none is idle for
    // every length. `docs/windows.md` bounds any plan's windows the same way.
    let layout = time_major(64, 2, 100, 4);
    let (w, n) = (16, 64);
    let mut needed = vec![false; w * (w + 1) / 2 + w / 2];
    for l in 0..=n {
        let writes = simulate_split(&layout, [4, 4, 4], 4096, &|_| l, true);
        assert_eq!(writes.len(), needed.len());
        for (needed, writes) in needed.iter_mut().zip(writes) {
            *needed |= writes > 0;
        }
    }
    assert!(needed.iter().all(|&n| n), "{needed:?}");
}

/// Simulates `rows/window.wgsl` over `lanes` lanes of `n` positions, each longer
/// than a window: every output vector is written exactly once (the one the
/// length straddles copied first, then merged), everything it reads and writes
/// lies in its dispatch's windows, where the lane has it. Returns the pieces,
/// the dispatches and those with something to write.
fn simulate_lane_pairs(
    lanes: u32,
    n: u32,
    width: u64,
    binding: u64,
    length: &dyn Fn(u32) -> u32,
) -> [usize; 3] {
    let elements = u64::from(lanes) * u64::from(n);
    let bytes = [elements * width, u64::from(lanes) * 4, elements * width];
    let d = split(
        &layout(&[lanes, n], 1),
        [width, 4, width],
        bytes,
        binding,
        256,
        false,
    )
    .unwrap();
    let lane_bytes = u64::from(n) * width;
    let vector = if lane_bytes.is_multiple_of(16) { 16 } else { 4 };
    assert!(lane_bytes.is_multiple_of(vector) && width <= vector);
    let (epv, vecs) = ((vector / width) as u32, (lane_bytes / vector) as u32);
    // 0: unwritten, 1: copied whole (the straddling vector), 2: written.
    let mut state = vec![0u8; (u64::from(lanes) * u64::from(vecs)) as usize];
    let mut pieces = std::collections::HashSet::new();
    let mut working = 0;
    for d in &d {
        assert!(d.by_position && d.staging.is_none() && d.layout.rank() == 1);
        let lane = ((d.windows[1].offset / 4) as u32) + d.shifts[1];
        pieces.insert((lane, d.axis_start));
        assert_eq!(d.axis_start % epv, 0);
        assert_eq!(d.positions[0] % epv, 0);
        let o0 = d.axis_start / epv;
        let o1 = (o0 + d.layout.dims[0].size.div_ceil(epv)).min(vecs);
        let v0 = d.positions[0] / epv;
        let v1 = d.positions[1].min(n).div_ceil(epv).min(vecs);
        let lane_start = u64::from(lane) * u64::from(n);
        // Lane vector `v` in a binding: inside it, and at the lane's element.
        let at_vector = |v: u32, t: usize, shift: u32, first: u32| {
            let element = shift.wrapping_add((v.wrapping_sub(first)).wrapping_mul(epv));
            assert!((u64::from(element) + u64::from(epv)) * width <= d.windows[t].size);
            let global = d.windows[t].offset / width + u64::from(element);
            assert_eq!(global, lane_start + u64::from(v) * u64::from(epv));
        };
        let read = |v: u32| at_vector(v, 0, d.shifts[0], v0);
        let index = |j: u32| (u64::from(lane) * u64::from(vecs) + u64::from(j)) as usize;
        let mut write = |j: u32, from: u8, to: u8| {
            at_vector(j, 2, d.shifts[2], o0);
            assert_eq!(state[index(j)], from, "lane {lane} vector {j}");
            state[index(j)] = to;
        };
        let l = length(lane).min(n);
        let (at, shift) = (l / epv, (l % epv) as u64 * width);
        let mut work = false;
        for j in o0.max(at.saturating_sub(v1))..o1.min(at.saturating_sub(v0)) {
            read(at - 1 - j);
            if shift != 0 {
                read(at - j);
            }
            write(j, 0, 2);
            work = true;
        }
        for j in o0.max(v0).max(at + u32::from(shift != 0))..o1.min(v1) {
            read(j);
            write(j, 0, 2);
            work = true;
        }
        if shift != 0 && at >= o0 && at < o1 {
            let (holds_at, holds_first) = (at >= v0 && at < v1, v0 == 0);
            match (holds_at, holds_first) {
                (true, true) => write(at, 0, 2),
                (true, false) => write(at, 0, 1),
                (false, true) => write(at, 1, 2),
                (false, false) => {}
            }
            if holds_at {
                read(at);
            }
            if holds_first {
                read(0);
            }
            work |= holds_at || holds_first;
        }
        working += usize::from(work);
    }
    assert!(
        state.iter().all(|&s| s == 2),
        "an output vector left unwritten"
    );
    [pieces.len(), d.len(), working]
}

#[test]
fn lanes_longer_than_a_window_are_written_once_in_pairs() {
    for width in [1, 2, 4, 8, 16] {
        // Lanes of whole vectors, and of whole words that are not.
        let mut sizes = vec![(5 * 4096 + 48) / width as u32];
        if width <= 4 {
            sizes.push((5 * 4096 + 52) / width as u32);
        }
        for n in sizes {
            let per_window = 4096 / width as u32;
            // Every lane's length another: around the window boundaries, and
            // either end.
            let length = |lane: u32| match lane {
                0 => 0,
                1 => n,
                2 => n + 9,
                _ => (lane / 7 * per_window + lane % 7).saturating_sub(3).min(n),
            };
            let [pieces, dispatches, working] = simulate_lane_pairs(48, n, width, 4096, &length);
            // A piece's vectors come from its own window and at most two others.
            assert!(
                working <= 3 * pieces,
                "{working} working of {dispatches} for {pieces} pieces"
            );
            // Twice the lanes, twice the dispatches.
            let [_, twice, _] = simulate_lane_pairs(96, n, width, 4096, &length);
            assert_eq!(twice, 2 * dispatches);
        }
    }
}

#[test]
fn tensors_past_4_gib_cut_into_windows_inside_their_buffers() {
    // 16 GiB of bytes, the axis outermost then innermost, 128 MiB bindings.
    for axis in [0, 1] {
        let layout = layout(&[1 << 22, 1 << 12], axis);
        let bytes = [1 << 34, 4 << (if axis == 0 { 12 } else { 22 }), 1 << 34];
        let d = split(&layout, [1, 4, 1], bytes, 128 << 20, 256, false).unwrap();
        // Each piece once: its first input window; a staged piece's elements
        // are its output segments (its padding in scratch is never copied back).
        let output: u64 = d
            .iter()
            .filter(|d| d.positions[0] == 0 && d.sources[0] == 0)
            .map(|d| match &d.staging {
                Some(s) => u64::from(s.positions) * s.output.bytes,
                None => d.layout.element_count(),
            })
            .sum();
        assert_eq!(output, 1 << 34);
        for d in &d {
            for (w, b) in d.windows.iter().zip(bytes) {
                assert!(w.size <= 128 << 20 && w.offset + w.size <= b);
            }
        }
    }
}

#[test]
fn a_window_without_room_for_one_element_names_the_binding() {
    // 256 bytes a binding, aligned at 256: no room for an element with its
    // alignment and a word.
    let error = split(
        &layout(&[4, 100], 1),
        [1, 4, 1],
        [400, 16, 400],
        256,
        256,
        false,
    )
    .unwrap_err();
    assert!(
        matches!(
            error,
            Error::TensorTooLarge {
                tensor: crate::TensorRole::Input,
                bytes: 261,
                limit: 256,
                ..
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("one storage binding"), "{error}");
}

/// The element offset `at` inside window `w` of elements `width` bytes wide,
/// after the window's shift (mod 2^32, as the kernels add it): its index in
/// the whole buffer, checked to lie inside the window.
fn in_window(w: &Window, shift: u32, at: u64, width: u64, what: &str) -> u64 {
    let index = u64::from(shift.wrapping_add(at as u32));
    assert!(
        at <= u64::from(u32::MAX) && (index + 1) * width <= w.size,
        "{what}: element {at} + shift {shift} past a window of {} bytes",
        w.size
    );
    w.offset / width + index
}

/// Simulates the in-place cut on the host: every pair `(t, L - 1 - t)` of every
/// lane is swapped by exactly one dispatch, both ends inside the windows that
/// dispatch binds (whole-lane pieces through the output binding; pairs of
/// groups across windows, the back end through the input binding where it is a
/// second window of the tensor), its lengths read inside the lengths window, and
/// nothing else is touched. Returns the dispatches and how many were pairs of
/// groups across windows.
fn simulate_in_place(
    layout: &Layout,
    widths: [u64; 3],
    binding: u64,
    align: u64,
    lengths: &dyn Fn(u64) -> u32,
) -> Result<(usize, usize), InPlaceRule> {
    let dims = &layout.dims;
    let [_, len_width, width] = widths;
    let bytes = [0, 1, 2].map(|t| {
        let stride = |d: &Dim| [d.output, d.lengths, d.output][t];
        (extent(dims, stride) + 1) * widths[t]
    });
    let dispatches = cut(layout, widths, bytes, binding, align, Cut::InPlace).unwrap()?;
    let n = dims[layout.axis].size;
    let mut swapped = std::collections::HashMap::new();
    let mut across = 0;
    for (k, d) in dispatches.iter().enumerate() {
        for (t, w) in d.windows.iter().enumerate() {
            if t == 0 && d.input == InputBinding::Placeholder {
                assert_eq!(
                    *w,
                    Window {
                        offset: 0,
                        size: PLACEHOLDER_BYTES
                    }
                );
                continue;
            }
            assert!(w.size <= binding.min(MAX_WINDOW_BYTES), "{k}: window {w:?}");
            assert!(
                w.offset + w.size <= bytes[t].next_multiple_of(4),
                "{k}: {w:?}"
            );
            assert_eq!(w.offset % align, 0, "{k}: {w:?}");
        }
        assert!(d.staging.is_none(), "in place never stages");
        let piece = &d.layout;
        let (pairs_across, back) = match d.input {
            InputBinding::Tensor => (true, (&d.windows[0], d.shifts[0])),
            _ => (!d.whole, (&d.windows[2], d.shifts[2])),
        };
        if pairs_across {
            across += 1;
            // Two writable windows of one buffer must not overlap.
            if d.input == InputBinding::Tensor {
                let [b, _, f] = d.windows;
                assert!(
                    f.offset + f.size <= b.offset || b.offset + b.size <= f.offset,
                    "{k}: front {f:?} and back {b:?} overlap"
                );
            }
        }
        for e in 0..piece.element_count() {
            let (mut rem, mut off, mut len, mut i) = (e, 0u64, 0u64, 0u32);
            for (p, dim) in piece.dims.iter().enumerate().rev() {
                let at = (rem % u64::from(dim.size)) as u32;
                rem /= u64::from(dim.size);
                len += u64::from(at) * dim.lengths;
                match p == piece.axis {
                    true => i = at,
                    false => off += u64::from(at) * dim.output,
                }
            }
            let lane = in_window(&d.windows[1], d.shifts[1], len, len_width, "lengths");
            let l = lengths(lane).min(n);
            let stride = piece.dims[piece.axis].output;
            let (t, front) = match pairs_across {
                // Offsets from the slab's origin: absolute positions.
                true => {
                    let t = d.axis_start + i;
                    (t, u64::from(t) * stride + off)
                }
                // Offsets from the piece's origin, which holds the whole axis.
                false => (i, u64::from(i) * stride + off),
            };
            let m = match l.checked_sub(1 + t) {
                Some(m) if t < m => m,
                _ => continue,
            };
            if pairs_across && (m < d.positions[0] || m >= d.positions[1]) {
                continue;
            }
            let back_at = front + u64::from(m - t) * stride;
            let a = in_window(&d.windows[2], d.shifts[2], front, width, "front end");
            let b = in_window(back.0, back.1, back_at, width, "back end");
            assert_eq!(b - a, u64::from(m - t) * stride, "{k}: the pair's ends");
            let previous = swapped.insert(a, b);
            assert!(previous.is_none(), "{k}: element {a} swapped twice");
        }
    }
    // Every pair of the whole layout, once.
    let mut expected = 0;
    for e in 0..layout.element_count() {
        let (mut rem, mut at, mut len, mut t) = (e, 0u64, 0u64, 0u32);
        for (p, dim) in dims.iter().enumerate().rev() {
            let i = (rem % u64::from(dim.size)) as u32;
            rem /= u64::from(dim.size);
            at += u64::from(i) * dim.output;
            len += u64::from(i) * dim.lengths;
            if p == layout.axis {
                t = i;
            }
        }
        let l = lengths(len).min(n);
        if t < l / 2 {
            let back = at + u64::from(l - 1 - 2 * t) * dims[layout.axis].output;
            assert_eq!(swapped.get(&at), Some(&back), "pair at element {at}");
            expected += 1;
        }
    }
    assert_eq!(swapped.len(), expected, "a swap of no pair");
    Ok((dispatches.len(), across))
}

#[test]
fn in_place_whole_lanes_and_pairs_across_windows_swap_every_pair_once() {
    let lengths = |lane: u64| -> u32 {
        match lane % 7 {
            0 => 0,
            1 => 1,
            2 => u32::MAX,
            3 => 4999,
            _ => (lane * 2_654_435_761 % 6000) as u32,
        }
    };
    let mut seen = [0; 2];
    for (sizes, axis) in [
        (&[10u32, 300][..], 1),
        (&[300, 10][..], 0),
        (&[5000][..], 0),
        (&[3, 5000][..], 1),
        (&[2000, 3][..], 0),
        (&[4, 700, 5][..], 1),
        (&[2, 3, 1500][..], 2),
    ] {
        for width in [1, 2, 4, 8, 16] {
            for (binding, align) in [(4096, 256), (16384, 256), (2048, 64), (1 << 20, 256)] {
                let layout = layout(sizes, axis);
                let (dispatches, across) =
                    simulate_in_place(&layout, [width, 4, width], binding, align, &lengths)
                        .unwrap_or_else(|rule| {
                            panic!("{sizes:?} axis {axis}, {width} B, {binding}: {rule:?}")
                        });
                seen[usize::from(across > 0)] += 1;
                assert!(across == 0 || across == dispatches);
            }
        }
    }
    // Both cuts ran: whole lanes, and pairs of groups across windows.
    assert!(seen[0] > 10 && seen[1] > 10, "{seen:?}");
}

#[test]
fn in_place_names_the_rule_a_tensor_breaks_where_no_cut_exists() {
    // One position (with the 300 elements inside the axis) past half a window.
    let layout = layout(&[8, 300], 0);
    let error = simulate_in_place(&layout, [4, 4, 4], 2048, 256, &|_| 8).unwrap_err();
    assert!(
        matches!(error, InPlaceRule::PositionTooLarge { .. }),
        "{error:?}"
    );
}
