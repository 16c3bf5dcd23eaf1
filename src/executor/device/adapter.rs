//! Which adapter [`Gpu::new`](crate::Gpu::new) opens: wgpu's environment
//! variables, then the primary backends before GL.

use crate::descriptor::error::Error;

/// The adapter [`Gpu::new_async`](crate::Gpu::new_async) opens, for callers who
/// make the device themselves (with more features, say) and pass it to
/// [`Gpu::from_wgpu`](crate::Gpu::from_wgpu). `WGPU_BACKEND` names the backends to
/// search; without it the primary backends (Vulkan, Metal, DX12, the browser's
/// WebGPU) come first and GL only when they have nothing, because probing GL
/// through EGL prints to stderr on a machine without a display.
/// `WGPU_ADAPTER_NAME` picks by name and `WGPU_POWER_PREF` by power preference.
pub async fn adapter_from_env() -> Result<wgpu::Adapter, Error> {
    let tiers = match wgpu::Backends::from_env() {
        Some(backends) => vec![backends],
        None => vec![wgpu::Backends::PRIMARY, wgpu::Backends::SECONDARY],
    };
    let wanted = std::env::var("WGPU_ADAPTER_NAME").ok();
    let mut available = Vec::new();
    let mut reason = String::new();
    for backends in tiers {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends,
            ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
        });
        match &wanted {
            Some(name) => {
                let wanted = name.to_lowercase();
                for adapter in instance.enumerate_adapters(backends).await {
                    let found = adapter.get_info().name;
                    if found.to_lowercase().contains(&wanted) {
                        return Ok(adapter);
                    }
                    available.push(found);
                }
            }
            None => {
                let options = wgpu::RequestAdapterOptions {
                    power_preference: wgpu::PowerPreference::from_env().unwrap_or_default(),
                    ..Default::default()
                };
                match instance.request_adapter(&options).await {
                    Ok(adapter) => return Ok(adapter),
                    Err(e) => reason = e.to_string(),
                }
            }
        }
    }
    Err(match wanted {
        Some(name) => Error::AdapterNotFound { name, available },
        None => Error::NoAdapter { reason },
    })
}
