package main

import (
	"database/sql"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// evaluationRow is one row of the table of seed 6.2: the entries checked
// and recorded at the sites of the update event x.
type evaluationRow struct {
	mode              string
	checked, recorded int64
	byFunction        map[string][2]int64 // function → checked, recorded at x's sites
	answer            string
}

// evaluate instruments testdata/calendar in a mode, runs it, and reads
// its row of the table.
func evaluate(t testing.TB, mode string) evaluationRow {
	dir := copyModule(t, "../../testdata/calendar")
	if code, out, errOut := runPMM(t, dir, "instrument", "--mode", mode, "./...", "questions.pmm"); code != exitOK {
		t.Fatalf("--mode %s: exit %d\n%s%s", mode, code, out, errOut)
	}
	if code, out, errOut := runPMM(t, dir, "run", "."); code != exitOK {
		t.Fatalf("--mode %s: pmm run: exit %d\n%s%s", mode, code, out, errOut)
	}
	p, _ := readProject(&env{dir: dir}, "test")
	st := stats(t, dir)
	row := evaluationRow{mode: mode, byFunction: map[string][2]int64{}}
	for i, s := range st.Sites {
		if !slices.Contains(p.Sites[i].Vars, "firing-update-durations/x") {
			continue
		}
		row.checked += s.Checked
		row.recorded += s.Recorded
		c := row.byFunction[s.Function]
		row.byFunction[s.Function] = [2]int64{c[0] + s.Checked, c[1] + s.Recorded}
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "pmm.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	row.answer = strings.Join(queryStrings(t, db, "SELECT count FROM firing_updates"), " ")
	return row
}

// TestEvaluationTable reproduces the table of seed 6.2 on the calendar
// application: the entries checked and recorded at the sites of the
// update event, in the four modes, against the counts of the
// hand-instrumented program. Static approximation keeps only the
// function that runs the rule, so the static and combined modes check one
// entry per appointment update; run-time filtering keeps only the updates
// that made the rule fire, so the runtime and combined modes record those.
func TestEvaluationTable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	cmd := exec.Command("go", "run", ".", "-hand")
	cmd.Dir = "../../testdata/calendar"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run . -hand: %v\n%s", err, out)
	}
	hand := map[string]int64{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "fired":
			hand["fired"], _ = strconv.ParseInt(f[1], 10, 64)
		case len(f) == 3 && f[0] == "executions":
			hand["main.(*Calendar)."+f[1]], _ = strconv.ParseInt(f[2], 10, 64)
			hand["main."+f[1]], _ = strconv.ParseInt(f[2], 10, 64)
		}
	}
	appointmentUpdates := hand["main.(*Calendar).updateAppointment"]
	fired := hand["fired"]
	if appointmentUpdates == 0 || fired == 0 {
		t.Fatalf("the hand-instrumented run counted nothing:\n%s", out)
	}
	rows := map[string]evaluationRow{}
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		row := evaluate(t, mode)
		rows[mode] = row
		t.Logf("%-15s checked %6d recorded %6d answer %s", mode, row.checked, row.recorded, row.answer)
		if row.answer != strconv.FormatInt(fired, 10) {
			t.Errorf("--mode %s: %s firing updates, the hand count is %d", mode, row.answer, fired)
		}
	}
	// Static approximation: x's only site is the function that runs the
	// rule, checked once per appointment update.
	for _, mode := range []string{modeStatic, modeCombined} {
		if rows[mode].checked != appointmentUpdates {
			t.Errorf("--mode %s: %d entries checked, want %d (the appointment updates)", mode, rows[mode].checked, appointmentUpdates)
		}
	}
	// Run-time filtering records exactly the updates that fired the rule.
	for _, mode := range []string{modeRuntime, modeCombined} {
		if rows[mode].recorded != fired {
			t.Errorf("--mode %s: %d entries recorded, want %d (the updates that fired the rule)", mode, rows[mode].recorded, fired)
		}
	}
	// Without either, every execution is checked and recorded: at each
	// function's site, as many as the hand count says.
	for _, mode := range []string{modeStraightforward, modeRuntime} {
		for _, fn := range []string{"main.(*Calendar).Apply", "main.(*Calendar).updateAppointment", "main.(*Calendar).updateTrip",
			"main.(*Calendar).checkConflicts", "main.overlap", "main.shareSomeone"} {
			if got := rows[mode].byFunction[fn][0]; got != hand[fn] {
				t.Errorf("--mode %s: %s checked %d times, the hand count is %d", mode, fn, got, hand[fn])
			}
		}
	}
	if s := rows[modeStraightforward]; s.recorded != s.checked {
		t.Errorf("--mode straightforward: %d recorded of %d checked, want all", s.recorded, s.checked)
	}
	if s := rows[modeStatic]; s.recorded != s.checked {
		t.Errorf("--mode static: %d recorded of %d checked, want all", s.recorded, s.checked)
	}
}
