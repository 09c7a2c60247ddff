package sites

import (
	"fmt"
	"sort"
	"strings"

	"pmm.dev/pmm/spec"
)

// Region executions and loop iterations (issue 14, seed 004) are
// recorded at the statements static.db's regions table lists (loops
// only, for iterations): a region variable's sites
// are the statements its function name and label select, every one of
// them when they are variables. No control relation approximates a
// region statically (contains spans goroutines), so the selection is the
// same in every mode.

// ownRegions lists the region-execution and loop-iteration variables
// that c introduces.
func ownRegions(types, outer spec.VarTypes) []string {
	var vars []string
	for v, t := range types {
		if _, inherited := outer[v]; spec.IsRegion(t) && !inherited {
			vars = append(vars, v)
		}
	}
	sort.Strings(vars)
	return vars
}

// regionVariable selects the region statements of variable v, of type
// typ (region-execution or loop-iteration), from its atoms among all.
func (s *selector) regionVariable(v, typ string, all []*spec.Atom) (*Var, error) {
	kind := spec.Lookup(typ).Sites[0]
	vs := &Var{Name: v, kinds: []spec.SiteKind{kind}}
	var where []string
	var described []string
	if typ == spec.TypeIteration {
		where = append(where, "r.loop = 1")
	}
	for _, a := range all {
		if a.Prim.Name != typ || a.Args[0].Lit != nil || a.Args[0].Var != v {
			continue
		}
		vs.atoms = append(vs.atoms, a)
		if n := a.Args[1].Lit; n != nil {
			where = append(where, "f.match_name = "+sqlLiteral(n))
			described = append(described, "in "+n.String())
			vs.name = n
		}
		if l := a.Args[2].Lit; l != nil {
			where = append(where, "r.label = "+sqlLiteral(l))
			described = append(described, "labeled "+l.String())
		}
	}
	if err := s.db.QueryRowContext(s.ctx, "SELECT count(*) FROM regions").Scan(&vs.Candidates); err != nil {
		return nil, fmt.Errorf("reading the static database's regions: %w", err)
	}
	vs.SQL = "SELECT r.id FROM regions r JOIN functions f ON f.id = r.function_id"
	if len(where) > 0 {
		vs.SQL += " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := s.db.QueryContext(s.ctx, "SELECT f.id, f.name, f.in_module, r.label, r.file, r.line, r.col, r.end_line, r.end_col "+
		"FROM regions r JOIN functions f ON f.id = r.function_id WHERE r.id IN ("+vs.SQL+") ORDER BY r.file, r.line, r.col")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", vs.SQL, err)
	}
	defer rows.Close()
	seen := map[int64]bool{}
	for rows.Next() {
		var f Function
		site := Site{Kind: kind}
		if err := rows.Scan(&f.ID, &f.Name, &f.InModule, &site.Label, &site.File, &site.Line, &site.Col, &site.EndLine, &site.EndCol); err != nil {
			return nil, err
		}
		site.Function, site.FuncID = f.Name, f.ID
		site.Reason = "the statement labeled " + site.Label
		if kind == spec.SiteIteration {
			site.Reason = "the body of the loop labeled " + site.Label
		}
		vs.Sites = append(vs.Sites, site)
		if !seen[f.ID] {
			seen[f.ID] = true
			vs.Functions = append(vs.Functions, f)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if typ == spec.TypeIteration {
		described = append([]string{"loop"}, described...)
	}
	if n := vs.Candidates - len(vs.Sites); n > 0 && len(described) > 0 {
		vs.Eliminated = append(vs.Eliminated, Elimination{Count: n, Reason: "not a region " + strings.Join(described, " ")})
	}
	return vs, nil
}

// regionWarning explains why a region variable matches no statement.
func (s *selector) regionWarning(vs *Var) string {
	what := "labeled for, range, switch, select or block statement, nor statement a //pmm:region comment marks,"
	if vs.kinds[0] == spec.SiteIteration {
		what = "labeled for or range loop, nor loop a //pmm:region comment marks,"
	}
	msg := fmt.Sprintf("event %s: no %s matches %s, so nothing will be recorded for it", vs.Name, what, atomList(vs.atoms))
	if vs.name != nil {
		var labels []string
		rows, err := s.db.QueryContext(s.ctx, "SELECT DISTINCT r.label FROM regions r JOIN functions f ON f.id = r.function_id WHERE f.match_name = ? ORDER BY r.label", vs.name.Str)
		if err == nil {
			defer rows.Close()
			for rows.Next() {
				var l string
				if rows.Scan(&l) == nil {
					labels = append(labels, l)
				}
			}
		}
		if len(labels) > 0 {
			msg += fmt.Sprintf(" (%s has the regions %s)", vs.name, strings.Join(labels, ", "))
		}
	}
	return msg
}
