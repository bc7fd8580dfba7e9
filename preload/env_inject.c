/* placeholder: being written */
typedef int pp_placeholder_preload_env_inject_c;
