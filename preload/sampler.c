/* placeholder: being written */
typedef int pp_placeholder_preload_sampler_c;
