package result

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestSchemaMatchesTypes: schema/result.schema.json names exactly the JSON fields of the Go
// types, type by type ($defs are named after the Go types), so a field added here without the
// schema (or the other way round) fails at once, whichever command would produce it.
func TestSchemaMatchesTypes(t *testing.T) {
	b, err := os.ReadFile("../schema/result.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Defs       map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	var rawMsg json.RawMessage
	seen := map[reflect.Type]bool{}
	var check func(typ reflect.Type, props map[string]json.RawMessage)
	check = func(typ reflect.Type, props map[string]json.RawMessage) {
		seen[typ] = true
		var fields []string
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			fields = append(fields, name)
			ft := f.Type
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
				if ft == reflect.TypeOf(rawMsg) {
					break
				}
				ft = ft.Elem()
			}
			if ft.Kind() != reflect.Struct || ft == reflect.TypeOf(time.Time{}) || seen[ft] {
				continue
			}
			def, ok := schema.Defs[ft.Name()]
			if !ok {
				t.Errorf("schema has no $defs/%s (the type of %s.%s)", ft.Name(), typ.Name(), f.Name)
				continue
			}
			check(ft, def.Properties)
		}
		var names []string
		for k := range props {
			names = append(names, k)
		}
		sort.Strings(fields)
		sort.Strings(names)
		if !reflect.DeepEqual(fields, names) {
			t.Errorf("%s: Go fields %v, schema properties %v", typ.Name(), fields, names)
		}
	}
	check(reflect.TypeOf(Result{}), schema.Properties)
}
