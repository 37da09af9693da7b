package scenario

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/natsperf/natsperf/internal/suggest"
	"github.com/natsperf/natsperf/spec"
)

var (
	unmarshaler     = reflect.TypeFor[yaml.Unmarshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	secretType      = reflect.TypeFor[spec.Secret]()
)

// commaLists are the lists a file may also give as one comma-separated string, as the flags
// take them (servers: "nats://a:4222,nats://b:4222").
var commaLists = map[string]bool{"target.servers": true, "target.monitor": true}

// setByRun are the keys of a setup item natsperf run decides: every run makes its setup
// afresh and deletes it after (run --keep keeps it).
var setByRun = map[string]bool{"create": true, "recreate": true, "delete_after": true, "purge": true, "force": true}

// field is where one key of a mapping goes in a struct, and the key errors name it by.
type field struct {
	index []int
	key   string
}

// structFields are the keys a mapping for t takes. A field with a yaml tag is its tag. A
// field of a Spec type (json tags: the target, the setup's items) is its JSON key, and also
// that key spelled as the command-line flag is, "_" as "-" (tls-insecure, connection-name)
// or left out (tlscert, maxbytes): the spellings scenario files used before their target and
// setup were the Spec's. An inline struct's keys join, unless t has them itself.
func structFields(t reflect.Type) map[string]field {
	out := map[string]field{}
	var inline []int
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case f.Anonymous && tag == "" && (opts == "inline" || f.Tag.Get("json") == ""):
			inline = append(inline, i)
		case tag == "-":
		case tag != "":
			out[tag] = field{[]int{i}, tag}
		default:
			key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if key == "" || key == "-" {
				continue
			}
			for _, k := range []string{key, strings.ReplaceAll(key, "_", "-"), strings.ReplaceAll(key, "_", "")} {
				if _, ok := out[k]; !ok {
					out[k] = field{[]int{i}, key}
				}
			}
		}
	}
	for _, i := range inline {
		for k, f := range structFields(t.Field(i).Type) {
			if _, ok := out[k]; !ok {
				out[k] = field{append([]int{i}, f.index...), f.key}
			}
		}
	}
	return out
}

// decode fills f from n field by field, so every mistake is reported with its line and path
// (yaml.v3's Decode stops at the first and knows no field names). It returns each path's node.
func decode(n *yaml.Node, f *File, is *issues) map[string]*yaml.Node {
	pos := map[string]*yaml.Node{"": n}
	walk(n, reflect.ValueOf(f).Elem(), "", pos, is)
	return pos
}

func walk(n *yaml.Node, v reflect.Value, path string, pos map[string]*yaml.Node, is *issues) {
	pos[path] = n
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if v.Addr().Type().Implements(unmarshaler) || v.Type() == reflect.TypeFor[yaml.Node]() {
		if err := n.Decode(v.Addr().Interface()); err != nil {
			is.add(n.Line, n.Column, path, "%s", cleanErr(err))
		}
		return
	}
	if n.Kind == yaml.ScalarNode {
		switch {
		case v.Type() == secretType: // a scenario may hold a password (${var}); no Result shows it
			v.SetString(n.Value)
			return
		case v.Addr().Type().Implements(jsonUnmarshaler): // the Spec's sizes and durations
			raw := []byte(n.Value)
			if t := n.ShortTag(); t != "!!int" && t != "!!float" && t != "!!bool" {
				raw, _ = json.Marshal(n.Value)
			}
			if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
				is.add(n.Line, n.Column, path, "%s", err)
			}
			return
		}
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		walk(n, v.Elem(), path, pos, is)
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			is.add(n.Line, n.Column, path, "must be a mapping")
			return
		}
		fields := structFields(v.Type())
		given := map[string]string{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			f, ok := fields[k.Value]
			switch {
			case !ok:
				is.add(k.Line, k.Column, join(path, k.Value), "unknown field%s", closestField(k.Value, fields))
				continue
			case given[f.key] != "":
				is.add(k.Line, k.Column, join(path, f.key), "given twice (%s and %s)", given[f.key], k.Value)
				continue
			case setByRun[f.key] && strings.HasPrefix(path, "setup."):
				is.add(k.Line, k.Column, join(path, f.key), "natsperf run decides it: every run makes its setup afresh and deletes it after (run --keep keeps it)")
				continue
			}
			given[f.key] = k.Value
			walk(val, v.FieldByIndex(f.index), join(path, f.key), pos, is)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			if v.Type().Elem().Kind() == reflect.String && n.Kind == yaml.ScalarNode { // a single subject
				for _, item := range items(n.Value, commaLists[path]) {
					v.Set(reflect.Append(v, reflect.ValueOf(item).Convert(v.Type().Elem())))
				}
				return
			}
			is.add(n.Line, n.Column, path, "must be a list")
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, e := range n.Content {
			walk(e, s.Index(i), path+"["+itoa(i)+"]", pos, is)
		}
		v.Set(s)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			is.add(n.Line, n.Column, path, "must be a mapping")
			return
		}
		if err := n.Decode(v.Addr().Interface()); err != nil {
			is.add(n.Line, n.Column, path, "%s", cleanErr(err))
		}
	default:
		if n.Kind != yaml.ScalarNode {
			is.add(n.Line, n.Column, path, "must be a single value, not a %s", kindName(n.Kind))
			return
		}
		if err := n.Decode(v.Addr().Interface()); err != nil {
			is.add(n.Line, n.Column, path, "%q is not a valid %s", n.Value, v.Kind())
		}
	}
}

func cleanErr(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n")
	s = strings.TrimSpace(s)
	if i := strings.Index(s, ": "); strings.HasPrefix(s, "line ") && i > 0 {
		s = s[i+2:]
	}
	return s
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "value"
}

// items is a scalar given for a list: itself, or its comma-separated items.
func items(s string, commas bool) []string {
	if !commas {
		return []string{s}
	}
	var out []string
	for _, u := range strings.Split(s, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// closestField names the closest known field, for typos (by the key errors name it with).
func closestField(key string, fields map[string]field) string {
	best, bestD := "", 3
	var names []string
	for k, f := range fields {
		if k == f.key {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, f := range names {
		if d := suggest.Distance(key, f); d < bestD {
			best, bestD = f, d
		}
	}
	if best != "" {
		return " (did you mean " + best + "?)"
	}
	return " (known: " + strings.Join(names, ", ") + ")"
}
