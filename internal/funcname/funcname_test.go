package funcname

import (
	"database/sql"
	"testing"

	_ "modernc.org/sqlite"
)

// TestKey checks the keys of the names the runtime prints and of the
// forms questions write, and that SQLKey computes the same key in SQLite
// as Key does in Go (the views compare pmm_sites with it).
func TestKey(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for name, want := range map[string]string{
		"main.F":               "main.F",
		"main.Max[...]":        "main.Max",
		"main.Max":             "main.Max",
		"main.Max[...].func1":  "main.Max.func1",
		"main.(*Box[...]).Put": "main.(*Box).Put",
		"main.Box[...].Get":    "main.Box.Get",
		"example.com/m/pkg.(*Pair[...]).Swap.func1": "example.com/m/pkg.(*Pair).Swap.func1",
		"gopkg.in/yaml%2ev3.Marshal":                "gopkg.in/yaml%2ev3.Marshal",
	} {
		if got := Key(name); got != want {
			t.Errorf("Key(%q) = %q, want %q", name, got, want)
		}
		var got string
		if err := db.QueryRow("SELECT "+SQLKey("n")+" FROM (SELECT ? AS n)", name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("SQLKey of %q = %q, want %q", name, got, want)
		}
	}
}
