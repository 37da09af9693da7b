package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestScenarioExamplesInDocsParse: every YAML scenario in docs/, README.md and examples/ passes
// 'natsperf run --dry-run' as written (the flags of its workloads included).
func TestScenarioExamplesInDocsParse(t *testing.T) {
	root := filepath.Join("..", "..")
	files := map[string]string{}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	block := regexp.MustCompile("(?s)```ya?ml\n(.*?)```")
	for _, md := range append(docs, filepath.Join(root, "README.md")) {
		b, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range block.FindAllStringSubmatch(string(b), -1) {
			dir := t.TempDir()
			p := filepath.Join(dir, filepath.Base(md)+"-"+strconv.Itoa(i)+".yaml")
			if err := os.WriteFile(p, []byte(m[1]), 0o644); err != nil {
				t.Fatal(err)
			}
			files[p] = md
		}
	}
	examples, _ := filepath.Glob(filepath.Join(root, "examples", "*.yaml"))
	for _, e := range examples {
		files[e] = e
	}
	if len(files) < 3 {
		t.Fatalf("found only %d examples", len(files))
	}
	for p, from := range files {
		r := run(context.Background(), t, nil, "run", p, "--dry-run")
		if r.code != 0 || !strings.Contains(r.out, "cell") {
			t.Errorf("%s (from %s): exit %d\n%s%s", p, from, r.code, r.out, r.err)
		}
	}
}
