#!/usr/bin/env bash
# Release step: publish the package to npm with provenance (the registry shows which workflow
# run built it). On GitHub the job's OIDC token authenticates through npm trusted publishing,
# or NODE_AUTH_TOKEN when an NPM_TOKEN secret is set. Extra arguments pass through, so the
# release test runs exactly this with --dry-run.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec npm publish --provenance --access public "$@"
