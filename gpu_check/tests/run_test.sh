#!/bin/sh
# ctest: `mxc-gpu run` without a GPU prints that and exits 77; with a GPU
# it replays (quick: the intrinsics families) and writes its reports.
bin=$1
dir=$2
rm -rf "$dir"
out=$("$bin" run --only nv --report "$dir" 2>&1)
rc=$?
echo "$out"
case $rc in
  77)
    echo "$out" | grep -q "no CUDA device" || { echo "FAIL: exit 77 without the message"; exit 1; }
    echo "PASS: no GPU, exit 77 (skip) as specified"
    ;;
  0|1)
    for f in report.json report.junit.xml device.json skipped.json; do
      [ -f "$dir/$f" ] || { echo "FAIL: $dir/$f missing"; exit 1; }
    done
    echo "PASS: GPU present, reports written (exit $rc)"
    ;;
  *)
    echo "FAIL: exit $rc"
    exit 1
    ;;
esac
