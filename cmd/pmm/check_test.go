package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runPMM runs pmm in-process in dir and returns its exit code and output.
func runPMM(t testing.TB, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(&env{stdout: &out, stderr: &errOut, dir: dir}, args)
	return code, out.String(), errOut.String()
}

// containsAll reports each of wants that got lacks.
func containsAll(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, got)
		}
	}
}

func TestCheckFigure42(t *testing.T) {
	code, out, errOut := runPMM(t, "../../testdata/fig41", "check", "-v", "questions.pmm")
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	containsAll(t, "output", out,
		"ok: 1 event, 1 question",
		"fns-call-foo-and-bar (x)",
		"monitor-fns-dura-params (x y)",
		"primitives: =, calls, duration, function-execution, parameter, parameters",
		"(exists (f foo bar p z)",
		"(not (= p 0))")
}

func TestCheckErrors(t *testing.T) {
	dir := t.TempDir()
	bad := "(defquestion q :definition\n  ((f d) s.t. (and (function-execution f \"main.F\")\n                   (duraton f d))))\n(defquestion r :definition ((f) s.t. (calls f f)))\n"
	if err := os.WriteFile(filepath.Join(dir, "bad.pmm"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runPMM(t, dir, "check", "bad.pmm")
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if out != "" {
		t.Errorf("stdout should be empty on errors, got:\n%s", out)
	}
	containsAll(t, "stderr", errOut,
		filepath.Join(dir, "bad.pmm")+":3:20: unknown event or relation duraton",
		"\t                   ^\n",
		"hint: did you mean duration?",
		"bad.pmm:4:45: the type of event f is not known",
		"2 errors")
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, exitUsage, "Usage:"},
		{[]string{"chek"}, exitUsage, `did you mean "check"?`},
		{[]string{"check"}, exitUsage, "no files given"},
		{[]string{"check", "-nosuchflag", "x.pmm"}, exitUsage, "flag provided but not defined"},
		{[]string{"check", "missing.pmm"}, exitUsage, "no such file"},
	} {
		code, _, errOut := runPMM(t, t.TempDir(), c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("pmm %v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

func TestHelp(t *testing.T) {
	code, out, _ := runPMM(t, ".", "help")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, c := range commands() {
		if !strings.Contains(out, c.name) {
			t.Errorf("pmm help does not list %s", c.name)
		}
		code, detail, _ := runPMM(t, ".", "help", c.name)
		if code != exitOK || !strings.Contains(detail, "Usage: pmm "+c.name) {
			t.Errorf("pmm help %s: exit %d, output:\n%s", c.name, code, detail)
		}
		code, detail, errOut := runPMM(t, ".", c.name, "-h")
		if code != exitOK || !strings.Contains(detail+errOut, "Usage: pmm "+c.name) {
			t.Errorf("pmm %s -h: exit %d, output:\n%s%s", c.name, code, detail, errOut)
		}
	}
	if _, detail, _ := runPMM(t, ".", "help", "check"); !strings.Contains(detail, "-v") {
		t.Errorf("pmm help check does not list its flags:\n%s", detail)
	}
}

func TestChangeDir(t *testing.T) {
	code, out, errOut := runPMM(t, "../..", "-C", "testdata/fig41", "check", "questions.pmm")
	if code != exitOK || !strings.Contains(out, "ok: 1 event, 1 question") {
		t.Errorf("pmm -C testdata/fig41 check: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runPMM(t, ".", "-C", "no/such/dir", "check", "x.pmm"); code != exitUsage || !strings.Contains(errOut, "not a directory") {
		t.Errorf("pmm -C no/such/dir: exit %d, %s", code, errOut)
	}
}
