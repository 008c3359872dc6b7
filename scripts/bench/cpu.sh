# Sourced by the benchmarks. CPU seconds (user + system) so far of processes, from /proc:
# wall time moves with whatever else runs on the machine, CPU time much less.
#   cpu_seconds PID…              → seconds, e.g. 12.34
#   postgres_cpu_of URL           → the cluster's processes (children of its postmaster; the
#                                   postmaster found once per URL through its data directory)
cpu_seconds() {
  local ticks=0 pid
  for pid in "$@"; do
    # A process may end between the listing and the read: it counts nothing then.
    [ -r "/proc/$pid/stat" ] && ticks=$((ticks + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  python3 -c "print('%.2f' % ($ticks / $(getconf CLK_TCK)))"
}
postgres_cpu_of() {
  local postmaster
  postmaster=$(head -n 1 "$("${pgbin:+$pgbin/}psql" -tAX "$1" -c "SHOW data_directory")/postmaster.pid")
  cpu_seconds $(ps -o pid= --ppid "$postmaster")
}
