package plan

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/spec"
)

// Project is what pmm instrument leaves in .pmm/plan.json, the contract
// with the commands that build, run and answer (pmm run, test, answer,
// stats): they read only it and pmm.db.
type Project struct {
	Root       string         `json:"root"`
	Module     string         `json:"module"`
	Overlay    string         `json:"overlay"`
	Questions  []string       `json:"questions"`
	Tables     []schema.Table `json:"tables"`
	Statements []string       `json:"statements"`
	Sites      []ProjectSite  `json:"sites"`
	Skipped    []string       `json:"skipped,omitempty"`
	// RunTime are the tests run time decides, and those left to the
	// answer because some site cannot take part.
	RunTime []ProjectDecision `json:"run_time,omitempty"`
	// Incomplete are the reasons why answers may be incomplete or
	// inexact; pmm run and pmm test load them into pmm_incomplete.
	Incomplete []Incomplete `json:"incomplete,omitempty"`
	// Walks are, by heap walk (reachable-objects, reachable-bytes: its
	// Go expression and membership type, spec.WalkKey), the questions
	// that ask for it: those whose answers a walk that met what it
	// cannot walk makes incomplete.
	Walks map[string][]string `json:"walks,omitempty"`
	// Untested are, when test files were not instrumented (no --tests),
	// the reasons pmm test adds: the calls in test files are not recorded.
	Untested []Incomplete `json:"untested,omitempty"`
	// Tags are the build tags of the instrumentation (--tags), sorted:
	// pmm run and pmm test build with them, and refuse others.
	Tags []string `json:"tags,omitempty"`
	// Units are, per question, the unit of each column of its answer
	// after run ("" for none): pmm answer names them in its tables.
	Units map[string][]string `json:"units,omitempty"`
	// Shapes are, per question, what the columns of its answer hold: the
	// exports (pmm answer -format pprof) find functions and measures there.
	Shapes map[string]AnswerShape `json:"shapes,omitempty"`
	// Hot are the functions whose every execution a site records as
	// tuples (it has no run-time filters) and that may run often: a
	// run may record millions of them (pmm instrument and pmm run warn).
	Hot []HotFunction `json:"hot,omitempty"`
	// Key hashes what the instrumentation was made from: the static
	// database's fingerprint (the sources, go.mod, the analysis), the
	// questions, the mode and pmm itself. pmm instrument with the same
	// key reuses .pmm/ as it is.
	Key string `json:"key,omitempty"`
}

// HotFunction is a function every execution of which is recorded, and
// why it may run often.
type HotFunction struct {
	Function string `json:"function"`
	Why      string `json:"why"` // "called in a loop at main.go:12:5", "recursive"
}

// AnswerShape is what the columns of a question's answer hold.
type AnswerShape struct {
	// Columns are the kinds of the columns after run: ColumnExecution, ...
	Columns []string `json:"columns"`
	// Aggregate is the aggregate's operation (count, sum, average, min,
	// max), "" for a relation; its number is the last column.
	Aggregate string `json:"aggregate,omitempty"`
}

// The kinds of AnswerShape.Columns.
const (
	ColumnNone      = ""                // a value pmm knows nothing more of
	ColumnExecution = "execution"       // an execution's id (q__exec.id)
	ColumnPoint     = "point id"        // a point's id: 2·id at its execution's begin, 2·id+1 at its end
	ColumnFunction  = "function"        // a function's name, as pprof writes it
	ColumnDuration  = "ns"              // a duration, in nanoseconds
	ColumnTime      = "ns since start"  // a time: nanoseconds since the run began
	ColumnContext   = "calling context" // an event's calling context: its functions, root first, separated by ";"
)

// ProjectDecision is a test of a question that run time decides, or that
// is left to the answer.
type ProjectDecision struct {
	Question string `json:"question"`
	What     string `json:"what"`
	On       bool   `json:"on"`
}

// ProjectSite is a row of pmm_sites: one function recorded at one site,
// or one region of a function.
type ProjectSite struct {
	Site      int      `json:"site"`
	Function  string   `json:"function"`
	Kind      string   `json:"kind"`
	File      string   `json:"file"`
	Line      int      `json:"line"`
	Col       int      `json:"col"`
	Label     string   `json:"label,omitempty"`   // a region site's label, a blocking site's kind
	Operand   string   `json:"operand,omitempty"` // a blocking site's operand
	Questions []string `json:"questions"`         // the questions it records for
	Vars      []string `json:"vars"`              // the events it records, as QUESTION/VARIABLE
	Filtered  bool     `json:"filtered"`          // it counts its entries checked (Site.ChecksEntries)
	// Every says it records tuples for every execution of the function
	// that reaches it: no run-time test of it can drop one.
	Every bool `json:"every,omitempty"`
	// WaitEnd are the questions whose answers wait for the end of its
	// executions: it counts those open, and an answer that may miss one
	// that never ended says so.
	WaitEnd []string `json:"wait_end,omitempty"`
	// BlockedOnly says it records only the blocking operations that
	// blocked (Site.BlockedOnly).
	BlockedOnly bool `json:"blocked_only,omitempty"`
}

// Project returns what plan.json says of the plan of prog's questions,
// whose stored relations are sch's, once its code is generated: its
// decisions, the sites generation skipped and why, the targets it
// records inexactly, and the sites it records. The driver fills in the
// module, the overlay and the build.
func (p *Plan) Project(prog *spec.Program, sch *schema.Schema, skipped []Skip, inexact []Inexact) *Project {
	pr := &Project{Tables: sch.Tables, Statements: sch.Statements()}
	for _, q := range prog.Questions {
		pr.Questions = append(pr.Questions, q.Name)
		pr.addWalks(q)
	}
	for _, d := range p.Decisions() {
		what := "decided at run time: " + d.What
		if !d.On {
			what = "left to the answer (a site cannot take part): " + d.What
		}
		pr.RunTime = append(pr.RunTime, ProjectDecision{Question: prog.Questions[d.Question].Name, What: what, On: d.On})
	}
	skip := map[*Site]bool{}
	for _, s := range skipped {
		skip[s.Site] = true
		what := fmt.Sprintf("%s of %s", s.Site.Kind, strings.Join(s.Site.Functions(), ", "))
		if s.Site.InBody() || s.Site.Kind == spec.SiteGo {
			what = s.Site.regionName()
		}
		pr.Skipped = append(pr.Skipped, fmt.Sprintf("%s: %s not instrumented: %s", s.Site.Position(), what, s.Reason))
	}
	pr.Incomplete = p.Incomplete(skipped, inexact)
	for _, s := range p.Sites {
		if skip[s] {
			continue
		}
		for _, t := range s.Targets {
			ps := ProjectSite{Site: t.SiteID, Function: t.Function, Kind: string(s.Kind), File: s.File, Line: s.Line, Col: s.Col, Label: s.Label, Operand: s.Operand,
				Vars: t.Vars, Filtered: s.ChecksEntries(), Every: len(t.Emits) > 0 && t.recordsEvery() && !s.BlockedOnly, BlockedOnly: s.BlockedOnly}
			seen := map[string]bool{}
			for _, e := range t.Emits {
				if !seen[e.Question] {
					seen[e.Question] = true
					ps.Questions = append(ps.Questions, e.Question)
				}
			}
			for _, ac := range t.Cells {
				if !seen[ac.Question] {
					seen[ac.Question] = true
					ps.Questions = append(ps.Questions, ac.Question)
				}
			}
			pr.Sites = append(pr.Sites, ps)
		}
	}
	return pr
}

// NumSiteIDs returns the largest site number of the plan.
func (p *Plan) NumSiteIDs() int {
	n := 0
	for _, s := range p.Sites {
		for _, t := range s.Targets {
			if t.SiteID > n {
				n = t.SiteID
			}
		}
	}
	return n
}

// Write writes the project to path (plan.json).
func (pr *Project) Write(path string) error {
	data, err := json.MarshalIndent(pr, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// ReadProject reads the project of plan.json at path.
func ReadProject(path string) (*Project, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var pr Project
	if err := json.Unmarshal(data, &pr); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &pr, nil
}

// addWalks adds the heap walks question q asks for to pr.Walks.
func (pr *Project) addWalks(q *spec.Question) {
	for _, c := range q.Disjuncts {
		c.EachAtom(func(a *spec.Atom) {
			if a.Prim.Recorded == nil || a.Prim.Recorded.Walk == "" {
				return
			}
			n := needOf(a, PointBegin)
			key := spec.WalkKey(n.expr, n.member)
			if pr.Walks == nil {
				pr.Walks = map[string][]string{}
			}
			if !slices.Contains(pr.Walks[key], q.Name) {
				pr.Walks[key] = append(pr.Walks[key], q.Name)
			}
		})
	}
}
