/* placeholder: being written */
typedef int pp_placeholder_preload_layout_py311_c;
