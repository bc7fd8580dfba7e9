#include <criterion/criterion.h>
Test(placeholder, test_format) { cr_assert(1); }
