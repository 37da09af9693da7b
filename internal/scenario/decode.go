package scenario

import (
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

var unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()

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
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		walk(n, v.Elem(), path, pos, is)
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			is.add(n.Line, n.Column, path, "must be a mapping")
			return
		}
		fields := map[string]int{}
		for i := range v.NumField() {
			if tag := v.Type().Field(i).Tag.Get("yaml"); tag != "" {
				fields[tag] = i
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			idx, ok := fields[k.Value]
			if !ok {
				is.add(k.Line, k.Column, join(path, k.Value), "unknown field%s", suggest(k.Value, fields))
				continue
			}
			walk(val, v.Field(idx), join(path, k.Value), pos, is)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			if v.Type().Elem().Kind() == reflect.String && n.Kind == yaml.ScalarNode { // a single subject
				v.Set(reflect.Append(v, reflect.ValueOf(n.Value)))
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

// suggest names the closest known field, for typos.
func suggest(key string, fields map[string]int) string {
	best, bestD := "", 3
	names := make([]string, 0, len(fields))
	for f := range fields {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		if d := distance(key, f); d < bestD {
			best, bestD = f, d
		}
	}
	if best != "" {
		return " (did you mean " + best + "?)"
	}
	return " (known: " + strings.Join(names, ", ") + ")"
}

// distance is the Levenshtein distance.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
