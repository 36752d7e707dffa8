#!/usr/bin/env bash
# `mxc mma` contract for issue 12: TF32 operands are f32 bit patterns with
# the low 13 bits zero (1.0 x 1.0 = 1.0, not 0); other patterns are refused
# with <stdin>:line and exit 2; --zero-exp / --zero-sign select the zero
# rules (expected bits derived in tests/test_fdpa_oracle_self.cpp) and bad
# values exit 2; `mxc gen` TF32 cases round-trip through `mxc mma` and
# `mxc verify`.
set -u
mxc=$1
fail=0
check() { [[ $2 == "$3" ]] || { echo "FAIL: $1: got '$2', want '$3'"; fail=1; }; }
ones="3F800000 $(printf '00000000 %.0s' {1..7})"
line="$ones$ones 00000000"
check "tf32 1x1" "$(echo "$line" | "$mxc" mma --model sm90_wgmma_tf32_f32 --a-fmt tf32 --b-fmt tf32)" 3F800000
out=$(echo "3F800001 ${line#3F800000 }" | "$mxc" mma --model sm90_wgmma_tf32_f32 --a-fmt tf32 --b-fmt tf32 2>&1)
check "tf32 low bits exit" "$?" 2
[[ $out == *"<stdin>:1: error: token 1 '3F800001': not a tf32 operand"* ]] || { echo "FAIL: message: $out"; fail=1; }
# --tf32-input: strict (the default) refuses low bits, truncate clears them
# as the instruction does (1.0 + 2^-23 becomes 1.0), anything else exit 2.
out=$(echo "3F800001 ${line#3F800000 }" | "$mxc" mma --model sm90_wgmma_tf32_f32 --a-fmt tf32 --b-fmt tf32 --tf32-input strict 2>&1)
check "tf32-input strict exit" "$?" 2
check "tf32-input truncate" "$(echo "3F801FFF ${line#3F800000 }" | "$mxc" mma --model sm90_wgmma_tf32_f32 --a-fmt tf32 --b-fmt tf32 --tf32-input truncate)" 3F800000
out=$(echo "$line" | "$mxc" mma --model sm90_wgmma_tf32_f32 --a-fmt tf32 --b-fmt tf32 --tf32-input round 2>&1)
check "tf32-input bad value exit" "$?" 2
[[ $out == *"--tf32-input"*"round"* ]] || { echo "FAIL: --tf32-input message: $out"; fail=1; }
# Every product -0 (A = -0, B = +0), C = -0 on sm100_tcgen05_f8f6f4_f32.
neg="$(printf '80 %.0s' {1..32})$(printf '00 %.0s' {1..32})80000000"
check "zero-sign default" "$(echo "$neg" | "$mxc" mma --model sm100_tcgen05_f8f6f4_f32)" 00000000
check "zero-sign ieee" "$(echo "$neg" | "$mxc" mma --model sm100_tcgen05_f8f6f4_f32 --zero-sign ieee)" 80000000
# Zero A against 448, C = (1 + 2^-12 + 2^-13) 2^-120 on Hopper wgmma FP8.
sep="$(printf '00 %.0s' {1..32})7E $(printf '00 %.0s' {1..31})03800C00"
check "zero-exp fixed" "$(echo "$sep" | "$mxc" mma --model sm90_wgmma_fp8_f32)" 03800C00
check "zero-exp operand-min" "$(echo "$sep" | "$mxc" mma --model sm90_wgmma_fp8_f32 --zero-exp operand-min)" 03800000
echo "$sep" | "$mxc" mma --model sm90_wgmma_fp8_f32 --zero-exp none > /dev/null 2>&1
check "bad --zero-exp exit" "$?" 2
# gen -> mma (as the subject) -> verify, TF32 and a C-outside model.
for spec in "sm90_wgmma_tf32_f32 tf32" "sm90_mma_fp8_f16 e5m2"; do
  set -- $spec
  v=$("$mxc" gen mma --model "$1" --a-fmt "$2" --b-fmt "$2" --level 0)
  res=$(grep -v '^#' <<<"$v" | awk '{$NF=""; print}' | "$mxc" mma --model "$1" --a-fmt "$2" --b-fmt "$2")
  paste -d' ' <(grep -v '^#' <<<"$v" | awk '{$NF=""; sub(/ $/, ""); print}') <(echo "$res") |
    cat <(grep '^#' <<<"$v") - | "$mxc" verify -q > /dev/null
  check "gen|mma|verify $1" "$?" 0
done
[[ $fail == 0 ]] && echo "cli mma: tf32, zero rules, gen|mma|verify ok"
exit $fail
