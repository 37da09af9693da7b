package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// Parse reads a spec in JSON or YAML (JSON when it starts with '{') and checks its version.
// It does not Validate.
func Parse(data []byte) (*Spec, error) {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return ParseJSON(data)
	}
	return ParseYAML(data)
}

// ParseJSON reads a spec in JSON. Unknown keys are refused.
func ParseJSON(data []byte) (*Spec, error) {
	s, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	return s, nil
}

// ParseYAML reads a spec in YAML, with the same keys and checks as JSON: the YAML is read as
// a tree and decoded through the JSON path, so both formats accept and refuse the same specs.
func ParseYAML(data []byte) (*Spec, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	if n.Kind == 0 {
		return nil, errors.New("spec: empty document")
	}
	budget := maxYAMLNodes
	j, err := yamlToJSON(&n, &budget)
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	return ParseJSON(j)
}

// ReadFile reads and validates the spec at path (JSON or YAML).
func ReadFile(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	s, err := Parse(data)
	if err == nil {
		err = s.Validate()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// JSON returns the spec as indented JSON.
func (s *Spec) JSON() ([]byte, error) {
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteJSON writes the spec as indented JSON.
func (s *Spec) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // subjects hold '>'
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("encode spec: %w", err)
	}
	return nil
}

// YAML returns the spec as YAML, with its keys in the order of the JSON form.
func (s *Spec) YAML() ([]byte, error) {
	j, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode spec: %w", err)
	}
	var n yaml.Node
	if err := yaml.Unmarshal(j, &n); err != nil {
		return nil, fmt.Errorf("encode spec: %w", err)
	}
	plain(&n)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, fmt.Errorf("encode spec: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode spec: %w", err)
	}
	return b.Bytes(), nil
}

// plain drops the JSON styles (flow mappings, quoted strings) from a tree read from JSON; the
// encoder still quotes a string that would read back as another type ("true", "12").
func plain(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		plain(c)
	}
}

// specAlias has Spec's fields without its methods.
type specAlias Spec

func decodeJSON(data []byte) (*Spec, error) {
	if e := unknownKey(data, reflect.TypeFor[Spec]()); e != "" {
		return nil, errors.New(e)
	}
	var s Spec
	aux := struct {
		*specAlias
		Workloads []json.RawMessage `json:"workloads"` // decoded one by one to name them in errors
		SLO       []string          `json:"slo"`       // read one by one to name them in errors
	}{specAlias: (*specAlias)(&s)}
	if err := strict(data, &aux); err != nil {
		return nil, err
	}
	if s.Version != Version {
		if s.Version == "" {
			return nil, fmt.Errorf("version: missing (want %q)", Version)
		}
		return nil, fmt.Errorf("version: %q is not supported (want %q)", s.Version, Version)
	}
	for i, raw := range aux.Workloads {
		var w Workload
		if err := w.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("workloads[%d]: %w", i, err)
		}
		s.Workloads = append(s.Workloads, w)
	}
	for i, text := range aux.SLO {
		t, err := ParseThreshold(text)
		if err != nil {
			return nil, &FieldError{Path: fmt.Sprintf("slo[%d]", i), Msg: err.Error()}
		}
		s.SLO = append(s.SLO, t)
	}
	return &s, nil
}

// strict decodes one JSON value into v, refusing unknown keys and trailing data.
func strict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return cleanJSONErr(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the spec")
	}
	return nil
}

// cleanJSONErr makes encoding/json's errors read as the spec's.
func cleanJSONErr(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf("%s: %s is not a valid %s", te.Field, te.Value, te.Type)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if errors.Is(err, errSecret) {
		return errSecret
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// workloadJSON is a Workload's serialised form: the kind first, then its typed config.
type workloadJSON struct {
	Kind      string          `json:"kind"`
	Name      string          `json:"name,omitempty"`
	Instances int             `json:"instances,omitempty"`
	Clients   int             `json:"clients,omitempty"`
	Pacing    Pacing          `json:"pacing,omitzero"`
	Config    json.RawMessage `json:"config,omitempty"`
	Client    string          `json:"client,omitempty"`
	// PayloadFill is Workload's: without it here, a Spec lost its payload_fill when written
	// (natsperf spec, agents) and refused it when read.
	PayloadFill string `json:"payload_fill,omitempty"`
}

// MarshalJSON writes the kind next to the config.
func (w Workload) MarshalJSON() ([]byte, error) {
	if w.Config == nil {
		return nil, errors.New("workload without a config")
	}
	cfg, err := marshal(w.Config)
	if err != nil {
		return nil, err
	}
	return marshal(workloadJSON{Kind: w.Config.Kind(), Name: w.Name, Instances: w.Instances, Clients: w.Clients, Pacing: w.Pacing, Config: cfg, Client: w.Client, PayloadFill: w.PayloadFill})
}

// marshal is json.Marshal without escaping '>' (wildcard subjects).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads the kind, then the config into the kind's type, refusing unknown keys.
func (w *Workload) UnmarshalJSON(data []byte) error {
	var aux workloadJSON
	if err := strict(data, &aux); err != nil {
		return err
	}
	k, ok := kinds[aux.Kind]
	if !ok {
		if aux.Kind == "" {
			return errors.New("kind: missing (one of: " + strings.Join(Kinds(), ", ") + ")")
		}
		return fmt.Errorf("kind: unknown kind %q (one of: %s)", aux.Kind, strings.Join(Kinds(), ", "))
	}
	cfg := k.new()
	if len(aux.Config) > 0 && string(aux.Config) != "null" {
		if err := strict(aux.Config, cfg); err != nil {
			return fmt.Errorf("config (%s): %w", aux.Kind, err)
		}
	}
	*w = Workload{Name: aux.Name, Instances: aux.Instances, Clients: aux.Clients, Pacing: aux.Pacing, Config: cfg, Client: aux.Client, PayloadFill: aux.PayloadFill}
	return nil
}

// maxYAMLNodes bounds the tree an input may expand to through aliases, maxYAMLDepth its
// nesting (a spec is a few levels deep; an alias of its own parent is infinitely deep).
const (
	maxYAMLNodes = 1 << 20
	maxYAMLDepth = 64
)

// yamlToJSON converts a YAML tree to JSON, keeping the mapping order.
func yamlToJSON(n *yaml.Node, budget *int) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, n, budget, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, n *yaml.Node, budget *int, depth int) error {
	if *budget--; *budget < 0 {
		return errors.New("document too large (aliases expand beyond the limit)")
	}
	if depth > maxYAMLDepth {
		return fmt.Errorf("line %d: nested too deeply (an alias inside what it names?)", n.Line)
	}
	depth++
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return errors.New("empty document")
		}
		return writeJSON(b, n.Content[0], budget, depth)
	case yaml.AliasNode:
		return writeJSON(b, n.Alias, budget, depth)
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, c, budget, depth); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case yaml.MappingNode:
		b.WriteByte('{')
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || (k.ShortTag() != "!!str" && k.ShortTag() != "!!int" && k.ShortTag() != "!!bool") {
				return fmt.Errorf("line %d: keys must be plain words", k.Line)
			}
			if k.Value == "<<" {
				return fmt.Errorf("line %d: merge keys (<<) are not supported", k.Line)
			}
			if seen[k.Value] {
				return fmt.Errorf("line %d: key %q appears twice", k.Line, k.Value)
			}
			seen[k.Value] = true
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k.Value)
			b.Write(kb)
			b.WriteByte(':')
			if err := writeJSON(b, n.Content[i+1], budget, depth); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	case yaml.ScalarNode:
		return writeScalar(b, n)
	}
	return fmt.Errorf("line %d: unsupported YAML node", n.Line)
}

func writeScalar(b *bytes.Buffer, n *yaml.Node) error {
	var v any
	switch n.ShortTag() {
	case "!!null":
		b.WriteString("null")
		return nil
	case "!!bool":
		var x bool
		if err := n.Decode(&x); err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		v = x
	case "!!int":
		var x int64
		if err := n.Decode(&x); err != nil {
			return fmt.Errorf("line %d: %q is out of range", n.Line, n.Value)
		}
		v = x
	case "!!float":
		var x float64
		if err := n.Decode(&x); err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Errorf("line %d: %q is not a finite number", n.Line, n.Value)
		}
		v = x
	case "!!str", "!!timestamp", "!!binary":
		v = n.Value
	default:
		return fmt.Errorf("line %d: unsupported tag %s", n.Line, n.Tag)
	}
	j, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	b.Write(j)
	return nil
}
