/* only_match.c — PYPROF_ONLY: profile only processes whose command line matches. */
#include <fnmatch.h>
#include <string.h>

#include "base/config.h"
#include "hooks/hooks.h"

int only_match(char *const *argv)
{
    char line[8192];
    size_t n = 0;
    for (size_t i = 0; argv && argv[i]; i++) {
        size_t k = strlen(argv[i]);
        if (n + k + 2 > sizeof line)
            break;
        if (i)
            line[n++] = ' ';
        memcpy(line + n, argv[i], k);
        n += k;
    }
    line[n] = 0;
    return fnmatch(pp_config.only, line, 0) == 0;
}
