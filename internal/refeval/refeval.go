// Package refeval is the reference evaluator of pmm's question language:
// the definition of what an answer is. It evaluates the definitions of a
// PMM program as written (the parser's ASTs, not pmm's normalized form)
// with plain loops over a complete trace of a run (internal/reftrace),
// independently of pmm's schema, SQL and instrumentation, so that a
// differential test can compare pmm's answers with it. docs/LANGUAGE.md,
// "Reference semantics", states each reading it takes.
package refeval

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"pmm.dev/pmm/internal/reftrace"
	"pmm.dev/pmm/spec"
)

// Answer is the reference answer to one question.
type Answer struct {
	Name string
	// Columns are the head variables; for an aggregate, its input
	// positions (the activity's head variables), then the operator
	// ("count", "sum", ...).
	Columns []string
	// Event says, per column, that it holds an identity that differs
	// between runs, compared as "#": an execution, a point, or a
	// goroutine id (the trace numbers goroutines 1, 2, ... in the order
	// they start; a run of pmm has the runtime's ids).
	Event []bool
	// Rows is a set of whole tuples: executions are their ids (int64),
	// points Points, values int64, float64, bool, string, nil, or []any
	// for a list (parameters, results).
	Rows [][]any
}

// Canonical returns one string per row, its columns separated by spaces:
// "#" for an event column, other values as pmm's views hold them (see
// format), sorted. Rows that differ only in their events give equal
// strings, and each is kept.
func (a *Answer) Canonical() []string {
	out := make([]string, 0, len(a.Rows))
	for _, row := range a.Rows {
		out = append(out, a.canonicalRow(row))
	}
	sort.Strings(out)
	return out
}

func (a *Answer) canonicalRow(row []any) string {
	cells := make([]string, len(row))
	for i, x := range row {
		if i < len(a.Event) && a.Event[i] {
			cells[i] = "#"
		} else {
			cells[i] = format(x)
		}
	}
	return strings.Join(cells, " ")
}

// CanonicalView canonicalizes the rows of pmm's view of a's question, as
// database/sql reads them (int64, float64, string, []byte, nil), in the
// form of Canonical, so that the two compare as []string. A row may start
// with the view's run column (one column more than a has): it is left
// out.
func (a *Answer) CanonicalView(rows [][]any) ([]string, error) {
	out := make([]string, 0, len(rows))
	for _, row := range rows {
		switch len(row) {
		case len(a.Columns):
		case len(a.Columns) + 1:
			row = row[1:]
		default:
			return nil, fmt.Errorf("refeval: a row of %s has %d columns, want %d (%s), or the run and them",
				a.Name, len(row), len(a.Columns), strings.Join(a.Columns, " "))
		}
		out = append(out, a.canonicalRow(row))
	}
	sort.Strings(out)
	return out, nil
}

// UnsupportedError says that a question uses a primitive the trace cannot
// define (duration, time, receiver, data-condition): the reference
// evaluator has no answer for it.
type UnsupportedError struct {
	Question  string
	Primitive string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("the reference evaluator cannot evaluate %s: the trace has no %s (question %s)",
		e.Primitive, e.Primitive, e.Question)
}

// unsupported are the primitives whose values the trace does not record.
var unsupported = map[string]bool{"duration": true, "time": true, "receiver": true, "data-condition": true,
	"caller-line":     true, // the traced twins (internal/progen) record no call positions
	"allocation-line": true, // nor the positions of allocations
}

// Evaluate answers every defquestion of prog over the trace tr, by name
// (lower-cased, as spec names them). A question that uses a primitive the
// trace cannot define (an UnsupportedError), or that the evaluator cannot
// evaluate, has no answer, and the error, joining one per such question,
// says why; the other questions are answered.
func Evaluate(prog *spec.Program, tr *reftrace.Trace) (map[string]*Answer, error) {
	e := newEvaluator(prog, tr)
	answers := map[string]*Answer{}
	var errs []error
	for _, d := range prog.Defs {
		if !d.Question {
			continue
		}
		a, err := e.question(d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		answers[d.Name] = a
	}
	return answers, errors.Join(errs...)
}

// question answers the question d, turning the evaluator's panics (its
// errors) into an error.
func (e *evaluator) question(d *spec.Def) (a *Answer, err error) {
	if p := e.unsupportedIn(d, map[string]bool{}); p != "" {
		return nil, &UnsupportedError{Question: d.Name, Primitive: p}
	}
	defer func() {
		if r := recover(); r != nil {
			ee, ok := r.(evalError)
			if !ok {
				panic(r)
			}
			a, err = nil, fmt.Errorf("refeval: question %s: %s", d.Name, string(ee))
		}
	}()
	if d.Aggregate != nil {
		return e.aggregate(d), nil
	}
	a = &Answer{Name: d.Name}
	kinds := e.headKinds(d)
	for i, h := range d.Head {
		a.Columns = append(a.Columns, h.Var)
		a.Event = append(a.Event, kinds[i] == kindEvent || kinds[i] == kindGoroutine)
	}
	for _, t := range e.relation(d) {
		row := make([]any, len(t))
		for i, v := range t {
			row[i] = v.export()
		}
		a.Rows = append(a.Rows, row)
	}
	return a, nil
}

// unsupportedIn returns a primitive of unsupported that d uses, directly
// or through the definitions it uses, or "".
func (e *evaluator) unsupportedIn(d *spec.Def, seen map[string]bool) string {
	if seen[d.Name] {
		return ""
	}
	seen[d.Name] = true
	if d.Aggregate != nil {
		if of := e.defs[d.Aggregate.Of]; of != nil {
			return e.unsupportedIn(of, seen)
		}
		return ""
	}
	found := ""
	walk(d.Body, func(f spec.Formula) {
		a, ok := f.(*spec.AtomF)
		if !ok || found != "" {
			return
		}
		if unsupported[a.Pred] {
			found = a.Pred
		} else if of := e.defs[a.Pred]; of != nil {
			found = e.unsupportedIn(of, seen)
		}
	})
	return found
}
