package spec

import (
	"strings"
	"testing"
)

// TestFramesQuestion: a program that asks for calling contexts gets the
// frames question: the executions of the functions that can reach the
// events' functions and of those functions, or of every function when
// an event's function is a variable; none without contexts; a program
// printed and compiled again keeps one.
func TestFramesQuestion(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      []string // in the frames question's text; nil: no frames question
	}{
		{"named", `(defquestion q :definition ((x c) s.t. (and (function-execution x "main.leaf") (calling-context x c))))
(defquestion r :definition ((c) s.t. (exists (a k t) (and (allocation a "main.grid" k t) (calling-context a c)))))`,
			[]string{`(function-execution y "main.grid")`, `(function-execution z "main.grid")`, `(function-execution y "main.leaf")`, `(function-execution z "main.leaf")`, `(calls* y z)`}},
		{"any", `(defquestion q :definition ((c t) s.t. (exists (a f k) (and (allocation a f k t) (calling-context a c)))))`,
			[]string{"(function-execution y n)", "(calls* y z)"}},
		{"none", `(defquestion q :definition ((x) s.t. (function-execution x "main.leaf")))`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			prog, err := Compile(Source{Name: "q.pmm", Text: []byte(tt.src)})
			if err != nil {
				t.Fatal(err)
			}
			var frames *Question
			for _, q := range prog.Questions {
				if q.Name == FramesQuestion {
					frames = q
				}
			}
			if (frames != nil) != (tt.want != nil) {
				t.Fatalf("frames question: %v, want one: %v", frames != nil, tt.want != nil)
			}
			printed := prog.String()
			for _, w := range tt.want {
				if !strings.Contains(printed, w) {
					t.Errorf("the program lacks %s:\n%s", w, printed)
				}
			}
			again, err := Compile(Source{Name: "printed.pmm", Text: []byte(printed)})
			if err != nil {
				t.Fatalf("the printed program: %v", err)
			}
			if again.String() != printed {
				t.Errorf("printed and compiled again:\n%s\nwant\n%s", again.String(), printed)
			}
		})
	}
}

// TestCallingContextOfARegion: only executions of functions and
// allocations have a calling context.
func TestCallingContextOfARegion(t *testing.T) {
	_, err := Compile(Source{Name: "q.pmm", Text: []byte(`(defquestion q :definition ((r c) s.t. (and (region-execution r "main.F" "loop") (calling-context r c))))`)})
	if err == nil || !strings.Contains(err.Error(), "q.pmm:1:") {
		t.Fatalf("calling-context of a region: %v, want an error with its position", err)
	}
	t.Log(err)
}
