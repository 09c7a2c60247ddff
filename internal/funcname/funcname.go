// Package funcname is the one form of a function's name that every stage
// of pmm uses, and the key under which a question's name matches it.
//
// A function is named as runtime.FuncForPC and pprof name it: "main.F",
// "example.com/m/pkg.(*T).M", "pkg.F.func1". An instantiation of a
// generic function, or a method of an instantiated generic type, has
// TypeArgs in place of its type arguments: "main.Max[...]",
// "main.(*Box[...]).Put", "main.Max[...].func1". The static database, the
// selected sites, the plan, pmm_sites and the answers hold that form.
//
// A question may leave the type arguments out ("main.Max",
// "main.(*Box).Put") or write them as pprof does: spec turns the name
// into its Key, and every comparison of a question's name with a
// function's is between keys.
package funcname

import "strings"

// TypeArgs stands for the type arguments of a generic function or type
// in a name, as the runtime prints every instantiation.
const TypeArgs = "[...]"

// Key is the form in which a question's name and a function's are
// compared: the name without TypeArgs. "main.Max[...]" and "main.Max"
// are both "main.Max"; "main.(*Box[...]).Put" is "main.(*Box).Put".
func Key(name string) string { return strings.ReplaceAll(name, TypeArgs, "") }

// SQLKey is Key as an SQL expression over expr, a column of names.
func SQLKey(expr string) string { return "replace(" + expr + ", '" + TypeArgs + "', '')" }
