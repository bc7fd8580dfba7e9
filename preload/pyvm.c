/* placeholder: being written */
typedef int pp_placeholder_preload_pyvm_c;
