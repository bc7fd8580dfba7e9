/* placeholder: being written */
typedef int pp_placeholder_preload_safe_read_c;
