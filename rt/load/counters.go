package load

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"pmm.dev/pmm/rt/logfmt"
)

// Counts are the per-site counters of a run's processes, summed, by site
// number: entries checked (times a site's instrumentation ran), and, at
// the sites whose answers wait for an execution's end, the executions
// that began and never ended (the process exited first).
type Counts struct {
	Checked map[int]uint64
	Unended map[int]int64
	files   []string
}

// ReadCounters reads and sums the counters files in logDir. Call it
// before Load, which owns the log directory, and store the counts with
// StoreCounters once the run has its id.
func ReadCounters(logDir string) (*Counts, error) {
	c := &Counts{Checked: map[int]uint64{}, Unended: map[int]int64{}}
	files, err := filepath.Glob(filepath.Join(logDir, "*"+logfmt.CounterFileSuffix))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		_, checked, open, ok := logfmt.ParseCounterHeader(data)
		if !ok {
			return nil, fmt.Errorf("%s is not a counters file", f)
		}
		for site := 0; 8*site+8 <= len(checked); site++ {
			if n := binary.LittleEndian.Uint64(checked[8*site:]); n > 0 {
				c.Checked[site] += n
			}
		}
		for site := 0; 8*site+8 <= len(open); site++ {
			if n := int64(binary.LittleEndian.Uint64(open[8*site:])); n != 0 {
				c.Unended[site] += n
			}
		}
		c.files = append(c.files, f)
	}
	return c, nil
}

// countersSchema creates the table of the sites' counters.
const countersSchema = `CREATE TABLE IF NOT EXISTS site_counts (run INTEGER, site INTEGER, checked INTEGER)`

// StoreCounters inserts the counts of run into the site_counts table of
// pmm.db, then removes the counters files they came from.
func StoreCounters(dbPath string, run int64, c *Counts) error {
	db, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=busy_timeout("+busyTimeoutMS+")&_txlock=immediate")
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if _, err := tx.Exec(countersSchema); err != nil {
		return err
	}
	for s, n := range c.Checked {
		if _, err := tx.Exec("INSERT INTO site_counts (run, site, checked) VALUES (?, ?, ?)", run, s, int64(n)); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	var failed []string
	for _, f := range c.files {
		if err := os.Remove(f); err != nil {
			failed = append(failed, err.Error())
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("removing counters files: %s", strings.Join(failed, "; "))
	}
	return nil
}
