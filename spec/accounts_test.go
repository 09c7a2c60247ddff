package spec

import (
	"strings"
	"testing"
)

// TestAccountOf checks the principal–agent rule's matching: import
// paths and go-command wildcards, the most specific pattern first, a
// package main by "main", and none matching "".
func TestAccountOf(t *testing.T) {
	patterns := []string{"example.com/m/...", "example.com/m/parser", "example.com/m/db/...", "main"}
	for _, c := range []struct{ pkg, name, want string }{
		{"example.com/m", "m", "example.com/m/..."},
		{"example.com/m/util", "util", "example.com/m/..."},
		{"example.com/m/parser", "parser", "example.com/m/parser"},
		{"example.com/m/parser/lex", "lex", "example.com/m/..."},
		{"example.com/m/db", "db", "example.com/m/db/..."},
		{"example.com/m/db/index", "index", "example.com/m/db/..."},
		{"example.com/mx", "mx", ""},
		{"example.com/other/cmd", "main", "main"},
		{"encoding/json", "json", ""},
	} {
		if got := AccountOf(patterns, c.pkg, c.name); got != c.want {
			t.Errorf("AccountOf(%s) = %q, want %q", c.pkg, got, c.want)
		}
		i := AccountIndex(patterns, c.pkg, c.name)
		if (i == 0) != (c.want == "") || i > 0 && patterns[i-1] != c.want {
			t.Errorf("AccountIndex(%s) = %d, want the index of %q", c.pkg, i, c.want)
		}
	}
	if AccountOf([]string{"a/.../b"}, "a/x/y/b", "b") != "a/.../b" || AccountOf([]string{"a/.../b"}, "a/x/c", "c") != "" {
		t.Error("a wildcard inside a pattern matches as the go command's")
	}
}

func TestAccountPatterns(t *testing.T) {
	if ps, err := AccountPatterns("  a/b   c/...\tmain "); err != nil || strings.Join(ps, ",") != "a/b,c/...,main" {
		t.Errorf("AccountPatterns: %v, %v", ps, err)
	}
	for _, bad := range []string{"", "  ", "a a", "./x", "/x", "x/", "a//b", "a(b)", `a"b`} {
		if _, err := AccountPatterns(bad); err == nil {
			t.Errorf("AccountPatterns(%q) accepted", bad)
		}
	}
}

func TestFuncPackage(t *testing.T) {
	for name, want := range map[string]string{
		"main.F":                            "main",
		"example.com/m/pkg.(*T).M":          "example.com/m/pkg",
		"example.com/m/pkg.F.func1":         "example.com/m/pkg",
		"example.com/m.v2/pkg.Map[...].f":   "example.com/m.v2/pkg",
		"strings.Repeat":                    "strings",
		"example.com/m/pkg.(*Box[...]).Put": "example.com/m/pkg",
	} {
		if got := FuncPackage(name); got != want {
			t.Errorf("FuncPackage(%s) = %s, want %s", name, got, want)
		}
	}
}
