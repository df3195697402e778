# hrelay-plan end to end, checked by an independent JSON plan checker (python3); the table of
# settings against the README and hrelay-run --help.
TESTS += tests/tools/plan_cli.sh tests/tools/settings.sh
EXTRA_DIST += tests/tools/plan_cli.sh tests/tools/check_plan_json.py tests/tools/random_matrix.py \
	tests/tools/settings.sh
