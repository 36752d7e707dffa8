#!/usr/bin/env bash
# scripts/test's step table (issue 23), run on a copy of scripts/test and
# scripts/steps.sh with stub steps (install-deps, cmake and ctest on PATH):
# every step gets a row with its seconds and pass / fail / skipped, then the
# total; a failing step ends the run with its exit status after the table,
# and no later step runs.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/repo/scripts" "$tmp/bin"
cp "$here/scripts/test" "$here/scripts/steps.sh" "$tmp/repo/scripts/"
printf '#!/bin/sh\necho "install-deps ran"\n' > "$tmp/repo/scripts/install-deps"
# cmake --build fails with 3 when FAIL_BUILD is set; ctest logs its runs.
# shellcheck disable=SC2016  # expanded by the stub, not here
printf '#!/bin/sh\n[ "$1" = --build ] && [ -n "${FAIL_BUILD:-}" ] && exit 3\nexit 0\n' > "$tmp/bin/cmake"
printf '#!/bin/sh\necho ran >> "%s/ctest.log"\nexit 0\n' "$tmp" > "$tmp/bin/ctest"
chmod +x "$tmp/repo/scripts/install-deps" "$tmp/bin/cmake" "$tmp/bin/ctest"
fail=0
no() { echo "FAIL: $*"; fail=1; }
has() { grep -qE "$2" "$tmp/$1" || { no "$1: no line matching '$2'"; cat "$tmp/$1"; }; }
skips=(MXC_SKIP_KIT=1 MXC_SKIP_PYTHON=1 MXC_SKIP_WHEEL=1 MXC_SKIP_INSTALL=1 MXC_SKIP_PEERS=1 MXC_SKIP_SLURM=1
       MXC_SKIP_K8S=1 MXC_SKIP_ASAN=1 MXC_SKIP_FUZZ=1 MXC_SKIP_AARCH64=1)

env PATH="$tmp/bin:$PATH" "${skips[@]}" "$tmp/repo/scripts/test" > "$tmp/ok.out" 2> "$tmp/ok.err"
rc=$?
[[ $rc == 0 ]] || no "all steps pass: exit $rc"
has ok.err '^scripts/test: steps$'
has ok.err '^  step +seconds  result$'
has ok.err '^  install-deps +[0-9]+  pass$'
has ok.err '^  configure \(ci\) +[0-9]+  pass$'
has ok.err '^  build \(ci\) +[0-9]+  pass$'
has ok.err '^  ctest \(ci\) +[0-9]+  pass$'
has ok.err '^  test-python +0  skipped \(MXC_SKIP_PYTHON=1\)$'
has ok.err '^  test-aarch64 +0  skipped \(MXC_SKIP_AARCH64=1\)$'
has ok.err '^  test-device-kit +0  skipped \(MXC_SKIP_KIT=1\)$'
has ok.err '^  test-wheel +0  skipped \(MXC_SKIP_WHEEL=1\)$'
has ok.err '^  total +[0-9]+  pass$'
[[ $(grep -c '^  ' "$tmp/ok.err") == 16 ]] || { no "expected 16 table lines"; cat "$tmp/ok.err"; }

rm -f "$tmp/ctest.log"
env PATH="$tmp/bin:$PATH" FAIL_BUILD=1 "${skips[@]}" "$tmp/repo/scripts/test" > "$tmp/bad.out" 2> "$tmp/bad.err"
rc=$?
[[ $rc == 3 ]] || no "a failing build step: exit $rc, expected 3"
has bad.err '^  configure \(ci\) +[0-9]+  pass$'
has bad.err '^  build \(ci\) +[0-9]+  fail \(exit 3\)$'
has bad.err '^  total +[0-9]+  fail \(exit 3\)$'
grep -q 'ctest\|skipped' "$tmp/bad.err" && no "steps after the failing one are listed"
[[ -e $tmp/ctest.log ]] && no "ctest ran after the build failed"
[[ $fail == 0 ]] && echo "scripts/test step table: pass, skipped, fail rows, total, exit status kept"
exit $fail
