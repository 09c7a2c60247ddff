// Package schema generates the event schema of a PMM program (seed 001,
// 4.1.1): the stored relations the instrumented program records for each
// question, and the SQL views over them that are the answers.
//
// Each question records into tables of its own, named after it
// (cacheable_calls__exec, cacheable_calls__duration, ...): one per
// primitive event, attribute and control relation it uses. The control
// relations before, contains, calls* and same-goroutine are not stored;
// the views derive them from event ids (taken from one counter when an
// execution begins), end sequence numbers and goroutines. Questions and
// the derived events they use become views named after them. docs/SCHEMA.md
// describes the tables and the translation.
package schema

import (
	"fmt"
	"slices"
	"strings"

	"pmm.dev/pmm/spec"
)

// Column is a column of a stored relation.
type Column struct {
	Name string
	Type string // "INTEGER", "REAL", "TEXT", or "" (any SQLite value)
	// Event says that the column holds an event id or sequence number,
	// which the loader makes unique per run.
	Event bool
}

// Table is a stored relation that the instrumented program records.
type Table struct {
	ID       uint16 // 1, 2, ... in a deterministic order
	Name     string // e.g. "cacheable_calls__exec"
	Question string // the question's name as written in the IR
	// Prim is the stored relation's kind: "exec", "end", "goroutine", or
	// an attribute or relation name of the vocabulary such as "duration",
	// "return-values", "calls".
	Prim string
	// Columns do not include the "run" column, which the loader prepends
	// to every table.
	Columns []Column
	// Key is the table's primary key after run, or none: the columns of
	// its first index when they are all its columns, all integers. The
	// table is then stored in the key's order (WITHOUT ROWID), one B-tree
	// where a table and its index were two, and a row equal to one the
	// table holds is not stored again (the views read relations as sets).
	Key []string `json:",omitempty"`
	// Indexes are the indexes the loader creates at the end of a load
	// (after the bulk insert), and Statements if they are missing: what
	// the views join and range on. The key is not one of them.
	Indexes []Index
	// Copies are tables of their own that hold the table's rows again,
	// keyed by run then Columns, all of the table's columns in another
	// order (WITHOUT ROWID): the views range on a copy where an index in
	// its order would be read, and the loader fills it in its key's order
	// rather than sorting an index at the end of every load.
	Copies []Copy `json:",omitempty"`
}

// Copy is a table that holds another's rows in another order
// (Table.Copies).
type Copy struct {
	Name    string
	Columns []string
	// Replaces is the index in the copy's order that an earlier pmm
	// made, which the loader drops where the copy is read in its place.
	Replaces string `json:",omitempty"`
}

// Index is an index of a table on run, then Columns.
type Index struct {
	Name    string
	Columns []string
}

// SQL is the statement that creates the index on table if it is missing.
func (x Index) SQL(table string) string {
	return "CREATE INDEX IF NOT EXISTS " + x.Name + " ON " + table + " (run, " + strings.Join(x.Columns, ", ") + ")"
}

// View is a derived relation: the statement is CREATE VIEW Name AS SQL.
type View struct{ Name, SQL string }

// Schema is the stored relations of a program and the views over them.
type Schema struct {
	Tables []Table
	Views  []View
}

// SitesTable is pmm's table of instrumentation sites; the views read
// function names from it.
const SitesTable = "pmm_sites"

const sitesColumns = "site INTEGER PRIMARY KEY, function TEXT, kind TEXT, file TEXT, line INTEGER, col INTEGER, label TEXT, operand TEXT"

// CellsTable holds the partial results of aggregates kept at run time,
// by cell: the loader fills it (rt/load), and the views of aggregate
// questions read it with their q__cells tables.
const CellsTable = "pmm_cells"

const cellsColumns = "run INTEGER, cell INTEGER, count INTEGER, sum, min, max"

// ContextsTable is the tree of the calling contexts of a run
// (docs/LANGUAGE.md, "Calling contexts"): cmd/pmm fills it after the
// load, when a question asks for calling contexts. A context is named by
// its path, the functions root first separated by ";"; its parent is the
// path without its last function (NULL at a root).
const ContextsTable = "pmm_contexts"

// ContextsColumns are ContextsTable's columns.
const ContextsColumns = "run INTEGER, context TEXT, parent TEXT, function TEXT, depth INTEGER, PRIMARY KEY (run, context)"

// LoadTables are the tables and indexes of pmm.db that the loader of
// the runs (rt/load) creates besides the stored relations and
// CellsTable: a question's view may not take one of their names (a
// question named "runs" made every load fail, "use DROP TABLE to
// delete table runs"). rt/load's TestLoadTablesClaimed holds the list
// to what the loader creates.
var LoadTables = []string{"runs", "runs_source", "run_processes", "pmm_incomplete", "site_counts", "pmm_outside_calls", "pmm_outside_functions"}

// SiteVarsTable says which events of which questions each site records;
// an event variable of a question's view ranges over the executions its
// sites recorded.
const SiteVarsTable = "pmm_site_vars"

const siteVarsColumns = "site INTEGER, question TEXT, var TEXT, PRIMARY KEY (site, question, var)"

// Generate returns the schema of prog: for each question a table per
// stored relation it uses, a view per question and a view per derived
// event that some question uses.
func Generate(prog *spec.Program) (*Schema, error) {
	s := &Schema{}
	names := newNameSet()
	if err := names.claim(SitesTable, "pmm's table of sites"); err != nil {
		return nil, err
	}
	if err := names.claim(SiteVarsTable, "pmm's table of the events of sites"); err != nil {
		return nil, err
	}
	if err := names.claim(CellsTable, "pmm's table of aggregate cells"); err != nil {
		return nil, err
	}
	if err := names.claim(ContextsTable, "pmm's table of calling contexts"); err != nil {
		return nil, err
	}
	for _, name := range LoadTables {
		if err := names.claim(name, "pmm's table "+name); err != nil {
			return nil, err
		}
	}
	for _, q := range prog.Questions {
		kinds, err := questionKinds(q)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.Name, err)
		}
		for _, k := range kinds {
			t := Table{
				ID:       uint16(len(s.Tables) + 1),
				Name:     tableName(q.Name, k),
				Question: q.Name,
				Prim:     k,
				Columns:  columns(k),
			}
			if err := names.claim(t.Name, fmt.Sprintf("the %s table of question %s", k, q.Name)); err != nil {
				return nil, err
			}
			var indexes [][]string
			t.Key, indexes = tableKey(k, t.Columns)
			nested, other := goroutineUses(q)
			for _, cols := range indexes {
				x := Index{Name: t.Name + "_by_" + strings.Join(cols, "_"), Columns: cols}
				if k == kindGoroutine && nested {
					cp := Copy{Name: goroutineCopy(q.Name), Columns: cols}
					if err := names.claim(cp.Name, "the copy of "+t.Name+" by goroutine"); err != nil {
						return nil, err
					}
					if !other {
						cp.Replaces = x.Name
					}
					t.Copies = append(t.Copies, cp)
					if !other {
						continue
					}
				}
				if err := names.claim(x.Name, "an index of "+t.Name); err != nil {
					return nil, err
				}
				t.Indexes = append(t.Indexes, x)
			}
			s.Tables = append(s.Tables, t)
		}
		if q.Aggregate != nil {
			t := Table{ID: uint16(len(s.Tables) + 1), Name: tableName(q.Name, kindCells), Question: q.Name, Prim: kindCells,
				Columns: []Column{{Name: "cell", Type: "INTEGER", Event: true}}}
			cols := headColumns(q.Head)
			for i, in := range q.Aggregate.Inputs {
				if in {
					t.Columns = append(t.Columns, Column{Name: cols[i]})
				}
			}
			if err := names.claim(t.Name, "the cells table of question "+q.Name); err != nil {
				return nil, err
			}
			s.Tables = append(s.Tables, t)
		}
	}

	for _, e := range prog.Events {
		var users []*spec.Question
		for _, q := range prog.Questions {
			if slices.Contains(q.Uses, e.Name) {
				users = append(users, q)
			}
		}
		if len(users) == 0 {
			continue
		}
		sql, err := eventSQL(e, users)
		if err != nil {
			return nil, err
		}
		if err := names.claim(SQLName(e.Name), "derived event "+e.Name); err != nil {
			return nil, err
		}
		s.Views = append(s.Views, View{Name: SQLName(e.Name), SQL: sql})
	}
	for _, q := range prog.Questions {
		sql, partials, err := questionSQL(q)
		if err != nil {
			return nil, err
		}
		if err := names.claim(SQLName(q.Name), "question "+q.Name); err != nil {
			return nil, err
		}
		s.Views = append(s.Views, View{Name: SQLName(q.Name), SQL: sql})
		if partials != "" {
			name := PartialsView(q.Name)
			if err := names.claim(name, "partial results of "+q.Name); err != nil {
				return nil, err
			}
			s.Views = append(s.Views, View{Name: name, SQL: partials})
		}
	}
	return s, nil
}

// PartialsView is the view of the partial results of aggregate question
// q: run, its group keys (named as in its view), then pmm_n, pmm_sum,
// pmm_min and pmm_max of each partial result (a group of the recorded
// tuples, or a cell). Combined over runs (counts and sums add, minima
// and maxima combine, an average is the sum of the sums over the sum of
// the counts), they answer the question for many runs at once.
func PartialsView(q string) string { return tableName(q, "partials") }

// Table returns the table of kind prim of the question named question, or
// nil if the question has no such table.
func (s *Schema) Table(question, prim string) *Table {
	for i := range s.Tables {
		if t := &s.Tables[i]; t.Question == question && t.Prim == prim {
			return t
		}
	}
	return nil
}

// Statements returns the SQL that creates the schema: the tables (each
// with the run column first), if they do not exist yet, then the views,
// each dropped first so that a database can take the views of changed
// questions. The views read tables, and the views of aggregates used as
// relations, which SQLite resolves when a view is read: their order is
// free.
func (s *Schema) Statements() []string {
	stmts := []string{"CREATE TABLE IF NOT EXISTS " + SitesTable + " (" + sitesColumns + ")",
		"CREATE TABLE IF NOT EXISTS " + SiteVarsTable + " (" + siteVarsColumns + ")",
		"CREATE TABLE IF NOT EXISTS " + CellsTable + " (" + cellsColumns + ")"}
	for _, t := range s.Tables {
		cols := []string{"run INTEGER"}
		for _, c := range t.Columns {
			cols = append(cols, strings.TrimSpace(c.Name+" "+c.Type))
		}
		rowid := ""
		if len(t.Key) > 0 {
			cols = append(cols, "PRIMARY KEY (run, "+strings.Join(t.Key, ", ")+")")
			rowid = " WITHOUT ROWID"
		}
		stmts = append(stmts, "CREATE TABLE IF NOT EXISTS "+t.Name+" ("+strings.Join(cols, ", ")+")"+rowid)
		for _, x := range t.Indexes {
			stmts = append(stmts, x.SQL(t.Name))
		}
		for _, cp := range t.Copies {
			cols := []string{"run INTEGER"}
			for _, name := range cp.Columns {
				i := slices.IndexFunc(t.Columns, func(c Column) bool { return c.Name == name })
				cols = append(cols, strings.TrimSpace(name+" "+t.Columns[i].Type))
			}
			stmts = append(stmts, "CREATE TABLE IF NOT EXISTS "+cp.Name+" ("+strings.Join(cols, ", ")+", PRIMARY KEY (run, "+strings.Join(cp.Columns, ", ")+")) WITHOUT ROWID")
		}
	}
	for _, v := range s.Views {
		stmts = append(stmts, "DROP VIEW IF EXISTS "+v.Name, "CREATE VIEW "+v.Name+" AS\n"+v.SQL)
	}
	return stmts
}

// questionKinds returns the stored relations q uses, in kindOrder.
func questionKinds(q *spec.Question) ([]string, error) {
	used := map[string]bool{}
	for _, name := range q.Primitives() {
		kinds, err := StoredRelations(spec.Lookup(name))
		if err != nil {
			return nil, err
		}
		for _, k := range kinds {
			used[k] = true
		}
	}
	for _, c := range q.Disjuncts {
		if anyEndAlone(c) {
			used[kindEnd] = true // the view reads the end rows (EndAlone)
		}
	}
	var out []string
	for _, k := range kindOrder() {
		if used[k] {
			out = append(out, k)
		}
	}
	return out, nil
}

// tableName is the table of kind for question: the question's SQL name,
// "__", then the kind's ("q__end": the whole name is not a keyword).
func tableName(question, kind string) string {
	return SQLName(question + "__" + kind)
}

// SQLName returns the name of a question, event, variable or primitive in
// SQL: lower case, with "-" and other characters that an unquoted SQLite
// identifier cannot hold replaced by "_" ("*" by "_star"), and a "_"
// added where the result would be a keyword, start with a digit, or use
// SQLite's reserved prefix.
func SQLName(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		case r == '*':
			b.WriteString("_star")
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || s[0] >= '0' && s[0] <= '9' || strings.HasPrefix(s, "sqlite_") {
		s = "_" + s
	}
	if isKeyword(s) {
		s += "_"
	}
	return s
}

// nameSet finds SQL names that two definitions would share.
type nameSet map[string]string // SQL name → what has it

func newNameSet() nameSet { return nameSet{} }

func (n nameSet) claim(name, owner string) error {
	if other, ok := n[name]; ok {
		return fmt.Errorf("schema: %s and %s have the same SQL name %s; rename one", other, owner, name)
	}
	n[name] = owner
	return nil
}
