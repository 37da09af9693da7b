package spec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// unknownKey finds the first key of data (a JSON document) that t does not have, with its path,
// so the error names where it is: `workloads[1].config: unknown field "sizee"`. It returns ""
// when every key is known or data is not JSON (the strict decoder then says why).
func unknownKey(data []byte, t reflect.Type) string {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	return walkKeys(v, t, "")
}

var workloadType = reflect.TypeFor[Workload]()

func walkKeys(v any, t reflect.Type, path string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice:
		items, _ := v.([]any)
		for i, item := range items {
			if e := walkKeys(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); e != "" {
				return e
			}
		}
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		fields := map[string]reflect.Type{}
		if t == workloadType {
			jsonFields(reflect.TypeFor[workloadJSON](), fields)
			kind, _ := obj["kind"].(string)
			if k, ok := kinds[kind]; ok {
				fields["config"] = reflect.TypeOf(k.new())
			} else {
				fields["config"] = reflect.TypeFor[any]() // an unknown kind: the decoder says so
			}
		} else {
			jsonFields(t, fields)
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			ft, ok := fields[k]
			if !ok {
				where := strings.TrimPrefix(path, ".")
				if where == "" {
					return fmt.Sprintf("unknown field %q", k)
				}
				return fmt.Sprintf("%s: unknown field %q", where, k)
			}
			if e := walkKeys(obj[k], ft, path+"."+k); e != "" {
				return e
			}
		}
	}
	return ""
}

// jsonFields adds t's JSON keys and their types, embedded structs' included.
func jsonFields(t reflect.Type, into map[string]reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			jsonFields(f.Type, into)
			continue
		}
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		into[name] = f.Type
	}
}
