// Command callbacks reaches functions only through code outside the
// module, which calls them back: sort.Slice, sync.Once.Do, strings.Map,
// fmt and sort.Sort. static and sites must keep them reachable.
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
)

type person struct {
	name string
	age  int
}

// sort.Slice calls the closure.
func sortPeople(ps []person) {
	sort.Slice(ps, func(i, j int) bool { return ps[i].name < ps[j].name })
}

var (
	once   sync.Once
	config string
)

// sync.Once.Do calls loadConfig, a named function.
func setup() { once.Do(loadConfig) }

func loadConfig() { config = "loaded" }

// reload calls loadConfig directly, not under setup.
func reload() { loadConfig() }

var twice sync.Once

// apply passes its parameter on to Do: the trace follows it to the
// arguments of apply's callers.
func apply(f func()) { twice.Do(f) }

func prepare() { apply(func() { config += "!" }) }

var handlers = map[string]func() string{"a": handlerA, "b": handlerB}

func handlerA() string { return "a" }
func handlerB() string { return "b" }

// The map loses the trace: every function of that signature used as a
// value stands for the one passed.
func dispatch(name string) string { return sync.OnceValue(handlers[name])() }

type rot int

func (r rot) shift(c rune) rune {
	if c >= 'a' && c <= 'z' {
		return 'a' + (c-'a'+rune(r))%26
	}
	return c
}

// strings.Map calls the method value r.shift.
func encode(s string) string {
	r := rot(13)
	return strings.Map(r.shift, s)
}

type celsius float64

func (c celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

// fmt.Sprint calls String.
func show(c celsius) string { return fmt.Sprint(c) }

type kelvin float64

func (k kelvin) String() string { return fmt.Sprintf("%.1fK", float64(k)) }

// logf passes its arguments on to fmt, which calls their String methods.
func logf(format string, args ...any) { fmt.Fprintf(os.Stdout, format, args...) }

func report(k kelvin) { logf("temperature %v\n", k) }

type byAge []person

func (s byAge) Len() int           { return len(s) }
func (s byAge) Less(i, j int) bool { return s[i].age < s[j].age }
func (s byAge) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }

// sort.Sort calls Len, Less and Swap through sort.Interface.
func sortByAge(ps []person) { sort.Sort(byAge(ps)) }

// direct calls the callbacks directly, outside the functions above.
func direct(ps []person) {
	fmt.Println(celsius(1).String(), rot(1).shift('a'), byAge(ps).Less(0, 1))
}

func main() {
	ps := []person{{"carol", 35}, {"alice", 30}, {"bob", 25}}
	sortPeople(ps)
	sortByAge(ps)
	setup()
	setup()
	reload()
	prepare()
	fmt.Println(encode("hello"), show(21.5), show(-3), config, ps)
	report(300)
	direct(ps)
	fmt.Println(dispatch("a"))
}
