package scenario

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"testing"
)

// TestSchemaMatchesLoader checks that the JSON Schema names exactly the fields the loader
// knows, at every level, so editor completion never offers a field the loader rejects.
func TestSchemaMatchesLoader(t *testing.T) {
	b, err := os.ReadFile("../../schema/scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	props := func(m map[string]any) []string {
		p, _ := m["properties"].(map[string]any)
		var out []string
		for k := range p {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	fields := func(v any) []string {
		var out []string
		tp := reflect.TypeOf(v)
		for i := range tp.NumField() {
			if tag := tp.Field(i).Tag.Get("yaml"); tag != "" {
				out = append(out, tag)
			}
		}
		sort.Strings(out)
		return out
	}
	sub := func(m map[string]any, path ...string) map[string]any {
		for _, p := range path {
			m = m[p].(map[string]any)
		}
		return m
	}
	for _, tc := range []struct {
		name   string
		schema map[string]any
		typ    any
	}{
		{"file", schema, File{}},
		{"target", sub(schema, "properties", "target"), Target{}},
		{"setup", sub(schema, "properties", "setup"), Setup{}},
		{"stream", sub(schema, "properties", "setup", "properties", "streams", "items"), Stream{}},
		{"bucket", sub(schema, "properties", "setup", "properties", "buckets", "items"), Bucket{}},
		{"workload", sub(schema, "properties", "workloads", "items"), Workload{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := props(tc.schema), fields(tc.typ); !reflect.DeepEqual(got, want) {
				t.Fatalf("schema properties %v, loader fields %v", got, want)
			}
		})
	}
}
