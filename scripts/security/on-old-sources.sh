#!/usr/bin/env bash
# Runs today's attack tests against the sources of an older commit, to show that each test
# fails where the defence it checks is missing (docs/security.md cites the result).
#
#   scripts/security/on-old-sources.sh [COMMIT|round2] [TEST FILES…]
#
# COMMIT defaults to the last commit before the security work (BEFORE below); `round2` takes the
# last commit before the second round (ROUND2 below) and that round's attack tests; `round3` the
# last commit before the third (ROUND3) and its attack tests (tests/security/round3-*). The older
# commit's src/, dist/ and everything else are checked out in a temporary worktree; only
# tests/ is today's. A test that fails there because it imports a module the old sources do not
# have counts as failing too (the defence is missing), and vitest says which.
set -uo pipefail
BEFORE=7ea23d9
ROUND2=40e63ff
ROUND3=b1ddbc9
ROUND2_TESTS=(tests/security/stranger-writes.test.ts tests/security/foreign-claims.test.ts tests/security/result-leaks.test.ts tests/security/hostile-artifact.test.ts tests/agents/agent-config.test.ts tests/cli/printable.test.ts tests/actions-only/displaced.test.ts tests/security/foreign-ci.test.ts tests/app/answers.test.ts tests/actions-only/answers.test.ts tests/hosts/questions.test.ts)
cd "$(dirname "$0")/../.."
commit="${1:-$BEFORE}"
shift || true
files=("$@")
if [ "$commit" = round2 ]; then
  commit=$ROUND2
  [ ${#files[@]} -eq 0 ] && files=("${ROUND2_TESTS[@]}")
fi
if [ "$commit" = round3 ]; then
  commit=$ROUND3
  [ ${#files[@]} -eq 0 ] && files=(tests/security/round3-*.test.ts)
fi
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
