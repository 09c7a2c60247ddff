package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pmm.dev/pmm/static"
)

// tracedBlocking rewrites the program in src so that each blocking
// operation FindBlocking gives reports its begin and end to the tracer
// (testdata/blocking/tracer.go.txt): a receive becomes a call of
// __recv; a statement is timed before and after; a select reports, at
// the top of each case, which case fired.
func tracedBlocking(t *testing.T, src []byte) []byte {
	t.Helper()
	fset, f, info, _ := checkProgram(t, src)
	tf := fset.File(f.Pos())
	var edits []Edit
	at := func(p token.Pos, text string) {
		edits = append(edits, Edit{Off: tf.Offset(p), End: tf.Offset(p), Text: text})
	}
	eachBody(f, func(_ ast.Node, body *ast.BlockStmt) {
		timed := 0
		for _, op := range static.FindBlocking(fset, info, body) {
			what := fmt.Sprintf("%q", string(op.Kind)+" "+op.Text)
			switch {
			case op.Kind == static.BlockRecv:
				u := op.Node.(*ast.UnaryExpr)
				recv := "__recv("
				if op.CommaOk {
					recv = "__recv2("
				}
				edits = append(edits, Edit{Off: tf.Offset(u.OpPos), End: tf.Offset(u.OpPos) + 2, Text: recv})
				at(u.End(), ", "+what+")")
			case op.Deferred, op.Kind == static.BlockRange:
				// Not where it is written; not traced here.
			case !op.Stmt:
				t.Fatalf("%s: a %s that is not a statement of a list", fset.Position(op.Node.Pos()), op.Kind)
			case op.Kind == static.BlockSelect:
				v := fmt.Sprintf("__bt[%d]", timed)
				at(op.Node.Pos(), ";"+v+" = now();")
				for i, c := range op.Node.(*ast.SelectStmt).Body.List {
					at(c.(*ast.CommClause).Colon+1, fmt.Sprintf(";__block(\"select-%d\", %s);", i, v))
				}
				timed++
			default:
				v := fmt.Sprintf("__bt[%d]", timed)
				at(op.Node.Pos(), ";"+v+" = now();")
				at(op.Node.End(), ";__block("+what+", "+v+");")
				timed++
			}
		}
		if timed > 0 {
			at(body.Lbrace+1, fmt.Sprintf("var __bt [%d]int64;", timed))
		}
	})
	return applyEdits(src, edits)
}

// TestBlockingOperations runs a program whose waits are known by
// construction, rewritten with the tracer: the operations, their
// functions and the case a select took are exact; each wait lies where
// causality puts it, in the program's own clock (a waiter's Lock ends
// after the holder's unlock and within the times the waiter read around
// it; the third send into a buffer of two ends after main began to
// receive). The traced program runs with the race detector.
func TestBlockingOperations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs programs")
	}
	src, err := os.ReadFile("testdata/blocking/main.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	tracer, err := os.ReadFile("testdata/blocking/tracer.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := runProgram(t, map[string][]byte{"main.go": src})
	// With the race detector: the rewrite shares nothing between
	// goroutines.
	out, stderr := runProgram(t, map[string][]byte{"main.go": tracedBlocking(t, src), "tracer.go": tracer}, "-race")
	if out != plain {
		t.Errorf("the traced program's output differs from the original's:\n%s\nwant:\n%s", out, plain)
	}
	type op struct {
		what, fn string
		t0, t1   int64
	}
	var ops []op
	var unlock int64
	var waiters [][2]int64
	count := map[string]int{}
	for _, l := range strings.Split(stderr, "\n") {
		f := strings.Fields(l)
		num := func(s string) int64 {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			return n
		}
		switch {
		case len(f) == 6 && f[0] == "@block":
			ops = append(ops, op{f[1] + " " + f[2], f[3], num(f[4]), num(f[5])})
			count[f[1]+" "+f[2]+" "+f[3]]++
		case len(f) == 5 && f[0] == "@block":
			ops = append(ops, op{f[1], f[2], num(f[3]), num(f[4])})
			count[f[1]+" "+f[2]]++
		case len(f) == 2 && f[0] == "unlock":
			unlock = num(f[1])
		case len(f) == 3 && f[0] == "waiter":
			waiters = append(waiters, [2]int64{num(f[1]), num(f[2])})
		}
	}
	want := map[string]int{
		"lock s.mu hold": 1, "send ready hold": 1, "lock s.mu add": 3,
		"send c produce": 3, "send done produce": 1, "select-1 pick": 1,
		"rlock rw read": 1, "send out read": 1,
		"recv ready main": 1, "wait wg main": 1, "recv c main": 3, "recv done main": 1,
		"send b main.func1": 1, "lock rw main": 1, "recv out main": 1,
	}
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range count {
		if want[k] == 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if count[k] != want[k] {
			t.Errorf("%s: %d operations, want %d", k, count[k], want[k])
		}
	}
	if len(waiters) != 3 || unlock == 0 {
		t.Fatalf("the program's times: unlock %d, waiters %v", unlock, waiters)
	}
	first, last := waiters[0][0], waiters[0][1]
	for _, w := range waiters {
		first, last = min(first, w[0]), max(last, w[1])
	}
	var firstRecv int64 = -1
	for _, o := range ops {
		if o.what == "recv c" && o.fn == "main" && (firstRecv < 0 || o.t0 < firstRecv) {
			firstRecv = o.t0
		}
	}
	sends := 0
	for _, o := range ops {
		switch {
		case o.what == "lock s.mu" && o.fn == "add":
			if o.t1 < unlock || o.t0 < first || o.t1 > last {
				t.Errorf("a waiter's Lock from %d to %d: the holder unlocked at %d, the waiters waited from %d to %d", o.t0, o.t1, unlock, first, last)
			}
			t.Logf("a waiter blocked %.2f ms on s.mu; the holder, which slept 30 ms holding it, unlocked %.2f ms after the wait began",
				float64(o.t1-o.t0)/1e6, float64(unlock-o.t0)/1e6)
		case o.what == "send c" && o.fn == "produce":
			if sends++; sends == 3 && o.t1 < firstRecv {
				t.Errorf("the third send ended at %d, before main began to receive at %d", o.t1, firstRecv)
			}
		}
	}
}

func TestFindBlocking(t *testing.T) {
	src := `package main

import "sync"

type S struct {
	sync.Mutex
	rw sync.RWMutex
	c  *sync.Cond
}

func f(s *S, ch chan int, out chan<- int, wg *sync.WaitGroup) {
	s.Lock()
	s.rw.RLock()
	s.rw.Lock()
	v, ok := <-ch
	_ = v + <-ch
	<-ch
	out <- 1
	select {
	case x := <-ch:
		_ = x
	case out <- 2:
	}
	select {
	case <-ch:
	default:
	}
	for range ch {
	}
	go wg.Wait()
	defer s.c.Wait()
	func() { ch <- 3 }()
	_ = ok
}

func main() {}
`
	fset, f, info, _ := checkProgram(t, []byte(src))
	var body *ast.BlockStmt
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "f" {
			body = fd.Body
		}
	}
	var got []string
	for _, op := range static.FindBlocking(fset, info, body) {
		got = append(got, fmt.Sprintf("%d %s %s commaok=%v stmt=%v deferred=%v", fset.Position(op.Node.Pos()).Line, op.Kind, op.Text, op.CommaOk, op.Stmt, op.Deferred))
	}
	want := []string{
		"12 lock s commaok=false stmt=true deferred=false", // promoted from the embedded Mutex
		"13 rlock s.rw commaok=false stmt=true deferred=false",
		"14 lock s.rw commaok=false stmt=true deferred=false",
		"15 recv ch commaok=true stmt=false deferred=false",
		"16 recv ch commaok=false stmt=false deferred=false",
		"17 recv ch commaok=false stmt=true deferred=false",
		"18 send out commaok=false stmt=true deferred=false",
		"19 select  commaok=false stmt=true deferred=false", // its cases' communications are the select's
		// the select with a default never blocks
		"28 range ch commaok=false stmt=false deferred=false",
		"30 wait wg commaok=false stmt=false deferred=true",
		"31 wait s.c commaok=false stmt=false deferred=true",
		// the function literal's send is its own
	}
	if !slices.Equal(got, want) {
		t.Errorf("FindBlocking:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
