package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// markdownLink matches the target of an inline Markdown link.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinkInsideTheRepository checks the links of README.md and
// docs/*.md: README.md links only to files of the repository, and every
// relative link of the docs names a file that exists in it.
func TestDocsLinkInsideTheRepository(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range append([]string{filepath.Join(root, "README.md")}, docs...) {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, doc)
		for _, m := range markdownLink.FindAllStringSubmatch(string(text), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				if name == "README.md" {
					t.Errorf("%s links to %s, outside the repository", name, m[1])
				}
				continue
			}
			if target == "" { // a link to a heading of the same file
				continue
			}
			if problem := linkProblem(root, filepath.Dir(doc), target); problem != "" {
				t.Errorf("%s links to %s: %s", name, m[1], problem)
			}
		}
	}
}

// linkProblem says what is wrong with a relative link to target from a
// file in dir, of the repository at root; "" when nothing is.
func linkProblem(root, dir, target string) string {
	if filepath.IsAbs(target) {
		return "an absolute path"
	}
	path := filepath.Join(dir, filepath.FromSlash(target))
	if rel, err := filepath.Rel(root, path); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "outside the repository"
	}
	if _, err := os.Stat(path); err != nil {
		return "no such file in the repository"
	}
	return ""
}

// TestLinkProblem checks linkProblem on links made up to fail.
func TestLinkProblem(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ dir, target, want string }{
		{root, "docs/ARCHITECTURE.md", ""},
		{filepath.Join(root, "docs"), "LANGUAGE.md", ""},
		{root, "../shared/ARCHITECTURE.md", "outside the repository"},
		{filepath.Join(root, "docs"), "../../x.md", "outside the repository"},
		{root, "docs/NOWHERE.md", "no such file"},
		{root, "/etc/passwd", "an absolute path"},
	}
	for _, tt := range tests {
		if got := linkProblem(root, tt.dir, tt.target); !strings.Contains(got, tt.want) || (tt.want == "") != (got == "") {
			t.Errorf("linkProblem(%s, %s) = %q, want %q", tt.dir, tt.target, got, tt.want)
		}
	}
}
