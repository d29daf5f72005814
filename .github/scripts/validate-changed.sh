#!/usr/bin/env bash
# Validate the annotation files a pull request adds, changes or renames (against BASE,
# e.g. origin/main).  Contributions (annotations/contrib/) are checked against the site
# as well (`validate --site`); other files by the format alone.  File names travel
# NUL-separated, so spaces, quotes, newlines and non-ASCII names are all fine.
set -euo pipefail
base="$1"
python="${PYTHON:-python}"

contrib=()
other=()
while IFS= read -r -d '' path; do
    case "$path" in
        annotations/contrib/*) contrib+=("$path") ;;
        *) other+=("$path") ;;
    esac
done < <(git -c core.quotePath=false diff -z --name-only --no-renames --diff-filter=AM \
             "$base...HEAD" -- ':(glob)annotations/**/*.parquet')

if [ "${#contrib[@]}" -eq 0 ] && [ "${#other[@]}" -eq 0 ]; then
    echo "no annotation files changed"
    exit 0
fi
if [ "${#other[@]}" -gt 0 ]; then
    "$python" -m ffsite validate -- "${other[@]}"
fi
if [ "${#contrib[@]}" -gt 0 ]; then
    "$python" -m ffsite validate --site annotations -- "${contrib[@]}"
fi
