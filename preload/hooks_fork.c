/* placeholder: being written */
typedef int pp_placeholder_preload_hooks_fork_c;
