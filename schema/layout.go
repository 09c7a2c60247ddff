package schema

import (
	"fmt"

	"pmm.dev/pmm/spec"
)

// The stored relations that are not named after a primitive: executions,
// their end points (the counter value taken when they end), and the
// goroutine they run on, which the derived control relations also read.
const (
	kindExec      = "exec"
	kindEnd       = "end"
	kindGoroutine = "goroutine"
	// KindCells is the table of an aggregate question's cells: the
	// groups of the partial results the run-time keeps, each with the
	// number of its cell in CellsTable.
	KindCells = "cells"
	kindCells = KindCells
)

// storedPairs are the control relations the instrumentation records as
// pairs of event ids, with their column names.
var storedPairs = map[string][2]string{
	"calls":  {"caller", "callee"},
	"spawns": {"parent", "child"},
}

// derivedRelations are the control relations computed in the views from
// ids, end sequence numbers and goroutines, with the stored relations each
// reads.
var derivedRelations = map[string][]string{
	"before":         {kindEnd},
	"contains":       {kindEnd},
	"calls*":         {kindEnd, kindGoroutine},
	"same-goroutine": {kindGoroutine},
}

// valueColumns names the value column of the attributes whose name says
// more than "v".
var valueColumns = map[string]string{"duration": "d", "goroutine": "g", "time": "t"}

// storedKinds returns the stored relations (Table.Prim) that a question
// using primitive p needs.
func storedKinds(p *spec.Primitive) ([]string, error) {
	switch {
	case p.Name == spec.TypeFunctionExecution:
		return []string{kindExec}, nil
	case p.IsEvent(), p.Kind == spec.ValueRelation:
		// A point is (execution, 0 or 1); comparisons read other columns.
		return nil, nil
	case p.Kind == spec.Attribute:
		return []string{p.Name}, nil
	}
	if _, ok := storedPairs[p.Name]; ok {
		return []string{p.Name}, nil
	}
	if kinds, ok := derivedRelations[p.Name]; ok {
		return kinds, nil
	}
	return nil, fmt.Errorf("schema: no stored relation is defined for the primitive %s", p.Name)
}

// columns returns the columns of the stored relation of kind (the run
// column excluded).
func columns(kind string) []Column {
	id := Column{Name: "id", Type: "INTEGER", Event: true}
	switch kind {
	case kindExec:
		return []Column{id, {Name: "site", Type: "INTEGER"}}
	case kindEnd:
		return []Column{id, {Name: "seq", Type: "INTEGER", Event: true}}
	}
	if pair, ok := storedPairs[kind]; ok {
		return []Column{{Name: pair[0], Type: "INTEGER", Event: true}, {Name: pair[1], Type: "INTEGER", Event: true}}
	}
	p := spec.Lookup(kind)
	cols := []Column{id}
	if acceptsPoints(p.Args[0]) {
		cols = append(cols, Column{Name: "point", Type: "INTEGER"})
	}
	for _, a := range p.Args[1 : len(p.Args)-1] {
		cols = append(cols, keyColumn(a))
	}
	return append(cols, Column{Name: valueColumn(kind), Type: sqlType(p.Args[len(p.Args)-1].Value)})
}

// indexColumns returns the columns (after run) of the indexes of the
// stored relation of kind with columns cols. Every row read by an event
// id is found by (run, id) and its keys (point, n, expr); an integer
// value is in the index too, so a view reads no table row for it (texts
// would double the size of the table). A goroutine's executions are
// found by (run, g, id), the range calls* reads; a stored pair is found
// from either end.
func indexColumns(kind string, cols []Column) [][]string {
	var names []string
	for i, c := range cols {
		if i == len(cols)-1 && i > 0 && c.Type != "INTEGER" {
			break
		}
		names = append(names, c.Name)
	}
	switch {
	case kind == kindCells:
		return nil
	case kind == kindGoroutine:
		return [][]string{names, {names[1], names[0]}}
	case storedPairs[kind] != [2]string{}:
		return [][]string{names, {names[1], names[0]}}
	}
	return [][]string{names}
}

// keyColumn is the column of an attribute's argument between the event
// and the value: which parameter, or which Go expression.
func keyColumn(a spec.Arg) Column {
	if a.Kind == spec.ArgGoExpr {
		return Column{Name: "expr", Type: "TEXT"}
	}
	return Column{Name: "n", Type: "INTEGER"}
}

func valueColumn(attribute string) string {
	if c, ok := valueColumns[attribute]; ok {
		return c
	}
	return "v"
}

// sqlType is the column type of an attribute value: lists are stored in a
// canonical text encoding so that they compare by equality, and values
// whose Go type the site decides keep whatever SQLite type they arrive as.
func sqlType(v spec.ValueType) string {
	switch v {
	case spec.ValInt, spec.ValBool, spec.ValDuration, spec.ValTime:
		return "INTEGER"
	case spec.ValList, spec.ValName:
		return "TEXT"
	}
	return ""
}

func acceptsPoints(a spec.Arg) bool {
	for _, e := range a.Events {
		if e == spec.TypePoint {
			return true
		}
	}
	return false
}

// kindOrder ranks stored relation kinds so that a question's tables come
// in a fixed order: executions, end points, then the vocabulary's order.
func kindOrder() []string {
	order := []string{kindExec, kindEnd}
	for _, p := range spec.Vocabulary() {
		if p.Kind == spec.Attribute || storedPairs[p.Name] != [2]string{} {
			order = append(order, p.Name)
		}
	}
	return order
}
