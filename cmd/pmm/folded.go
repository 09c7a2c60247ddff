package main

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"pmm.dev/pmm/plan"
)

// foldedHint is what an error says to do with an answer that has no
// folded stacks.
const foldedHint = "hint: folded stacks are an answer with one calling context (calling-context x c) in each row: " +
	"a count or a sum grouped by it, or one event per row; print other answers with -format table, csv or json"

// notFolded is the error of an answer that has no folded stacks: bad
// input, with a hint.
type notFolded struct{ error }

func (e notFolded) Error() string { return e.error.Error() + "\n" + foldedHint }

// writeFolded writes the answer of question name as folded stacks, the
// lines "root;...;leaf N" that flamegraph.pl, speedscope and inferno
// read: per row, its calling context, then the answer's other columns
// that are values (a type, a kind, a function name) as frames above it,
// and its weight: the aggregate's number (a count or a sum), or 1 for a
// relation whose rows are events. Equal stacks add up; lines are sorted.
func writeFolded(w io.Writer, name string, header []string, shape plan.AnswerShape, rows rowIter) error {
	offset := len(header) - len(shape.Columns) // 1 when run is a column
	if offset < 0 || offset > 1 {
		return fmt.Errorf("%s: the answer has %d columns, plan.json says %d: run pmm instrument again", name, len(header), len(shape.Columns))
	}
	ctxCol, value := -1, -1
	var frames, events []int
	for i, k := range shape.Columns {
		switch k {
		case plan.ColumnContext:
			if ctxCol >= 0 {
				return notFolded{fmt.Errorf("%s has two calling contexts in each row (%s, %s): a stack is one", name, header[offset+ctxCol], header[offset+i])}
			}
			ctxCol = i
		case plan.ColumnExecution, plan.ColumnPoint:
			events = append(events, i)
		case plan.ColumnNone, plan.ColumnFunction:
			frames = append(frames, i)
		}
	}
	switch op := shape.Aggregate; {
	case ctxCol < 0:
		return notFolded{fmt.Errorf("%s has no calling context in its answer", name)}
	case op == "count" || op == "sum":
		value = len(shape.Columns) - 1
		frames = slices.DeleteFunc(frames, func(i int) bool { return i == value })
	case op != "":
		return notFolded{fmt.Errorf("%s is %s aggregate: a flame graph adds its values, and %ss do not add up (a count or a sum does)", name, article(op), op)}
	case len(events) != 1:
		return notFolded{fmt.Errorf("%s has %d events in each row: a relation's rows are stacks of weight 1 only when each row is one event", name, len(events))}
	}
	weights := map[string]int64{}
	for rows.Next() {
		row := rows.Row()[offset:]
		if row[ctxCol] == nil {
			continue
		}
		parts := []string{cellText(row[ctxCol])}
		for _, i := range frames {
			parts = append(parts, strings.ReplaceAll(cellText(row[i]), ";", ","))
		}
		weight := int64(1)
		if value >= 0 {
			n, err := strconv.ParseFloat(cellText(row[value]), 64)
			if err != nil {
				return fmt.Errorf("%s: the number %v of a row is no number", name, row[value])
			}
			weight = int64(n)
		}
		weights[strings.Join(parts, ";")] += weight
	}
	if err := rows.Err(); err != nil {
		return err
	}
	stacks := slices.Sorted(maps.Keys(weights))
	bw := bufio.NewWriter(w)
	for _, s := range stacks {
		fmt.Fprintf(bw, "%s %d\n", s, weights[s])
	}
	return bw.Flush()
}
