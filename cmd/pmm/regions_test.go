package main

import "testing"

// TestRegions builds and runs testdata/regions, whose labeled loops and
// switches, and statements its //pmm:region comments mark, are left by
// their end, break, continue to an outer label, goto, return, a bare
// return and a recovered panic, in every mode, and compares the
// number of executions of each region, and those contained in given
// executions, with the counts the program keeps itself.
func TestRegions(t *testing.T) {
	wantInEveryMode(t, "../../testdata/regions", map[string]string{
		"region_counts": "SELECT group_concat(n, ',') FROM (SELECT substr(f, 6) || '/' || l || '=' || count(DISTINCT r) AS n " +
			"FROM region_times GROUP BY f, l ORDER BY n)",
		"find_under_handle":   "SELECT count(DISTINCT r) FROM find_under_handle",
		"search_in_lookups":   "SELECT count(*) FROM search_in_lookups",
		"scan_inner_in_scan":  "SELECT count(*) FROM scan_inner_in_scan",
		"settle_after_inner":  "SELECT count(*) FROM settle_after_inner",
		"region_time_matches": "SELECT count(*) FROM time_per_region t WHERE t.sum = (SELECT sum(d) FROM region_times r WHERE r.f = t.f AND r.l = t.l)",
	})
}
