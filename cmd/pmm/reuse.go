package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/static"
)

// instrumentKey hashes what pmm instrument makes .pmm/ from: the static
// database's fingerprint (the module's sources, go.mod and go.sum, the
// analysis flags and the environment the go command reads), the
// question files, the mode, and the pmm executable itself (exe, its
// hash: executableHash).
func instrumentKey(fingerprint string, files []string, mode instrumentMode, exe string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "static %s\nmode %s twin %v\n", fingerprint, mode.name, mode.twin)
	for _, f := range files {
		if err := static.HashFile(h, f, f); err != nil {
			return "", err
		}
	}
	fmt.Fprintf(h, "pmm %s\n", exe)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// executableHash hashes the pmm executable: a build of pmm without
// version information has no other name, and what it generates and how
// it formats may differ from another's.
func executableHash() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if err := static.HashFile(h, exe, "pmm"); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashResult is what executableHash returns.
type hashResult struct {
	hash string
	err  error
}

// unchangedProject returns the project of the last pmm instrument in dir
// (.pmm) if it was made with key and every file of its overlay is still
// there; else nil, and pmm instrument makes it anew.
func unchangedProject(dir, key string) *plan.Project {
	data, err := os.ReadFile(filepath.Join(dir, "plan.json"))
	if err != nil {
		return nil
	}
	var p plan.Project
	if json.Unmarshal(data, &p) != nil || p.Key != key || p.Overlay == "" {
		return nil
	}
	var overlay struct{ Replace map[string]string }
	data, err = os.ReadFile(p.Overlay)
	if err != nil || json.Unmarshal(data, &overlay) != nil || len(overlay.Replace) == 0 {
		return nil
	}
	for _, file := range overlay.Replace {
		if _, err := os.Stat(file); err != nil {
			return nil
		}
	}
	return &p
}
