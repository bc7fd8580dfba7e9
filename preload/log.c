/* placeholder: being written */
typedef int pp_placeholder_preload_log_c;
