// `tile`, on a GPU: per-element lengths, as `gather`, along an axis longer than
// `columns` holds and that one workgroup's tile holds. A workgroup owns a band of
// `params.band` vectors of one run over every position of the axis. It loads the
// band into workgroup memory position by position, neighbouring invocations on
// neighbouring vectors, and the band's element lengths beside it; after a barrier
// each invocation takes its vector's lengths into registers, builds output vectors
// from the tile, element by element, and stores them in the order it loaded them.
// Every access to the tensors is then a whole 16-byte vector beside its
// neighbours', where `gather` loads each element from its own mirrored row
// (docs/gpu-model.md).
//
// Workgroup memory is laid out so that no access conflicts in its 32 banks: the
// tile word-planar (word w of every vector of the band at position p at
// `((w * n + p) << shift) + v`), lengths element-planar (element j of every
// vector at `(j << shift) + v`). A warp's lanes hold consecutive cells (p, v);
// lanes of one vector column read the same element's length, so the rows they
// read are distinct and, the band being a power of two, fall in distinct banks.
#import shared/element_lengths

// Words of the tile, and elements whose lengths it keeps (`kernels/tile.rs`).
override TILE_WORDS: u32;
override TILE_ELEMENTS: u32;

// Elements per 32-bit word (at least 1), and bits of a word one element fills.
override PER_WORD: u32 = max(4u / ELEM_BYTES, 1u);
override FIELD_BITS: u32 = min(ELEM_BYTES, 4u) * 8u;

var<workgroup> tile: array<u32, TILE_WORDS>;
var<workgroup> tile_lengths: array<u32, TILE_ELEMENTS>;

// The output vector at position `p` of the band's vector column `v` (`shift`:
// log2 of the band's vectors; `lengths`: the column's element lengths): each
// element from the tile's row that its length mirrors `p` to.
fn tile_vector(p: u32, v: u32, n: u32, shift: u32, lengths: ptr<function, array<u32, 16>>) -> vec4<u32> {
    var out = vec4(0u);
    for (var w = 0u; w < 4u; w++) {
        var word = 0u;
        for (var f = 0u; f < PER_WORD; f++) {
            let s = mirrored(p, (*lengths)[(w * 4u + f * FIELD_BITS / 8u) / ELEM_BYTES]);
            let mask = (0xFFFFFFFFu >> (32u - FIELD_BITS)) << (f * FIELD_BITS);
            #trace trace_workgroup(0u, (((w * n + s) << shift) + v) * 4u);
            word |= tile[((w * n + s) << shift) + v] & mask;
        }
        out[w] = word;
    }
    return out;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    _ = invocation_index(group, groups, local);
    // The workgroup's index, uniform across it: the barrier below needs every
    // invocation of a workgroup to take the same path.
    let index = workgroup_index(group, groups);
    if (index >= params.groups) {
        return;
    }
    let split = divmod(index, params.bands);
    let run = split.quotient;
    let band = split.remainder;
    let o = outer(run, false);
    let n = size_at(AXIS);
    let in_axis = in_stride_at(AXIS);
    let out_axis = out_stride_at(AXIS);
    // The band's vectors: a power of two, the last band of a run maybe fewer.
    let per_band = params.band.value;
    let shift = countTrailingZeros(per_band);
    let first = band * per_band;
    let vecs = min(per_band, params.vecs.value - first);
    let first_element = first * ELEMS_PER_VEC;

    let cells = n << shift;
    for (var c = local; c < cells; c += WORKGROUP_SIZE) {
        let v = c & (per_band - 1u);
        if (v < vecs) {
            let p = c >> shift;
            let x = load_vec(vec_index(o.in_offset + p * in_axis + first_element + v * ELEMS_PER_VEC));
            for (var w = 0u; w < 4u; w++) {
                tile[((w * n + p) << shift) + v] = x[w];
                #trace trace_workgroup(1u, (((w * n + p) << shift) + v) * 4u);
            }
        }
    }
    // The lengths after the band: no load of the band waits on them, and the SIMT
    // model takes an input load after a length load to wait (docs/gpu-model.md).
    let stride = len_stride_at(RANK - 1u);
    for (var e = local; e < vecs * ELEMS_PER_VEC; e += WORKGROUP_SIZE) {
        let at = ((e % ELEMS_PER_VEC) << shift) + e / ELEMS_PER_VEC;
        tile_lengths[at] = lane_length(o.len_offset + (first_element + e) * stride, n);
        #trace trace_workgroup(1u, (TILE_WORDS + at) * 4u);
    }
    workgroupBarrier();
    // An invocation's cells are all of one vector column: the workgroup's size
    // is a multiple of the band's.
    let v = local & (per_band - 1u);
    var lengths: array<u32, 16>;
    for (var j = 0u; j < ELEMS_PER_VEC; j++) {
        lengths[j] = tile_lengths[(j << shift) + v];
        #trace trace_workgroup(0u, (TILE_WORDS + (j << shift) + v) * 4u);
    }
    if (v < vecs) {
        for (var c = local; c < cells; c += WORKGROUP_SIZE) {
            let p = c >> shift;
            store_vec(vec_index(o.out_offset + p * out_axis + first_element + v * ELEMS_PER_VEC), tile_vector(p, v, n, shift, &lengths));
        }
    }
}
