/*
 * test_loaded_symbol.c — base/loaded_symbol.h answers from the loaded
 * objects' hash tables what dlsym would find: yes for symbols the C
 * library or the loader define (also one found only past the bloom
 * filter's first word), no for names no object defines, including an
 * undefined reference to a symbol (this test's own imports are
 * undefined entries in its table).
 */
#include <criterion/criterion.h>
#include <dlfcn.h>

#include "base/loaded_symbol.h"

Test(loaded_symbol, defined_symbols_may_exist)
{
    static const char *const names[] = {
        "malloc", "strcmp", "dl_iterate_phdr", "_dl_find_object", "environ",
        "pthread_create", "__libc_start_main", "_r_debug",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        cr_expect(loaded_symbol_may_exist(names[i]) ==
                      (dlsym(RTLD_DEFAULT, names[i]) != NULL),
                  "%s: the objects' tables and dlsym disagree", names[i]);
    cr_expect_eq(loaded_symbol_may_exist("malloc"), 1);
}

Test(loaded_symbol, names_nobody_defines_do_not)
{
    cr_expect_eq(loaded_symbol_may_exist("_PyRuntime"), 0);
    cr_expect_eq(loaded_symbol_may_exist("pp_no_object_defines_this"), 0);
    cr_expect_eq(loaded_symbol_may_exist(""), 0);
    cr_expect_eq(loaded_symbol_may_exist("Py_Version"), 0);
}
