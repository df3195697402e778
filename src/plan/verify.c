/* PLACEHOLDER (being replaced by the lead). */
#include "plan/plan.h"
int plan_verify(const plan_matrix *m, const plan *pl, plan_error *err) { return 0; }
