//! The ROCr 5.2 exports amdsim does not provide. Each returns
//! `HSA_STATUS_ERROR` and says, once, which function was called; never a
//! silent success.

use std::collections::HashSet;
use std::sync::Mutex;

static SAID: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// Prints, once per `what`, that amdsim does not provide it.
pub fn say(what: &str) {
    let mut g = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if g.get_or_insert_default().insert(what.to_string()) {
        eprintln!(
            "amdsim: {what} is not provided by amdsim's HSA runtime (the call fails with HSA_STATUS_ERROR)"
        );
    }
}

/// Defines unsupported exports.
macro_rules! unsupported {
    ($($name:ident),* $(,)?) => {
        $(
            hsa! {
                /// Not provided by amdsim: fails with `HSA_STATUS_ERROR`.
                fn $name() -> crate::Status {
                    say(stringify!($name));
                    crate::ERROR
                }
            }
        )*
    };
}

unsupported! {
    hsa_agent_get_exception_policies,
    hsa_agent_iterate_caches,
    hsa_agent_iterate_regions,
    hsa_amd_async_function,
    hsa_amd_deregister_deallocation_callback,
    hsa_amd_image_create,
    hsa_amd_interop_map_buffer,
    hsa_amd_interop_unmap_buffer,
    hsa_amd_ipc_memory_attach,
    hsa_amd_ipc_memory_create,
    hsa_amd_ipc_memory_detach,
    hsa_amd_ipc_signal_attach,
    hsa_amd_ipc_signal_create,
    hsa_amd_memory_migrate,
    hsa_amd_memory_pool_can_migrate,
    hsa_amd_queue_cu_get_mask,
    hsa_amd_register_deallocation_callback,
    hsa_amd_register_system_event_handler,
    hsa_amd_svm_attributes_get,
    hsa_amd_svm_attributes_set,
    hsa_amd_svm_prefetch_async,
    hsa_cache_get_info,
    hsa_code_object_deserialize,
    hsa_code_object_destroy,
    hsa_code_object_get_info,
    hsa_code_object_get_symbol,
    hsa_code_object_get_symbol_from_name,
    hsa_code_object_iterate_symbols,
    hsa_code_object_serialize,
    hsa_code_symbol_get_info,
    hsa_executable_get_info,
    hsa_executable_get_symbol,
    hsa_executable_global_variable_define,
    hsa_executable_load_code_object,
    hsa_executable_load_program_code_object,
    hsa_executable_readonly_variable_define,
    hsa_ext_image_clear,
    hsa_ext_program_add_module,
    hsa_ext_program_create,
    hsa_ext_program_destroy,
    hsa_ext_program_finalize,
    hsa_ext_program_get_info,
    hsa_ext_program_iterate_modules,
    hsa_extension_get_name,
    hsa_isa_compatible,
    hsa_isa_get_exception_policies,
    hsa_isa_get_round_method,
    hsa_isa_iterate_wavefronts,
    hsa_memory_allocate,
    hsa_memory_assign_agent,
    hsa_memory_free,
    hsa_region_get_info,
    hsa_signal_group_create,
    hsa_signal_group_destroy,
    hsa_signal_group_wait_any_relaxed,
    hsa_signal_group_wait_any_scacquire,
    hsa_soft_queue_create,
    hsa_wavefront_get_info,
}
