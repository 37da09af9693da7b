package scenario

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestSchemaMatchesLoader walks the JSON Schema beside the Go types the loader decodes into
// (the Spec's own target and setup items among them) and checks, at every level, that each
// property is a key the loader takes (an alias marked deprecated) and that each key the
// loader takes in its own spelling is a property: editor completion never offers a field the
// loader rejects, and a field added to spec.Target or a setup item fails here until the
// schema has it.
func TestSchemaMatchesLoader(t *testing.T) {
	b, err := os.ReadFile("../../schema/scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	checked := map[string]bool{}
	var walkSchema func(path string, node map[string]any, typ reflect.Type)
	walkSchema = func(path string, node map[string]any, typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
			if items, ok := node["items"].(map[string]any); ok {
				node = items
			}
		}
		props, ok := node["properties"].(map[string]any)
		if typ.Kind() != reflect.Struct || !ok {
			return
		}
		checked[path] = true
		fields := structFields(typ)
		var want, got []string
		for k, f := range fields {
			if k == f.key && !(setByRun[k] && strings.HasPrefix(path, "setup.")) {
				want = append(want, k)
			}
		}
		for k, p := range props {
			f, ok := fields[k]
			if !ok {
				t.Errorf("%s: the schema has %q, the loader does not take it", path, k)
				continue
			}
			if k != f.key {
				if ref, _ := p.(map[string]any)["$ref"].(string); ref != "#/$defs/alias" {
					t.Errorf("%s: %q is an alias of %s: want it marked with $defs/alias", path, k, f.key)
				}
				continue
			}
			got = append(got, k)
			walkSchema(strings.TrimPrefix(path+"."+k, "."), p.(map[string]any), typ.FieldByIndex(f.index).Type)
		}
		sort.Strings(want)
		sort.Strings(got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: schema properties %v, loader keys %v", path, got, want)
		}
	}
	walkSchema("", schema, reflect.TypeFor[File]())
	for _, p := range []string{"", "target", "target.embedded", "setup", "setup.streams", "setup.buckets", "workloads", "capacity"} {
		if !checked[p] {
			t.Errorf("%q was not compared with its Go type", p)
		}
	}
}
