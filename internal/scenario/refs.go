package scenario

import (
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// checkDuplicateKeys reports every key given twice in one mapping, anywhere in the file. YAML
// forbids them, yet a parser into nodes keeps both, and the later one would silently win.
func checkDuplicateKeys(n *yaml.Node, path string, is *issues) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			checkDuplicateKeys(c, path, is)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			checkDuplicateKeys(c, path+"["+itoa(i)+"]", is)
		}
	case yaml.MappingNode:
		first := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			p := join(path, k.Value)
			if line, ok := first[k.Value]; ok {
				is.add(k.Line, k.Column, p, "duplicate key (first at line %d)", line)
			} else {
				first[k.Value] = k.Line
			}
			checkDuplicateKeys(n.Content[i+1], p, is)
		}
	}
}

// checkVarCycles reports each variable that refers back to itself, directly or through other
// variables: expanding it could never end, and it would run with "${a}" left in it. Matrix
// axes are not variables (a reference to an axis ends there).
func checkVarCycles(root *yaml.Node, vars map[string]string, axes []axis, is *issues) {
	isAxis := map[string]bool{}
	for _, a := range axes {
		isAxis[a.name] = true
	}
	refs := func(name string) []string {
		var out []string
		for _, m := range ref.FindAllStringSubmatch(vars[name], -1) {
			if _, ok := vars[m[1]]; ok && !isAxis[m[1]] && m[1] != Instance {
				out = append(out, m[1])
			}
		}
		return out
	}
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	sort.Strings(names)
	_, node := mapGet(root, "vars")
	for _, start := range names {
		if isAxis[start] {
			continue
		}
		// Depth-first from start, looking for a path back to it.
		var cycle []string
		seen := map[string]bool{}
		var visit func(name string, trail []string) bool
		visit = func(name string, trail []string) bool {
			for _, next := range refs(name) {
				if next == start {
					cycle = append(append(trail, name), start)
					return true
				}
				if !seen[next] {
					seen[next] = true
					if visit(next, append(trail, name)) {
						return true
					}
				}
			}
			return false
		}
		if !visit(start, nil) {
			continue
		}
		line, col := 0, 0
		if node != nil {
			if _, v := mapGet(node, start); v != nil {
				line, col = v.Line, v.Column
			}
		}
		is.add(line, col, "vars."+start, "refers to itself (%s)", strings.Join(cycle, " -> "))
	}
}
