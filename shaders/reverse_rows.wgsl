// The reversed axis innermost and contiguous in input and output (`Rows`): each
// invocation writes STEPS consecutive vectors of one row.
//
// Output vector j of a row holds the row's bytes [16j, 16j + 16). With LB the lane's
// length in bytes, its reversed bytes (those below LB) come from the 16 bytes that
// start at LB - 16(j + 1), read backwards element by element. That window straddles
// two aligned source vectors and starts `LB mod 16` bytes into the lower one, the
// same shift for the whole row; walking j upwards walks the source downwards, so each
// step loads one new vector and reuses the previous one as its upper half. Bytes at
// or past LB are copied from source vector j, which is what the step loads once the
// reversed part is behind it.
//
// The window computes on 32-bit words, loaded and stored through `load_vec` and
// `store_vec`: 16-byte vectors of four words (`bind_vec4.wgsl`), or of two 64-bit
// words split in registers on a CPU adapter that has them (`bind_vec2_u64.wgsl`,
// 1- to 4-byte elements; 8- and 16-byte ones take `reverse_rows_64.wgsl`).
//
// Where the time goes on lavapipe, against the benchmark's copy kernel (`innermost`,
// 1- to 16-byte elements, four alternating rounds of stripped builds): this kernel
// reduced to copying its STEPS vectors in order (no lengths, no mirror) took 1.15×
// the copy's time; loading the length, the first window and the mirrored vectors
// but storing them unchanged, 1.28×; the whole kernel, 1.45×. No length load at all
// (a length made up from the row) saved 5%. Above the in-order copy, then, about
// half the cost is the mirrored memory pattern and half the funnel, reversal and
// selects, which every vector runs.
//
// Later, with the lengths shared (4-byte `innermost`, the same rows timed with
// different lengths, alternating rounds): every length 0, so that every step reads
// and writes in order, took 1.15× the copy's time; random lengths 1.22×; every
// length the whole row, so that every read walks down the row, 1.22-1.23×. Lanes
// that take 8 consecutive vectors of one row instead, each window's upper half
// taken from the lane below through subgroupBroadcast (LLVM makes the constant
// selects into permutes), took 0.99× this kernel's time for `innermost` but 1.03×
// for `strided`. Its profile put a lane of a step's load at the cost of a lane of
// the copy's; with every length 0 it took 1.06× the copy storing the loaded
// vectors unchanged, 1.12× without the exchange of halves, and 1.15× whole: the
// rest is arithmetic.
// Writing each step's vectors downward instead of reading them downward cost as
// much (+0.09×), and walking the tensor downward helped only when every read went
// down (1.18× against 1.25×; with random lengths 1.32× against 1.21×).

// The 16 bytes that start `shift` bytes into `lo`, continuing into `hi`.
fn funnel(lo: vec4<u32>, hi: vec4<u32>, shift: u32) -> vec4<u32> {
    let by2 = (shift & 8u) != 0u;
    let by1 = (shift & 4u) != 0u;
    // Whole words first: two, then one.
    let u = select(lo, vec4(lo.zw, hi.xy), by2);
    let u4 = select(hi.x, hi.z, by2);
    let u5 = select(hi.y, hi.w, by2);
    let v = select(u, vec4(u.yzw, u4), by1);
    if (ELEM_BYTES >= 4u) {
        return v; // element-aligned windows never split a word
    }
    let v4 = select(u4, u5, by1);
    let bits = (shift & 3u) * 8u;
    let joined = (v >> vec4(bits)) | (vec4(v.yzw, v4) << vec4((32u - bits) & 31u));
    return select(v, joined, bits != 0u);
}

// The elements of a vector in reverse order; bytes within an element keep theirs.
fn reverse_elements(v: vec4<u32>) -> vec4<u32> {
    switch ELEM_BYTES {
        case 1u: {
            let halves = (v >> vec4(16u)) | (v << vec4(16u));
            let bytes = ((halves >> vec4(8u)) & vec4(0x00FF00FFu)) | ((halves << vec4(8u)) & vec4(0xFF00FF00u));
            return bytes.wzyx;
        }
        case 2u: {
            return ((v >> vec4(16u)) | (v << vec4(16u))).wzyx;
        }
        case 4u: {
            return v.wzyx;
        }
        case 8u: {
            return v.zwxy;
        }
        default: {
            return v;
        }
    }
}

// Whether every row is at most STEPS vectors long, each in one invocation
// (`whole_row`). A specialisation, not a test of `params.vecs`: lavapipe runs both
// sides of an `if` even when every lane takes the same one, and the unused side's
// loads cost as much as the used side's (4-byte rows took 1.23× the time with both
// paths behind a test of `params.vecs`).
override WHOLE_ROWS: bool = false;

// What a row's window makes of output vector `j`: `x`, the vector its step loads
// (`window_source`), and `hi`, the one above it in the window, give the reversed
// elements below LB and the copied ones at and past it.
struct Window {
    shift: u32,
    reversed_words: vec4<u32>,
    straddling: vec4<u32>,
}

fn window_of(lb: u32) -> Window {
    // Words of the row below LB / 4 are wholly reversed and those above wholly
    // copied; word LB / 4 has its first LB mod 4 bytes reversed (1- and 2-byte
    // elements). Comparing word indices keeps the per-vector work to a compare and
    // a select.
    return Window(lb & 15u, vec4(lb >> 2u), vec4((1u << ((lb & 3u) * 8u)) - 1u));
}

fn output_vector(w: Window, j: u32, x: vec4<u32>, hi: vec4<u32>) -> vec4<u32> {
    let reversed = reverse_elements(funnel(x, hi, w.shift));
    let words = vec4(4u * j) + vec4(0u, 1u, 2u, 3u);
    var copied = x;
    if (ELEM_BYTES < 4u) {
        let mask = select(vec4(0u), w.straddling, words == w.reversed_words);
        copied = (reversed & mask) | (x & ~mask);
    }
    return select(copied, reversed, words < w.reversed_words);
}

// A row no longer than STEPS vectors, all in this invocation: each vector of it
// loaded once. The loop in `main`, where no other invocation passes it on, loads
// the vector at the top of the first window, T, twice: as the window's upper
// half, and as the source of a later step
// (`jt`: the step that reaches LB, or step 0 when the whole row is reversed). Here
// T comes first, the steps' sources follow in the loop's order without T's second
// load, and each store comes one load behind, from the last three vectors loaded
// and T. On lavapipe this took 0.91× the time of the loop in `main` on 1-byte rows
// of 64 elements (4 vectors), 0.97× on 2-byte ones (8 vectors; three alternating
// rounds, faster in 12 of 12).
fn whole_row(in_row: u32, out_row: u32, lb: u32, n: u32) {
    let w = window_of(lb);
    // The vector where LB falls (n where the whole row is reversed).
    let at = lb / VEC_BYTES;
    let top = min(at, n - 1u);
    let jt = select(at, 0u, at >= n);
    let t = load_vec(in_row + top);
    // The last two vectors loaded.
    var p1 = t;
    var p2 = t;
    // A constant trip count, so that the loop unrolls; the bound is a mask.
    for (var k = 1u; k <= STEPS; k++) {
        if (k <= n) {
            var loaded = p1;
            if (k < n) {
                loaded = load_vec(in_row + window_source(select(k, k - 1u, k <= jt), lb));
            }
            // Output vector j = k - 1: below `jt` the source just loaded, over the
            // one before; at `jt`, T over the one before; past it, the one before
            // (its own source) over the one before that, or over T right after `jt`.
            let j = k - 1u;
            let x = select(select(loaded, t, j == jt), p1, j > jt);
            let hi = select(p1, select(p2, t, j - 1u == jt), j > jt);
            store_vec(out_row + j, output_vector(w, j, x, hi));
            p2 = p1;
            p1 = loaded;
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    place: Place,
) {
    let id = invocation_index(group, groups, place.local);
    // Before any branch, so that their loads of `params` are scalar
    // (`invocation_index`).
    let work = segment(id);
    let first = work.first;
    let last = work.last;
    let o = outer(work.row, false);
    let n = size_at(AXIS);
    // No return for the idle invocations past `params.count`: `pass_along`
    // needs every lane of a subgroup. They load and store nothing.
    let working = id < params.count;
    let len = row_length(o.len_offset, n, place, working);
    let in_row = vec_index(o.in_offset);
    let out_row = vec_index(o.out_offset);

    // Row bytes are below 2^32, so none of this overflows.
    let lb = len * ELEM_BYTES;
    if (WHOLE_ROWS) {
        if (working) {
            whole_row(in_row, out_row, lb, work.vecs);
        }
        return;
    }
    let w = window_of(lb);
    // Output vector `first` comes last. The upper half of its window
    // (`window_top`) is a vector that another invocation of the row loads as a
    // source: the last source of the invocation before, or, for the row's first
    // invocation, the vector where LB falls (`at`), which the invocation whose
    // vectors hold it loads at that step. The steps after `first` each take the
    // vector the step before loaded. In a subgroup (`row_length_subgroup.wgsl`)
    // each invocation passes on the one vector another may need; any other loads
    // its top itself, after its steps.
    //
    // On lavapipe each load is a loop over the lanes that make it, and a profile
    // of this kernel put 6.5% of its samples on the loads of the tops when each
    // invocation loaded its own, first (its first 64-bit pair, and the second
    // where the shift passed 8). Passed on, 4-byte `innermost` rows took 1.19-1.20x
    // the copy kernel's time against 1.23-1.25x, and `strided` 1.20-1.24x against
    // 1.24-1.26x (the benchmark, three alternating runs of each build). A top is
    // needed only where the shift is not 0 and `first` is not wholly copied; the
    // few that are loaded (rows past a subgroup's lanes) load the whole vector, in
    // one loop over the lanes where two pairs took two, each paid by every lane
    // whether it loads or not.
    let at = lb / VEC_BYTES;
    var x0 = vec4(0u);
    if (working) {
        x0 = load_vec(in_row + window_source(first, lb));
    }
    var hi = x0;
    var at_vector = x0;
    // A constant trip count, so that the loop unrolls; the bound is a mask, and
    // none where every segment is full.
    for (var k = 1u; k < STEPS; k++) {
        let j = first + k;
        if (working && (FULL_SEGMENTS || j < last)) {
            let x = load_vec(in_row + window_source(j, lb));
            store_vec(out_row + j, output_vector(w, j, x, hi));
            at_vector = select(at_vector, x, j == at);
            hi = x;
        }
    }
    // The invocation that holds this one's top: for the row's first, the one
    // whose vectors hold `at` (0xffffffff where the shift is 0 and `at` is past
    // the row: then nothing is needed), else the one before. A segment passes
    // `at`'s vector where it holds it, its last source where not: the one after
    // needs that only where its `first` is not wholly copied, so `at` lies past it.
    let offset = select(0xffffffffu, at / STEPS, first == 0u);
    let holds_at = at >= first && at - first < STEPS;
    let passed = pass_along(select(hi, at_vector, holds_at), id, offset, place);
    var top = passed.value;
    if (working && VEC_BYTES * first < lb && w.shift != 0u && !passed.valid) {
        top = load_vec(in_row + window_top(work, lb));
    }
    if (working) {
        store_vec(out_row + first, output_vector(w, first, x0, top));
    }
}
