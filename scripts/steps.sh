# Sourced by scripts/test (issue 23): each step timed, and at exit (also
# when a step fails under set -e) a table of the steps with their seconds
# and result (pass, fail, skipped) and the total, on stderr; the exit
# status stays the failing step's. tests/steps_table_test.sh checks it.
#   step NAME COMMAND...   run COMMAND as it would run bare
#   skip NAME WHY          list NAME as skipped
# shellcheck shell=bash
step_names=() step_secs=() step_results=()
cur_step='' cur_start=0 run_start=$SECONDS
steps_title=${steps_title:-steps}
record() { step_names+=("$1") step_secs+=("$2") step_results+=("$3"); }
# step NAME COMMAND...: runs COMMAND as it would run bare (set -e: a failure
# ends the script; the EXIT trap records the step as failed).
step() {
  local name=$1
  shift
  cur_step=$name cur_start=$SECONDS
  "$@"
  record "$name" $((SECONDS - cur_start)) pass
  cur_step=''
}
skip() { record "$1" 0 "skipped ($2)"; }
print_table() {
  local rc=$1 i w=4
  for i in "${!step_names[@]}"; do
    ((${#step_names[i]} > w)) && w=${#step_names[i]}
  done
  {
    echo
    echo "$steps_title"
    printf '  %-*s %7s  %s\n' "$w" step seconds result
    for i in "${!step_names[@]}"; do
      printf '  %-*s %7s  %s\n' "$w" "${step_names[i]}" "${step_secs[i]}" \
        "${step_results[i]}"
    done
    printf '  %-*s %7s  %s\n' "$w" total $((SECONDS - run_start)) \
      "$( ((rc == 0)) && echo pass || echo "fail (exit $rc)")"
  } >&2
}
on_exit() {
  local rc=$?
  if [[ -n $cur_step ]]; then
    record "$cur_step" $((SECONDS - cur_start)) "fail (exit $rc)"
  fi
  print_table "$rc"
  exit "$rc"
}
trap on_exit EXIT

