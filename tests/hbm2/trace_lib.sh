# Shared by the HBM2 trace tests (sourced; the caller defines fail): the lifetimes of a trace of
# ports 0 and 1, each mixing 64-byte transactions over BLOCKS blocks of its own PC, at GBPS for
# both ports. Each value is written, then read BLOCKS transactions of its port later.
#   check_lifetimes STACKBENCH TRACE BLOCKS GBPS WHAT
check_lifetimes() {
	"$1" lifetimes "$2" --json "$2.l.json" >/dev/null 2>&1 || fail "$5: lifetimes of $2"
	for pc in pc0 pc1; do
		n=$(sqlite3 :memory: "SELECT json_extract(readfile('$2.l.json'), '\$.subpartitions.$pc.lifetimes')")
		mean=$(sqlite3 :memory: "SELECT json_extract(readfile('$2.l.json'), '\$.subpartitions.$pc.lifetime_ns.mean')")
		[ "$n" -gt 200 ] || fail "$5 $pc: $n lifetimes"
		# BLOCKS x 64 B at the port's bandwidth (GB/s = B/ns), within 5 %
		awk -v m="$mean" -v b="$3" -v g="$4" 'BEGIN { e = b * 64 / (g / 2); exit !(m > 0.95 * e && m < 1.05 * e) }' ||
			fail "$5 $pc: mean lifetime $mean ns, expected $3 x 64 B at $4 / 2 GB/s"
	done
	[ "$(sqlite3 :memory: "SELECT json_extract(readfile('$2.l.json'), '\$.subpartitions.pc2.reads')")" = 0 ] ||
		fail "$5: pc2 has reads"
}
