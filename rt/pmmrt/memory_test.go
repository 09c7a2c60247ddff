package pmmrt

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A test binary started with memoryChildEnv=N records N tuples, prints
// its peak resident set size and exits (TestMemoryBounded).
const memoryChildEnv = "PMMRT_MEMORY_CHILD"

func TestMain(m *testing.M) {
	if n, err := strconv.Atoi(os.Getenv(memoryChildEnv)); err == nil {
		for i := 0; i < n; i++ {
			Emit2(1, int64(i), int64(i))
		}
		fmt.Println(peakRSS())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// peakRSS returns the process's peak resident set size in bytes (VmHWM,
// which counts the mapped pages of the log files), or -1.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 3 && fields[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			return kb << 10
		}
	}
	return -1
}

// TestMemoryBounded records many more tuples than the memory the process
// may use, and checks that its peak RSS stays bounded: the segments are
// unmapped as they fill. 10 million tuples always; 100 million (2.4 GB)
// unless -short.
func TestMemoryBounded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/status")
	}
	for _, n := range []int{10000000, 100000000} {
		if n > 10000000 && testing.Short() {
			t.Skip("100M tuples: not with -short")
		}
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", memoryChildEnv, n), "PMM_DIR="+dir)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			peak, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
			if err != nil || peak <= 0 {
				t.Fatalf("child printed %q", out)
			}
			data := int64(n) * 24
			t.Logf("%d tuples (%d MiB) in %v: peak RSS %d MiB", n, data>>20, time.Since(start).Round(time.Millisecond), peak>>20)
			if limit := int64(128 << 20); peak > limit {
				t.Errorf("peak RSS %d MiB > %d MiB", peak>>20, limit>>20)
			}
			segs := readSegmentCount(t, dir)
			if segs*lastSegmentSize < int(data) {
				t.Errorf("%d segments for %d bytes of records", segs, data)
			}
		})
	}
}

func readSegmentCount(t *testing.T, dir string) int {
	entries, err := os.ReadDir(dir + "/logs")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}
