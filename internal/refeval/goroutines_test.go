package refeval

import "testing"

// TestGoroutines: goroutine-execution names a goroutine by the function
// its go statement starts; spawns relates the spawner to it as to the
// goroutine's first execution; it contains the executions on it, begins
// at its go statement and may end after its spawner; it is neither a
// function's execution nor an interval of (interval x).
func TestGoroutines(t *testing.T) {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	long := b.goroutine("main.W", main, 2)
	w1 := b.beginSpawned("main.W", 0, main, 2, 1)
	short := b.goroutine("main.W", main, 3)
	w2 := b.beginSpawned("main.W", 0, main, 3, 2)
	b.call("main.L", w2, 3, []any{2})
	b.end(w2)
	b.end(short)
	lit := b.goroutine("main.main.func1", main, 4)
	b.call("main.main.func1", 0, 4, nil) // not spawned by main: a record without its spawner
	b.end(lit)
	b.end(main)
	b.end(w1)
	b.end(long)
	as := answers(t, `
(defquestion goroutines :definition ((g n) s.t. (goroutine-execution g n)))
(defquestion outliving :definition
  ((g) s.t. (exists (m n p q) (and (function-execution m "main.main") (goroutine-execution g n) (spawns m g) (end p m) (end q g) (before p q)))))
(defquestion within :definition
  ((g) s.t. (exists (m n) (and (function-execution m "main.main") (goroutine-execution g n) (spawns m g) (contains m g)))))
(defquestion on-it :definition
  ((v) s.t. (exists (g w) (and (goroutine-execution g "main.W") (function-execution w "main.W") (contains g w) (same-goroutine g w) (parameter w 1 v)))))
(defquestion calls-on-it :definition
  ((v) s.t. (exists (g x) (and (goroutine-execution g "main.W") (function-execution x "main.L") (contains g x) (parameter x 1 v)))))
(defquestion first :definition ((w) s.t. (exists (m) (and (function-execution m "main.main") (function-execution w "main.W") (spawns m w)))))
(defquestion ws :definition ((w) s.t. (function-execution w "main.W")))
(defquestion intervals :definition ((x) s.t. (and (interval x) (not (function-execution x "main.L")))))
`, b.trace(t))
	expect(t, as, "goroutines", "# main.W", "# main.W", "# main.main.func1")
	expect(t, as, "outliving", "#")
	expect(t, as, "within", "#", "#")
	expect(t, as, "on-it", "1", "2")
	expect(t, as, "calls-on-it", "2")
	expect(t, as, "first", "#", "#")
	expect(t, as, "ws", "#", "#")
	expect(t, as, "intervals", "#", "#", "#", "#")
}
