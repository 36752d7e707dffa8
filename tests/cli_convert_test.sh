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
rm -f /tmp/mxc_err.$$
exit $fail
