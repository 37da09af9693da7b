package runner_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The Examples are what a Go program outside this module can write: they import no package
// under internal/ (which Go refuses to such a program), so every name they use, the agents
// they start included, is exported by runner, spec and result.
func TestExamplesImportNoInternalPackage(t *testing.T) {
	files, err := filepath.Glob("*example_test.go")
	if err != nil || len(files) < 2 {
		t.Fatalf("example files %v (%v): want the local and the agents Examples", files, err)
	}
	for _, f := range files {
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.Contains(p, "/internal/") {
				t.Errorf("%s imports %s: a program outside the module cannot", f, p)
			}
		}
	}
}
