/* placeholder: being written */
typedef int pp_placeholder_merge_out_json_c;
