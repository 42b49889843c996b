#!/usr/bin/env bash
# Runs a command from a checkout the sandbox tests' own unprivileged users can reach. They start
# processes as users of their own (tests/agents/sandbox/, the sandboxed end-to-end runs), which
# must read this checkout; a clone under a folder only root may enter (`mktemp -d` makes one
# 0700) is reached through a bind mount at a traversable path for the length of the command.
# Anywhere else (not root, or already reachable) the command runs where it is.
#
#   scripts/test/reachable.sh <command> [args…]      (npm test and .ci/run use it)
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "$(id -u)" = 0 ] && ! setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$PWD/package.json" 2>/dev/null; then
  reachable="$(mktemp -d /tmp/baton-reach-XXXXXX)" && chmod 0755 "$reachable"
  mount --bind "$PWD" "$reachable"
  trap 'cd /; umount "$reachable" && rmdir "$reachable"' EXIT
  cd "$reachable"
  # Tools from the reachable path too: what the tests start resolves from there.
  export PATH="$reachable/node_modules/.bin:$PATH"
fi
status=0
"$@" || status=$?
exit "$status"
