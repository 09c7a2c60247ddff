package pmmrt

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"pmm.dev/pmm/rt/logfmt"
)

// The shapes of seed 000's snapshot: two simply linked lists and a
// doubly linked one, whose nodes are all of one type.
type reachNode struct {
	val  int
	next *reachNode
	prev *reachNode
	data *reachPayload
}

type reachPayload struct{ a, b int64 }

type reachList struct {
	name string
	head *reachNode
}

func reachListOf(n int, doubly bool) *reachList {
	l := &reachList{name: "list" + strconv.Itoa(n)}
	var last *reachNode
	for i := 0; i < n; i++ {
		nd := &reachNode{val: i, data: &reachPayload{}}
		if last == nil {
			l.head = nd
		} else {
			last.next = nd
			if doubly {
				nd.prev = last
			}
		}
		last = nd
	}
	return l
}

const reachNodeName = "pmm.dev/pmm/rt/pmmrt.reachNode"

// TestReachListsByMembership: the nodes of each list through its
// *reachNode pointers only: 3 and 4, and 5 for the doubly linked one
// (each node once, though prev leads back), where the nodes of every
// list together are 12.
func TestReachListsByMembership(t *testing.T) {
	lists := []*reachList{reachListOf(3, false), reachListOf(4, false), reachListOf(5, true)}
	for i, want := range []int64{3, 4, 5} {
		if got := ReachObjects(lists[i], reachNodeName, "k"); got != want {
			t.Errorf("list %d: %d nodes, want %d", i, got, want)
		}
		if got, want := ReachBytes(lists[i], reachNodeName, "k"), want*int64(unsafe.Sizeof(reachNode{})); got != want {
			t.Errorf("list %d: %d bytes, want %d", i, got, want)
		}
		// From the head's pointer, the same nodes.
		if got := ReachObjects(lists[i].head, reachNodeName, "k"); got != want {
			t.Errorf("list %d from its head: %d nodes, want %d", i, got, want)
		}
	}
	// The root is looked into one level: a slice's array; its *reachList
	// elements lead to no node but through a list, which is no member.
	if got := ReachObjects(lists, reachNodeName, "k"); got != 0 {
		t.Errorf("a slice of lists: %d nodes, want 0", got)
	}
	// A value copy of the head is no object: its successors are.
	if got := ReachObjects(*lists[0].head, reachNodeName, "k"); got != 2 {
		t.Errorf("from a copy of the head: %d nodes, want 2", got)
	}
	if got := ReachObjects(lists[0], "main.Other", "k"); got != 0 {
		t.Errorf("a membership type the list lacks: %d nodes, want 0", got)
	}
}

// TestReachAllSharingAndCycle: everything reachable, each object once,
// against the sizes the test adds up itself.
func TestReachAllSharingAndCycle(t *testing.T) {
	l := reachListOf(3, true)
	// 3 nodes, 3 payloads, the list, its name's bytes.
	want := int64(3 + 3 + 1 + 1)
	wantBytes := int64(3*unsafe.Sizeof(reachNode{}) + 3*unsafe.Sizeof(reachPayload{}) + unsafe.Sizeof(reachList{}) + uintptr(len(l.name)))
	// Sharing: the last node's payload is the first's; a cycle: the last
	// node's next is the head.
	n := l.head.next.next
	n.data = l.head.data
	n.next = l.head
	want--
	wantBytes -= int64(unsafe.Sizeof(reachPayload{}))
	if got := ReachObjects(l, ReachAll, "k"); got != want {
		t.Errorf("%d objects, want %d", got, want)
	}
	if got := ReachBytes(l, ReachAll, "k"); got != wantBytes {
		t.Errorf("%d bytes, want %d", got, wantBytes)
	}
	if n, b := Reach(l, ReachAll, "k"); n != want || b != wantBytes {
		t.Errorf("Reach: %d objects and %d bytes, want %d and %d", n, b, want, wantBytes)
	}
	if got := ReachObjects(l, reachNodeName, "k"); got != 3 {
		t.Errorf("%d nodes in the cycle, want 3", got)
	}
}

// TestReachKinds: slices, maps, strings and interfaces, as MEMORY.md
// defines their objects.
func TestReachKinds(t *testing.T) {
	type holder struct {
		s    []int64
		sub  []int64 // the same array from its start: one object
		m    map[int32]int64
		i    interface{}
		str  string
		nums [2]*int64
	}
	x, y := new(int64), new(int64)
	s := make([]int64, 2, 5)
	h := &holder{s: s, sub: s[:1], m: map[int32]int64{1: 1, 2: 2}, i: x, str: "héllo", nums: [2]*int64{x, y}}
	want := int64(1 + 1 + 1 + 1 + 2) // holder, array, map, string, x, y
	wantBytes := int64(unsafe.Sizeof(holder{})) + 5*8 + 2*(4+8) + int64(len(h.str)) + 8 + 8
	if got := ReachObjects(h, ReachAll, "k"); got != want {
		t.Errorf("%d objects, want %d", got, want)
	}
	if got := ReachBytes(h, ReachAll, "k"); got != wantBytes {
		t.Errorf("%d bytes, want %d", got, wantBytes)
	}
	// A slice of members: each element reached is one member; a pointer
	// to one of them is the same member.
	nodes := make([]reachNode, 4)
	nodes[0].next = &nodes[2]
	if got := ReachObjects(nodes, reachNodeName, "k"); got != 4 {
		t.Errorf("a slice of 4 nodes: %d, want 4", got)
	}
	if got := ReachObjects(map[string]*reachNode{"a": &nodes[0], "b": &nodes[0], "c": &nodes[1]}, reachNodeName, "k"); got != 3 {
		t.Errorf("a map to 2 nodes, one leading to a third: %d, want 3", got)
	}
	if got := ReachObjects(nil, ReachAll, "k"); got != 0 {
		t.Errorf("nil: %d objects", got)
	}
}

// TestReachIncomplete: a channel the walk would follow leaves a note;
// one a membership walk does not follow does not.
func TestReachIncomplete(t *testing.T) {
	dir := t.TempDir()
	std.mu.Lock()
	old := std.dir
	std.dir = dir
	std.mu.Unlock()
	defer func() {
		std.mu.Lock()
		std.dir = old
		std.mu.Unlock()
	}()
	type withChan struct {
		c    chan int
		next *reachNode
	}
	notes := func() []string {
		files, _ := filepath.Glob(filepath.Join(dir, "logs", "*"+logfmt.IncompleteFileSuffix))
		return files
	}
	v := &withChan{c: make(chan int), next: &reachNode{}}
	if got := ReachObjects(v, reachNodeName, "k"); got != 1 || len(notes()) != 0 {
		t.Fatalf("membership walk: %d nodes, notes %v; want 1 and none", got, notes())
	}
	if got := ReachObjects(v, ReachAll, "k"); got != 2 {
		t.Errorf("walk of everything: %d objects, want 2 (the struct and the node; the channel is not counted)", got)
	}
	files := notes()
	if len(files) != 1 {
		t.Fatalf("notes %v, want one", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil || !strings.Contains(string(data), "a channel") {
		t.Errorf("note %q (%v), want it to name a channel", data, err)
	}
}

// BenchmarkReach is the cost of a walk per object walked: a doubly
// linked list of 1000 nodes, by membership (the nodes only) and of
// everything (nodes and payloads); and, to compare, the nodes counted by
// typed code that handles cycles as a walk must (a set of the nodes
// seen).
func BenchmarkReach(b *testing.B) {
	l := reachListOf(1000, true)
	for _, bc := range []struct {
		name, member string
		objects      int64
	}{{"member", reachNodeName, 1000}, {"all", ReachAll, 2002}, {"typed", "", 1000}} {
		b.Run(bc.name, func(b *testing.B) {
			walk := func() int64 { return ReachObjects(l, bc.member, "k") }
			if bc.member == "" {
				walk = func() int64 { return reachByHand(l) }
			}
			if got := walk(); got != bc.objects {
				b.Fatalf("%d objects, want %d", got, bc.objects)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				walk()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*bc.objects), "ns/object")
		})
	}
}

// reachByHand counts the nodes reachable from l through next and prev.
func reachByHand(l *reachList) int64 {
	seen := map[*reachNode]bool{}
	stack := []*reachNode{l.head}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == nil || seen[n] {
			continue
		}
		seen[n] = true
		stack = append(stack, n.next, n.prev)
	}
	return int64(len(seen))
}

// TestReachConcurrent: walks on several goroutines at once of one
// structure no goroutine writes share no state of pmm's (the walkers
// are pooled, the notes locked): under -race nothing is reported.
func TestReachConcurrent(t *testing.T) {
	l := reachListOf(50, true)
	done := make(chan int64)
	for i := 0; i < 4; i++ {
		go func() {
			var sum int64
			for j := 0; j < 100; j++ {
				sum += ReachObjects(l, reachNodeName, "k") + ReachObjects(l, ReachAll, "k")
			}
			done <- sum
		}()
	}
	for i := 0; i < 4; i++ {
		if got := <-done; got != 100*(50+102) {
			t.Errorf("goroutine %d: %d objects in all, want %d", i, got, 100*(50+102))
		}
	}
}
