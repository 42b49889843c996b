#!/usr/bin/env bash
# The runner probe (docs/conformance.md, U5): prints, as one JSON object, every fact about a
# GitHub-hosted runner that the agent sandbox's fence (src/agents/sandbox/), the worker
# workflow `baton init` writes (src/init/workflows.ts) and the emulator's runner
# (tests/emulator/actions/runner-env.ts, sandbox.ts) assume. Plain bash and coreutils: it runs
# on a bare runner image, before anything is installed. It changes nothing on the machine; a
# fact it cannot read is "absent" or "unreadable", never a failure. The fact names are
# scripts/conformance/probe/facts.ts's; a test runs this file and checks it prints all of them.
set +e +o pipefail 2>/dev/null

first=1
json_escape() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\t'/\\t}
  s=${s//$'\r'/}
  printf '%s' "$s" | tr -d '\000-\010\013\014\016-\037'
}
fact() {
  if [ "$first" = 1 ]; then first=0; else printf ',\n'; fi
  printf '    "%s": "%s"' "$1" "$(json_escape "$2")"
}
# The first line a command prints, or "absent"/"unreadable".
line() { local out; out=$("$@" 2>/dev/null | head -n 1); if [ -n "$out" ]; then printf '%s' "$out"; else printf 'unreadable'; fi; }
# A program as the fence finds it (setup.ts findProgram: PATH, then the system's sbin folders).
program() {
  local p
  p=$(command -v "$1" 2>/dev/null)
  if [ -z "$p" ]; then for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do [ -x "$d/$1" ] && { p="$d/$1"; break; }; done; fi
  if [ -n "$p" ]; then printf '%s' "$p"; else printf 'absent'; fi
}
mode() { if [ -e "$1" ]; then line stat -c '%a %U:%G' "$1"; else printf 'absent'; fi; }
# As root through the runner's passwordless sudo, when it has one; else as the job's user.
as_root() { if sudo -n true 2>/dev/null; then sudo -n "$@"; else "$@"; fi; }
yes_no() { if "$@" >/dev/null 2>&1; then printf 'yes'; else printf 'no'; fi; }
read_file() { if [ -r "$1" ]; then tr '\n' ' ' < "$1" | sed 's/ *$//'; elif [ -e "$1" ]; then printf 'unreadable'; else printf 'absent'; fi; }

printf '{\n  "schema": "baton-runner-probe/1",\n  "facts": {\n'

# Who and where the job runs.
fact user "$(id -un)"
fact uid "$(id -u)"
os=absent
if [ -r /etc/os-release ]; then os=$(. /etc/os-release && printf '%s %s' "$ID" "$VERSION_ID"); fi
fact os "$os"
fact arch "$(uname -m)"
fact kernel "$(uname -r)"
fact image "${ImageOS:-absent} ${ImageVersion:-absent}"
fact runner.environment "${RUNNER_ENVIRONMENT:-absent}"
fact runner.os "${RUNNER_OS:-absent}"
fact runner.arch "${RUNNER_ARCH:-absent}"

# The folders the fence closes or hands out (setup.ts: RUNNER_TEMP the worker's alone, the CLIs
# beside it, the agent's HOME fresh under /home).
fact home "${HOME:-absent}"
fact home.mode "$(mode "${HOME:-/nonexistent}")"
fact runner.temp "${RUNNER_TEMP:-absent}"
fact runner.temp.mode "$(mode "${RUNNER_TEMP:-/nonexistent}")"
fact runner.temp.parent.mode "$(mode "$(dirname "${RUNNER_TEMP:-/nonexistent/x}")")"
fact runner.workspace "${RUNNER_WORKSPACE:-absent}"
fact home.parent.mode "$(mode /home)"

# sudo: the worker workflow's guard (RUNNER_WITH_SUDO) and the rule its drop step removes.
fact program.sudo "$(program sudo)"
fact sudo.passwordless "$(yes_no sudo -n true)"
fact sudoers.d.mode "$(as_root stat -c '%a %U:%G' /etc/sudoers.d 2>/dev/null || printf absent)"
fact sudoers.runner.mode "$(as_root stat -c '%a %U:%G' /etc/sudoers.d/runner 2>/dev/null || printf absent)"
rule=absent
if as_root test -f /etc/sudoers.d/runner 2>/dev/null; then rule=$(as_root cat /etc/sudoers.d/runner 2>/dev/null | grep -v '^[[:space:]]*#' | grep -v '^[[:space:]]*$' | tr '\n' ';' | sed 's/;$//'); fi
fact sudoers.runner.rule "$rule"
fact sudoers.includedir "$(as_root grep -E '^[@#]includedir[[:space:]]+/etc/sudoers.d' /etc/sudoers 2>/dev/null | head -n 1 || printf absent)"

# The programs setup.ts and fence.ts start.
for p in nft useradd visudo setpriv prlimit unshare nsenter findmnt; do fact "program.$p" "$(program "$p")"; done
nft=$(program nft)
if [ "$nft" != absent ]; then
  fact nft.version "$(line "$nft" --version)"
  # fence.ts reads the filter back as JSON (`nft -j list table inet baton`).
  fact nft.json "$(yes_no as_root "$nft" -j list tables)"
else
  fact nft.version absent
  fact nft.json absent
fi

# Namespaces: codex's bubblewrap needs unprivileged user namespaces (workflows.ts lifts the
# AppArmor restriction with sysctl before the agent).
fact apparmor.restrict_unprivileged_userns "$(read_file /proc/sys/kernel/apparmor_restrict_unprivileged_userns)"
fact userns.max "$(read_file /proc/sys/user/max_user_namespaces)"
fact userns.unprivileged "$(yes_no unshare --user --map-root-user true)"
fact yama.ptrace_scope "$(read_file /proc/sys/kernel/yama/ptrace_scope)"

# /proc: the worker reads the agent's processes (limits.ts readPeaks) and the ports in use
# (setup.ts portsInUse); secrets stay out of argv because /proc/<pid>/cmdline is world-readable.
procopts=$(findmnt -no OPTIONS /proc 2>/dev/null | head -n 1)
[ -n "$procopts" ] || procopts=$(awk '$2 == "/proc" { print $4; exit }' /proc/mounts 2>/dev/null)
fact proc.mount "${procopts:-unreadable}"
fact proc.net.tcp "$(yes_no test -r /proc/net/tcp)"
fact proc.net.tcp6 "$(yes_no test -r /proc/net/tcp6)"

# Name resolution: the packet filter refuses the agent port 53, the proxy resolves for it.
resolv=absent
if [ -r /etc/resolv.conf ]; then resolv=$(grep -E '^(nameserver|search|options)' /etc/resolv.conf | tr '\n' ';' | sed 's/;$//'); fi
fact resolv.conf "$resolv"
fact resolv.conf.link "$(readlink /etc/resolv.conf 2>/dev/null || printf 'not a link')"

# cgroups and limits: what the agent's processes may hold.
if [ -e /sys/fs/cgroup/cgroup.controllers ]; then fact cgroup.version v2; else fact cgroup.version v1; fi
fact cgroup.controllers "$(read_file /sys/fs/cgroup/cgroup.controllers)"
cg=$(awk -F: '$1 == "0" { print $3; exit }' /proc/self/cgroup 2>/dev/null)
fact cgroup.self "${cg:-absent}"
fact cgroup.pids.max "$(read_file "/sys/fs/cgroup${cg}/pids.max")"
fact cgroup.memory.max "$(read_file "/sys/fs/cgroup${cg}/memory.max")"
fact ulimit.processes "$(ulimit -u)"
fact ulimit.files "$(ulimit -n)"
fact ulimit.cpu "$(ulimit -t)"

# What the drop step closes besides sudo.
fact docker.sock "$(mode /var/run/docker.sock)"
fact etc.baton "$(mode /etc/baton)"
fact program.node "$(program node)"

printf '\n  }\n}\n'
