package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexV2KeysAndV1Read: index.json is written as run-index/v2 with snake_case axes, and a
// v1 index (axes as {"Name", "Values"}) still reads, so --resume works on an older directory.
func TestIndexV2KeysAndV1Read(t *testing.T) {
	dir := t.TempDir()
	if err := WriteIndex(dir, &Index{Schema: IndexSchema, Scenario: "s", Axes: []Axis{{Name: "storage", Values: []string{"file"}}}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"schema": "natsperf.run-index/v2"`) || !strings.Contains(string(b), `"name": "storage"`) {
		t.Fatalf("index.json:\n%s", b)
	}
	v1 := `{"schema":"natsperf.run-index/v1","scenario":"s","file":"s.yaml","axes":[{"Name":"storage","Values":["file","memory"]}],"cells":[{"index":0,"name":"storage=file","runs":[]}]}`
	if err := os.WriteFile(filepath.Join(dir, IndexFile), []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err := ReadIndex(dir)
	if err != nil {
		t.Fatalf("v1 index: %v", err)
	}
	if len(ix.Axes) != 1 || ix.Axes[0].Name != "storage" || len(ix.Axes[0].Values) != 2 || len(ix.Cells) != 1 {
		t.Fatalf("v1 index read as %+v", ix)
	}
}
