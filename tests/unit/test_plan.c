#include <check.h>
#include <stdlib.h>
START_TEST(placeholder) { ck_assert_int_eq(1, 1); }
END_TEST
int main(void) { Suite *s = suite_create("plan"); TCase *t = tcase_create("p"); tcase_add_test(t, placeholder); suite_add_tcase(s, t); SRunner *r = srunner_create(s); srunner_run_all(r, CK_NORMAL); int f = srunner_ntests_failed(r); srunner_free(r); return f ? 1 : 0; }
