package difftest

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"pmm.dev/pmm/internal/reftrace"
)

// TestViewAndIncomplete reads a view and pmm_incomplete from a database
// made by hand in the layout pmm writes: only the last run counts, event
// columns compare as "#", and a question with a row in pmm_incomplete
// for the last run is flagged.
func TestViewAndIncomplete(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "pmm.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{
		"CREATE TABLE runs (id INTEGER PRIMARY KEY)",
		"INSERT INTO runs VALUES (1), (2)",
		"CREATE TABLE pmm_incomplete (run INTEGER, question TEXT, reason TEXT, position TEXT)",
		"INSERT INTO pmm_incomplete VALUES (1, 'q1-calls', 'old run', NULL), (2, 'q2-count', 'a call may be any of 2 functions', 'main.go:3:4')",
		"CREATE TABLE q1_calls (run INTEGER, x INTEGER, v INTEGER)",
		"INSERT INTO q1_calls VALUES (1, 7, 0), (2, 8, 1), (2, 9, 1), (2, 10, 2)",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	flagged := incomplete(db)
	if flagged["q2-count"] == "" || flagged["q1-calls"] != "" {
		t.Errorf("flagged %v, want q2-count alone", flagged)
	}
	// The reference's answer for the same question, over a trace where
	// main.F ran three times with parameters 1, 1 and 2.
	trace := `{"k":"begin","id":1,"seq":1,"fn":"main.main","g":1}
{"k":"begin","id":2,"seq":2,"fn":"main.F","caller":1,"g":1,"params":[1]}
{"k":"end","id":2,"seq":3,"results":[0]}
{"k":"begin","id":3,"seq":4,"fn":"main.F","caller":1,"g":1,"params":[1]}
{"k":"end","id":3,"seq":5,"results":[0]}
{"k":"begin","id":4,"seq":6,"fn":"main.F","caller":1,"g":1,"params":[2]}
{"k":"end","id":4,"seq":7,"results":[0]}
{"k":"end","id":1,"seq":8}
`
	tr, err := reftrace.Read(strings.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := ReferenceAnswers(`(defquestion q1-calls :definition ((x v) s.t. (and (function-execution x "main.F") (parameter x 1 v))))`, tr)
	if err != nil {
		t.Fatal(err)
	}
	got, err := view(db, "q1-calls", ref["q1-calls"])
	if err != nil {
		t.Fatal(err)
	}
	want := ref["q1-calls"].Canonical()
	if strings.Join(got, ";") != "# 1;# 1;# 2" || strings.Join(want, ";") != "# 1;# 1;# 2" {
		t.Errorf("view %v, reference %v, want both [# 1; # 1; # 2]", got, want)
	}
}
