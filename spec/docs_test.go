package spec

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// codeBlocks returns the fenced blocks of a markdown file marked "LANG spec" (a Spec, not a
// scenario: the scenario examples test reads the plain yaml blocks).
func codeBlocks(t *testing.T, path, lang string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	parts := strings.Split(string(data), "```")
	for i := 1; i < len(parts); i += 2 {
		if body, ok := strings.CutPrefix(parts[i], lang+" spec\n"); ok {
			out = append(out, body)
		}
	}
	return out
}

// TestDocExample: the YAML and JSON examples of docs/spec.md parse, validate, and are the same
// spec.
func TestDocExample(t *testing.T) {
	ys, js := codeBlocks(t, "../docs/spec.md", "yaml"), codeBlocks(t, "../docs/spec.md", "json")
	if len(ys) != 1 || len(js) != 1 {
		t.Fatalf("docs/spec.md has %d yaml and %d json examples, want one each", len(ys), len(js))
	}
	y, err := ParseYAML([]byte(ys[0]))
	if err != nil {
		t.Fatalf("yaml example: %v", err)
	}
	j, err := ParseJSON([]byte(js[0]))
	if err != nil {
		t.Fatalf("json example: %v", err)
	}
	for name, s := range map[string]*Spec{"yaml": y, "json": j} {
		if err := s.Validate(); err != nil {
			t.Errorf("%s example: %v", name, err)
		}
	}
	if !reflect.DeepEqual(y, j) {
		t.Errorf("the examples differ:\nyaml %+v\njson %+v", y, j)
	}
	if ps, ok := y.Workloads[0].Config.(*PubSub); !ok || ps.Size != 1024 || ps.JS == nil || y.Workloads[0].Instances != 3 {
		t.Errorf("yaml example read as %+v", y.Workloads[0])
	}
}
