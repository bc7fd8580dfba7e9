/* placeholder: being written */
typedef int pp_placeholder_preload_pystr_c;
