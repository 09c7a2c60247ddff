// Package tmpfs mounts small tmpfs filesystems for the tests of what pmm
// and its runtime do when a disk is full or read-only. Mounting needs
// linux and root (or CAP_SYS_ADMIN): where it is impossible, the test is
// skipped with the reason.
package tmpfs

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// Mount mounts a tmpfs of the given size ("2m", "256k") at dir, creating
// dir, and unmounts it when the test ends.
func Mount(t testing.TB, dir, size string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skipf("a full disk is simulated with a small tmpfs, which needs linux (this is %s)", runtime.GOOS)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (it needs root or CAP_SYS_ADMIN): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
}

// Remount changes the options of the tmpfs mounted at dir: "ro" makes it
// read-only, "size=64m" resizes it.
func Remount(t testing.TB, dir, options string) {
	t.Helper()
	if out, err := exec.Command("mount", "-o", "remount,"+options, dir).CombinedOutput(); err != nil {
		t.Fatalf("remount %s %s: %v: %s", dir, options, err, out)
	}
}
