/* placeholder: being written */
typedef int pp_placeholder_preload_writer_c;
