package main

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestTextMethods records parameters whose types have Error or String
// methods (testdata/textmethods), in every mode: the text of a value
// whose method static analysis found free of effects, of the module's
// types and the standard library's; the value by its kind where the
// method counts its calls, sends on a channel or calls an interface's
// method; and a *Guarded passed while its mutex is held, whose String
// takes the mutex, by its address, without deadlocking (it did before:
// pmm called the method). The program
// checks that no method ran that it did not call itself.
func TestTextMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	plain := exec.Command("go", "run", ".")
	plain.Dir = "../../testdata/textmethods"
	want, err := plain.Output()
	if err != nil {
		t.Fatalf("go run: %v", err)
	}
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		t.Run(mode, func(t *testing.T) {
			out, db := instrumentInMode(t, "../../testdata/textmethods", mode)
			if !strings.Contains(out, string(want)) {
				t.Errorf("the instrumented program printed\n%s\nthe plain one\n%s", out, want)
			}
			got := queryStrings(t, db, "SELECT f || ' ' || v FROM params ORDER BY f, v")
			address := regexp.MustCompile(`0x[0-9a-f]+`)
			for i := range got {
				got[i] = address.ReplaceAllString(got[i], "ADDR")
			}
			wantRows := []string{
				"main.kind 0", // a parameter of a named basic type, by its kind
				"main.kind 1",
				"main.parse line 3: bad", // *ParseError's Error
				"main.parse std",         // errors.New's
				"main.parse {ADDR}",      // Wrapped's Error calls an interface's: its field, a pointer, by its address
				"main.parse {7}",         // Counted's Error counts its calls: its fields
				"main.parse {8}",
				"main.report ADDR",       // *Guarded's String takes its mutex: by its address, one pointer
				"main.show (1,2)",        // Point's String, with a strings.Builder of its own
				"main.show 1",            // Logged's String sends on a channel: by its kind
				"main.show label Large",  // Labelled's, which prints kinds.Kind's
				"main.show {ADDR len 1}", // Joined's String prints values it does not know: its slice by address
			}
			if !slices.Equal(got, wantRows) {
				t.Errorf("params:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantRows, "\n"))
			}
		})
	}
}
