#include <criterion/criterion.h>
Test(placeholder, test_core) { cr_assert(1); }
