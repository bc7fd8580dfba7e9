/* placeholder: being written */
typedef int pp_placeholder_merge_out_text_c;
