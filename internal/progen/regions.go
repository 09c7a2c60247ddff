package progen

import (
	"fmt"
	"maps"
	"strings"
)

// Regions: labeled statements of a mid's body, whose executions are
// region executions (docs/LANGUAGE.md, "Regions"). Each shape uses its
// labels in branch statements (Go accepts no unused label): break and
// continue to a loop's label, also from an inner loop or switch; break to
// a switch's label; a goto back to a block's own label, and one forward,
// out of a loop, to the label of the switch after it (over no
// declaration, into no block); a return whose result calls a function
// inside two regions; and, with panics, a switch case that panics. With
// iterations, a loop a //pmm:region comment names, left by an unlabeled
// break or continue.

// regionBuilder builds the regions of one function, knowing the regions
// open around the statement being built.
type regionBuilder struct {
	g         *gen
	f         *Func
	callees   []*Func
	c, inLoop argChoices
	open      []*region // outermost first
}

// regions returns one region shape (one or more statements) for f.
func (g *gen) regions(f *Func, callees []*Func, c, inLoop argChoices) []stmt {
	b := &regionBuilder{g: g, f: f, callees: callees, c: c, inLoop: inLoop}
	return b.shape(0, false)
}

func (b *regionBuilder) newRegion(name, head string) *region {
	n := len(b.f.regions) + 1
	r := &region{fn: b.f, label: fmt.Sprintf("%s%d", name, n), n: n, block: block{head: head}}
	r.iter = b.g.feat.Iterations && strings.HasPrefix(head, "for ")
	b.f.regions = append(b.f.regions, r)
	return r
}

// within builds r's body with r open.
func (b *regionBuilder) within(r *region, body func() []stmt) *region {
	before, made, ops := maps.Clone(b.f.callCount), len(b.f.regions), len(b.f.ops)
	b.open = append(b.open, r)
	r.body = body()
	r.ops = len(b.f.ops) > ops
	b.open = b.open[:len(b.open)-1]
	r.callees = map[*Func]bool{}
	for c, n := range b.f.callCount {
		if n > before[c] {
			r.callees[c] = true
		}
	}
	r.inner = b.f.regions[made:]
	return r
}

// inside lists the open regions inside r (all when r is nil), innermost
// first: those a branch to r's statement leaves.
func (b *regionBuilder) inside(r *region) []*region {
	var rs []*region
	for i := len(b.open) - 1; i >= 0 && b.open[i] != r; i-- {
		rs = append(rs, b.open[i])
	}
	return rs
}

// jump is a branch statement to r: break, continue (leaving the regions
// inside r; a break lands at r's end, where r ends), or a goto to r's own
// label from inside r (leaving r too, and beginning it again).
func (b *regionBuilder) jump(tok string, r *region) stmt {
	s := &branch{text: tok + " " + r.label, leaves: b.inside(r)}
	if tok == "goto" {
		s.leaves, s.begins = append(s.leaves, r), r
	}
	return s
}

// when is `if cond { s }`.
func when(cond string, s stmt) stmt { return &block{head: "if " + cond + " {", body: []stmt{s}} }

// call is a call statement of f, in a loop's body or not; with blocking
// operations, sometimes a block of them.
func (b *regionBuilder) call(loop bool) stmt {
	ch := b.c
	if loop {
		ch = b.inLoop
	}
	if b.g.feat.Blocking && b.g.r.Intn(5) == 0 {
		// A select's case may continue or break the loop around it.
		var jump stmt
		if outer := b.enclosingLoop(); outer != nil && b.g.r.Intn(2) == 0 {
			jump = when("acc%3 == 1", b.jump([]string{"continue", "break"}[b.g.r.Intn(2)], outer))
		}
		return b.g.blocking(b.f, b.callees, ch, jump)
	}
	for tries := 0; tries < 3; tries++ {
		if s := b.g.callStmt(b.f, b.callees, ch); s != nil {
			return s
		}
	}
	return raw("acc++")
}

// nested is, at depth 0, sometimes a region inside the one being built.
func (b *regionBuilder) nested(depth int, loop bool) []stmt {
	if depth > 0 || b.g.r.Intn(2) == 0 {
		return nil
	}
	return b.shape(depth+1, loop)
}

// shape is one of the region shapes, at a nesting depth, in a loop's
// body or not.
func (b *regionBuilder) shape(depth int, loop bool) []stmt {
	g := b.g
	kinds := []func(int, bool) []stmt{b.loop, b.loops, b.each, b.switch_, b.find, b.retry, b.scan, b.typeSwitch, b.select_}
	if g.feat.Iterations {
		kinds = append(kinds, b.marked)
	}
	return kinds[g.r.Intn(len(kinds))](depth, loop)
}

// loop is a labeled for loop that a continue or break to its label skips
// or ends, with sometimes a region inside (a switch that breaks to the
// loop's label leaves both).
func (b *regionBuilder) loop(depth int, _ bool) []stmt {
	bound := []string{"2", "3", "a%3 + 1"}[b.g.r.Intn(3)]
	r := b.newRegion("loop", "for i := 0; i < "+bound+"; i++ {")
	return []stmt{b.within(r, func() []stmt {
		tok := []string{"continue", "break"}[b.g.r.Intn(2)]
		body := []stmt{when([]string{"i == a%3", "(i+a)%2 == 1"}[b.g.r.Intn(2)], b.jump(tok, r)), b.call(true)}
		return append(body, b.nested(depth, true)...)
	})}
}

// loops are two nested labeled loops: a continue to the outer one leaves
// the inner one, a break ends the inner one.
func (b *regionBuilder) loops(depth int, _ bool) []stmt {
	outer := b.newRegion("outer", "for i := 0; i < 2; i++ {")
	return []stmt{b.within(outer, func() []stmt {
		inner := b.newRegion("inner", "for j := 0; j < 3; j++ {")
		return []stmt{b.within(inner, func() []stmt {
			return []stmt{when("j > i+a%2", b.jump("continue", outer)), when("j == 2", b.jump("break", inner)), b.call(true)}
		})}
	})}
}

// each is a labeled range loop that a break ends.
func (b *regionBuilder) each(depth int, _ bool) []stmt {
	r := b.newRegion("each", "for i := range strs {")
	return []stmt{b.within(r, func() []stmt {
		return append([]stmt{when("i > a%3", b.jump("break", r)), b.call(true)}, b.nested(depth, true)...)
	})}
}

// switch_ is a labeled switch that a break to its label leaves; in a
// loop's body, a case may break or continue the loop's region instead,
// and with panics the default case may panic.
func (b *regionBuilder) switch_(depth int, loop bool) []stmt {
	r := b.newRegion("sw", "switch a % 3 {")
	return []stmt{b.within(r, func() []stmt {
		body := []stmt{raw("case 0:"), b.call(loop), when("acc%2 == 0", b.jump("break", r)), b.call(loop), raw("case 1:")}
		if outer := b.enclosingLoop(); outer != nil && b.g.r.Intn(2) == 0 {
			body = append(body, when("acc%3 == 1", b.jump([]string{"continue", "break"}[b.g.r.Intn(2)], outer)))
		}
		body = append(body, b.call(loop), raw("default:"))
		if b.g.feat.Panics && b.g.r.Intn(3) == 0 {
			b.f.panics = true
			return append(body, raw(fmt.Sprintf("panic(%q)", b.f.Name+"/"+r.label)))
		}
		return append(body, raw("acc++"))
	})}
}

// typeSwitch is a labeled type switch that a break to its label leaves.
func (b *regionBuilder) typeSwitch(depth int, loop bool) []stmt {
	r := b.newRegion("ts", "switch v := any(acc % 3).(type) {")
	return []stmt{b.within(r, func() []stmt {
		return []stmt{raw("case int:"), b.call(loop), when("v == 1", b.jump("break", r)), b.call(loop), raw("default:"), raw("acc++")}
	})}
}

// select_ is a labeled select with only a default case, which a break to
// its label leaves.
func (b *regionBuilder) select_(depth int, loop bool) []stmt {
	r := b.newRegion("sel", "select {")
	return []stmt{b.within(r, func() []stmt {
		return []stmt{raw("default:"), b.call(loop), when("acc%2 == 1", b.jump("break", r)), b.call(loop)}
	})}
}

// enclosingLoop is the innermost open region that is a labeled for loop,
// or nil.
func (b *regionBuilder) enclosingLoop() *region {
	for i := len(b.open) - 1; i >= 0; i-- {
		if r := b.open[i]; strings.HasPrefix(r.head, "for ") && !r.mark {
			return r
		}
	}
	return nil
}

// find is a loop that returns from inside it (and the regions around
// it) once acc is large: the return's result calls a function, inside
// the regions.
func (b *regionBuilder) find(depth int, _ bool) []stmt {
	r := b.newRegion("find", "for i := 0; i < 3; i++ {")
	return []stmt{b.within(r, func() []stmt {
		var result string
		for tries := 0; tries < 3 && result == ""; tries++ {
			if c := b.callees[b.g.r.Intn(len(b.callees))]; c != b.f {
				result = b.g.call(b.f, c, b.inLoop)
			}
		}
		if result == "" {
			result = "1"
		}
		ret := &branch{text: fmt.Sprintf("(acc + %s) %% 7", result), ret: true, leaves: b.inside(nil)}
		return []stmt{b.call(true), when(fmt.Sprintf("acc > %d", 3+b.g.r.Intn(5)), ret), when("i%2 == 1", b.jump("continue", r))}
	})}
}

// retry is a labeled block that a goto to its own label runs again: the
// counter is declared before the label, so the goto jumps over no
// declaration.
func (b *regionBuilder) retry(depth int, loop bool) []stmt {
	r := b.newRegion("retry", "{")
	n := fmt.Sprintf("n%d", r.n)
	return []stmt{raw(n + " := 0"), b.within(r, func() []stmt {
		return []stmt{b.call(loop), raw(n + "++"), when(n+" < a%2+2", b.jump("goto", r))}
	})}
}

// scan is a loop that a goto leaves for the label of the switch after
// it, which the goto begins (as does reaching it).
func (b *regionBuilder) scan(depth int, loop bool) []stmt {
	s := b.newRegion("scan", "for i := 0; i < 3; i++ {")
	done := b.newRegion("done", "switch {")
	b.within(s, func() []stmt {
		gt := &branch{text: "goto " + done.label, leaves: []*region{s}, begins: done}
		return []stmt{b.call(true), when("acc%4 == 3", gt), when("i == a%2", b.jump("continue", s))}
	})
	b.within(done, func() []stmt {
		return []stmt{raw("case acc%2 == 0:"), b.call(loop), raw("default:"), raw("acc++")}
	})
	return []stmt{s, done}
}

// marked is a loop that a //pmm:region comment names (it has no label):
// an unlabeled continue or break skips or ends it, with sometimes a
// region inside.
func (b *regionBuilder) marked(depth int, _ bool) []stmt {
	bound := []string{"2", "3", "a%3 + 1"}[b.g.r.Intn(3)]
	r := b.newRegion("mark", "for i := 0; i < "+bound+"; i++ {")
	r.mark = true
	return []stmt{b.within(r, func() []stmt {
		tok := []string{"continue", "break"}[b.g.r.Intn(2)]
		body := []stmt{b.call(true), when([]string{"i == a%2", "(i+acc)%3 == 2"}[b.g.r.Intn(2)], raw(tok)), b.call(true)}
		return append(body, b.nested(depth, true)...)
	})}
}
