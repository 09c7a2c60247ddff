package spec

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzCompile checks that no input makes Compile panic, that every
// rejection is an ErrorList of positioned errors, and that the printed IR
// of an accepted program compiles back to the same IR.
//
//	go test ./spec -run '^$' -fuzz FuzzCompile -fuzztime 60s
func FuzzCompile(f *testing.F) {
	for _, pattern := range []string{"testdata/ok/*.pmm", "testdata/errors/*.pmm", "../testdata/*/questions.pmm"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			text, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(string(text))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		prog, err := Compile(Source{Name: "fuzz.pmm", Text: []byte(src)})
		if err != nil {
			list, ok := err.(ErrorList)
			if !ok || len(list) == 0 {
				t.Fatalf("error %v (%T) is not a non-empty ErrorList", err, err)
			}
			for _, e := range list {
				if !e.Pos.IsValid() {
					t.Fatalf("error without a position: %v", e)
				}
				_ = e.Detail()
			}
			return
		}
		roundTrip(t, prog)
	})
}
