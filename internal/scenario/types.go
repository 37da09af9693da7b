// Package scenario reads natsperf scenario files: a target, setup (streams, KV buckets), groups
// of workloads that run at the same time, repetitions, and matrix axes whose product is run.
// Every value may use ${var}, ${axis} or ${axis.field}; workloads and streams with instances
// also ${instance}. Validation reports file:line:col and the field of each mistake.
package scenario

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/natsperf/natsperf/spec"
)

// File is one scenario, for one cell of the matrix (all ${...} but ${instance} substituted).
type File struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// Target is a Spec's target (spec.Target, in the Spec's keys; see decode.go for the
	// spellings of the flags that are also taken).
	Target    spec.Target `yaml:"target"`
	Setup     Setup       `yaml:"setup"`
	Workloads []Workload  `yaml:"workloads"`
	// Repetitions of every cell (default 1); Cooldown is the pause between runs.
	Repetitions int      `yaml:"repetitions"`
	Cooldown    Duration `yaml:"cooldown"`
	// Stream writes interval records to DIR/<run>.series.jsonl as they close, instead of keeping
	// them in memory (long runs); "auto" (default) streams runs with --duration of 5m or more.
	Stream string `yaml:"stream"`
	// SLO are thresholds every cell's run must hold (--slo); a workload's own --slo joins them.
	// The report marks the cells that pass.
	SLO []string `yaml:"slo"`
	// slo are SLO as read by check (which refuses a bad one with its line), for the cells'
	// Specs to carry.
	slo []spec.Threshold
	// Capacity, when set, searches each cell's capacity (natsperf capacity) instead of running
	// it once: the highest rate at which every slo holds. Its capacity goes into the index and
	// the report's effects compare it between cells.
	Capacity *Capacity `yaml:"capacity"`

	// Vars and Matrix are read before substitution; kept here so the schema and key checks
	// know them.
	Vars   map[string]string `yaml:"vars"`
	Matrix yaml.Node         `yaml:"matrix"`
}

// Capacity bounds a cell's capacity search, as natsperf capacity's flags do (0: their default).
type Capacity struct {
	Min           float64  `yaml:"min"`
	Max           float64  `yaml:"max"`
	ProbeDuration Duration `yaml:"probe-duration"`
	Warmup        Duration `yaml:"warmup"`
	Repeats       int      `yaml:"repeats"`
	// BisectPrecision is --bisect-precision; Precision its older name, read when it is not set.
	BisectPrecision float64  `yaml:"bisect-precision"`
	Precision       float64  `yaml:"precision"`
	Drain           Duration `yaml:"drain"`
}

// Setup is a Spec's setup (spec.Setup: streams, KV buckets, in the Spec's keys), made afresh
// before each cell's run and removed after it (what natsperf created only). Its streams may
// have instances.
type Setup struct {
	spec.Setup `yaml:",inline"`
	// Streams shadows the Spec's: a setup stream with instances is one per instance.
	Streams []Stream `yaml:"streams"`
}

// Stream is a Spec's setup stream (spec.Stream); with Instances, one per instance
// (${instance} = 1..N).
type Stream struct {
	spec.Stream `yaml:",inline"`
	Instances   int `yaml:"instances"`
}

// Workload is any natsperf benchmark command with its flags, run as Instances copies at once.
type Workload struct {
	Name      string `yaml:"name"`
	Instances int    `yaml:"instances"`
	Command   string `yaml:"command"` // "pubsub foo --js --pub 2"
	Flags     Flags  `yaml:"flags"`   // appended as --name=value

	line int
}

// Flag is one --name=value; true gives --name, false --name=false.
type Flag struct {
	Name, Value string
	Line        int
}

// Flags keep the file's order.
type Flags []Flag

// UnmarshalYAML reads a mapping of flag names to scalar values.
func (f *Flags) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("must be a mapping of flag names to values")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return fmt.Errorf("flag %s: value must be a scalar", k.Value)
		}
		*f = append(*f, Flag{Name: k.Value, Value: v.Value, Line: k.Line})
	}
	return nil
}

// Duration is a Go duration string ("90s", "2m").
type Duration time.Duration

// UnmarshalYAML parses a duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("must be a duration such as 2s or 5m")
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		return fmt.Errorf("%q is not a duration such as 2s or 5m", n.Value)
	}
	*d = Duration(v)
	return nil
}
