#!/usr/bin/env bash
# Runs today's attack tests against the sources of an older commit, to show that each test
# fails where the defence it checks is missing (docs/security.md cites the result).
#
#   scripts/security/on-old-sources.sh [COMMIT] [TEST FILES…]
#
# COMMIT defaults to the last commit before the security work (BEFORE below). The older
# commit's src/, dist/ and everything else are checked out in a temporary worktree; only
# tests/ is today's. A test that fails there because it imports a module the old sources do not
# have counts as failing too (the defence is missing), and vitest says which.
set -uo pipefail
BEFORE=7ea23d9
cd "$(dirname "$0")/../.."
commit="${1:-$BEFORE}"
shift || true
files=("$@")
[ ${#files[@]} -eq 0 ] && files=(tests/security tests/engine/untrusted-prompt.test.ts tests/engine/run-control.test.ts tests/engine/properties.test.ts tests/agents/result.test.ts tests/agents/redact.test.ts)
tmp="$(mktemp -d)/old"
git worktree add --detach --quiet "$tmp" "$commit" || exit 2
trap 'git worktree remove --force "$tmp" >/dev/null 2>&1' EXIT
rm -rf "$tmp/tests"
cp -R tests "$tmp/tests"
ln -s "$PWD/node_modules" "$tmp/node_modules"
echo "Today's tests against the sources of $(git log -1 --format='%h %s' "$commit"):"
(cd "$tmp" && CI=true npx vitest run "${files[@]}" 2>&1 | grep -aE '✓|×|FAIL|Test Files|Tests ')
exit 0
