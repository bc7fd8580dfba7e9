"""One module per figure of the bench table, in the order they run.

Each module has FIGURES (the figure ids whose rows it adds) and
run_all(bench, selected_ids)."""
from figures import (overhead, cost, sampler_perf, flush_cost, rate, merge, page,
                     exec_cost, cpython_sampler, lodger, rejects, depth, live)

ALL = (overhead, cost, sampler_perf, flush_cost, rate, merge, page, exec_cost,
       cpython_sampler, lodger, rejects, depth, live)
