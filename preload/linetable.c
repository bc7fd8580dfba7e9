/* placeholder: being written */
typedef int pp_placeholder_preload_linetable_c;
