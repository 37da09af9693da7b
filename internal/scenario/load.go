package scenario

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Scenario is a loaded file: its matrix expanded into cells.
type Scenario struct {
	Path  string
	Name  string
	Axes  []Axis
	Cells []Cell
}

// Axis is one matrix dimension.
type Axis struct {
	Name   string   `json:"name"`
	Values []string `json:"values"` // value names
}

// Cell is one point of the matrix with its substituted scenario.
type Cell struct {
	Index  int    // 0-based
	Name   string // "storage=file,replicas=3"; "default" without a matrix
	Values []AxisValue
	File   *File
}

// AxisValue is a cell's value on one axis.
type AxisValue struct{ Axis, Value string }

// Options change what the file says.
type Options struct {
	// Set overrides variables (name=value), or pins a matrix axis to one of its values.
	Set map[string]string
	// CheckCapacity, when set, says whether natsperf capacity can search the workload with
	// these arguments (one fixed-rate workload), for a scenario with capacity:. Arguments
	// that do not parse are reported by the check (cmdline.Workload): it returns nil for them.
	CheckCapacity func(args []string) error
}

// Load reads and validates path.
func Load(path string, opts Options) (*Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	return Parse(path, b, opts)
}

// Parse validates a scenario held in memory; path names it in errors.
func Parse(path string, data []byte, opts Options) (*Scenario, error) {
	is := &issues{file: path}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Error{Issues: []Issue{yamlIssue(path, err)}}
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, &Error{Issues: []Issue{{File: path, Line: 1, Col: 1, Msg: "a scenario is a mapping (name:, target:, workloads:, ...)"}}}
	}
	root := doc.Content[0]
	checkDuplicateKeys(root, "", is)
	if err := is.err(); err != nil {
		return nil, err
	}
	vars := readVars(root, is)
	axes, fields := readMatrix(root, is)
	applySets(opts.Set, vars, &axes, fields, is)
	checkVarCycles(root, vars, axes, is)
	if err := is.err(); err != nil {
		return nil, err
	}
	sc := &Scenario{Path: path}
	for _, ax := range axes {
		sc.Axes = append(sc.Axes, Axis{Name: ax.name, Values: ax.names()})
	}
	combos := product(axes)
	if len(combos) > maxCells {
		return nil, &Error{Issues: []Issue{{File: path, Msg: fmt.Sprintf("matrix: %d cells is more than natsperf runs (%d)", len(combos), maxCells)}}}
	}
	for i, combo := range combos {
		s := scope{vars: map[string]string{}, fields: map[string]map[string]string{}}
		var values []AxisValue
		var names []string
		for j, vi := range combo {
			v := axes[j].values[vi]
			s.fields[axes[j].name] = fields[axes[j].name][vi]
			values = append(values, AxisValue{Axis: axes[j].name, Value: v.name})
			names = append(names, axes[j].name+"="+v.name)
		}
		for k, v := range vars {
			s.vars[k] = v
		}
		for k, v := range s.vars { // variables may refer to axes and to each other
			s.vars[k], _ = s.expand(v)
		}
		sub := s.substitute(root, "", is)
		f := &File{}
		pos := decode(sub, f, is)
		if is.err() != nil {
			continue
		}
		name := strings.Join(names, ",")
		if name == "" {
			name = "default"
		}
		check(f, pos, opts, name, is)
		sc.Cells = append(sc.Cells, Cell{Index: i, Name: name, Values: values, File: f})
		sc.Name = f.Name
	}
	if err := is.err(); err != nil {
		return nil, err
	}
	return sc, nil
}

func yamlIssue(path string, err error) Issue {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if _, e := fmt.Sscanf(msg, "line %d:", &line); e == nil {
		msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
	}
	return Issue{File: path, Line: line, Col: 1, Msg: msg}
}

func mapGet(m *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

func readVars(root *yaml.Node, is *issues) map[string]string {
	out := map[string]string{}
	_, n := mapGet(root, "vars")
	if n == nil {
		return out
	}
	if n.Kind != yaml.MappingNode {
		is.add(n.Line, n.Column, "vars", "must be a mapping of names to values")
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			is.add(v.Line, v.Column, "vars."+k.Value, "must be a scalar")
			continue
		}
		out[k.Value] = v.Value
	}
	return out
}

type axisValue struct {
	name string
	line int
}

type axis struct {
	name   string
	values []axisValue
	line   int
}

func (a axis) names() []string {
	out := make([]string, len(a.values))
	for i, v := range a.values {
		out[i] = v.name
	}
	return out
}

// readMatrix reads axes in file order; a value is a scalar or a mapping with a name.
func readMatrix(root *yaml.Node, is *issues) ([]axis, map[string][]map[string]string) {
	fields := map[string][]map[string]string{}
	_, n := mapGet(root, "matrix")
	if n == nil {
		return nil, fields
	}
	if n.Kind != yaml.MappingNode {
		is.add(n.Line, n.Column, "matrix", "must be a mapping of axis names to lists of values")
		return nil, fields
	}
	var axes []axis
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		path := "matrix." + k.Value
		if !ref.MatchString("${"+k.Value+"}") || k.Value == Instance {
			is.add(k.Line, k.Column, path, "axis names are letters, digits and _ (and not %q)", Instance)
			continue
		}
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			is.add(v.Line, v.Column, path, "must be a non-empty list of values")
			continue
		}
		ax := axis{name: k.Value, line: k.Line}
		seen := map[string]bool{}
		for j, e := range v.Content {
			p := fmt.Sprintf("%s[%d]", path, j)
			f := map[string]string{}
			switch e.Kind {
			case yaml.ScalarNode:
				f[""] = e.Value
			case yaml.MappingNode:
				for x := 0; x+1 < len(e.Content); x += 2 {
					fk, fv := e.Content[x], e.Content[x+1]
					if fv.Kind != yaml.ScalarNode {
						is.add(fv.Line, fv.Column, p+"."+fk.Value, "must be a scalar")
						continue
					}
					f[fk.Value] = fv.Value
				}
				if f["name"] == "" {
					is.add(e.Line, e.Column, p, "a value given as a mapping needs a name:")
				}
				f[""] = f["name"]
			default:
				is.add(e.Line, e.Column, p, "must be a scalar or a mapping with a name")
				continue
			}
			if seen[f[""]] {
				is.add(e.Line, e.Column, p, "duplicate value %q", f[""])
			}
			seen[f[""]] = true
			ax.values = append(ax.values, axisValue{name: f[""], line: e.Line})
			fields[k.Value] = append(fields[k.Value], f)
		}
		axes = append(axes, ax)
	}
	return axes, fields
}

// applySets overrides variables and pins axes.
func applySets(set map[string]string, vars map[string]string, axes *[]axis, fields map[string][]map[string]string, is *issues) {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := set[k]
		found := false
		for i, ax := range *axes {
			if ax.name != k {
				continue
			}
			found = true
			for j, av := range ax.values {
				if av.name == v {
					(*axes)[i].values = []axisValue{av}
					fields[k] = []map[string]string{fields[k][j]}
				}
			}
			if len((*axes)[i].values) != 1 || (*axes)[i].values[0].name != v {
				is.add(0, 0, "--set "+k, "%q is not a value of axis %s (values: %s)", v, k, strings.Join(ax.names(), ", "))
			}
		}
		if _, ok := vars[k]; ok {
			found = true
			vars[k] = v
		}
		if !found {
			is.add(0, 0, "--set "+k, "no variable or matrix axis named %s in the file", k)
		}
	}
}

// maxCells bounds the matrix: a typo must not make a run of years.
const maxCells = 10_000

// product lists every combination of value indexes, the first axis varying slowest.
func product(axes []axis) [][]int {
	out := [][]int{{}}
	for _, ax := range axes {
		if len(out)*len(ax.values) > maxCells {
			return make([][]int, maxCells+1)
		}
		var next [][]int
		for _, c := range out {
			for i := range ax.values {
				next = append(next, append(append([]int(nil), c...), i))
			}
		}
		out = next
	}
	return out
}
