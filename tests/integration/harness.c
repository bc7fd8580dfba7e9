typedef int pp_placeholder_harness;
