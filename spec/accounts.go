package spec

import (
	"fmt"
	"regexp"
	"strings"
)

// Memory accounts (seed 002, ASGMemProf): the key of allocation-account
// is a list of package patterns, written as one string of patterns
// separated by spaces. A pattern is an import path, or one with "..."
// wildcards as the go command writes them ("example.com/m/...": the
// package example.com/m and every package under it). A package main is
// also matched by "main", as function names spell it ("main.F").
// Every stage that charges an allocation to an account (instrument's
// generated code, the reference evaluator) decides with AccountOf.

// AccountPatterns returns the patterns of an accounts string, in the
// order written, or an error that says what is wrong with one.
func AccountPatterns(s string) ([]string, error) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return nil, fmt.Errorf("no package pattern")
	}
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f] {
			return nil, fmt.Errorf("the pattern %q is written twice", f)
		}
		seen[f] = true
		if strings.HasPrefix(f, "/") || strings.HasPrefix(f, ".") || strings.HasSuffix(f, "/") || strings.Contains(f, "//") {
			return nil, fmt.Errorf("%q is not a package pattern: write an import path, with ... as a wildcard (example.com/m/...)", f)
		}
		for _, r := range f {
			if r < 0x21 || r == '"' || r == '\\' || r == '\'' || r == '`' || r == ':' || r == ';' || r == ',' || r == '(' || r == ')' {
				return nil, fmt.Errorf("%q is not a package pattern: it has %q", f, r)
			}
		}
	}
	return fields, nil
}

// AccountOf returns the pattern of patterns that pkg (an import path,
// or "main") is charged to: the most specific that matches it (a
// pattern without wildcards before one with, then the longest), "" when
// none does. name is the package's name: a package main matches "main"
// too.
func AccountOf(patterns []string, pkg, name string) string {
	best := ""
	for _, p := range patterns {
		if !matchPackage(p, pkg) && !(name == "main" && p == "main") {
			continue
		}
		if best == "" || specific(p) > specific(best) {
			best = p
		}
	}
	return best
}

// AccountIndex is AccountOf as the index of the pattern in patterns,
// from 1; 0 when none matches.
func AccountIndex(patterns []string, pkg, name string) int {
	acc := AccountOf(patterns, pkg, name)
	for i, p := range patterns {
		if p == acc && acc != "" {
			return i + 1
		}
	}
	return 0
}

// specific orders patterns: an import path before a wildcard, then the
// longer first.
func specific(p string) int {
	n := len(p)
	if !strings.Contains(p, "...") {
		n += 1 << 20
	}
	return n
}

// matchPackage reports whether pattern matches the import path pkg, as
// the go command matches patterns: "..." matches any string, and a
// trailing "/..." matches the empty string too.
func matchPackage(pattern, pkg string) bool {
	if !strings.Contains(pattern, "...") {
		return pattern == pkg
	}
	re := regexp.QuoteMeta(pattern)
	re = strings.ReplaceAll(re, `\.\.\.`, `.*`)
	if strings.HasSuffix(re, `/.*`) {
		re = strings.TrimSuffix(re, `/.*`) + `(/.*)?`
	}
	ok, _ := regexp.MatchString("^"+re+"$", pkg)
	return ok
}

// FuncPackage is the package of a function named as the runtime names
// it ("example.com/m/pkg.(*T).M" is in example.com/m/pkg, "main.F" in
// main).
func FuncPackage(name string) string {
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return name
	}
	return name[:slash+1+dot]
}
