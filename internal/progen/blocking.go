package progen

import (
	"fmt"
	"math/rand"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Blocking operations (Features.Blocking): channel sends and receives
// (comma-ok too, on a closed channel), ranges over a closed channel
// (each receive an operation, the last one the close's), selects without default of which
// exactly one case is ready, Lock and RLock of package-level mutexes,
// and the spawner's wg.Wait. The twin begins each just before it and
// ends it when it proceeds: after the statement, or, for a select, at the
// top of the case that fired, with the case's index. Each group of them
// is a block of its own, which declares its channels; nothing is called
// while a mutex is held (a callee might lock it again).

// opInfo is a blocking operation of a function, for the questions.
type opInfo struct{ kind, operand string }

// opStmt is a statement that is one blocking operation. Where the
// statement calls a function too, the twin splits it: pre evaluates what
// Go evaluates before the operation (a call on its left, a sent value),
// op is the operation alone, post what comes after it.
type opStmt struct {
	fn            *Func
	n             int // the twin's variable trB<n>
	kind, operand string
	text          string
	pre, op, post string // the twin's lines, with %[1]d for n; op "" for text
}

// selectStmt is a select without default: the twin ends it at the top of
// each case, with the case's index.
type selectStmt struct {
	fn    *Func
	n     int
	cases []selectCase
}

type selectCase struct {
	head string // "case v := <-ch:"
	body []stmt
}

// rangeStmt is a range over the channel ch, whose receives are its
// blocking operations (kind range): the twin begins one before the loop
// and at the end of each iteration's body, and ends it at the top of the
// body, or after the loop when the close ended it (trB<n> is 0 once a
// receive ended, so a break leaves none to end).
type rangeStmt struct {
	fn   *Func
	n    int
	body []stmt
}

func (s *rangeStmt) print(p *printer) {
	begin := fmt.Sprintf("trBB(%q, \"range\", \"ch\")", s.fn.Name)
	if p.tw {
		p.line("trB%d := %s", s.n, begin)
	}
	p.line("for v := range ch {")
	if p.tw {
		p.line("trRE(&trB%d)", s.n)
	}
	for _, st := range s.body {
		st.print(p)
	}
	if p.tw {
		p.line("trB%d = %s", s.n, begin)
	}
	p.line("}")
	if p.tw {
		p.line("trRE(&trB%d)", s.n)
	}
}

func (s *opStmt) print(p *printer) {
	if !p.tw {
		p.line("%s", s.text)
		return
	}
	n := func(line string) string { return strings.ReplaceAll(line, "%[1]d", strconv.Itoa(s.n)) }
	if s.pre != "" {
		p.line("%s", n(s.pre))
	}
	p.line("trB%d := trBB(%q, %q, %q)", s.n, s.fn.Name, s.kind, s.operand)
	op := s.text
	if s.op != "" {
		op = n(s.op)
	}
	if tried, ok := tryFirst(s.kind, s.operand, op, s.n); ok {
		p.line("trK%d := false", s.n)
		p.line("%s", tried)
		p.line("trBK(trB%d, trK%d)", s.n, s.n)
	} else {
		p.line("%s", op)
		p.line("trBE(trB%d, -1)", s.n)
	}
	if s.post != "" {
		p.line("%s", n(s.post))
	}
}

func (s *selectStmt) print(p *printer) {
	if p.tw {
		p.line("trB%d := trBB(%q, \"select\", \"\")", s.n, s.fn.Name)
	}
	p.line("select {")
	for k, c := range s.cases {
		p.line("%s", c.head)
		if p.tw {
			p.line("trBE(trB%d, %d)", s.n, k)
		}
		for _, st := range c.body {
			st.print(p)
		}
	}
	p.line("}")
}

// tryFirst is the twin's line of operation op (a statement of kind and
// operand) that tries it without waiting first and sets trK<n> when it
// had to wait: sends, receives, Lock and RLock. Selects, ranges and
// waits are not tried (ok false): the trace does not say whether they
// blocked.
func tryFirst(kind, operand, op string, n int) (string, bool) {
	k := "trB" + strconv.Itoa(n) + ", &trK" + strconv.Itoa(n)
	recv := regexp.MustCompile(`<-` + regexp.QuoteMeta(operand) + `\b`)
	switch {
	case kind == "send" && strings.HasPrefix(op, operand+" <- "):
		return "trSend(" + operand + ", " + strings.TrimPrefix(op, operand+" <- ") + ", " + k + ")", true
	case kind == "recv" && strings.Contains(op, ", ok := <-"+operand):
		return strings.Replace(op, "<-"+operand, "trRecv2("+operand+", "+k+")", 1), true
	case kind == "recv" && recv.MatchString(op):
		done := false
		return recv.ReplaceAllStringFunc(op, func(m string) string {
			if done {
				return m
			}
			done = true
			return "trRecv(" + operand + ", " + k + ")"
		}), true
	case kind == "lock" && op == operand+".Lock()":
		return "trLock(&" + operand + ", " + k + ")", true
	case kind == "rlock" && op == operand+".RLock()":
		return "trRLock(&" + operand + ", " + k + ")", true
	}
	return "", false
}

// op is a blocking operation of f.
func (g *gen) op(f *Func, kind, operand, text string) *opStmt {
	f.ops = append(f.ops, opInfo{kind, operand})
	f.nops++
	return &opStmt{fn: f, n: f.nops, kind: kind, operand: operand, text: text}
}

// blocking is a block of blocking operations in f's body, calling
// callees with arguments from c in a select's cases; jump, if not nil,
// ends the first case (a branch to a loop around the select).
func (g *gen) blocking(f *Func, callees []*Func, c argChoices, jump stmt) stmt {
	val := c.ints[g.r.Intn(len(c.ints))]
	call := func() stmt {
		if s := g.callStmt(f, callees, c); s != nil {
			return s
		}
		return raw("acc++")
	}
	b := &block{head: "{"}
	switch g.r.Intn(4) {
	case 0:
		// A send and a receive on a buffered channel, each sometimes
		// with a call: the sent value's, one on either side of the
		// receive, or one the received value is passed to.
		b.body = []stmt{g.makeChans(f, "ch := make(chan int, 1)")}
		leaves := visible(f, g.leaves)
		l := leaves[g.r.Intn(len(leaves))]
		if g.r.Intn(2) == 0 {
			b.body = append(b.body, g.op(f, "send", "ch", "ch <- "+val))
		} else {
			call := g.call(f, l, c)
			s := g.op(f, "send", "ch", "ch <- "+call)
			s.pre, s.op = "trV%[1]d := "+call, "ch <- trV%[1]d"
			b.body = append(b.body, s)
		}
		switch g.r.Intn(5) {
		case 0:
			b.body = append(b.body, g.op(f, "recv", "ch", "acc += <-ch"))
		case 1:
			b.body = append(b.body, g.op(f, "recv", "ch", "v := <-ch"), raw("acc += v"))
		case 2:
			call := g.call(f, l, c)
			s := g.op(f, "recv", "ch", "acc += "+call+" + <-ch")
			s.pre, s.op, s.post = "trV%[1]d := "+call, "trW%[1]d := <-ch", "acc += trV%[1]d + trW%[1]d"
			b.body = append(b.body, s)
		case 3:
			call := g.call(f, l, c)
			s := g.op(f, "recv", "ch", "acc += <-ch + "+call)
			s.op, s.post = "trW%[1]d := <-ch", "acc += trW%[1]d + "+call
			b.body = append(b.body, s)
		default:
			args := []string{"<-ch"}
			for _, t := range l.Params[1:] {
				args = append(args, g.arg(c, t))
			}
			f.callees[l] = true
			f.callCount[l]++
			call := ref(f, l) + "(" + strings.Join(args, ", ") + ")"
			s := g.op(f, "recv", "ch", "acc += "+call)
			s.op, s.post = "trW%[1]d := <-ch", "acc += "+strings.Replace(call, "<-ch", "trW%[1]d", 1)
			b.body = append(b.body, s)
		}
	case 1:
		if g.r.Intn(2) == 0 {
			// A range over a channel closed with one or two values in
			// it, left by its close or by a break.
			b.body = []stmt{g.makeChans(f, "ch := make(chan int, 2)"), g.op(f, "send", "ch", "ch <- "+val),
				when("a%2 == 0", g.op(f, "send", "ch", "ch <- a % 5")), raw("close(ch)")}
			f.ops = append(f.ops, opInfo{"range", "ch"})
			f.nops++
			r := &rangeStmt{fn: f, n: f.nops, body: []stmt{raw("acc += v")}}
			if g.r.Intn(2) == 0 {
				r.body = append(r.body, when("v == acc%5", raw("break")))
			}
			r.body = append(r.body, call())
			b.body = append(b.body, r)
			break
		}
		// Comma-ok, on a channel closed with a value in it or empty.
		b.body = []stmt{g.makeChans(f, "ch := make(chan int, 1)"), when("a%2 == 0", g.op(f, "send", "ch", "ch <- "+val)),
			raw("close(ch)"), g.op(f, "recv", "ch", "v, ok := <-ch"),
			&block{head: "if ok {", body: []stmt{raw("acc += v"), raw("} else {"), call()}}}
	case 2:
		// A select of which one case is ready: a receive from ch or
		// ch2, whichever a's parity filled, and sometimes a send on a
		// nil channel, never ready.
		f.nops++
		s := &selectStmt{fn: f, n: f.nops}
		f.ops = append(f.ops, opInfo{"select", ""})
		b.body = []stmt{g.makeChans(f, "ch, ch2 := make(chan int, 1), make(chan string, 1)"),
			&block{head: "if a%2 == 0 {", body: []stmt{g.op(f, "send", "ch", "ch <- "+val), raw("} else {"),
				g.op(f, "send", "ch2", "ch2 <- strs[a%3]")}}}
		cases := []selectCase{
			{head: "case v := <-ch:", body: []stmt{raw("acc += v"), call()}},
			{head: "case s, ok := <-ch2:", body: []stmt{when("ok", raw("acc += len(s)")), call()}},
		}
		if jump != nil {
			cases[0].body = append(cases[0].body, jump)
		}
		if g.r.Intn(2) == 0 {
			b.body = append(b.body, raw("var never chan int"))
			cases = append(cases, selectCase{head: "case never <- 1:", body: []stmt{raw("acc--")}})
		}
		g.r.Shuffle(len(cases), func(i, j int) { cases[i], cases[j] = cases[j], cases[i] })
		s.cases = cases
		b.body = append(b.body, s)
	default:
		// A mutex held while acc changes, nothing called.
		g.needMutexes(f.pkg)
		switch g.r.Intn(3) {
		case 0:
			b.body = []stmt{g.op(f, "lock", "mu", "mu.Lock()"), raw("acc++"), raw("mu.Unlock()")}
		case 1:
			b.body = []stmt{g.op(f, "rlock", "rw", "rw.RLock()"), raw("acc += 2"), raw("rw.RUnlock()")}
		default:
			b.body = []stmt{g.op(f, "lock", "rw", "rw.Lock()"), raw("acc--"), raw("rw.Unlock()")}
		}
	}
	return b
}

// callsSync reports whether f calls sync's methods (Lock, RLock, Wait,
// and their unlocks), or sync/atomic's (the allocations' sink.Store).
func (f *Func) callsSync() bool {
	if f.allocs {
		return true
	}
	for _, o := range f.ops {
		if o.kind == "lock" || o.kind == "rlock" || o.kind == "wait" {
			return true
		}
	}
	return false
}

// madeChan is a make of a channel in the generated code: the element
// type, and the capacity.
var madeChan = regexp.MustCompile(`make\(chan (\w+), (\d+)\)`)

// makeChans is statement text, which makes channels, in f: in the twin,
// each make records the channel's objects (trAC) when allocations are
// traced (Features.Allocations), and f is then an allocating function.
func (g *gen) makeChans(f *Func, text string) stmt {
	if !g.feat.Allocations {
		return raw(text)
	}
	f.allocs = true // kept from being inlined, as every allocating function
	twin := madeChan.ReplaceAllStringFunc(text, func(m string) string {
		elem := madeChan.FindStringSubmatch(m)[1]
		return fmt.Sprintf("trAC(%s, %s, \"chan %s\", %t)", m, fnName, elem, elem == "string")
	})
	return &allocStmt{text: text, twin: twin}
}

// makesChans reports whether f makes channels (for its sends, receives,
// selects and ranges): allocations a heap walk's question leaves out.
func (f *Func) makesChans() bool {
	for _, o := range f.ops {
		if o.kind != "lock" && o.kind != "rlock" && o.kind != "wait" {
			return true
		}
	}
	return false
}

// needMutexes declares package k's mutexes once.
func (g *gen) needMutexes(k *pkg) {
	if slices.Contains(k.decls, "var mu sync.Mutex") {
		return
	}
	k.decls = append(k.decls, "var mu sync.Mutex", "var rw sync.RWMutex")
}

// blockingOp is a question's choice of a function with blocking
// operations satisfying ok, and one of them; nil when there is none.
func (q *qgen) blockingOp(ok func(*Func) bool) (*Func, opInfo) {
	f := q.pick(func(f *Func) bool { return len(f.ops) > 0 && ok(f) })
	if f == nil {
		return nil, opInfo{}
	}
	return f, f.ops[q.r.Intn(len(f.ops))]
}

// opCount counts the blocking operations of one function by kind and
// operand, or of every function.
func (q *qgen) opCount() bool {
	f, o := q.blockingOp(any_)
	if f == nil {
		return false
	}
	n := q.name("op-count")
	switch q.r.Intn(3) {
	case 0:
		q.define("(defevent %s :definition ((b f k o) s.t. (blocking-operation b f k o)))", n+"-ev")
		q.question(n, "(defquestion %s :definition (count %s (output input input input)))", n, n+"-ev")
	case 1:
		q.define("(defevent %s :definition ((b k o) s.t. (blocking-operation b %s k o)))", n+"-ev", lit(f))
		q.question(n, "(defquestion %s :definition (count %s (output input input)))", n, n+"-ev")
	default:
		q.define("(defevent %s :definition ((b) s.t. (blocking-operation b %s %q %q)))", n+"-ev", lit(f), o.kind, o.operand)
		q.question(n, "(defquestion %s :definition (count %s (output)))", n, n+"-ev")
	}
	return true
}

// opCase counts the operations of a function by kind and select-case
// (-1 but for selects), or its selects by the case that fired.
func (q *qgen) opCase() bool {
	f, _ := q.blockingOp(any_)
	if f == nil {
		return false
	}
	n := q.name("op-case")
	if q.r.Intn(2) == 0 {
		q.define("(defevent %s :definition ((b k c) s.t. (exists (o) (and (blocking-operation b %s k o) (select-case b c)))))", n+"-ev", lit(f))
		q.question(n, "(defquestion %s :definition (count %s (output input input)))", n, n+"-ev")
		return true
	}
	q.question(n, `(defquestion %s :definition
  ((c) s.t. (exists (b) (and (blocking-operation b %s "select" "") (select-case b c)))))`, n, lit(f))
	return true
}

// opIn relates the executions of a function that never runs on a
// spawned goroutine to the operations of it or of a function it calls,
// directly or not, inside them (or on their goroutine): by the
// function's parameter, and the operation's kind and operand.
func (q *qgen) opIn() bool {
	a, r := q.mainCaller(func(f *Func) bool { return len(f.ops) > 0 })
	if a == nil {
		return false
	}
	f, _ := q.blockingOp(func(f *Func) bool { return r[f] })
	rel, kind := "contains", "op-in"
	if q.r.Intn(3) == 0 {
		rel, kind = "same-goroutine", "op-same-g"
	}
	n := q.name(kind)
	if len(a.Params) > 0 {
		q.question(n, `(defquestion %s :definition
  ((v k o) s.t. (exists (x b) (and (function-execution x %s) (parameter x 1 v) (blocking-operation b %s k o) (%s x b)))))`,
			n, lit(a), lit(f), rel)
		return true
	}
	q.define(`(defevent %s :definition
  ((b k o) s.t. (exists (x) (and (function-execution x %s) (blocking-operation b %s k o) (%s x b)))))`, n+"-ev", lit(a), lit(f), rel)
	q.question(n, "(defquestion %s :definition (count %s (output input input)))", n, n+"-ev")
	return true
}

// opIter counts, by index and kind, the operations of a function that
// never runs on a spawned goroutine inside the iterations of its loops,
// or inside its regions by label.
func (q *qgen) opIter() bool {
	f, _ := q.blockingOp(func(f *Func) bool { return !f.InGo && len(f.regions) > 0 })
	if f == nil {
		return false
	}
	// Mostly a loop with operations in its body.
	r := f.regions[q.r.Intn(len(f.regions))]
	for _, l := range f.regions {
		if l.iter && l.ops && q.r.Intn(3) > 0 {
			r = l
			break
		}
	}
	if r.iter && q.r.Intn(3) > 0 {
		n := q.name("op-iter")
		q.define(`(defevent %s :definition
  ((i b n k) s.t. (exists (o) (and (loop-iteration i %s %q) (blocking-operation b %s k o) (contains i b) (iteration-index i n)))))`,
			n+"-ev", lit(f), r.label, lit(f))
		q.question(n, "(defquestion %s :definition (count %s (output output input input)))", n, n+"-ev")
		return true
	}
	n := q.name("op-region")
	q.define(`(defevent %s :definition
  ((r b l k o) s.t. (and (region-execution r %s l) (blocking-operation b %s k o) (contains r b))))`, n+"-ev", lit(f), lit(f))
	q.question(n, "(defquestion %s :definition (count %s (output output input input input)))", n, n+"-ev")
	return true
}

// opBefore relates the operations of a function that never runs on a
// spawned goroutine to its callees in one execution: those that begin
// after the operation proceeded, or end before it began.
func (q *qgen) opBefore() bool {
	f, o := q.blockingOp(func(f *Func) bool { return !f.InGo && len(f.callees) > 0 })
	if f == nil {
		return false
	}
	g := q.pickFrom(f.callees)
	before := "(before b y)"
	if q.r.Intn(3) == 0 {
		before = "(before y b)"
	}
	n := q.name("op-before")
	q.define(`(defevent %s :definition
  ((b y) s.t. (exists (x) (and (function-execution x %s) (blocking-operation b %s %q %q) (function-execution y %s)
                               (contains x b) (calls x y) %s))))`, n+"-ev", lit(f), lit(f), o.kind, o.operand, lit(g), before)
	q.question(n, "(defquestion %s :definition (count %s (output output)))", n, n+"-ev")
	return true
}

// recvReturn returns a value received in its result expression: the
// receive is in the return, before the function's deferred calls.
type recvReturn struct{ op *opStmt }

func (s *recvReturn) print(p *printer) {
	if !p.tw {
		p.line("%s", s.op.text)
		return
	}
	p.line("trB%d := trBB(%q, %q, %q)", s.op.n, s.op.fn.Name, s.op.kind, s.op.operand)
	p.line("trK%d := false", s.op.n)
	p.line("trW%d := trRecv(fin, trB%d, &trK%d)", s.op.n, s.op.n, s.op.n)
	p.line("trBK(trB%d, trK%d)", s.op.n, s.op.n)
	ret(fmt.Sprintf("(acc + trW%d) %% 7", s.op.n)).print(p)
}

// receiveReturn ends f's body by returning a value it sent itself on a
// buffered channel and receives in the return statement.
func (g *gen) receiveReturn(f *Func) []stmt {
	return []stmt{g.makeChans(f, "fin := make(chan int, 1)"), g.op(f, "send", "fin", "fin <- acc % 2"),
		&recvReturn{op: g.op(f, "recv", "fin", "return (acc + <-fin) % 7")}}
}

// blockedQuestions asks whether the sends and receives of a function
// blocked (operation-blocked, blocked), drawn from a source of their
// own, which leaves the other questions as they were. The twin tries
// those without waiting first (tryFirst); selects, ranges, locks and
// waits are not asked about: the trace does not say whether a select, a
// range's receive or a wait blocked, and a lock may wait for another
// goroutine, differently in pmm's run and the twin's.
func (q *qgen) blockedQuestions() {
	if !q.p.Features.Blocking {
		return
	}
	q.r = rand.New(rand.NewSource(q.p.Seed*6151 + 5))
	chanOp := func(o opInfo) bool { return o.kind == "send" || o.kind == "recv" }
	f := q.pick(func(f *Func) bool { return slices.ContainsFunc(f.ops, chanOp) })
	if f == nil {
		return
	}
	var kinds []string
	for _, o := range f.ops {
		if chanOp(o) && !slices.Contains(kinds, o.kind) {
			kinds = append(kinds, o.kind)
		}
	}
	k := kinds[q.r.Intn(len(kinds))]
	switch q.r.Intn(3) {
	case 0:
		n := q.name("op-blocked")
		q.define("(defevent %s :definition ((b w) s.t. (exists (o) (and (blocking-operation b %s %q o) (operation-blocked b w)))))", n+"-ev", lit(f), k)
		q.question(n, "(defquestion %s :definition (count %s (output input)))", n, n+"-ev")
	case 1:
		n := q.name("op-not-blocked")
		q.define("(defevent %s :definition ((b o) s.t. (and (blocking-operation b %s %q o) (not (blocked b)))))", n+"-ev", lit(f), k)
		q.question(n, "(defquestion %s :definition (count %s (output input)))", n, n+"-ev")
	default:
		// Only those that blocked, which pmm's sites record alone.
		n := q.name("op-blocked-only")
		q.define("(defevent %s :definition ((b o) s.t. (and (blocking-operation b %s %q o) (blocked b))))", n+"-ev", lit(f), k)
		q.question(n, "(defquestion %s :definition (count %s (output input)))", n, n+"-ev")
	}
}
