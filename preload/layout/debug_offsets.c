/* placeholder: being written */
typedef int pp_placeholder_preload_layout_debug_offsets_c;
