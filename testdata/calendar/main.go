// Program calendar is the application of SmartMonitor's evaluation (seed
// 001, chapter 6) in Go: appointments and trips, each with a start, a
// duration and participants, and a consistency rule, "no person has two
// overlapping appointments", checked on appointment updates only; it
// fires when it finds a conflict. main applies 200 random updates from a
// fixed seed.
//
// With -hand, the program counts by hand what the evaluation measures:
// the updates, those to appointments and trips, those that made the rule
// fire, and the executions of every function. With PMM_EVAL_MEMSTATS=1
// it prints the bytes it allocated to stderr.
package main

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"sort"
)

// Entry is an appointment or a trip.
type Entry struct {
	Start, Duration int
	People          []string
}

// Update changes one entry.
type Update struct {
	Appointment bool
	ID          int
	Entry       Entry
}

// Calendar holds the entries.
type Calendar struct {
	appointments map[int]Entry
	trips        map[int]Entry
}

// Apply runs one update atomically: the unit the question measures.
func (c *Calendar) Apply(u Update) {
	count("Apply")
	if u.Appointment {
		c.updateAppointment(u.ID, u.Entry)
	} else {
		c.updateTrip(u.ID, u.Entry)
	}
}

func (c *Calendar) updateAppointment(id int, e Entry) {
	count("updateAppointment")
	old, had := c.appointments[id]
	c.appointments[id] = e
	if c.checkConflicts(id) { // the rule fired: repair by undoing
		countFired()
		if had {
			c.appointments[id] = old
		} else {
			delete(c.appointments, id)
		}
	}
}

func (c *Calendar) updateTrip(id int, e Entry) {
	count("updateTrip")
	c.trips[id] = e
}

// checkConflicts is the consistency rule: it fires (returns true) when a
// participant of appointment id has another appointment overlapping it.
func (c *Calendar) checkConflicts(id int) bool {
	count("checkConflicts")
	a := c.appointments[id]
	ids := make([]int, 0, len(c.appointments)) // in order: the same work every run
	for other := range c.appointments {
		ids = append(ids, other)
	}
	sort.Ints(ids)
	for _, other := range ids {
		if other != id && overlap(a, c.appointments[other]) && shareSomeone(a, c.appointments[other]) {
			return true
		}
	}
	return false
}

func overlap(a, b Entry) bool {
	count("overlap")
	return a.Start < b.Start+b.Duration && b.Start < a.Start+a.Duration
}

func shareSomeone(a, b Entry) bool {
	count("shareSomeone")
	for _, p := range a.People {
		for _, q := range b.People {
			if p == q {
				return true
			}
		}
	}
	return false
}

// The hand-written counters, on with -hand.
var (
	hand   bool
	counts = map[string]int{}
	fired  int
)

func count(name string) {
	if hand {
		counts[name]++
	}
}

func countFired() {
	if hand {
		fired++
	}
}

func randomUpdate(rng *rand.Rand, people []string) Update {
	n := 1 + rng.Intn(2)
	var who []string
	for i := 0; i < n; i++ {
		who = append(who, people[rng.Intn(len(people))])
	}
	return Update{
		Appointment: rng.Intn(2) == 0,
		ID:          rng.Intn(30),
		Entry:       Entry{Start: rng.Intn(200), Duration: 1 + rng.Intn(8), People: who},
	}
}

func main() {
	flag.BoolVar(&hand, "hand", false, "count updates and executions by hand")
	n := flag.Int("n", 200, "updates")
	flag.Parse()
	rng := rand.New(rand.NewSource(1))
	people := []string{"ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal"}
	c := &Calendar{appointments: map[int]Entry{}, trips: map[int]Entry{}}
	appointments := 0
	for i := 0; i < *n; i++ {
		u := randomUpdate(rng, people)
		if u.Appointment {
			appointments++
		}
		c.Apply(u)
	}
	fmt.Printf("updates %d appointments %d trips %d kept %d\n", *n, appointments, *n-appointments, len(c.appointments))
	if os.Getenv("PMM_EVAL_MEMSTATS") == "1" { // for the evaluation's benchmark
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		fmt.Fprintln(os.Stderr, "allocated", m.TotalAlloc)
	}
	if hand {
		fmt.Printf("fired %d\n", fired)
		var names []string
		for name := range counts {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			fmt.Printf("executions %s %d\n", name, counts[name])
		}
	}
}
