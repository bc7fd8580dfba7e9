#include <criterion/criterion.h>
Test(placeholder, test_reader) { cr_assert(1); }
