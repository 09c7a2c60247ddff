package load

// Allocations outside the module (docs/MEMORY.md): what the standard
// library and dependencies allocated inside the module's executions,
// from the run's heap profiles, which pmm reads before the load (they
// are pprof profiles; cmd/pmm outside.go) and the load stores in the
// same transaction as the run's tuples.

// OutsideCallsTable holds, per run, what code outside the module
// allocated under each call the module made to it; OutsideFunctionsTable
// what it allocated under each function of the module on the stack.
const (
	OutsideCallsTable     = "pmm_outside_calls"
	OutsideFunctionsTable = "pmm_outside_functions"
)

// outsideSchema creates the tables of allocations outside the module.
const outsideSchema = `
CREATE TABLE IF NOT EXISTS ` + OutsideCallsTable + ` (
	run INTEGER,
	function TEXT,   -- the module's function that made the call
	file TEXT,       -- the call's file, relative to the module root
	line INTEGER,    -- the call's line
	callee TEXT,     -- the function outside the module it called
	objects INTEGER, -- objects allocated under the call
	bytes INTEGER,   -- their bytes
	figures TEXT     -- what the figures are: exact, exact but for tiny objects combined (a lower bound), sampled (estimate)
);
CREATE TABLE IF NOT EXISTS ` + OutsideFunctionsTable + ` (
	run INTEGER,
	function TEXT,   -- a function of the module on the stack of the allocations
	objects INTEGER, -- objects allocated outside the module while it ran, on its goroutine
	bytes INTEGER,
	figures TEXT
);`

// Outside is what code outside the module allocated during a run.
type Outside struct {
	Calls     []OutsideCall
	Functions []OutsideFunction
	// Files are the heap profiles read, removed once the load commits.
	Files []string
}

// OutsideCall is what code outside the module allocated under one call
// the module made to it (Function at File:Line calling Callee), with
// what the figures are (Figures).
type OutsideCall struct {
	Function, File string
	Line           int64
	Callee         string
	Objects, Bytes int64
	Figures        string
}

// OutsideFunction is what code outside the module allocated while
// Function ran, on its goroutine (Function is on the allocations'
// stacks).
type OutsideFunction struct {
	Function       string
	Objects, Bytes int64
	Figures        string
}

// insertOutside stores o for run runID.
func insertOutside(c *conn, runID int64, o *Outside) error {
	if o == nil {
		return nil
	}
	st, err := c.prepare("INSERT INTO " + OutsideCallsTable + " (run, function, file, line, callee, objects, bytes, figures) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
	if err != nil {
		return err
	}
	defer st.close()
	for _, r := range o.Calls {
		st.bindInt64(1, runID)
		st.bindString(2, r.Function)
		st.bindString(3, r.File)
		st.bindInt64(4, r.Line)
		st.bindString(5, r.Callee)
		st.bindInt64(6, r.Objects)
		st.bindInt64(7, r.Bytes)
		st.bindString(8, r.Figures)
		if err := st.exec(); err != nil {
			return err
		}
	}
	fst, err := c.prepare("INSERT INTO " + OutsideFunctionsTable + " (run, function, objects, bytes, figures) VALUES (?, ?, ?, ?, ?)")
	if err != nil {
		return err
	}
	defer fst.close()
	for _, r := range o.Functions {
		fst.bindInt64(1, runID)
		fst.bindString(2, r.Function)
		fst.bindInt64(3, r.Objects)
		fst.bindInt64(4, r.Bytes)
		fst.bindString(5, r.Figures)
		if err := fst.exec(); err != nil {
			return err
		}
	}
	return nil
}

// ProcessIDs returns the process ids of the processes whose log
// segments are in logDir, in the order of their start.
func ProcessIDs(logDir string) ([]int64, error) {
	procs, _, err := readDir(logDir)
	if err != nil {
		return nil, err
	}
	var pids []int64
	for _, p := range procs {
		pids = append(pids, p.header.PID)
	}
	return pids, nil
}
