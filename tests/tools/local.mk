# hrelay-plan end to end, checked by an independent JSON plan checker (python3).
TESTS += tests/tools/plan_cli.sh
EXTRA_DIST += tests/tools/plan_cli.sh tests/tools/check_plan_json.py tests/tools/random_matrix.py
