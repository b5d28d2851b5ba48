//! How to load a checkpoint: the device and the floating point type. Plain types, there in
//! every build, where the models themselves need the crate's `model` feature
//! ([`crate::load_generator`] loads one whatever the build).

/// Where the model runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeviceChoice {
    /// The CPU (the default; always available).
    #[default]
    Cpu,
    /// The CUDA GPU with this ordinal; needs the crate's `cuda` feature.
    Cuda(usize),
}

/// The floating point type weights and activations use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    F32,
    Bf16,
    F16,
}

/// How to load a checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LoadOptions {
    pub device: DeviceChoice,
    /// None picks f32 on the CPU and bf16 on CUDA. GGUF files choose their own activation type.
    pub dtype: Option<Precision>,
}
