// Command heapwalk holds seed 000's snapshot (two simply linked lists
// of 3 and 4 nodes, one node type) and a graph with sharing and a
// cycle, and prints, as "want NAME VALUE" lines, the objects and bytes
// reachable from them that it counts itself: by hand, walking its
// structures, and by construction, adding up unsafe.Sizeof of what it
// allocates. questions.pmm asks pmm the same with reachable-objects and
// reachable-bytes (cmd/pmm TestHeapWalk).
package main

import (
	"fmt"
	"sync"
	"unsafe"
)

// Node is seed 000's NodeEntry: the nodes of every list are of this one
// type, so a count by type gives 7 where the lists have 3 and 4.
type Node struct {
	val     int
	next    *Node
	payload *Payload
}

// Payload is what a node holds: reachable from a list, but no node.
type Payload struct{ a, b int64 }

// List is seed 000's SimplyLinkedList.
type List struct {
	name string
	head *Node
}

// nodesMade counts every Node allocated: the count by type.
var nodesMade int

func newList(name string, n int) *List {
	l := &List{name: name}
	for i := n - 1; i >= 0; i-- {
		l.head = &Node{val: i, next: l.head, payload: &Payload{a: int64(i)}}
		nodesMade++
	}
	return l
}

// Length counts l's nodes by hand.
//
//go:noinline
func Length(l *List) int {
	n := 0
	for nd := l.head; nd != nil; nd = nd.next {
		n++
	}
	return n
}

// Size is Length of a list that may be nil.
//
//go:noinline
func Size(l *List) int {
	if l == nil {
		return 0
	}
	return Length(l)
}

// Push adds a node without a payload at l's head.
//
//go:noinline
func Push(l *List, v int) {
	l.head = &Node{val: v, next: l.head}
	nodesMade++
}

// Vertex is a graph's vertex: its edges in a slice, its label shared
// with other vertices.
type Vertex struct {
	id    int
	out   []*Vertex
	label *Label
}

// Label is shared by many vertices.
type Label struct{ weight, kind int64 }

// Graph holds a vertex from which every other is reachable.
type Graph struct{ root *Vertex }

// made counts the objects and bytes the graph's construction allocates.
var made struct{ objects, bytes int }

func allocated(size uintptr) {
	made.objects++
	made.bytes += int(size)
}

// newGraph makes a ring of n vertices (a cycle), each with an edge to
// the next and, every third, to the one after (sharing: a vertex with
// two referrers), and two labels all vertices share.
func newGraph(n int) *Graph {
	labels := []*Label{{weight: 1}, {weight: 2}}
	allocated(unsafe.Sizeof(Label{}))
	allocated(unsafe.Sizeof(Label{}))
	vs := make([]*Vertex, n)
	for i := range vs {
		vs[i] = &Vertex{id: i, out: make([]*Vertex, 0, 2), label: labels[i%2]}
		allocated(unsafe.Sizeof(Vertex{}))
		allocated(2 * unsafe.Sizeof((*Vertex)(nil)))
	}
	for i, v := range vs {
		v.out = append(v.out, vs[(i+1)%n])
		if i%3 == 0 {
			v.out = append(v.out, vs[(i+2)%n])
		}
	}
	g := &Graph{root: vs[0]}
	allocated(unsafe.Sizeof(Graph{}))
	return g
}

// Visit counts the vertices reachable from g's root by hand.
//
//go:noinline
func Visit(g *Graph) int {
	seen := map[*Vertex]bool{}
	stack := []*Vertex{g.root}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[v] {
			continue
		}
		seen[v] = true
		stack = append(stack, v.out...)
	}
	return len(seen)
}

// Pipe holds a channel, which a walk of everything cannot see through.
type Pipe struct {
	ch   chan int
	last *Node
}

// Drain reads what p's channel holds.
//
//go:noinline
func Drain(p *Pipe) int {
	n := 0
	for len(p.ch) > 0 {
		n += <-p.ch
	}
	return n
}

func main() {
	lists := []*List{newList("list0", 3), newList("list1", 4)}
	fmt.Println("want nodes_by_type", nodesMade)
	nodeSize := int(unsafe.Sizeof(Node{}))
	for _, l := range lists {
		n := Length(l)
		fmt.Println("want nodes_"+l.name, n)
		fmt.Println("want node_bytes_"+l.name, n*nodeSize)
		// Everything reachable from the list: the list, its name's
		// bytes, its nodes and their payloads.
		fmt.Println("want all_objects_"+l.name, 1+1+2*n)
		fmt.Println("want all_bytes_"+l.name, int(unsafe.Sizeof(List{}))+len(l.name)+n*(nodeSize+int(unsafe.Sizeof(Payload{}))))
	}
	// A walk from l.head where l is nil has no value, and the program
	// goes on as it would have.
	size := Size(nil) + Size(lists[0])
	fmt.Println("want heads_walked", 1)
	fmt.Println("want heads_nodes", size)
	before := Length(lists[1])
	Push(lists[1], 9)
	fmt.Println("want push_begin", before)
	fmt.Println("want push_alloc", before) // the new node is linked after its allocation
	fmt.Println("want push_end", Length(lists[1]))

	g := newGraph(10)
	fmt.Println("want graph_vertices", Visit(g))
	fmt.Println("want graph_objects", made.objects)
	fmt.Println("want graph_bytes", made.bytes)

	p := &Pipe{ch: make(chan int, 4), last: &Node{val: 1}}
	p.ch <- 1
	fmt.Println("want pipe_drained", Drain(p))
	// The pipe and its node: the channel is not walked (nor counted).
	fmt.Println("want pipe_objects", 2)

	shareList()
}

// shareList has goroutines push to and measure one list under a lock:
// the walks at the begin of Length and at both ends of Push run while
// the caller holds it, so they read the list as race-free as the
// program does (TestHeapWalkRace builds this under -race).
func shareList() {
	var mu sync.RWMutex
	shared := newList("shared", 2)
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				if i == 0 {
					mu.Lock()
					Push(shared, j)
					mu.Unlock()
				} else {
					mu.RLock()
					Length(shared)
					mu.RUnlock()
				}
			}
		}(i)
	}
	wg.Wait()
	fmt.Println("want shared_pushes", 5)
	fmt.Println("want shared_nodes", Length(shared))
}
