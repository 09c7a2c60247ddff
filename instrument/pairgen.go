package instrument

import (
	"fmt"
	"go/types"
	"strconv"
	"strings"

	"pmm.dev/pmm/plan"
)

// The code of the inter-event tests decided at run time (Pair): the
// caller's map of held executions, the earlier event's hold and the later
// event's probe.

// on reports whether the site generates its part of a test decided at
// run time: the plan has it on, and no site generated so far failed to
// take part (a value a key cannot hold, no caller state, a condition it
// cannot write).
func (sg *siteGen) on(t plan.RunTimeTest) bool { return sg.g.plan.On(t) && !sg.g.failed[t] }

// turnOff says the site cannot take part in test t: the sites generated
// after it leave it out, and Code.Off reports it, for the driver to
// generate again from the plan without it.
func (sg *siteGen) turnOff(t plan.RunTimeTest) {
	if sg.g.plan.On(t) && !sg.g.failed[t] {
		sg.g.failed[t] = true
		sg.g.code.Off = append(sg.g.code.Off, t)
	}
}

// active reports whether the site generates the code of pair p.
func (sg *siteGen) active(p *plan.Pair) bool { return p != nil && sg.on(p) }

// heldMap names the caller's state field that holds the earlier
// executions of pair p of question qi, by key.
func heldMap(qi, d int, p *plan.Pair) string { return flagName("h", qi, d, p.Earlier) }

// heldFields adds, to a caller's state, the maps of the pairs it holds.
func (sg *siteGen) heldFields(qi int, f *plan.Filters) {
	rt := sg.pc.Imports[sg.g.rtPath]
	for _, p := range f.Holds {
		if sg.active(p) {
			sg.declare(heldMap(qi, f.Disjunct, p), "map[string]*"+rt+".Held")
		}
	}
}

// keyCode encodes the values of fields into the Rec k, each as the type
// of its Go value: integers as int64, strings and booleans as themselves.
// Values whose Go equality may differ from the answer's (floats, whose
// 0 and -0 are equal, and any composite) cannot be keys.
func (sg *siteGen) keyCode(fields []plan.Field) ([]string, bool) {
	var lines []string
	value := func(name string) bool {
		v, ok := sg.vals[name]
		if !ok {
			return false
		}
		b, ok := v.typ.Underlying().(*types.Basic)
		switch {
		case !ok:
			return false
		case b.Info()&types.IsInteger != 0:
			lines = append(lines, "k.Int(int64(s."+name+"))")
		case b.Info()&types.IsString != 0:
			lines = append(lines, "k.Str(string(s."+name+"))")
		case b.Info()&types.IsBoolean != 0:
			lines = append(lines, "k.Bool(bool(s."+name+"))")
		default:
			return false
		}
		return true
	}
	list := func(prefix string) bool {
		lines = append(lines, "k.ListBegin()")
		for i := 1; ; i++ {
			if _, ok := sg.vals[prefix+strconv.Itoa(i)]; !ok {
				break
			}
			if !value(prefix + strconv.Itoa(i)) {
				return false
			}
		}
		lines = append(lines, "k.ListEnd()")
		return true
	}
	for _, f := range fields {
		ok := true
		switch cc := captureCodes[f.Cap]; {
		case cc.list:
			ok = list(cc.field)
		case cc.value:
			ok = value(valueField(f))
		case cc.int64 != "":
			lines = append(lines, "k.Int("+sg.int64Of(f.Cap)+")")
		default:
			ok = false
		}
		if !ok {
			return nil, false
		}
	}
	return lines, true
}

// keyMethod declares, once per site, a method of the site's state (a
// pointer in the exit function, a variable in a call site's record
// function), which takes the caller's state cs, that encodes the key of pair p of question qi from fields
// into k, then runs the body made for the map of held executions m; it returns the call,
// or "" when the pair is off, and turns the pair off for every site when
// this one cannot take part.
func (sg *siteGen) keyMethod(qi int, f *plan.Filters, p *plan.Pair, fields []plan.Field, name, result string, body func(m string) []string) string {
	if !sg.active(p) {
		return ""
	}
	key, ok := sg.keyCode(fields)
	if !ok || !sg.callerPtr {
		sg.turnOff(p)
		return ""
	}
	if !sg.declared[name] {
		sg.declared[name] = true
		rt := sg.pc.Imports[sg.g.rtPath]
		var b strings.Builder
		fmt.Fprintf(&b, "func (s *%s%s) %s(%s) %s {\n\tvar k %s.Rec\n", sg.name("state"), sg.targs, name, sg.callerParam, result, rt)
		for _, l := range key {
			b.WriteString("\t" + l + "\n")
		}
		for _, l := range body("cs." + heldMap(qi, f.Disjunct, p)) {
			b.WriteString("\t" + l + "\n")
		}
		b.WriteString("}")
		sg.decls = append(sg.decls, b.String())
	}
	return "s." + name + "(cs)"
}

// probe returns the call, for the pre- or post-condition of later event
// f.Var of question qi, that finds an earlier execution with equal values
// in the caller's state, releases what it holds, and tells the caller
// the earlier event ran; "" when the site does not probe.
func (sg *siteGen) probe(qi int, f *plan.Filters) string {
	if f.Probe == nil || plan.NeverAt(sg.s, f) {
		return ""
	}
	return sg.keyMethod(qi, f, f.Probe, f.Probe.LaterKey, sg.name(flagName("probe", qi, f.Disjunct, f.Var)+"_"), "bool", func(m string) []string {
		return []string{
			"h, ok := " + m + "[string(k.Encoded())]",
			"if !ok {", "\treturn false", "}",
			sg.release(qi, f),
			"cs." + calleeFlag(qi, f.Disjunct, f.Probe.Earlier) + " = true",
			"return true"}
	})
}

// hold returns the call, for earlier event f.Var of question qi, that
// returns the Held of the execution's key in the caller's state; "" when
// the site does not hold.
func (sg *siteGen) hold(qi int, f *plan.Filters) string {
	if f.Hold == nil || plan.NeverAt(sg.s, f) {
		return ""
	}
	held := "*" + sg.pc.Imports[sg.g.rtPath] + ".Held"
	return sg.keyMethod(qi, f, f.Hold, f.Hold.EarlierKey, sg.name(flagName("hold", qi, f.Disjunct, f.Var)+"_"), held, func(m string) []string {
		return []string{
			"if " + m + " == nil {", "\t" + m + " = map[string]" + held + "{}", "}",
			"h := " + m + "[string(k.Encoded())]",
			"if h == nil {", "\th = new(" + held[1:] + ")", "\t" + m + "[string(k.Encoded())] = h", "}",
			"return h"}
	})
}

// holding renders the tuples of question qi at a site that records
// earlier events of inter-event tests (held) besides other variables
// (direct): an execution that is an event of a direct variable is
// recorded at once; one that is an earlier event is held under its key,
// its tuples too unless they were recorded already. block is the tuples
// recorded at once; tuples renders them for another destination.
func (sg *siteGen) holding(qi int, direct, held []*plan.Filters, holds, block []string, tuples func(string) ([]string, error)) ([]string, error) {
	heldBlock, err := tuples("h")
	if err != nil {
		return nil, err
	}
	out := []string{"{", "\trecorded := false"}
	if len(direct) > 0 {
		out = append(out, "\tif "+sg.postCondition(qi, direct)+" {")
		out = append(out, indent(indent(block))...)
		out = append(out, "\t\trecorded = true", "\t}")
	}
	for i, f := range held {
		out = append(out, "\tif "+sg.passes(qi, f)+" {", "\t\th := "+holds[i], "\t\tif !recorded {")
		out = append(out, indent(indent(indent(heldBlock)))...)
		out = append(out, "\t\t\trecorded = true", "\t\t}", "\t}")
	}
	return append(out, "}"), nil
}

// release is the statement by which a later event of a pair records the
// earlier executions held under its key: to the log, or to its caller's
// buffer when the caller keeps its callees' tuples.
func (sg *siteGen) release(qi int, f *plan.Filters) string {
	if f.Buffered && sg.callerPtr {
		return "h.MoveTo(&cs." + bufferField(qi) + ")"
	}
	return "h.Release()"
}
