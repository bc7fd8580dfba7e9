/* placeholder: being written */
typedef int pp_placeholder_merge_model_c;
