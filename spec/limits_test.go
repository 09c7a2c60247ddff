package spec

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Questions are user input: compiling one must take time linear in its
// size. sizedQuestion builds a valid question of n atoms in each shape
// that made an earlier compiler quadratic: one long conjunction, negated
// conjunctions nested n deep, existentials nested n deep, and a long
// disjunction.
func sizedQuestion(shape string, n int) string {
	head := `(defquestion q :definition ((x p) s.t. (and (function-execution x "main.F") (parameter x 1 p) `
	var b strings.Builder
	switch shape {
	case "and":
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "(> p %d) ", i)
		}
		return head + b.String() + ")))"
	case "not":
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "(and (> p %d) (not ", i)
		}
		b.WriteString("(= p 0)")
		b.WriteString(strings.Repeat("))", n))
		return head + b.String() + ")))"
	case "exists":
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "(exists (v%d) (and (parameter x 1 v%d) ", i, i)
		}
		b.WriteString("(= p 0)")
		b.WriteString(strings.Repeat("))", n))
		return head + b.String() + ")))"
	case "or":
		b.WriteString("(or ")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "(= p %d) ", i)
		}
		return head + b.String() + "))))"
	}
	panic("unknown shape " + shape)
}

// The flat shapes grow without limit; the nested ones up to MaxNesting
// (two lists a level, under the three of the definition around them).
var (
	flatShapes   = []string{"and", "or"}
	nestedShapes = []string{"not", "exists"}
)

const maxNestedLevels = (MaxNesting - 3) / 2

func compileSized(tb testing.TB, shape string, n int) {
	src := sizedQuestion(shape, n)
	if _, err := Compile(Source{Name: "q.pmm", Text: []byte(src)}); err != nil {
		tb.Fatalf("%s %d: %v", shape, n, err)
	}
}

// TestCompileLargeQuestions compiles each shape at a size where the
// quadratic compiler took seconds, and nested ones as deep as the limit;
// it checks that they are valid and compile, not how long they take
// (BenchmarkCompileSize measures that).
func TestCompileLargeQuestions(t *testing.T) {
	compileSized(t, "and", 8000)
	compileSized(t, "or", MaxDisjuncts)
	for _, shape := range nestedShapes {
		compileSized(t, shape, maxNestedLevels)
	}
}

// TestCompileLimits checks that questions past the limits are refused
// with the position of the form that crosses them, and that reading a
// form nested a million deep neither recurses nor fails to finish.
func TestCompileLimits(t *testing.T) {
	deep := strings.Repeat("(not ", 1000000) + "(= p 0)" + strings.Repeat(")", 1000000)
	cases := []struct{ name, src, want string }{
		{"nesting", sizedQuestion("not", maxNestedLevels+1), "q.pmm:1:"},
		{"million", `(defquestion q :definition ((x p) s.t. (and (function-execution x "main.F") (parameter x 1 p) ` + deep + `)))`,
			"q.pmm:1:"},
		{"disjuncts", `(defquestion q :definition ((x p) s.t. (and (function-execution x "main.F") (parameter x 1 p) ` +
			strings.Repeat("(or (= p 1) (= p 2)) ", 11) + `)))`, "q.pmm:1:40: this formula has more than 1024 disjuncts"},
	}
	for _, c := range cases {
		_, err := Compile(Source{Name: "q.pmm", Text: []byte(c.src)})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error starting with %q", c.name, err, c.want)
			continue
		}
		if c.name != "disjuncts" && !strings.Contains(err.Error(), fmt.Sprintf("lists nest deeper than %d levels", MaxNesting)) {
			t.Errorf("%s: got %v, want the nesting limit", c.name, err)
		}
	}
}

// BenchmarkCompileSize reports, per flat shape, the time per atom of a
// question of n atoms and of one 8 times larger, and their ratio
// (x-growth: 1 is linear, 8 would be quadratic), measured in one run; and
// per nested shape, the time per level of a question nested to the limit:
//
//	go test -run '^$' -bench CompileSize ./spec
func BenchmarkCompileSize(b *testing.B) {
	for _, shape := range flatShapes {
		n := 1000
		if shape == "or" {
			n = MaxDisjuncts / 8
		}
		b.Run(shape, func(b *testing.B) {
			var small, large time.Duration
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				compileSized(b, shape, n)
				t1 := time.Now()
				compileSized(b, shape, 8*n)
				small += t1.Sub(t0)
				large += time.Since(t1)
			}
			b.ReportMetric(float64(small.Nanoseconds())/float64(b.N)/float64(n), "ns/atom")
			b.ReportMetric(float64(large.Nanoseconds())/float64(b.N)/float64(8*n), "ns/atom-8x")
			b.ReportMetric(float64(large)/float64(small)/8, "x-growth")
		})
	}
	for _, shape := range nestedShapes {
		b.Run(shape, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				compileSized(b, shape, maxNestedLevels)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/maxNestedLevels, "ns/level")
		})
	}
}

// TestUnprintableNames checks that a name no Go function can have (a NUL,
// a control character, invalid UTF-8) is an error, not a question that
// silently matches nothing.
func TestUnprintableNames(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"nul in a function name", `(defquestion q :definition ((x) s.t. (function-execution x "main.F\x00")))`,
			`q.pmm:1:60: the function name "main.F\x00" is not valid UTF-8 or has control characters`},
		{"invalid utf-8 in a function name", `(defquestion q :definition ((x) s.t. (function-execution x "main.\xff")))`,
			`q.pmm:1:60: the function name "main.\xff" is not valid UTF-8`},
		{"invalid utf-8 in a variable", "(defquestion q :definition ((x\xff) s.t. (function-execution x\xff \"main.F\")))",
			`q.pmm:1:30: the symbol "x\xff" is not valid UTF-8`},
		{"control character in a quoted symbol", "(defquestion q :definition ((x) s.t. (function-execution x 'F\x01)))",
			`q.pmm:1:60: the symbol "F\x01" is not valid UTF-8 or has control characters`},
	}
	for _, c := range cases {
		_, err := Compile(Source{Name: "q.pmm", Text: []byte(c.src)})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error starting with %s", c.name, err, c.want)
		}
	}
}
