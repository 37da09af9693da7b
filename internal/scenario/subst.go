package scenario

import (
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ref matches ${name} and ${axis.field}.
var ref = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_-]*))?\}`)

// Instance is the variable resolved per instance of a workload or stream.
const Instance = "instance"

// scope resolves names: variables, then axis values (a value's name, or one of its fields).
type scope struct {
	vars   map[string]string
	fields map[string]map[string]string // axis -> field -> value ("" is the value's name)
}

func (s scope) lookup(name, field string) (string, bool) {
	if f, ok := s.fields[name]; ok {
		v, ok := f[field]
		return v, ok
	}
	if field == "" {
		v, ok := s.vars[name]
		return v, ok
	}
	return "", false
}

// expand substitutes references in v, repeatedly so values may refer to others. ${instance}
// is left for later. Unknown names are returned.
func (s scope) expand(v string) (string, []string) {
	var unknown []string
	for range 8 {
		changed := false
		v = ref.ReplaceAllStringFunc(v, func(m string) string {
			sub := ref.FindStringSubmatch(m)
			if sub[1] == Instance && sub[2] == "" {
				return m
			}
			r, ok := s.lookup(sub[1], sub[2])
			if !ok {
				unknown = append(unknown, strings.TrimSuffix(strings.TrimPrefix(m, "${"), "}"))
				return m
			}
			changed = true
			return r
		})
		if !changed || len(unknown) > 0 {
			break
		}
	}
	return v, unknown
}

// substitute copies n with every scalar expanded; unknown references become issues.
func (s scope) substitute(n *yaml.Node, path string, is *issues) *yaml.Node {
	c := *n
	if n.Kind == yaml.ScalarNode {
		v, unknown := s.expand(n.Value)
		for _, u := range unknown {
			is.add(n.Line, n.Column, path, "unknown variable ${%s} (define it under vars: or matrix:)", u)
		}
		if v != n.Value {
			c.Value = v
			c.Tag = "" // re-resolve: "${replicas}" substituted with 3 is an int
			c.Style = 0
		}
		return &c
	}
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, ch := range n.Content {
		p := path
		switch n.Kind {
		case yaml.MappingNode:
			if i%2 == 1 {
				p = join(path, n.Content[i-1].Value)
			}
		case yaml.SequenceNode:
			p = path + "[" + itoa(i) + "]"
		}
		c.Content[i] = s.substitute(ch, p, is)
	}
	return &c
}

// ExpandInstance substitutes ${instance} in v.
func ExpandInstance(v string, instance int) string {
	return strings.ReplaceAll(v, "${"+Instance+"}", itoa(instance))
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func itoa(i int) string { return strconv.Itoa(i) }
