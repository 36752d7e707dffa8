#!/usr/bin/env bash
# The mxc convert contract: hex in, hex out, errors name token and line,
# exit 2 and nothing on stdout after the error.
set -u
MXC=$1
fail=0
check() {  # name, expected, actual
  if [[ "$2" != "$3" ]]; then
    echo "FAIL $1: expected [$2] got [$3]"
    fail=1
  else
    echo "ok   $1"
  fi
}
# OCP MX v1.0 / PTX: 464 -> 448 (0x7E), 465 -> NaN (0x7F), 465 sat -> 0x7E
check e4m3 "7E" "$(echo 43E80000 | $MXC convert --from f32 --to e4m3 --round rne)"
check e4m3-nan "7F" "$(echo 0x43E88000 | $MXC convert --from f32 --to e4m3 --round rne)"
check e4m3-sat "7E" "$(echo 0x43E88000 | $MXC convert --from f32 --to e4m3 --round rne --saturate)"
check e2m1-multi "$(printf '1\n0\nF')" "$(printf '3E800001 3E800000\nC0E00000\n' | $MXC convert --from f32 --to e2m1 --round rne)"
check decode "43E00000" "$(echo 7E | $MXC convert --from e4m3 --to f32 --round rne)"
check e8m0-ru "81" "$(echo 40400000 | $MXC convert --from f32 --to e8m0 --round ru)"
check int8 "40" "$(echo 3F800000 | $MXC convert --from f32 --to int8 --round rne)"
check sr "1" "$(echo 3E800000 | $MXC convert --from f32 --to e2m1 --round rs --rbits 80)"
check sr-down "0" "$(echo 3E800000 | $MXC convert --from f32 --to e2m1 --round rs --rbits 7F)"
# TF32 codes are f32 bit patterns with the low 13 bits zero, in and out
# (issue 23): 1 + 2^-11 + 2^-13 rounds up to 1 + 2^-10; the old 19-bit code
# of 1.0 (1FC00) and low bits are refused unless --tf32-input truncate.
check tf32-out "3F802000" "$(echo 3F801400 | $MXC convert --from f32 --to tf32)"
check tf32-rz "3F800000" "$(echo 3F801FFF | $MXC convert --from f32 --to tf32 --round rz)"
check tf32-in "3F802000" "$(echo 3F802000 | $MXC convert --from tf32 --to f32)"
check tf32-bf16 "3F80" "$(echo 3F802000 | $MXC convert --from tf32 --to bf16)"
check tf32-truncate "3F800000" "$(echo 3F801FFF | $MXC convert --from tf32 --to f32 --tf32-input truncate)"
for bad in 1FC00 3F801000; do
  echo $bad | $MXC convert --from tf32 --to f32 >/dev/null 2>/tmp/mxc_err.$$
  check "tf32-strict-$bad-rc" 2 "$?"
  grep -q "<stdin>:1: .*'$bad': not a tf32 code" /tmp/mxc_err.$$ && echo "ok   tf32-strict-$bad-msg" ||
    { echo "FAIL tf32-strict-$bad-msg: $(cat /tmp/mxc_err.$$)"; fail=1; }
done
# Bad input: non-hex token on line 2.
out=$(printf '3F800000\nzz12\n3F800000\n' | $MXC convert --from f32 --to e4m3 --round rne 2>/tmp/mxc_err.$$)
rc=$?
check bad-rc 2 "$rc"
check bad-stdout "38" "$out"
grep -q "<stdin>:2: .*'zz12'" /tmp/mxc_err.$$ && echo "ok   bad-msg" || { echo "FAIL bad-msg: $(cat /tmp/mxc_err.$$)"; fail=1; }
# Wider than the source format.
echo 1FF | $MXC convert --from e4m3 --to f32 >/dev/null 2>/tmp/mxc_err.$$
check wide-rc 2 "$?"
grep -q "<stdin>:1: .*'1FF'.*wider" /tmp/mxc_err.$$ && echo "ok   wide-msg" || { echo "FAIL wide-msg: $(cat /tmp/mxc_err.$$)"; fail=1; }
# Unknown format.
echo 0 | $MXC convert --from f32 --to e9m9 >/dev/null 2>/tmp/mxc_err.$$
check fmt-rc 2 "$?"
grep -q "e9m9" /tmp/mxc_err.$$ && echo "ok   fmt-msg" || { echo "FAIL fmt-msg"; fail=1; }
# mxc quantize: microxcaling#4's block under ocp-v1 (scale 2: 957, 960 -> 448; 100 -> 50 = 0x64)
blk="4476C000 44700000$(printf ' 42C80000%.0s' $(seq 30))"
check quantize "80 7E 7E$(printf ' 64%.0s' $(seq 30))" "$(echo "$blk" | $MXC quantize --profile ocp-v1)"
echo "3F800000" | $MXC quantize --profile ocp-v1 >/dev/null 2>/tmp/mxc_err.$$
check quantize-short-rc 2 "$?"
grep -q "<stdin>:1: .*block size is 32" /tmp/mxc_err.$$ && echo "ok   quantize-short-msg" || { echo "FAIL quantize-short-msg: $(cat /tmp/mxc_err.$$)"; fail=1; }
echo 0 | $MXC quantize --profile no-such >/dev/null 2>&1
check quantize-profile-rc 2 "$?"
# mxc mma: MMA-Sim Table 8 on Blackwell (-0.75) and Hopper FP8 (0.0)
t8="F0 B8 B4 B0$(printf ' 00%.0s' $(seq 28)) 64 3C 3C 3C$(printf ' 00%.0s' $(seq 28)) 4B000000"
check mma-bw BF400000 "$(echo "$t8" | $MXC mma --model sm100_tcgen05_f8f6f4_f32 --a-fmt e5m2 --b-fmt e5m2)"
check mma-hopper 00000000 "$(echo "$t8" | $MXC mma --model sm90_wgmma_fp8_f32 --a-fmt e5m2 --b-fmt e5m2)"
echo "00 00" | $MXC mma --model sm90_wgmma_fp8_f32 >/dev/null 2>/tmp/mxc_err.$$
check mma-short-rc 2 "$?"
$MXC models | grep -q "sm100_tcgen05_mxf4nvf4_4x .*unverified on hardware" && echo "ok   models" || { echo "FAIL models"; fail=1; }
$MXC profiles | grep -q "te-nvfp4" && echo "ok   profiles" || { echo "FAIL profiles"; fail=1; }
rm -f /tmp/mxc_err.$$
exit $fail
