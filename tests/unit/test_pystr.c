#include <criterion/criterion.h>
Test(placeholder, test_pystr) { cr_assert(1); }
