// `columns`: the reversed axis outside a contiguous innermost
// dimension along which the length changes from element to element, along at most
// 64 positions, for elements narrower than a vector. Each invocation holds a whole
// column of the axis (one vector of each position) in registers and reverses the
// prefix of every element there, so that it loads and stores each vector once,
// whole, as a copy does, where `gather` loads each element on its own: a CPU
// adapter pays for every load with a loop over the SIMD group's invocations, a
// GPU for every sector its warp touches.
//
// The reversal of a prefix of length L of a column of STEPS rows is a shift: with
// the column upside down (rev[u] = in[STEPS - 1 - u]), output row t < L is
// rev[t + STEPS - L]. Stages shift each element's field up by 1, 2, 4 .. 32 rows
// where its shift has that bit, all fields of a vector at once, through masks
// (`fields_of`); a last select keeps the rows at and past L. Garbage (rows past the
// axis, or shifted in from past the last row) only reaches rows at or past L, which
// that select drops. STEPS, the rows a column holds, is 8, 16, 32 or 64: the axis'
// size rounded up.
//
// The network computes on the words the storage holds (`Vector`): four 32-bit
// words, or two 64-bit ones (`shared/storage_u64.wgsl`), each word holding fields of
// FIELD_BITS (at most 32) whatever its width.
//
// The workgroup's 256 invocations go from one block of 8 rows to the next together
// (a workgroup barrier after each), so that they load and store 4 KiB of a row at
// a time: lavapipe runs its SIMD groups one after another up to each barrier, and
// a SIMD group walking its 64 rows alone costs several times more (docs/gather.md).
//
// Every row is written out: structs of named vectors, functions of constant shape,
// no arrays. A private array that a loop indexes, even a loop the compiler
// unrolls, lives in scratch memory on lavapipe, each access a loop over the group.
#import shared/element_lengths

// In place (`docs/in-place.md`): the column is read through the output binding,
// where it is written, and only its rows below the longest of its lengths move.
// An invocation holds its whole column before it stores any of it, and owns it,
// so the reversal is exact in place too.
override IN_PLACE: bool = false;

// Bits per field of the masks: one field per element of 1 or 2 bytes, one per word
// for wider elements (whose words share their element's length).
override FIELD_BITS: u32 = min(ELEM_BYTES, 4u) * 8u;
override FIELD_MAX: u32 = 0xFFFFFFFFu >> (32u - FIELD_BITS);
// 1 in the lowest bit of every field, and in the highest.
override FIELD_ONE: u32 = 0xFFFFFFFFu / FIELD_MAX;
override FIELD_HIGH: u32 = FIELD_ONE << (FIELD_BITS - 1u);

// Eight consecutive rows of one column.
struct Rows8 {
    r0: Vector,
    r1: Vector,
    r2: Vector,
    r3: Vector,
    r4: Vector,
    r5: Vector,
    r6: Vector,
    r7: Vector,
}

// A column's 64 rows.
struct Rows64 {
    o0: Rows8,
    o1: Rows8,
    o2: Rows8,
    o3: Rows8,
    o4: Rows8,
    o5: Rows8,
    o6: Rows8,
    o7: Rows8,
}

// Every bit of each field of `bits` whose lowest bit is set.
fn fields_of(bits: Vector) -> Vector {
    return fill_fields(bits & splat_word(FIELD_ONE), FIELD_BITS);
}

// `b` in the bits `m` sets, else `a`. Masks, not `select`, even where a field is a
// whole word: on lavapipe `select` on `m != 0` was slower (docs/gather.md).
fn sel(a: Vector, b: Vector, m: Vector) -> Vector {
    return (a & ~m) | (b & m);
}

// Fields whose length is at least `count`, from lengths `high` with their fields'
// highest bits set (no borrow then crosses a field: lengths and counts are at most
// 64).
fn at_least(high: Vector, count: u32) -> Vector {
    return fields_of(shift_right(high - splat_word(FIELD_ONE * count), FIELD_BITS - 1u));
}

// The lengths of a vector's elements, one per field.
fn field_lengths(l: Lengths) -> vec4<u32> {
    switch ELEM_BYTES {
        case 1u: {
            // Lengths are at most 64: the products do not overlap.
            let bytes = vec4(1u, 1u << 8u, 1u << 16u, 1u << 24u);
            return vec4(dot(l.a, bytes), dot(l.b, bytes), dot(l.c, bytes), dot(l.d, bytes));
        }
        case 2u: {
            return vec4(l.a.xz | (l.a.yw << vec2(16u)), l.b.xz | (l.b.yw << vec2(16u)));
        }
        case 4u: {
            return l.a;
        }
        // 8 bytes; 16-byte elements run `Gather`.
        default: {
            return l.a.xxyy;
        }
    }
}

fn flip(a: Rows8) -> Rows8 {
    return Rows8(a.r7, a.r6, a.r5, a.r4, a.r3, a.r2, a.r1, a.r0);
}

// Rows 0..7 of `a` moved up by 1, 2 or 4 rows where `m` is set, the rows below
// `a` from `b`.
fn up1(a: Rows8, b: Rows8, m: Vector) -> Rows8 {
    return Rows8(sel(a.r0, a.r1, m), sel(a.r1, a.r2, m), sel(a.r2, a.r3, m), sel(a.r3, a.r4, m),
        sel(a.r4, a.r5, m), sel(a.r5, a.r6, m), sel(a.r6, a.r7, m), sel(a.r7, b.r0, m));
}

fn up2(a: Rows8, b: Rows8, m: Vector) -> Rows8 {
    return Rows8(sel(a.r0, a.r2, m), sel(a.r1, a.r3, m), sel(a.r2, a.r4, m), sel(a.r3, a.r5, m),
        sel(a.r4, a.r6, m), sel(a.r5, a.r7, m), sel(a.r6, b.r0, m), sel(a.r7, b.r1, m));
}

fn up4(a: Rows8, b: Rows8, m: Vector) -> Rows8 {
    return Rows8(sel(a.r0, a.r4, m), sel(a.r1, a.r5, m), sel(a.r2, a.r6, m), sel(a.r3, a.r7, m),
        sel(a.r4, b.r0, m), sel(a.r5, b.r1, m), sel(a.r6, b.r2, m), sel(a.r7, b.r3, m));
}

// `up1`, `up2` or `up4` as `d` is 1, 2 or 4 (a constant at every call, which the
// compiler folds).
fn up(a: Rows8, b: Rows8, m: Vector, d: u32) -> Rows8 {
    switch d {
        case 1u: {
            return up1(a, b, m);
        }
        case 2u: {
            return up2(a, b, m);
        }
        default: {
            return up4(a, b, m);
        }
    }
}

// The first STEPS rows of `y` moved up by `d` rows (1, 2 or 4) where `m` is set.
fn up_blocks(y: Rows64, m: Vector, d: u32) -> Rows64 {
    var z = y;
    z.o0 = up(y.o0, y.o1, m, d);
    if (STEPS > 8u) {
        z.o1 = up(y.o1, y.o2, m, d);
    }
    if (STEPS > 16u) {
        z.o2 = up(y.o2, y.o3, m, d);
        z.o3 = up(y.o3, y.o4, m, d);
    }
    if (STEPS > 32u) {
        z.o4 = up(y.o4, y.o5, m, d);
        z.o5 = up(y.o5, y.o6, m, d);
        z.o6 = up(y.o6, y.o7, m, d);
        z.o7 = up(y.o7, y.o7, m, d);
    }
    return z;
}

// `b` where `m` is set, else `a`, row by row.
fn pick(a: Rows8, b: Rows8, m: Vector) -> Rows8 {
    return Rows8(sel(a.r0, b.r0, m), sel(a.r1, b.r1, m), sel(a.r2, b.r2, m), sel(a.r3, b.r3, m),
        sel(a.r4, b.r4, m), sel(a.r5, b.r5, m), sel(a.r6, b.r6, m), sel(a.r7, b.r7, m));
}

// Block `k` of `y` (a constant at every call, which the compiler folds).
fn block(y: Rows64, k: u32) -> Rows8 {
    switch k {
        case 1u: {
            return y.o1;
        }
        case 2u: {
            return y.o2;
        }
        case 3u: {
            return y.o3;
        }
        case 4u: {
            return y.o4;
        }
        case 5u: {
            return y.o5;
        }
        case 6u: {
            return y.o6;
        }
        case 7u: {
            return y.o7;
        }
        default: {
            return y.o0;
        }
    }
}

// The first STEPS rows of `y` moved up by `d` blocks of 8 rows (1, 2 or 4) where
// `m` is set; blocks with none below them within STEPS stay.
fn pick_blocks(y: Rows64, m: Vector, d: u32) -> Rows64 {
    let blocks = STEPS / 8u;
    var z = y;
    if (d < blocks) {
        z.o0 = pick(y.o0, block(y, d), m);
    }
    if (1u + d < blocks) {
        z.o1 = pick(y.o1, block(y, 1u + d), m);
    }
    if (2u + d < blocks) {
        z.o2 = pick(y.o2, block(y, 2u + d), m);
    }
    if (3u + d < blocks) {
        z.o3 = pick(y.o3, block(y, 3u + d), m);
    }
    if (4u + d < blocks) {
        z.o4 = pick(y.o4, block(y, 4u + d), m);
    }
    if (5u + d < blocks) {
        z.o5 = pick(y.o5, block(y, 5u + d), m);
    }
    if (6u + d < blocks) {
        z.o6 = pick(y.o6, block(y, 6u + d), m);
    }
    return z;
}

// Rows `first`..`first + 7` of the output: those of `y` where the row is below the
// field's length, of `a` (the input) elsewhere.
fn keep_tail(a: Rows8, y: Rows8, first: u32, high: Vector) -> Rows8 {
    return Rows8(sel(a.r0, y.r0, at_least(high, first + 1u)), sel(a.r1, y.r1, at_least(high, first + 2u)),
        sel(a.r2, y.r2, at_least(high, first + 3u)), sel(a.r3, y.r3, at_least(high, first + 4u)),
        sel(a.r4, y.r4, at_least(high, first + 5u)), sel(a.r5, y.r5, at_least(high, first + 6u)),
        sel(a.r6, y.r6, at_least(high, first + 7u)), sel(a.r7, y.r7, at_least(high, first + 8u)));
}

// Column `a` with the first `lens` rows of each field reversed (lengths at most
// STEPS). Rows from STEPS on are neither read nor written.
fn reverse_prefixes(a: Rows64, lens: Vector) -> Rows64 {
    // The column upside down: row u of `y` is row STEPS - 1 - u of `a`.
    var y: Rows64;
    switch STEPS {
        case 8u: {
            y.o0 = flip(a.o0);
        }
        case 16u: {
            y = Rows64(flip(a.o1), flip(a.o0), y.o2, y.o3, y.o4, y.o5, y.o6, y.o7);
        }
        case 32u: {
            y = Rows64(flip(a.o3), flip(a.o2), flip(a.o1), flip(a.o0), y.o4, y.o5, y.o6, y.o7);
        }
        default: {
            y = Rows64(flip(a.o7), flip(a.o6), flip(a.o5), flip(a.o4), flip(a.o3), flip(a.o2), flip(a.o1), flip(a.o0));
        }
    }
    let shift = splat_word(FIELD_ONE * STEPS) - lens;
    // Shifts by 1, 2 and 4 rows: within each block of 8, the last rows from the next.
    y = up_blocks(y, fields_of(shift), 1u);
    y = up_blocks(y, fields_of(shift_right(shift, 1u)), 2u);
    y = up_blocks(y, fields_of(shift_right(shift, 2u)), 4u);
    // Shifts by 8, 16 and 32 rows: whole blocks.
    y = pick_blocks(y, fields_of(shift_right(shift, 3u)), 1u);
    y = pick_blocks(y, fields_of(shift_right(shift, 4u)), 2u);
    y = pick_blocks(y, fields_of(shift_right(shift, 5u)), 4u);
    let high = lens | splat_word(FIELD_HIGH);
    return Rows64(keep_tail(a.o0, y.o0, 0u, high), keep_tail(a.o1, y.o1, 8u, high),
        keep_tail(a.o2, y.o2, 16u, high), keep_tail(a.o3, y.o3, 24u, high),
        keep_tail(a.o4, y.o4, 32u, high), keep_tail(a.o5, y.o5, 40u, high),
        keep_tail(a.o6, y.o6, 48u, high), keep_tail(a.o7, y.o7, 56u, high));
}

// The input vector at row `t` of the column whose row 0 is input element `base`,
// for rows below `reach` (the axis; in place, the longest of the column's
// lengths). Rows past it up to STEPS load nothing: the network never moves what
// they hold into a row it keeps. Out of place `reach` is uniform, so the test
// costs no invocation a load; in place the column is read where it is written.
fn row(base: u32, t: u32, reach: u32, in_axis: u32) -> Vector {
    if (t >= reach) {
        return splat_word(0u);
    }
    if (IN_PLACE) {
        return load_output_vector(vec_index(base + t * in_axis));
    }
    return load_vector(vec_index(base + t * in_axis));
}

fn load8(base: u32, first: u32, reach: u32, in_axis: u32) -> Rows8 {
    return Rows8(row(base, first, reach, in_axis), row(base, first + 1u, reach, in_axis),
        row(base, first + 2u, reach, in_axis), row(base, first + 3u, reach, in_axis),
        row(base, first + 4u, reach, in_axis), row(base, first + 5u, reach, in_axis),
        row(base, first + 6u, reach, in_axis), row(base, first + 7u, reach, in_axis));
}

// Stores `v` at row `t` of the column whose row 0 is output element `base`, if the
// invocation has a column (`valid`) and the row is below `reach`.
fn put(base: u32, t: u32, reach: u32, valid: bool, out_axis: u32, v: Vector) {
    if (valid && t < reach) {
        store_vector(vec_index(base + t * out_axis), v);
    }
}

fn store8(base: u32, first: u32, reach: u32, valid: bool, out_axis: u32, a: Rows8) {
    put(base, first, reach, valid, out_axis, a.r0);
    put(base, first + 1u, reach, valid, out_axis, a.r1);
    put(base, first + 2u, reach, valid, out_axis, a.r2);
    put(base, first + 3u, reach, valid, out_axis, a.r3);
    put(base, first + 4u, reach, valid, out_axis, a.r4);
    put(base, first + 5u, reach, valid, out_axis, a.r5);
    put(base, first + 6u, reach, valid, out_axis, a.r6);
    put(base, first + 7u, reach, valid, out_axis, a.r7);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    // No early return: every invocation reaches the barriers. Those past the last
    // column load column 0 and store nothing.
    let id = invocation_index(group, groups, local);
    let has_column = id < params.count;
    let work = select(0u, id, has_column);
    // `params.vecs` columns a run, one an invocation.
    let split = divmod(work, params.vecs);
    let run = split.quotient;
    let column = split.remainder * ELEMS_PER_VEC;
    let o = outer(run, false);
    let n = size_at(AXIS);
    let out_axis = out_stride_at(AXIS);
    var in_axis = in_stride_at(AXIS);
    var input = o.in_offset + column;
    // Out of place every row of the axis moves. In place the column is read
    // where it is written, and rows at or past the longest of its lengths are
    // neither loaded nor stored (none are where that is one or none).
    var reach = n;
    var element_lengths: Lengths;
    if (IN_PLACE) {
        element_lengths = vector_lengths(o.len_offset, column, len_stride_at(RANK - 1u), n);
        let top = longest(element_lengths);
        reach = select(0u, top, top > 1u);
        in_axis = out_axis;
        input = o.out_offset + column;
    }
    // Blocks of 8 rows, the workgroup's invocations in step from one to the next
    // (blocks from STEPS on stay zero and unused).
    var c: Rows64;
    c.o0 = load8(input, 0u, reach, in_axis);
    if (STEPS > 8u) {
        workgroupBarrier();
        c.o1 = load8(input, 8u, reach, in_axis);
    }
    if (STEPS > 16u) {
        workgroupBarrier();
        c.o2 = load8(input, 16u, reach, in_axis);
        workgroupBarrier();
        c.o3 = load8(input, 24u, reach, in_axis);
    }
    if (STEPS > 32u) {
        workgroupBarrier();
        c.o4 = load8(input, 32u, reach, in_axis);
        workgroupBarrier();
        c.o5 = load8(input, 40u, reach, in_axis);
        workgroupBarrier();
        c.o6 = load8(input, 48u, reach, in_axis);
        workgroupBarrier();
        c.o7 = load8(input, 56u, reach, in_axis);
    }
    if (!IN_PLACE) {
        element_lengths = vector_lengths(o.len_offset, column, len_stride_at(RANK - 1u), n);
    }
    c = reverse_prefixes(c, join_words(field_lengths(element_lengths)));
    let output = o.out_offset + column;
    workgroupBarrier();
    store8(output, 0u, reach, has_column, out_axis, c.o0);
    if (STEPS > 8u) {
        workgroupBarrier();
        store8(output, 8u, reach, has_column, out_axis, c.o1);
    }
    if (STEPS > 16u) {
        workgroupBarrier();
        store8(output, 16u, reach, has_column, out_axis, c.o2);
        workgroupBarrier();
        store8(output, 24u, reach, has_column, out_axis, c.o3);
    }
    if (STEPS > 32u) {
        workgroupBarrier();
        store8(output, 32u, reach, has_column, out_axis, c.o4);
        workgroupBarrier();
        store8(output, 40u, reach, has_column, out_axis, c.o5);
        workgroupBarrier();
        store8(output, 48u, reach, has_column, out_axis, c.o6);
        workgroupBarrier();
        store8(output, 56u, reach, has_column, out_axis, c.o7);
    }
}
