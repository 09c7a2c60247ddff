package schema

import (
	"fmt"
	"slices"

	"pmm.dev/pmm/spec"
)

// The stored relations that are not named after a primitive: the events
// of each recorded event type (its row's Table: executions of functions
// and of regions, iterations, ...), their end points (the counter value
// taken when they end); and the goroutine they run on, an attribute's,
// which the derived control relations also read.
const (
	// kindExec holds function executions; the other recorded event
	// types' relations are named by their rows (spec.EventTables).
	kindExec = "exec"
	// kindAllocation holds allocations, instants (id, site): an
	// allocation's begin and end are its id, it has no end row.
	kindAllocation = "alloc"
	kindEnd        = "end"
	// KindEnd is the kind of the end points' tables, for readers of
	// pmm.db outside schema.
	KindEnd       = kindEnd
	kindGoroutine = spec.AttrGoroutine
	// KindCells is the table of an aggregate question's cells: the
	// groups of the partial results the run-time keeps, each with the
	// number of its cell in CellsTable.
	KindCells = "cells"
	kindCells = KindCells
)

// IsExecutions reports whether the stored relation prim (Table.Prim)
// holds executions, one row (id, site) per execution recorded: of
// functions or of regions.
func IsExecutions(prim string) bool {
	return slices.Contains(spec.EventTables(), prim)
}

// storedPair returns the column names of the control relation named
// kind when the instrumentation records it as pairs of event ids (its
// vocabulary row's Stored.Pair), and whether it does.
func storedPair(kind string) ([2]string, bool) {
	p := spec.Lookup(kind)
	if p == nil || p.Kind != spec.ControlRelation || p.Stored == nil || p.Stored.Pair == [2]string{} {
		return [2]string{}, false
	}
	return p.Stored.Pair, true
}

// StoredRelations returns the stored relations (Table.Prim) that a question
// using primitive p needs.
func StoredRelations(p *spec.Primitive) ([]string, error) {
	switch {
	case p.Table != "":
		return []string{p.Table}, nil
	case p.IsEvent(), p.Kind == spec.ValueRelation:
		// A point is (execution, 0 or 1); comparisons read other columns.
		return nil, nil
	case p.Kind == spec.Attribute && p.Recorded != nil:
		return []string{p.Name}, nil
	case p.Kind == spec.ControlRelation && p.Stored != nil:
		if _, ok := storedPair(p.Name); ok {
			return []string{p.Name}, nil
		}
		if len(p.Stored.Derived) > 0 {
			return p.Stored.Derived, nil
		}
	}
	return nil, fmt.Errorf("schema: no stored relation is defined for the primitive %s", p.Name)
}

// columns returns the columns of the stored relation of kind (the run
// column excluded).
func columns(kind string) []Column {
	id := Column{Name: "id", Type: "INTEGER", Event: true}
	switch {
	case IsExecutions(kind):
		return []Column{id, {Name: "site", Type: "INTEGER"}}
	case kind == kindEnd:
		return []Column{id, {Name: "seq", Type: "INTEGER", Event: true}}
	}
	if pair, ok := storedPair(kind); ok {
		return []Column{{Name: pair[0], Type: "INTEGER", Event: true}, {Name: pair[1], Type: "INTEGER", Event: true}}
	}
	p := spec.Lookup(kind)
	cols := []Column{id}
	if p.OfPoints() {
		cols = append(cols, Column{Name: "point", Type: "INTEGER"})
	}
	for _, a := range p.Keys() {
		cols = append(cols, keyColumn(a))
	}
	return append(cols, Column{Name: valueColumn(kind), Type: sqlType(p.Args[len(p.Args)-1].Value)})
}

// indexColumns returns the columns (after run) of the indexes of the
// stored relation of kind with columns cols. Every row read by an event
// id is found by (run, id) and its keys (point, n, expr); an integer
// value is in the index too, so a view reads no table row for it (texts
// would double the size of the table). A goroutine's executions are
// found by (run, g, id), the range calls* reads (in a copy of the
// table, Table.Copies, where the question has calls*); a stored pair is
// found from either end.
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
	case isPair(kind):
		return [][]string{names, {names[1], names[0]}}
	}
	return [][]string{names}
}

// goroutineUses reports whether question q reads the executions of a
// goroutine in an interval (calls*: the views range on the copy of its
// goroutine table by goroutine, goroutineCopy) and whether it reads
// goroutines otherwise (the goroutine attribute, same-goroutine: the
// planner may look rows up by goroutine, in the index by goroutine).
func goroutineUses(q *spec.Question) (nested, other bool) {
	for _, name := range q.Primitives() {
		p := spec.Lookup(name)
		if p == nil {
			continue
		}
		kinds, err := StoredRelations(p)
		if err != nil || !slices.Contains(kinds, kindGoroutine) {
			continue
		}
		if p.Kind == spec.ControlRelation && p.Nests() {
			nested = true
		} else {
			other = true
		}
	}
	return nested, other
}

// goroutineCopy is the name of the copy of question's goroutine table
// keyed by (run, g, id) (Table.Copies): the range of a goroutine's
// executions that calls* reads.
func goroutineCopy(question string) string {
	return tableName(question, kindGoroutine) + "_by_g"
}

// tableKey returns the key (after run) of the stored relation of kind
// with columns cols, if it has one, and its indexes (indexColumns but
// the key): the columns of its first index when they are all its
// columns, all integers.
func tableKey(kind string, cols []Column) (key []string, indexes [][]string) {
	indexes = indexColumns(kind, cols)
	if len(indexes) > 0 && isKey(indexes[0], cols) {
		return indexes[0], indexes[1:]
	}
	return nil, indexes
}

// keyed reports whether the stored relation of kind has a key: a row
// equal on it to one the table holds is not stored again.
func keyed(kind string) bool {
	key, _ := tableKey(kind, columns(kind))
	return len(key) > 0
}

// isKey reports whether the index columns names are all of cols, all
// integers: the table's rows are then its index's entries, and the
// index can be the table's primary key.
func isKey(names []string, cols []Column) bool {
	if len(names) != len(cols) {
		return false
	}
	for i, c := range cols {
		if c.Type != "INTEGER" || names[i] != c.Name {
			return false
		}
	}
	return true
}

// keyColumn is the column of an attribute's argument between the event
// and the value: which parameter, or which Go expression.
func keyColumn(a spec.Arg) Column {
	switch a.Kind {
	case spec.ArgGoExpr:
		return Column{Name: "expr", Type: "TEXT"}
	case spec.ArgTypeName:
		return Column{Name: "type", Type: "TEXT"}
	}
	if a.Kind == spec.ArgAccounts {
		return Column{Name: "accounts", Type: "TEXT"}
	}
	return Column{Name: "n", Type: "INTEGER"}
}

func isPair(kind string) bool {
	_, ok := storedPair(kind)
	return ok
}

// valueColumn is the name of the value column of an attribute's stored
// relation: its row's Recorded.Column, or "v".
func valueColumn(attribute string) string {
	if p := spec.Lookup(attribute); p != nil && p.Recorded != nil && p.Recorded.Column != "" {
		return p.Recorded.Column
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
	case spec.ValList, spec.ValName, spec.ValText:
		return "TEXT"
	}
	return ""
}

// kindOrder ranks stored relation kinds so that a question's tables come
// in a fixed order: executions, end points, then the vocabulary's order.
func kindOrder() []string {
	order := append(spec.EventTables(), kindEnd)
	for _, p := range spec.Vocabulary() {
		if p.Kind == spec.Attribute && p.Recorded != nil || isPair(p.Name) {
			order = append(order, p.Name)
		}
	}
	return order
}
