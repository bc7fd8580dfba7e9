/*
 * model.h — every file of a run merged into one picture: the processes
 * and who started whom, functions, and stacks as a trie of frames shared
 * by all processes, with counts per (process, thread, stack).  Memory grows
 * with distinct stacks, never with samples.
 */
#ifndef PYPROF_MERGE_MODEL_H
#define PYPROF_MERGE_MODEL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "index.h"
#include "reader.h"
#include "unprofiled.h"
#include "window.h"

enum m_mode { MODE_WALL, MODE_CPU, MODE_GIL, MODE_EXC, MODE_TASKS };
#define M_NMODES 5

/* How far model_build has read, for a progress line drawn by another
 * thread while it runs. */
struct m_progress {
    atomic_size_t files;
    atomic_uint_least64_t samples, bytes;
};

struct m_options {
    enum m_mode mode;
    long pid;              /* only this pid; 0 = all                    */
    const char *host;      /* only this host's processes; NULL = all    */
    long interp;           /* 1 + the one interpreter counted; 0 = all  */
    int exclude_idle;      /* drop samples not on a CPU                 */
    int fold_workers;      /* processes with identical argv become one  */
    int all_modes;         /* also count every stack in every mode       */
    const struct m_window *window;  /* only this part of the run; NULL: all */
    struct m_progress *progress;   /* NULL: nobody is watching          */
};

struct m_func {
    char *name, *file, *bare;   /* qualname, filename, co_name           */
    uint32_t firstline;
    /* The pseudo-frame of an entry into a subinterpreter: 1 + its id (the
     * reader's rd_code.boundary); 0 for code. */
    uint32_t boundary;
    uint64_t self, total;
};

struct m_frame { uint32_t func; int32_t line; };
/* trie; 0 = root.  interp: the interpreter the node's frame ran in, the
 * id of the innermost entry into a subinterpreter at or above it (0 =
 * main; pyprof(7), "Subinterpreters"). */
struct m_tnode { uint32_t parent, frame, interp; };

struct m_thread { uint32_t tid; char *name, *os_name; uint64_t samples; };

struct m_proc {
    struct rd_file *f;
    struct rd_window win;        /* the part of its file read (window.h)  */
    char id[17], parent_id[17];
    long parent;                 /* index of the parent process, -1 none */
    long folded_into;            /* representative when folding, or -1   */
    uint32_t host;               /* index into model.hosts                */
    unsigned folded;             /* processes folded into this one       */
    struct m_thread *threads;    /* indexed by the file's thread index    */
    size_t nthreads;
    uint64_t samples;            /* in the chosen mode                   */
    uint64_t samples_all;        /* every sample read                    */
    uint64_t truncated;          /* in the mode: stacks cut at the depth
                                    cap, with those folded into it */
    uint64_t in_gc;              /* in the mode: samples with <GC> on top
                                    (PP_SAMPLE_IN_GC), the same way     */
    uint64_t in_exc;             /* in the mode: PP_SAMPLE_EXCEPTION     */
    /* This process and those folded into it (--fold-workers): what its
     * row shows.  For a process folded into another: its own. */
    struct { uint64_t samples, rejected, missed, sampler_cpu_ns; } group;
    uint64_t *code_hash;         /* until merged: each code's function's hash */
    /* Rejected samples by the function their thread was last seen in
     * (func M_NO_FUNC: not known), most first. */
    struct m_reject { uint32_t func; uint64_t count; } *rejects;
    size_t nrejects;
};
#define M_NO_FUNC UINT32_MAX

/* The function a sample whose stack was deeper than the sampler's cap
 * (PP_SAMPLE_TRUNCATED) has as its outermost frame, above the innermost
 * frames that were kept: its file is "~", as cProfile names functions
 * that are not Python's. */
#define M_TRUNCATED "<truncated>"
#define M_TRUNCATED_FILE "~"

struct m_stack { uint32_t proc, thread, leaf; uint64_t count; };

struct m_problem { const char *file; const char *error; uint64_t recovered; };

struct model {
    struct m_options opt;
    struct m_proc *procs; size_t nprocs;
    struct m_func *funcs; size_t nfuncs, funcs_cap;
    struct m_frame *frames; size_t nframes, frames_cap;
    struct m_tnode *tnodes; size_t ntnodes, tnodes_cap;
    struct m_stack *stacks; size_t nstacks, stacks_cap;
    /* With all_modes: stack i's counts in wall, cpu and gil mode at
     * stack_modes[i * M_NMODES + mode], and stacks with no sample in the
     * chosen mode are kept too (with count 0). */
    uint64_t *stack_modes;
    /* hash indexes (index.h); stack_ix holds the stacks folded into
     * another process, file_ix the stacks of the file being added */
    struct index func_ix, frame_ix, tnode_ix, stack_ix, file_ix;
    size_t nfolded;
    struct m_problem *problems; size_t nproblems;
    uint64_t samples, dropped;   /* in mode; rejected by the samplers     */
    uint64_t missed, sampler_cpu_ns, samples_all;
    uint64_t truncated;          /* in mode: outer frames cut (M_TRUNCATED) */
    uint64_t in_gc;              /* in mode: the cyclic GC running         */
    uint64_t in_exc;             /* in mode: raising or handling exceptions */
    unsigned python_procs;
    /* The hosts the processes ran on (their headers' host names), in the
     * order their first process started, and each one's first start on
     * its own clock: times of different hosts are compared only from
     * there (pyprof(7), "Many hosts"). */
    char **hosts; uint64_t *host_first_ns; size_t nhosts;
    /* With a window (m_options.window): processes left out because their
     * life was outside it (their descendants' ancestors are kept). */
    size_t outside;
    int window_missing;          /* --window N: no file has window N      */
    /* processes that could not be profiled; set by the caller */
    struct unprofiled *unprofiled; size_t nunprofiled;
};

/* Reads every path (files; directories are expanded by the caller) with
 * `jobs` threads and merges them.  Returns NULL only when out of memory. */
struct model *model_build(char *const *paths, size_t n, const struct m_options *o,
                          int jobs);
void model_free(struct model *m);

/* The interpreter a stack ran in (m_tnode.interp of its leaf). */
static inline uint32_t model_stack_interp(const struct model *m,
                                          const struct m_stack *s)
{
    return s->leaf ? m->tnodes[s->leaf - 1].interp : 0;
}

/* Frame ids of a trie node's stack, outermost first, into out (at most
 * cap, the innermost ones kept); returns how many were written. */
size_t model_path(const struct model *m, uint32_t leaf, uint32_t *out, size_t cap);

/* Whether a sample with these PP_SAMPLE_* flags counts in o's mode. */
int model_keeps(const struct m_options *o, unsigned flags);
/* The index of the function (qualname, file, first line), made if m has
 * none yet (its bare name left empty): for a table of functions alone, as
 * the live view keeps one in a model of its own (live.c). */
uint32_t model_func_intern(struct model *m, const char *name, const char *file,
                           uint32_t line);
/* The index of the function (qualname, file, first line), or -1. */
long model_func_find(const struct model *m, const char *name, const char *file,
                     uint32_t line);

/* Whether any input had a problem / nothing at all was readable. */
int model_damaged(const struct model *m);
int model_empty(const struct model *m);

const char *model_started_by(int how);
/* "exit 0", "signal 15", "exec", "running?" */
void model_exit_str(const struct m_proc *p, char *buf, size_t cap);
/* What the process runs, in a few words (escaped as model_escape_byte
 * does): the script and its arguments, "-m module ...", "-c code" (its
 * first line, cut), the role multiprocessing gave it ("multiprocessing
 * forkserver", "... resource_tracker", "... spawn_main"), or the program
 * when it is not an interpreter (proc_label.c). */
void model_proc_label(const struct m_proc *p, char *buf, size_t cap);

/* argv joined by spaces, escaped as model_escape_byte does. */
void model_argv_str(const struct m_proc *p, char *buf, size_t cap);
/* Byte c as shown in a line of a text report: itself, or for a control
 * byte (names and arguments come from untrusted files) "\n", "\t" or
 * "\xHH".  Writes it into out, returns its length (1 to 4). */
size_t model_escape_byte(unsigned char c, char out[4]);

#endif
