package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func mergeCommand() *command {
	return &command{
		name:    "merge",
		summary: "add the runs of other pmm.db files (other machines) to one",
		usage:   "[-o FILE] DB...",
		detail: `
Merge adds the runs recorded in each DB (the .pmm/pmm.db of the same
instrumentation, run on other machines or in other directories) to the
module's .pmm/pmm.db, or to FILE with -o (created if it does not exist).
Each run gets the next free run number, and its tuples, cells, counters
and reasons of incompleteness come with it; the tables and views a DB
has that the target lacks are created, so the target answers the same
questions with the same views. A run merged already (the same run, by
the directory its logs came from) is skipped: merging twice adds
nothing.

The DBs must come from the same instrumentation: their pmm_sites (the
sites and their functions) must be equal, or merge fails and writes
nothing. Then pmm answer -all-runs answers over every run: the rows of
a question with their run, and an aggregate over all the runs at once
(counts and sums add, minima and maxima combine, averages weigh each
run by its tuples).

Example:

	scp host1:app/.pmm/pmm.db host1.db; scp host2:app/.pmm/pmm.db host2.db
	pmm merge host1.db host2.db && pmm answer -all-runs
`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			outFile := fs.String("o", "", "merge into `FILE` (default: the module's .pmm/pmm.db)")
			return func(e *env, args []string) int {
				if len(args) == 0 {
					fmt.Fprintln(e.stderr, "pmm merge: give the databases to merge: pmm merge DB...")
					return exitUsage
				}
				target := *outFile
				if target == "" {
					root, code := moduleRoot(e, "merge")
					if root == "" {
						return code
					}
					if err := os.MkdirAll(pmmDir(root), 0o755); err != nil {
						fmt.Fprintf(e.stderr, "pmm merge: %v\n", err)
						return exitFailure
					}
					target = filepath.Join(pmmDir(root), "pmm.db")
				}
				abs := func(p string) string {
					if filepath.IsAbs(p) {
						return p
					}
					return filepath.Join(e.dir, p)
				}
				target = abs(target)
				for _, src := range args {
					if _, err := os.Stat(abs(src)); err != nil {
						fmt.Fprintf(e.stderr, "pmm merge: %v\n", err)
						return exitUsage
					}
				}
				db, err := openAnswers(target, false)
				if err != nil {
					fmt.Fprintf(e.stderr, "pmm merge: %v\n", err)
					return exitFailure
				}
				defer db.Close()
				for _, src := range args {
					n, err := mergeDB(context.Background(), db, abs(src))
					if err != nil {
						fmt.Fprintf(e.stderr, "pmm merge: %s: %v\n", src, err)
						if errors.As(err, new(mismatch)) {
							return exitUsage
						}
						return exitFailure
					}
					fmt.Fprintf(e.stdout, "%s: %s added to %s\n", src, plural(n, "run"), target)
				}
				return exitOK
			}
		},
	}
}

// mismatch is the error of a database that cannot be merged: bad input.
type mismatch struct{ error }

// mergeDB adds the runs of the database at src to db, in one
// transaction, and returns how many it added.
func mergeDB(ctx context.Context, db *sql.DB, src string) (int, error) {
	// One connection: ATTACH and the temporary table are per connection.
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "ATTACH DATABASE ? AS src", src); err != nil {
		return 0, err
	}
	defer conn.ExecContext(ctx, "DETACH DATABASE src") //nolint:errcheck // the connection closes next
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	type object struct{ kind, name, sql string }
	objects := func(schemaName string) ([]object, error) {
		rows, err := tx.QueryContext(ctx, "SELECT type, name, coalesce(sql, '') FROM "+schemaName+".sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY rowid")
		return scanAll(rows, err, func(o *object) []any { return []any{&o.kind, &o.name, &o.sql} })
	}
	srcObjects, err := objects("src")
	if err != nil {
		return 0, err
	}
	if !slices.ContainsFunc(srcObjects, func(o object) bool { return o.kind == "table" && o.name == "runs" }) {
		return 0, mismatch{fmt.Errorf("not a database of pmm (no runs table)")}
	}
	mainObjects, err := objects("main")
	if err != nil {
		return 0, err
	}
	have := map[string]bool{}
	for _, o := range mainObjects {
		have[o.name] = true
	}
	columns := func(schemaName, table string) ([]string, error) {
		rows, err := tx.QueryContext(ctx, "SELECT name FROM pragma_table_info(?, ?)", table, schemaName)
		return scanAll(rows, err, func(c *string) []any { return []any{c} })
	}
	// The tables first, as the source has them.
	for _, o := range srcObjects {
		if o.kind != "table" {
			continue
		}
		if !have[o.name] {
			if _, err := tx.ExecContext(ctx, o.sql); err != nil {
				return 0, fmt.Errorf("creating %s: %w", o.name, err)
			}
			continue
		}
		a, err := columns("main", o.name)
		if err != nil {
			return 0, err
		}
		b, err := columns("src", o.name)
		if err != nil {
			return 0, err
		}
		if !slices.Equal(a, b) {
			return 0, mismatch{fmt.Errorf("table %s has columns %v, the target's %v: the databases come from different instrumentations (or versions of pmm)", o.name, b, a)}
		}
	}
	// The new run numbers: after the target's, in the source's order; a
	// run whose logs were merged already keeps none.
	stmts := []string{
		"DROP TABLE IF EXISTS temp.pmm_merge_runs",
		"CREATE TEMP TABLE pmm_merge_runs (old INTEGER PRIMARY KEY, new INTEGER)",
		`INSERT INTO temp.pmm_merge_runs (old, new)
		 SELECT s.id, (SELECT coalesce(max(id), 0) FROM main.runs) + row_number() OVER (ORDER BY s.id)
		 FROM src.runs AS s
		 WHERE s.source IS NULL OR NOT EXISTS (SELECT 1 FROM main.runs AS m WHERE m.source = s.source)`,
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return 0, err
		}
	}
	var added int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM temp.pmm_merge_runs").Scan(&added); err != nil {
		return 0, err
	}
	for _, o := range srcObjects {
		if o.kind != "table" {
			continue
		}
		cols, err := columns("src", o.name)
		if err != nil {
			return 0, err
		}
		quoted := make([]string, len(cols))
		for i, c := range cols {
			quoted[i] = quoteIdent(c)
		}
		table := quoteIdent(o.name)
		runCol := map[string]string{"runs": "id"}[o.name]
		if runCol == "" && slices.Contains(cols, "run") {
			runCol = "run"
		}
		if runCol == "" {
			// A table of the instrumentation (pmm_sites, pmm_site_vars):
			// the same in both, or the target's is empty.
			var extra, missing int
			q := "SELECT count(*) FROM (SELECT * FROM src." + table + " EXCEPT SELECT * FROM main." + table + ")"
			if err := tx.QueryRowContext(ctx, q).Scan(&extra); err != nil {
				return 0, err
			}
			q = "SELECT count(*) FROM (SELECT * FROM main." + table + " EXCEPT SELECT * FROM src." + table + ")"
			if err := tx.QueryRowContext(ctx, q).Scan(&missing); err != nil {
				return 0, err
			}
			var targetRows int
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM main."+table).Scan(&targetRows); err != nil {
				return 0, err
			}
			switch {
			case targetRows == 0:
				if _, err := tx.ExecContext(ctx, "INSERT INTO main."+table+" SELECT * FROM src."+table); err != nil {
					return 0, err
				}
			case extra > 0 || missing > 0:
				return 0, mismatch{fmt.Errorf("its %s differs from the target's (%d rows only in it, %d only in the target): the databases come from different instrumentations", o.name, extra, missing)}
			}
			continue
		}
		sel := make([]string, len(cols))
		for i, c := range cols {
			sel[i] = "s." + quoted[i]
			if c == runCol {
				sel[i] = "m.new"
			}
		}
		q := "INSERT INTO main." + table + " (" + strings.Join(quoted, ", ") + ") SELECT " + strings.Join(sel, ", ") +
			" FROM src." + table + " AS s JOIN temp.pmm_merge_runs AS m ON m.old = s." + quoteIdent(runCol)
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return 0, fmt.Errorf("%s: %w", o.name, err)
		}
	}
	// Then the indexes and views the target lacks: the same answers.
	for _, o := range srcObjects {
		if (o.kind == "index" || o.kind == "view") && !have[o.name] && o.sql != "" {
			if _, err := tx.ExecContext(ctx, o.sql); err != nil {
				return 0, fmt.Errorf("creating %s: %w", o.name, err)
			}
		}
	}
	if err := fillMergedCopies(ctx, tx); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, "DROP TABLE temp.pmm_merge_runs"); err != nil {
		return 0, err
	}
	return added, tx.Commit()
}

// fillMergedCopies fills the copies of the target's tables (a calls*
// question's goroutine table by goroutine, NAME_by_g, docs/SCHEMA.md)
// with the rows of the runs merged from a database that has none (one
// of a pmm before the copies): the views read the copy, so without its
// rows those runs would be missing from the answers.
func fillMergedCopies(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT c.name, b.name FROM main.sqlite_master AS c JOIN main.sqlite_master AS b
		ON b.type = 'table' AND c.name = b.name || '_by_g' WHERE c.type = 'table'`)
	type pair struct{ copy, table string }
	pairs, err := scanAll(rows, err, func(p *pair) []any { return []any{&p.copy, &p.table} })
	if err != nil {
		return err
	}
	for _, p := range pairs {
		rows, err := tx.QueryContext(ctx, "SELECT name FROM pragma_table_info(?, 'main')", p.copy)
		cols, err := scanAll(rows, err, func(c *string) []any { return []any{c} })
		if err != nil {
			return err
		}
		quoted := make([]string, len(cols))
		for i, c := range cols {
			quoted[i] = quoteIdent(c)
		}
		list := strings.Join(quoted, ", ")
		q := "INSERT OR IGNORE INTO main." + quoteIdent(p.copy) + " (" + list + ") SELECT " + list + " FROM main." + quoteIdent(p.table) +
			" WHERE run IN (SELECT m.new FROM temp.pmm_merge_runs AS m WHERE NOT EXISTS (SELECT 1 FROM main." + quoteIdent(p.copy) + " AS c WHERE c.run = m.new))" +
			" ORDER BY " + list
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("filling %s: %w", p.copy, err)
		}
	}
	return nil
}

// scanAll scans every row of rows (the result of a query that failed
// with err, or not) into a T, through the pointers fields gives.
func scanAll[T any](rows *sql.Rows, err error, fields func(*T) []any) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(fields(&v)...); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// quoteIdent quotes a name for SQL.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
