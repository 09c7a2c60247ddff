package pmmrt

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// TestAccounts: AccountEnter sets the goroutine's account of a set and
// Leave restores the one before, innermost first; sets are apart; a
// goroutine starts with none (it does not inherit its spawner's); a
// panic unwinds through the deferred Leaves; nothing allocates once the
// goroutine's entry has room for the set. In each store of entries.
func TestAccounts(t *testing.T) {
	inStores(t, func(t *testing.T) {
		if Account(0) != 0 || Account(3) != 0 {
			t.Fatal("an account before any AccountEnter")
		}
		outer := AccountEnter(0, 2)
		other := AccountEnter(3, 1)
		if Account(0) != 2 || Account(3) != 1 || Account(1) != 0 {
			t.Fatalf("accounts %d %d %d, want 2 1 0", Account(0), Account(3), Account(1))
		}
		func() {
			defer AccountEnter(0, 1).Leave()
			if Account(0) != 1 {
				t.Errorf("nested: %d, want 1", Account(0))
			}
		}()
		if Account(0) != 2 {
			t.Errorf("after the nested Leave: %d, want 2", Account(0))
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			if a := Account(0); a != 0 {
				t.Errorf("a new goroutine's account: %d, want 0", a)
			}
		}()
		wg.Wait()
		func() {
			defer func() { recover() }() //nolint:errcheck // the panic is the test's
			defer AccountEnter(0, 3).Leave()
			panic("unwind")
		}()
		if Account(0) != 2 {
			t.Errorf("after a panic unwound a Leave: %d, want 2", Account(0))
		}
		if n := testing.AllocsPerRun(100, func() { AccountEnter(0, 1).Leave(); _ = Account(0) }); n != 0 {
			t.Errorf("AccountEnter, Leave and Account allocate %v times", n)
		}
		other.Leave()
		outer.Leave()
		if Account(0) != 0 || Account(3) != 0 {
			t.Errorf("after every Leave: %d %d, want 0 0", Account(0), Account(3))
		}
	})
}

// TestTrackLive: an object the program keeps is live after main
// returns, one it dropped is not, and the tuple of each is (id, 1 or 0)
// in the table the site gave; pmm's weak pointer keeps nothing alive.
func TestTrackLive(t *testing.T) {
	if !weakPointers {
		t.Skip("a Go without weak pointers")
	}
	dir := useTestLog(t, true, 1<<16, 1<<16)
	// No counters file (TestCounters makes the process's): the sites'
	// counts of open objects are generated code's, checked end to end.
	if atomic.CompareAndSwapInt32(&countersOK, 0, 2) {
		defer atomic.StoreInt32(&countersOK, 0)
	}
	type obj struct {
		next *obj
		n    [4]int64
	}
	tables := []uint16{9, 10}
	kept := &obj{}
	TrackLive(tables, 41, 0, unsafe.Pointer(kept))
	func() {
		dropped := &obj{}
		TrackLive(tables, 42, 0, unsafe.Pointer(dropped))
	}()
	s := make([]byte, 100)
	TrackLive(tables[:1], 43, 0, *(*unsafe.Pointer)(unsafe.Pointer(&s)))
	finishLive()
	runtime.KeepAlive(kept)
	Close()
	live := map[uint16]map[int64]int64{9: {}, 10: {}}
	for _, r := range allRecords(readSegments(t, dir)) {
		if live[r.table] != nil && len(r.fields) == 2 {
			live[r.table][r.fields[0].Int] = r.fields[1].Int
		}
	}
	if l := live[9]; len(l) != 3 || l[41] != 1 || l[42] != 0 || l[43] != 0 {
		t.Errorf("liveness by id in table 9: %v, want 41: 1, 42: 0, 43: 0", l)
	}
	if l := live[10]; len(l) != 2 || l[41] != 1 || l[42] != 0 {
		t.Errorf("liveness by id in table 10: %v, want 41: 1, 42: 0", l)
	}
}

// BenchmarkAccounts is the cost of an accounted function's entry and
// exit (AccountEnter and Leave), and of an agent's allocation site
// reading the account (Account), in the fast store.
func BenchmarkAccounts(b *testing.B) {
	AccountEnter(0, 1).Leave() // the goroutine's entry has room for set 0
	b.Run("enter-leave", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			AccountEnter(0, 1).Leave()
		}
	})
	b.Run("read", func(b *testing.B) {
		c := AccountEnter(0, 2)
		for i := 0; i < b.N; i++ {
			if Account(0) != 2 {
				b.Fatal("wrong account")
			}
		}
		c.Leave()
	})
}

// BenchmarkTrackLive is the cost of tracking one object's liveness
// (TrackLive: a weak pointer and an entry in the list) on top of its
// allocation; the liveness itself is read once, when main returns.
func BenchmarkTrackLive(b *testing.B) {
	if !weakPointers {
		b.Skip("a Go without weak pointers")
	}
	type obj struct {
		next *obj
		v    int64
	}
	var sink *obj
	tables := []uint16{1}
	b.Run("alloc", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink = &obj{v: int64(i)}
		}
	})
	b.Run("alloc-track", func(b *testing.B) {
		if !Enabled() {
			b.Fatal("recording is off: TrackLive would track nothing")
		}
		if atomic.CompareAndSwapInt32(&countersOK, 0, 2) {
			defer atomic.StoreInt32(&countersOK, 0)
		}
		for i := 0; i < b.N; i++ {
			sink = &obj{v: int64(i)}
			TrackLive(tables, uint64(i), 0, unsafe.Pointer(sink))
		}
		liveMu.Lock()
		n := 0
		for _, chunk := range tracked {
			n += len(chunk)
		}
		if n != b.N {
			b.Fatalf("%d objects tracked, want %d", n, b.N)
		}
		tracked = nil
		liveMu.Unlock()
	})
	_ = sink
}
