#!/bin/sh
# A stand-in coding agent for baton's `command` backend, used by local-demo.yml.
# It needs no API key and no network: it reads the prompt on stdin, appends a note to
# NOTES.md in the current directory (the step's working tree), and reports its result
# as JSON, in the file named by BATON_OUTPUT when baton sets it, and as the last JSON
# block of its output in any case.
#
# The note is the text after the first line of the prompt that starts with "Note:";
# without such a line, the first non-empty line of the prompt.
set -eu

prompt=$(cat)
note=$(printf '%s\n' "$prompt" | sed -n 's/^[[:space:]]*Note:[[:space:]]*//p' | head -n 1)
if [ -z "$note" ]; then
  note=$(printf '%s\n' "$prompt" | sed -n '/[^[:space:]]/{s/^[[:space:]]*//;p;q;}')
fi
[ -n "$note" ] || note="(empty prompt)"

file=NOTES.md
[ -f "$file" ] || printf '# Notes\n\n' > "$file"
printf -- '- %s\n' "$note" >> "$file"
lines=$(grep -c '^- ' "$file" || true)

# JSON string escaping for the note: tabs become spaces, other control characters go,
# then backslashes and double quotes are escaped.
escaped=$(printf '%s' "$note" | tr '\t' ' ' | tr -d '\000-\037' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')
result=$(printf '{"file":"%s","notes":%s,"summary":"Added a note to %s: %s"}' "$file" "$lines" "$file" "$escaped")

if [ -n "${BATON_OUTPUT:-}" ]; then
  printf '%s\n' "$result" > "$BATON_OUTPUT"
fi
printf 'Appended a note to %s.\n\n```json\n%s\n```\n' "$file" "$result"
