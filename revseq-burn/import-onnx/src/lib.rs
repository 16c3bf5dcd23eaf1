//! ONNX models with `ReverseSequence`, imported by burn-onnx in `build.rs` with
//! revseq-burn's hook, and the inputs and ONNX Runtime outputs that
//! `models/make_models.py` wrote beside them.

macro_rules! models {
    ($($name:ident),*) => {$(
        #[allow(missing_docs, clippy::all)]
        pub mod $name {
            include!(concat!(env!("OUT_DIR"), "/model/", stringify!($name), ".rs"));
        }
    )*};
}

models!(
    tagger,
    keras_bilstm,
    kinds,
    kinds_external,
    shape_lengths,
    test_reversesequence_batch,
    test_reversesequence_time,
    test_reversesequence_bfloat16
);

/// The bytes of `models/<file>`: a model's input or ONNX Runtime's output,
/// raw little-endian values.
pub fn data(file: &str) -> Vec<u8> {
    let path = format!("{}/models/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `models/<file>` as little-endian values of 4 or 8 bytes.
pub fn values<T, const N: usize>(file: &str, from: fn([u8; N]) -> T) -> Vec<T> {
    data(file)
        .chunks_exact(N)
        .map(|c| from(c.try_into().expect("chunks of N")))
        .collect()
}
