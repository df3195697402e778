#!/bin/bash
# The one table of settings (src/shim/settings.c, printed by src/shim/hrelay-settings) against
# what users read: every setting has a row in the README's Environment table whose values and
# default are the table's, every hrelay-run option a row in the README's hrelay-run table that
# says what it sets, hrelay-run --help lists the settings and options as the table says, and
# neither README table lists a setting or an option the table does not have.
set -u
readme=${srcdir:-.}/README.md
gen=./src/shim/hrelay-settings
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# starts_a_line PREFIX: whether some README line starts with PREFIX
starts_a_line() {
    awk -v p="$1" 'index($0, p) == 1 { found = 1 } END { exit !found }' "$readme"
}

rows=$("$gen" markdown) && [ -n "$rows" ] || fail "hrelay-settings markdown"
while IFS= read -r row; do
    starts_a_line "$row" ||
        fail "README's Environment table has no row starting '$row'"
done <<<"$rows"
options=$("$gen" options-markdown) && [ -n "$options" ] || fail "hrelay-settings options-markdown"
while IFS= read -r row; do
    starts_a_line "${row% |}" ||
        fail "README's hrelay-run table has no row starting '${row% |}'"
done <<<"$options"

# section HEADING: the README's lines after that heading line, up to the next heading of its
# level or above
section() {
    awk -v h="$1" 'BEGIN { level = index(h, " ") - 1 }
        $0 == h { on = 1; next }
        on && match($0, /^#+ /) && RLENGTH - 1 <= level { on = 0 }
        on' "$readme"
}
names=$("$gen" names) || fail "hrelay-settings names"
env_section=$(section "## Environment")
[ -n "$env_section" ] || fail "README has no Environment section"
while IFS= read -r name; do
    grep -qx "$name" <<<"$names" ||
        fail "README's Environment lists $name, which the library does not read"
done < <(sed -n 's/^| `\(HRELAY_[A-Z_]*\)` |.*/\1/p' <<<"$env_section")
run_section=$(section "### hrelay-run")
[ -n "$run_section" ] || fail "README has no hrelay-run section"
while IFS= read -r option; do
    case $option in
        --lib | --mpiexec | --dry-run | --help) continue ;; # hrelay-run's own
    esac
    grep -q "^| \`$option[ [\`]" <<<"$options" ||
        fail "README lists hrelay-run option $option, which sets no setting of the table"
done < <(sed -n 's/^| `\(--[a-z-]*\).*/\1/p' <<<"$run_section")

help=$(./hrelay-run --help) || fail "hrelay-run --help"
for part in help options-help; do
    text=$("$gen" "$part") || fail "hrelay-settings $part"
    case $help in
        *"$text"*) ;;
        *) fail "hrelay-run --help lacks the output of hrelay-settings $part" ;;
    esac
done
while IFS= read -r name; do
    grep -q "^  $name " <<<"$help" || fail "hrelay-run --help does not list $name"
done <<<"$names"
exit 0
